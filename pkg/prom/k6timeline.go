package prom

import (
	"fmt"
	"math"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// MaxLatencySamplesPerStep caps the latency samples Fill makes for one
// step from its histogram (a busy step of a large run holds millions of
// observations); above it the buckets are scaled down in proportion, which
// keeps every percentile and the mean and loses only the count of latency
// samples (requests are counted from k6_http_reqs_total, not from them).
const MaxLatencySamplesPerStep = 20000

// TimelineSource names the samples Fill adds (ingest.Sample.Source).
const TimelineSource = "prometheus"

// Fill adds the run to a timeline accumulator as the samples a k6 file
// would hold, each step's counts spread evenly over its seconds (integer
// counts, by cumulative rounding, so that they add up) and its gauges
// repeated in each:
// http_reqs counts per status, expected_response and error_code,
// iterations, dropped_iterations, the vus and vus_max gauges, data_sent
// and data_received, and, with native histograms, http_req_duration
// samples of the successful responses spread over each bucket (value lo +
// (k + ½)·(hi − lo)/c for the k-th of c observations, the linear
// interpolation histogram_quantile assumes), in ms. Close the accumulator
// with resolution Step (ResolutionNS): the timeline's seconds between
// batches hold no sample, so no analysis sees finer than the store's step.
// Trend stats give no latency samples (they hold no per-window
// distribution); the returned warnings say so.
func (r *K6Run) Fill(acc *timeline.Accumulator) (warnings []string) {
	s := &ingest.Sample{Source: TimelineSource}
	add := func(metric string, at int64, v float64, keys, vals []string) {
		s.Metric, s.TimeNS, s.Value = metric, at, v
		s.Tags = ingest.NewTags(keys, vals, "", "")
		acc.Add(s)
	}
	scaled := 0
	for _, st := range r.Steps {
		secs := int(math.Max(1, math.Round(st.End.Sub(st.Start).Seconds())))
		// at(j) is in the j-th second of the step, counted from its start.
		at := func(j int) int64 { return st.End.UnixNano() - 1 - int64(secs-1-j)*1e9 }
		spread := func(metric string, total float64, keys, vals []string) {
			if total <= 0 {
				return
			}
			for j := 0; j < secs; j++ {
				n := math.Round(total*float64(j+1)/float64(secs)) - math.Round(total*float64(j)/float64(secs))
				if n > 0 {
					add(metric, at(j), n, keys, vals)
				}
			}
		}
		gauge := func(metric string, v float64) {
			if math.IsNaN(v) {
				return
			}
			for j := 0; j < secs; j++ {
				add(metric, at(j), v, nil, nil)
			}
		}
		spread("iterations", st.Iterations, nil, nil)
		spread("dropped_iterations", st.DroppedIterations, nil, nil)
		gauge("vus", st.VUs)
		gauge("vus_max", st.VUsMax)
		spread("data_sent", st.BytesSent, nil, nil)
		spread("data_received", st.BytesReceived, nil, nil)
		for _, g := range st.Groups {
			keys := []string{"expected_response", "status"}
			vals := []string{g.ExpectedResponse, g.Status}
			if g.ErrorCode != "" {
				keys, vals = append(keys, "error_code"), append(vals, g.ErrorCode)
			}
			spread("http_reqs", g.Count, keys, vals)
		}
		if st.Latency == nil {
			continue
		}
		f := 1.0
		if st.Latency.Count > MaxLatencySamplesPerStep {
			f = MaxLatencySamplesPerStep / st.Latency.Count
			scaled++
		}
		okKeys, okVals := []string{"expected_response"}, []string{"true"}
		n := 0
		for _, b := range st.Latency.Buckets {
			c := int(math.Round(b.Count * f))
			lo, hi := 1000*math.Max(b.Lower, 0), 1000*b.Upper
			for k := 0; k < c; k++ {
				add("http_req_duration", at(n%secs), lo+(float64(k)+0.5)*(hi-lo)/float64(c), okKeys, okVals)
				n++
			}
		}
	}
	if scaled > 0 {
		warnings = append(warnings, fmt.Sprintf("%d steps had more than %d successful responses: their latency samples were scaled down in proportion (percentiles kept, latency sample counts not)", scaled, MaxLatencySamplesPerStep))
	}
	if r.LatencySource == "trend-stats" {
		warnings = append(warnings, "no latency samples: trend stats are cumulative and give no per-step distribution (per-step means are in K6Run.Steps[].MeanMS)")
	}
	return warnings
}
