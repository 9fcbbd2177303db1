package prom

import (
	"math"
	"testing"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// rampRun is three 5 s steps of a ramp, 10 → 20 → 30 iterations/s (50,
// 100, 150 iterations), every iteration one successful request of "a" in
// scenario "s", its latency two native-histogram buckets (in seconds: 40
// % in (0.010, 0.011], 60 % in (0.020, 0.0218]), busy VUs 2, 4, 6.
func rampRun() *K6Run {
	t0 := time.Unix(1_800_000_000, 50e6) // pushes at .05 s
	r := &K6Run{Start: t0, End: t0.Add(15 * time.Second), Step: 5 * time.Second, LatencySource: "native-histograms"}
	for i, n := range []float64{50, 100, 150} {
		st := K6Step{Start: t0.Add(time.Duration(i) * 5 * time.Second), End: t0.Add(time.Duration(i+1) * 5 * time.Second),
			Iterations: n, Requests: n, OK: n, VUs: float64(2 * (i + 1)), VUsMax: 10}
		st.scenario("s").Iterations = n
		st.Groups = []RequestGroup{{ExpectedResponse: "true", Status: "200", Name: "a", Scenario: "s", Count: n}}
		h := HistogramPoint{Count: n, Buckets: []Bucket{{Lower: 0.010, Upper: 0.011, Count: 0.4 * n}, {Lower: 0.020, Upper: 0.0218, Count: 0.6 * n}}}
		st.Durations = []DurationGroup{{Name: "a", Status: "200", ExpectedResponse: "true", Scenario: "s", Histogram: h}}
		r.Steps = append(r.Steps, st)
	}
	return r
}

// Fill spreads each step over the seconds its observations fell in, from
// the step's start, along the load's profile: the first and last steps
// have a neighbour on one side only, so they stay flat (10 and 30 a
// second); the middle one lies on the ramp, minmod slope 50 a step, so its
// seconds weigh 100 + 50·((j + ½)/5 − ½) = 80, 90, 100, 110, 120: 16, 18,
// 20, 22, 24 iterations (hand-checked; 100 in all). Requests and latency
// observations follow the same profile; the vus gauge goes in a straight
// line from 2 to 4 over the middle step (2.4 … 4.0); every step's totals
// are exact; the timeline's resolution is the step.
func TestFillProfile(t *testing.T) {
	r := rampRun()
	for _, only := range []bool{false, true} {
		acc := timeline.New(timeline.Options{Metric: "http_req_duration"})
		if only {
			r.FillScenario(acc, "s")
		} else {
			r.Fill(acc)
		}
		tl := acc.Close(r.ResolutionNS())
		if tl.ResolutionNS() != 5e9 {
			t.Errorf("resolution %d, want the step", tl.ResolutionNS())
		}
		first := int64(1_800_000_000)
		want := []uint64{10, 10, 10, 10, 10, 16, 18, 20, 22, 24, 30, 30, 30, 30, 30}
		wantVUs := []float64{2, 2, 2, 2, 2, 2.4, 2.8, 3.2, 3.6, 4}
		for j, w := range want {
			s, ok := tl.Second(first + int64(j))
			if !ok || s.Iterations != w || s.Requests != w || s.OK != w || s.MetricSamples != w {
				t.Errorf("only %v, second %d: iterations %d, requests %d, ok %d, latency samples %d; want %d", only, j, s.Iterations, s.Requests, s.OK, s.MetricSamples, w)
			}
			if j < len(wantVUs) && math.Abs(s.VUs-wantVUs[j]) > 1e-9 {
				t.Errorf("second %d: vus %v, want %v", j, s.VUs, wantVUs[j])
			}
		}
		if sc := tl.Scenarios(); len(sc) != 1 || sc[0] != "s" {
			t.Errorf("scenarios %v, want [s]", sc)
		}
		// The middle step's latency: 40 of its 100 requests in 10–11 ms,
		// 60 in 20–21.8 ms (each second's share of each bucket spread over
		// it), so its p50 (rank 49.5) is in the upper bucket, its p25 in
		// the lower.
		lat := tl.Latency(first+5, first+10)
		if p50, p25 := lat.Quantile(0.5), lat.Quantile(0.25); lat.Count() != 100 || p50 < 20 || p50 > 21.8 || p25 < 10 || p25 > 11 || lat.Min() < 10 || lat.Max() > 21.8 {
			t.Errorf("middle step latency: %d samples, p25 %v, p50 %v, min %v, max %v; want 100, in 10–11, in 20–21.8", lat.Count(), p25, p50, lat.Min(), lat.Max())
		}
	}
	if sc := r.ScenarioNames(); len(sc) != 1 || sc[0] != "s" {
		t.Errorf("ScenarioNames %v", sc)
	}
}

// Trend stats give one bucket of width zero at the step's mean: every
// percentile of the step is that mean, and Fill says so.
func TestFillTrendStatsMean(t *testing.T) {
	r := rampRun()
	r.LatencySource = "trend-stats"
	for i := range r.Steps {
		n := r.Steps[i].Iterations
		r.Steps[i].Durations[0].Mean = true
		r.Steps[i].Durations[0].Histogram = HistogramPoint{Count: n, Sum: n * 0.025, Buckets: []Bucket{{Boundaries: 3, Lower: 0.025, Upper: 0.025, Count: n}}}
	}
	acc := timeline.New(timeline.Options{Metric: "http_req_duration"})
	warns := r.Fill(acc)
	tl := acc.Close(r.ResolutionNS())
	lat := tl.Latency(0, math.MaxInt64/2)
	if lat.Count() != 300 || lat.Quantile(0.95) != 25 || lat.Quantile(0.5) != 25 {
		t.Errorf("latency %d samples, p50 %v, p95 %v; want 300 at 25 ms", lat.Count(), lat.Quantile(0.5), lat.Quantile(0.95))
	}
	if len(warns) != 1 || !contains(warns[0], "percentiles of per-step means") || !contains(warns[0], "K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true") {
		t.Errorf("warnings %q", warns)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
