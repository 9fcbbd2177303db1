package prom

import (
	"math"
	"sort"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// TimelineSource names the samples Fill adds (ingest.Sample.Source).
const TimelineSource = "prometheus"

// zeroMS is the bound below which a bucket's observations count as 0 ms:
// a native histogram's zero bucket ([−2⁻¹²⁸, 2⁻¹²⁸] s in k6) and anything
// under a nanosecond.
const zeroMS = 1e-6

// Fill adds the run to a timeline accumulator as a k6 file of the same
// run would, each step's counts spread over its seconds (the seconds its
// observations fell in, from its start) along the load's profile within
// the step (profiles: flat on a plateau, sloped on a ramp; integer counts
// by cumulative rounding, so that every step's totals are exact) and its
// gauges drawn in a straight line from the step's start to its end:
// http_reqs counts per status, expected_response, error_code, name and
// scenario; the checks, one sample per check (K6Step.Checks: derived
// from a running ratio, see the warnings); iterations, dropped_iterations, data_sent and data_received
// per scenario; the vus and vus_max gauges; and the http_req_duration and
// iteration_duration observations, given to the accumulator as
// histograms (timeline.Accumulator.AddHistogram: exact, at the cost of the
// buckets), in ms. Close the accumulator with resolution Step
// (ResolutionNS): no analysis then sees finer than the store's step.
//
// With trend stats (no native histograms) a step's observations are its
// mean, Δ(avg·count) ÷ Δcount per request group: the timeline's
// percentiles are then percentiles of per-step means, not of requests; the
// returned warnings say so.
func (r *K6Run) Fill(acc *timeline.Accumulator) (warnings []string) {
	r.fill(acc, "", false)
	return r.fillWarnings()
}

// FillScenario is Fill for one scenario of the run (ScenarioNames): the
// series of that scenario label, and the vus and vus_max gauges (which
// have no scenario label, as in a k6 file) over the steps from one before
// the scenario's first to one after its last, as pipeline's per-scenario
// analysis routes a file's samples.
func (r *K6Run) FillScenario(acc *timeline.Accumulator, name string) (warnings []string) {
	r.fill(acc, name, true)
	return r.fillWarnings()
}

// MeansOnly reports whether the run's latency is known only by each
// step's mean (trend stats without native histograms): its percentiles
// are of per-step means.
func (r *K6Run) MeansOnly() bool { return r.LatencySource == "trend-stats" }

// ResolutionNS is the timeline resolution Fill gives: the step, ns.
func (r *K6Run) ResolutionNS() int64 { return int64(r.Step) }

func (r *K6Run) fillWarnings() []string {
	if r.LatencySource == "trend-stats" {
		return []string{"latency from trend stats: k6 streamed no native histograms, so each step's requests are known only by their mean (Δ(avg·count) ÷ Δcount): the p50/p90/p95/p99 of windows and levels are percentiles of per-step means, not of requests, and understate the tail; stream with K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true for real percentiles"}
	}
	return nil
}

// ScenarioNames are the scenario labels of the run's iterations and
// requests, sorted.
func (r *K6Run) ScenarioNames() []string {
	seen := map[string]bool{}
	for i := range r.Steps {
		for sc := range r.Steps[i].Scenarios {
			seen[sc] = true
		}
		for _, g := range r.Steps[i].Groups {
			if g.Scenario != "" {
				seen[g.Scenario] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for sc := range seen {
		out = append(out, sc)
	}
	sort.Strings(out)
	return out
}

// scenarioSteps is the range [first, last] of the steps with iterations
// or requests of scenario name, widened by one step each way; ok false
// when there is none.
func (r *K6Run) scenarioSteps(name string) (first, last int, ok bool) {
	for i := range r.Steps {
		st := &r.Steps[i]
		busy := false
		if sc := st.Scenarios[name]; sc != nil && sc.Iterations+sc.DroppedIterations > 0 {
			busy = true
		}
		for _, g := range st.Groups {
			busy = busy || (g.Scenario == name && g.Count > 0)
		}
		if busy {
			if !ok {
				first = i
			}
			last, ok = i, true
		}
	}
	return max(first-1, 0), min(last+1, len(r.Steps)-1), ok
}

// profiles are, per step, the cumulative shares of its seconds in its
// observations (profile[j] of the seconds before j; profile[secs] = 1):
// the load's per-second profile within the step, reconstructed linearly
// from the offered load (iterations + dropped, else requests) of the step
// and its neighbours, with the slope limited by minmod (the smaller of the
// slopes to each neighbour, 0 when they differ in sign: van Leer 1979,
// MUSCL), so that a plateau stays flat, a linear ramp is recovered as a
// ramp, and no second's share is negative. The step's totals are exact
// whatever the profile.
func (r *K6Run) profiles() [][]float64 {
	load := make([]float64, len(r.Steps))
	anyIter := false
	for i := range r.Steps {
		load[i] = r.Steps[i].Iterations + r.Steps[i].DroppedIterations
		anyIter = anyIter || load[i] > 0
	}
	if !anyIter {
		for i := range r.Steps {
			load[i] = r.Steps[i].Requests
		}
	}
	out := make([][]float64, len(r.Steps))
	for i := range r.Steps {
		st := &r.Steps[i]
		secs := int(math.Max(1, math.Round(st.End.Sub(st.Start).Seconds())))
		slope := 0.0
		if i > 0 && i+1 < len(r.Steps) {
			l, h := load[i]-load[i-1], load[i+1]-load[i]
			if l*h > 0 {
				slope = math.Copysign(math.Min(math.Abs(l), math.Abs(h)), l)
			}
		}
		cum := make([]float64, secs+1)
		for j := range secs {
			w := load[i] + slope*((float64(j)+0.5)/float64(secs)-0.5)
			if !(w > 0) || load[i] <= 0 {
				w = 0
			}
			cum[j+1] = cum[j] + w
		}
		for j := range cum {
			if cum[secs] > 0 {
				cum[j] /= cum[secs]
			} else {
				cum[j] = float64(j) / float64(secs)
			}
		}
		out[i] = cum
	}
	return out
}

// part is the j-th integer part of total by the cumulative shares cum
// (cumulative rounding: the parts add up to the rounded total).
func part(total float64, cum []float64, j int) float64 {
	return math.Round(total*cum[j+1]) - math.Round(total*cum[j])
}

// fill adds the run, or (only) the part of scenario name, to acc.
func (r *K6Run) fill(acc *timeline.Accumulator, name string, only bool) {
	s := &ingest.Sample{Source: TimelineSource}
	var keys, vals []string
	tag := func(k, v string) {
		if v != "" {
			keys, vals = append(keys, k), append(vals, v)
		}
	}
	add := func(metric string, at int64, v float64) {
		s.Metric, s.TimeNS, s.Value = metric, at, v
		s.Tags = ingest.NewTags(keys, vals, "", "")
		acc.Add(s)
	}
	gFirst, gLast := 0, len(r.Steps)-1
	if only {
		var ok bool
		if gFirst, gLast, ok = r.scenarioSteps(name); !ok {
			return
		}
	}
	var buckets []timeline.HistogramBucket
	prof := r.profiles()
	for i := range r.Steps {
		st := &r.Steps[i]
		cum := prof[i]
		secs := len(cum) - 1
		// at(j) is in the j-th second of the step, counted from its start:
		// the seconds its observations fell in.
		at := func(j int) int64 { return st.Start.UnixNano() + int64(j)*1e9 }
		spread := func(metric string, total float64) {
			for j := range secs {
				if n := part(total, cum, j); n > 0 {
					add(metric, at(j), n)
				}
			}
		}
		// A gauge is sampled at the step's end: its seconds go from the
		// previous sample to this one in a straight line (a jump at one
		// second would be a burst of in-flight growth there).
		gauge := func(metric string, prev, v float64) {
			if math.IsNaN(v) || i < gFirst || i > gLast {
				return
			}
			if math.IsNaN(prev) {
				prev = v
			}
			for j := range secs {
				add(metric, at(j), prev+(v-prev)*float64(j+1)/float64(secs))
			}
		}
		keys, vals = keys[:0], vals[:0]
		prevVUs, prevMax := math.NaN(), math.NaN()
		if i > 0 {
			prevVUs, prevMax = r.Steps[i-1].VUs, r.Steps[i-1].VUsMax
		}
		gauge("vus", prevVUs, st.VUs)
		gauge("vus_max", prevMax, st.VUsMax)
		// Per scenario where the series have the label; the rest untagged.
		var its, drop, sent, recv float64
		names := make([]string, 0, len(st.Scenarios))
		for sc := range st.Scenarios {
			names = append(names, sc)
		}
		sort.Strings(names)
		for _, sc := range names {
			if only && sc != name {
				continue
			}
			c := st.Scenarios[sc]
			keys, vals = keys[:0], vals[:0]
			tag("scenario", sc)
			spread("iterations", c.Iterations)
			spread("dropped_iterations", c.DroppedIterations)
			spread("data_sent", c.BytesSent)
			spread("data_received", c.BytesReceived)
			its, drop, sent, recv = its+c.Iterations, drop+c.DroppedIterations, sent+c.BytesSent, recv+c.BytesReceived
		}
		if !only {
			keys, vals = keys[:0], vals[:0]
			spread("iterations", st.Iterations-its)
			spread("dropped_iterations", st.DroppedIterations-drop)
			spread("data_sent", st.BytesSent-sent)
			spread("data_received", st.BytesReceived-recv)
		}
		for _, g := range st.Groups {
			if only && g.Scenario != name {
				continue
			}
			keys, vals = keys[:0], vals[:0]
			tag("expected_response", g.ExpectedResponse)
			tag("status", g.Status)
			tag("error_code", g.ErrorCode)
			tag("name", g.Name)
			tag("scenario", g.Scenario)
			spread("http_reqs", g.Count)
		}
		for _, c := range st.Checks {
			if only && c.Scenario != name {
				continue
			}
			keys, vals = keys[:0], vals[:0]
			tag("check", c.Check)
			tag("group", c.Group)
			tag("scenario", c.Scenario)
			for j := range secs {
				for n := part(c.Pass, cum, j); n > 0; n-- {
					add("checks", at(j), 1)
				}
				for n := part(c.Fail, cum, j); n > 0; n-- {
					add("checks", at(j), 0)
				}
			}
		}
		for _, d := range []struct {
			metric string
			groups []DurationGroup
		}{{"http_req_duration", st.Durations}, {"iteration_duration", st.IterationDurations}} {
			for _, g := range d.groups {
				if only && g.Scenario != name {
					continue
				}
				keys, vals = keys[:0], vals[:0]
				tag("expected_response", g.ExpectedResponse)
				tag("status", g.Status)
				tag("name", g.Name)
				tag("scenario", g.Scenario)
				s.Metric, s.Value = d.metric, 0
				s.Tags = ingest.NewTags(keys, vals, "", "")
				for j := range secs {
					buckets = buckets[:0]
					for _, b := range g.Histogram.Buckets {
						c := part(b.Count, cum, j)
						if c <= 0 {
							continue
						}
						lo, hi := 1000*math.Max(b.Lower, 0), 1000*math.Max(b.Upper, 0)
						if hi < zeroMS {
							lo, hi = 0, 0
						}
						buckets = append(buckets, timeline.HistogramBucket{Lower: lo, Upper: hi, Count: uint64(c)})
					}
					s.TimeNS = at(j)
					acc.AddHistogram(s, buckets)
				}
			}
		}
	}
}
