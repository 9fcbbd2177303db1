// Package window aggregates one metric's samples into fixed, epoch-aligned
// time windows, per tag set: count, rate, mean, min, max and percentiles
// from a mergeable sketch (package sketch), plus the failed requests of the
// same window and tag set.
//
// It is an accumulator in the style of vegeta's Metrics: Add every sample,
// then Close computes the rows once.
package window

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/sketch"
)

// Options configure an Aggregator.
type Options struct {
	// Metric is the metric to aggregate, e.g. "http_req_duration".
	Metric string
	// WidthNS is the window width in nanoseconds (> 0). Windows start at
	// multiples of WidthNS since the Unix epoch.
	WidthNS int64
	// By lists the tag keys that split the windows, e.g. ["name"]; empty
	// means one group per window.
	By []string
	// Percentiles are the quantiles to report, in percent (e.g. 95 for
	// p95). Empty means DefaultPercentiles.
	Percentiles []float64
}

// DefaultPercentiles are p50, p90, p95 and p99.
var DefaultPercentiles = []float64{50, 90, 95, 99}

// Aggregator accumulates samples into windows. Its zero value is not
// usable; call New.
type Aggregator struct {
	opt Options
	// minNS and maxNS bound the samples seen, so that the first and last
	// windows' rates are per second of data, not of window width.
	minNS, maxNS int64
	any          bool
	groups       map[key]*cell
	names        map[string][]string // group string → tag values
	vals         []string
	sb           strings.Builder
}

type key struct {
	window int64 // window start, ns
	group  string
}

type cell struct {
	sk     sketch.Sketch
	failed uint64
}

// New returns an Aggregator. It returns an error when the options cannot
// work (no metric, a width ≤ 0, a percentile outside (0, 100]).
func New(opt Options) (*Aggregator, error) {
	if opt.Metric == "" {
		return nil, fmt.Errorf("window: no metric given")
	}
	if opt.WidthNS <= 0 {
		return nil, fmt.Errorf("window: width must be positive, got %dns", opt.WidthNS)
	}
	if len(opt.Percentiles) == 0 {
		opt.Percentiles = DefaultPercentiles
	}
	for _, p := range opt.Percentiles {
		if !(p > 0 && p <= 100) {
			return nil, fmt.Errorf("window: percentile %v outside (0, 100]", p)
		}
	}
	return &Aggregator{opt: opt, groups: map[key]*cell{}, names: map[string][]string{}, vals: make([]string, len(opt.By))}, nil
}

// Add adds a sample. Samples of Options.Metric go to their window and
// group; http_req_failed samples with value 1 count as failed in theirs;
// other samples are ignored.
func (a *Aggregator) Add(s *ingest.Sample) {
	failed := false
	if s.Metric != a.opt.Metric {
		if s.Metric != "http_req_failed" || s.Value == 0 {
			return
		}
		failed = true
	}
	if !a.any || s.TimeNS < a.minNS {
		a.minNS = s.TimeNS
	}
	if !a.any || s.TimeNS > a.maxNS {
		a.maxNS = s.TimeNS
	}
	a.any = true
	w := floorDiv(s.TimeNS, a.opt.WidthNS) * a.opt.WidthNS
	g := a.group(s)
	c := a.groups[key{w, g}]
	if c == nil {
		c = &cell{}
		a.groups[key{w, g}] = c
	}
	if failed {
		c.failed++
		return
	}
	c.sk.Add(s.Value)
}

func (a *Aggregator) group(s *ingest.Sample) string {
	switch len(a.opt.By) {
	case 0:
		return ""
	case 1:
		v, _ := s.Tags.Get(a.opt.By[0])
		if _, ok := a.names[v]; !ok {
			a.names[v] = []string{v}
		}
		return v
	}
	a.sb.Reset()
	for i, k := range a.opt.By {
		v, _ := s.Tags.Get(k)
		a.vals[i] = v
		if i > 0 {
			a.sb.WriteByte(0)
		}
		a.sb.WriteString(v)
	}
	g := a.sb.String()
	if _, ok := a.names[g]; !ok {
		a.names[g] = slices.Clone(a.vals)
	}
	return g
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && (a < 0) {
		q--
	}
	return q
}

// Row is one window of one tag set. Durations are in the metric's unit
// (ms for time trends).
type Row struct {
	// StartNS is the window start in ns since the epoch.
	StartNS int64
	// Tags are the values of Options.By, in order ("" when absent).
	Tags []string
	// Count is the number of samples of the metric.
	Count uint64
	// Rate is Count per second of data in the window: the window width,
	// except for the run's first and last windows, which count only the
	// seconds (at 1 s granularity) the run covers.
	Rate float64
	// Seconds is the span Rate divides by, s.
	Seconds float64
	// Mean, Min and Max of the values; NaN when Count is 0.
	Mean, Min, Max float64
	// Percentiles are the values at Options.Percentiles, in order.
	Percentiles []float64
	// Failed counts http_req_failed samples with value 1.
	Failed uint64
	// Exact reports whether the percentiles are exact.
	Exact bool
}

// Close returns the rows ordered by window then tag values.
func (a *Aggregator) Close() []Row {
	qs := make([]float64, len(a.opt.Percentiles))
	for i, p := range a.opt.Percentiles {
		qs[i] = p / 100
	}
	rows := make([]Row, 0, len(a.groups))
	// The run covers the whole seconds from its first sample's to its
	// last's.
	runStart := floorDiv(a.minNS, 1e9) * 1e9
	runEnd := (floorDiv(a.maxNS, 1e9) + 1) * 1e9
	for k, c := range a.groups {
		sec := float64(min(k.window+a.opt.WidthNS, runEnd)-max(k.window, runStart)) / 1e9
		if sec <= 0 {
			sec = float64(a.opt.WidthNS) / 1e9
		}
		tags := a.names[k.group]
		if tags == nil {
			tags = []string{}
		}
		rows = append(rows, Row{
			StartNS: k.window, Tags: tags, Count: c.sk.Count(),
			Rate: float64(c.sk.Count()) / sec, Seconds: sec, Mean: c.sk.Mean(), Min: c.sk.Min(), Max: c.sk.Max(),
			Percentiles: c.sk.Quantiles(qs), Failed: c.failed, Exact: c.sk.Exact(),
		})
	}
	slices.SortFunc(rows, func(x, y Row) int {
		if x.StartNS != y.StartNS {
			if x.StartNS < y.StartNS {
				return -1
			}
			return 1
		}
		return slices.Compare(x.Tags, y.Tags)
	})
	return rows
}

// Merge adds o's windows to a, as if a had been given o's samples too
// (sketches merge exactly). o must have the same options; it is not
// changed.
func (a *Aggregator) Merge(o *Aggregator) {
	if o.any {
		if !a.any || o.minNS < a.minNS {
			a.minNS = o.minNS
		}
		if !a.any || o.maxNS > a.maxNS {
			a.maxNS = o.maxNS
		}
		a.any = true
	}
	for k, oc := range o.groups {
		c := a.groups[k]
		if c == nil {
			c = &cell{}
			a.groups[k] = c
		}
		c.sk.Merge(&oc.sk)
		c.failed += oc.failed
	}
	for g, tags := range o.names {
		if _, ok := a.names[g]; !ok {
			a.names[g] = tags
		}
	}
}
