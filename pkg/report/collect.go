package report

import (
	"fmt"
	"slices"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/window"
)

// CollectorOptions configure a Collector. The zero value works.
type CollectorOptions struct {
	// Metric is the latency Trend of the per-endpoint table, in ms
	// (default "http_req_duration").
	Metric string
	// EndpointTag is the tag that names an endpoint (default "name", which
	// k6 sets to the URL unless the script names the request).
	EndpointTag string
	// Percentiles of the per-endpoint table, in percent (default p50,
	// p95, p99).
	Percentiles []float64
}

// maxScenarios bounds how many scenario names the Collector keeps.
const maxScenarios = 50

// Collector accumulates what a report needs that knee.Collector does not
// keep: the metric per endpoint over the whole run, failed responses per
// second and status, the run's span and its scenario names. Add every
// sample, then pass it to Build.
//
// Memory grows with the number of endpoints and with seconds × failing
// statuses, not with rows.
type Collector struct {
	opt       CollectorOptions
	endpoints *window.Aggregator
	// failed counts http_reqs samples of failed responses per
	// (second since the epoch, status).
	failed       map[secondStatus]uint64
	minNS, maxNS int64
	any          bool
	scenarios    []string
}

type secondStatus struct {
	sec    int64
	status string
}

// wholeRunNS is a window width longer than any run, so the endpoint
// aggregator keeps one window per endpoint.
const wholeRunNS = int64(1) << 62

// NewCollector returns an empty Collector. It returns an error when a
// percentile is outside (0, 100].
func NewCollector(opt CollectorOptions) (*Collector, error) {
	if opt.Metric == "" {
		opt.Metric = "http_req_duration"
	}
	if opt.EndpointTag == "" {
		opt.EndpointTag = "name"
	}
	if len(opt.Percentiles) == 0 {
		opt.Percentiles = []float64{50, 95, 99}
	}
	agg, err := window.New(window.Options{Metric: opt.Metric, WidthNS: wholeRunNS, By: []string{opt.EndpointTag}, Percentiles: opt.Percentiles})
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return &Collector{opt: opt, endpoints: agg, failed: map[secondStatus]uint64{}}, nil
}

// Add adds one sample. It keeps nothing of s beyond the call but interned
// tag values.
func (c *Collector) Add(s *ingest.Sample) {
	if !c.any || s.TimeNS < c.minNS {
		c.minNS = s.TimeNS
	}
	if !c.any || s.TimeNS > c.maxNS {
		c.maxNS = s.TimeNS
	}
	c.any = true
	c.endpoints.Add(s)
	if s.Metric != "http_reqs" {
		return
	}
	if sc, ok := s.Tags.Get("scenario"); ok && sc != "" && len(c.scenarios) < maxScenarios && !slices.Contains(c.scenarios, sc) {
		c.scenarios = append(c.scenarios, sc)
	}
	status, _ := s.Tags.Get("status")
	if !failedResponse(s, status) {
		return
	}
	if status == "" {
		status = "none"
	}
	c.failed[secondStatus{floorDiv(s.TimeNS, 1e9), status}]++
}

// failedResponse says whether an http_reqs sample is a failed response:
// expected_response=false when k6 wrote that tag, else a status of 0
// (no response) or ≥ 400.
// Err returns why the endpoint rows cannot be trusted (window.Aggregator
// Err), or nil; check it after Build.
func (c *Collector) Err() error { return c.endpoints.Err() }

// Merge adds everything o collected to c, as if c had been given o's
// samples too (the parallel readers' collectors of one run). o must have
// the same options and is not used afterwards. Past 50 scenarios the ones
// listed depend on which reader saw them first.
func (c *Collector) Merge(o *Collector) {
	if o.any {
		if !c.any || o.minNS < c.minNS {
			c.minNS = o.minNS
		}
		if !c.any || o.maxNS > c.maxNS {
			c.maxNS = o.maxNS
		}
		c.any = true
	}
	c.endpoints.Merge(o.endpoints)
	for k, n := range o.failed {
		c.failed[k] += n
	}
	for _, sc := range o.scenarios {
		if len(c.scenarios) < maxScenarios && !slices.Contains(c.scenarios, sc) {
			c.scenarios = append(c.scenarios, sc)
		}
	}
}

func failedResponse(s *ingest.Sample, status string) bool {
	if exp, ok := s.Tags.Get("expected_response"); ok && exp != "" {
		return exp == "false"
	}
	return status == "" || status == "0" || status >= "400" && len(status) == 3
}

// AutoWindowNS is a window width, in ns, that cuts the run seen so far into
// about target windows: whole seconds, at least resolutionNS and 1 s.
func (c *Collector) AutoWindowNS(resolutionNS int64, target int) int64 {
	if target < 1 {
		target = 1
	}
	span := int64(0)
	if c.any {
		span = c.maxNS - c.minNS + max(resolutionNS, 1e9)
	}
	w := (span/int64(target) + 1e9 - 1) / 1e9 * 1e9
	r := (resolutionNS + 1e9 - 1) / 1e9 * 1e9
	return max(w, r, 1e9)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}
