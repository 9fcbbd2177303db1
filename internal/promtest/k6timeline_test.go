package promtest

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
	"github.com/ldanalyze/ldanalyze/pkg/prom"
)

// fromProm replays a corpus run into a fresh Prometheus and analyses it
// through the pipeline's Prometheus source, live, at the store's step (the
// push interval found in the data), with the run's window found from
// k6_iterations_total; and analyses the CSV of the same run.
func fromProm(t *testing.T, name string) (live, csv *pipeline.Analysis) {
	t.Helper()
	s := Start(t, Options{})
	s.ReplayCorpus(t, corpus+name+".prom_query_range.json.gz")
	src, err := pipeline.OpenPrometheus(s.URL, prom.ClientOptions{Timeout: 30 * time.Second}, prom.K6Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	live, err = pipeline.RunSource(ctx, src, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	csv, err = pipeline.Run([]string{corpus + name + ".csv.gz"}, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return live, csv
}

// The same run read from Prometheus and from its CSV gives the same
// analysis, within what a 5 s step can tell: the same model, about the
// same number of load levels, the knee's offered load within one step of
// the ramp (offered grows 2.167 it/s per second, README "Schedule": 10.8
// it/s a step) and inside the README's 170–190 it/s from both, the
// ceiling within 5 %, as many http_req_duration observations. The
// timeline reports the step as its resolution. Measured: prom_rw_stats
// knee 182.9 vs 185.0 it/s, ceiling 187.1 vs 183.3 req/s; prom_rw_native
// knee 176.1 vs 176.1 (173.0 before the last step took in k6's final
// flush), ceiling 186.0 vs 182.0.
func TestFromPromAgreesWithCSV(t *testing.T) {
	for _, name := range []string{"prom_rw_stats", "prom_rw_native"} {
		t.Run(name, func(t *testing.T) {
			live, csv := fromProm(t, name)
			if r := live.Timeline.ResolutionNS(); r != int64(5*time.Second) {
				t.Errorf("resolution %v, want the 5 s push interval", time.Duration(r))
			}
			p, c := live.Knee, csv.Knee
			np, nc := len(p.Holds)+len(p.RampSteps), len(c.Holds)+len(c.RampSteps)
			t.Logf("Prometheus: %s, %d levels, knee %s, ceiling %.1f; CSV: %s, %d levels, knee %s, ceiling %.1f",
				p.Model, np, kneeOf(p), float64(p.Ceiling.CompletedRPS), c.Model, nc, kneeOf(c), float64(c.Ceiling.CompletedRPS))
			if p.Model != c.Model || p.Model != "open" {
				t.Errorf("model %s from Prometheus, %s from the CSV; want open", p.Model, c.Model)
			}
			if math.Abs(float64(np-nc)) > math.Max(4, 0.3*float64(nc)) {
				t.Errorf("%d levels from Prometheus, %d from the CSV", np, nc)
			}
			if p.Knee == nil || c.Knee == nil || math.Abs(float64(p.Knee.Offered-c.Knee.Offered)) > 2.167*5 {
				t.Errorf("knee %s from Prometheus, %s from the CSV: more than one step (10.8 it/s) apart", kneeOf(p), kneeOf(c))
			}
			for _, r := range []*knee.Result{p, c} {
				if r.Knee == nil || r.Knee.Offered < 170 || r.Knee.Offered > 190 {
					t.Errorf("knee %s, want 170–190 it/s (README)", kneeOf(r))
				}
			}
			if d := math.Abs(float64(p.Ceiling.CompletedRPS-c.Ceiling.CompletedRPS)) / float64(c.Ceiling.CompletedRPS); d > 0.05 {
				t.Errorf("ceiling %.1f req/s from Prometheus, %.1f from the CSV: %.1f %% apart", float64(p.Ceiling.CompletedRPS), float64(c.Ceiling.CompletedRPS), 100*d)
			}
			pr, cr := live.Timeline.Trend().All.Count(), csv.Timeline.Trend().All.Count()
			if pr != cr {
				t.Errorf("%d http_req_duration observations from Prometheus, %d in the CSV", pr, cr)
			}
		})
	}
}

func kneeOf(r *knee.Result) string {
	if r.Knee == nil {
		return "none"
	}
	return fmt.Sprintf("%.1f it/s", float64(r.Knee.Offered))
}

// With native histograms streamed, the per-window p95 of successful
// requests read from Prometheus (each step's bucket deltas, added to the
// timeline exactly: Accumulator.AddHistogram) is within 5 % of the CSV's
// per-window p95 over the same seconds (k6's percentile of the raw
// durations), for 10 s windows of two steps each with at least 200
// successful requests: 15 of the 16 windows outside the stall (measured:
// 0.1–3.9 %). Exceptions must stay within one schema-3 bucket (2^(1/8),
// 9.05 %: histogram_quantile places a rank linearly inside its bucket, so
// a p95 at a bucket bound moves by up to a bucket when one request sits
// on the other side of it) and be at most one: window +20 s is 8.0 %
// apart (33.1 vs 36.0 ms, in neighbouring buckets [32, 34.9) and
// [34.9, 38.1) ms), with 638 requests against the CSV's 637, the one
// extra fast request from the step bound just after the stall's catch-up.
// The stall window itself (t ≈ 10–20 s, README: k6 starved of CPU, 3
// timeouts, p95 1.6 s) is logged, not checked.
func TestFromPromNativeWindowP95(t *testing.T) {
	live, csv := fromProm(t, "prom_rw_native")
	p, c := live.Timeline, csv.Timeline
	csvStart := c.StartNS() / 1e9 // 1796156838, README
	bucket := math.Pow(2, 1.0/8) - 1
	within, exceptions := 0, 0
	for a := p.StartNS() / 1e9; a < p.EndNS()/1e9; a += 10 {
		wc, wp := c.Latency(a, a+10), p.Latency(a, a+10)
		if wc.Count() < 200 {
			continue
		}
		got, want := wp.Quantile(0.95), wc.Quantile(0.95)
		rel := math.Abs(got-want) / want
		msg := fmt.Sprintf("window +%d s: %d ok (CSV %d), p95 %.1f ms from Prometheus, %.1f ms from the CSV (%.1f %%)", a-csvStart, wp.Count(), wc.Count(), got, want, 100*rel)
		switch {
		case a+10 > csvStart+10 && a < csvStart+20:
			t.Logf("%s: the stall, not checked", msg)
		case rel <= 0.05:
			t.Log(msg)
			within++
		case rel <= bucket:
			t.Logf("%s: exception, within one native-histogram bucket (%.2f %%)", msg, 100*bucket)
			exceptions++
		default:
			t.Errorf("%s: more than one bucket apart", msg)
		}
	}
	if within < 15 || exceptions > 1 {
		t.Errorf("%d windows within 5 %%, %d exceptions; want at least 15 and at most 1", within, exceptions)
	}
}
