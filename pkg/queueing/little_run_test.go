package queueing_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/queueing"
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > tol {
		t.Errorf("%s = %.6g, want %.6g ± %g", what, got, want, tol)
	}
}

var t0 = time.Unix(1796000000, 0).UTC()

// steady fills a collector with 10 s of 5 iterations per second, each
// 2000 ms long: λ = 5/s, W = 2 s, so λW = 10 busy VUs (hand calculation).
func steady() *queueing.IterationCollector {
	c := queueing.NewIterationCollector()
	for s := 0; s < 10; s++ {
		ns := t0.Add(time.Duration(s) * time.Second).UnixNano()
		for i := 0; i < 5; i++ {
			c.Add(&ingest.Sample{Metric: "iterations", TimeNS: ns + int64(i), Value: 1})
			c.Add(&ingest.Sample{Metric: "iteration_duration", TimeNS: ns + int64(i), Value: 2000})
			c.Add(&ingest.Sample{Metric: "http_reqs", TimeNS: ns, Value: 1}) // ignored
		}
	}
	return c
}

func TestCheckLittleHandChecked(t *testing.T) {
	c := steady()
	end := t0.Add(10 * time.Second)
	spans := []queueing.Span{
		{Start: t0, End: end, VUs: 10},   // λW = 10 = L
		{Start: t0, End: end, VUs: 20},   // 10 of 20 VUs idle
		{Start: t0, End: end, VUs: 8},    // λW = 10 > 8
		{Start: t0, End: end, VUs: 10.9}, // 8.3 % off: within 10 %
		{Start: end, End: end.Add(5 * time.Second), VUs: 3},
	}
	chk, err := c.CheckLittle(spans, queueing.LittleOptions{Closed: true})
	if err != nil {
		t.Fatal(err)
	}
	if chk.Tolerance != 0.10 || len(chk.Levels) != 5 {
		t.Fatalf("tolerance %g, %d levels", chk.Tolerance, len(chk.Levels))
	}
	l := chk.Levels[0]
	near(t, "λ", l.IterationsPerSecond, 5, 1e-12)
	near(t, "W", l.IterationSeconds, 2, 1e-12)
	near(t, "λW", l.BusyVUs, 10, 1e-12)
	near(t, "ratio", l.Ratio, 1, 1e-12)
	near(t, "band", l.Band, 1, 1e-12) // 10 % of 10 VUs, closed model
	for i, want := range []string{queueing.LittleHolds, queueing.LittleIdle, queueing.LittleExcess, queueing.LittleHolds, queueing.LittleNoData} {
		if chk.Levels[i].Verdict != want {
			t.Errorf("span %d: verdict %s (%s), want %s", i, chk.Levels[i].Verdict, chk.Levels[i].Reason, want)
		}
	}
	near(t, "idle gap", chk.Levels[1].Gap, 10, 1e-12)
	near(t, "idle ratio", chk.Levels[1].Ratio, 0.5, 1e-12)
	if !strings.HasPrefix(chk.Levels[1].Reason, "λ·W is 50% below the VUs: 10.0 VUs were outside a counted iteration") {
		t.Errorf("reason %q", chk.Levels[1].Reason)
	}
	near(t, "excess gap", chk.Levels[2].Gap, -2, 1e-12)
	// Overall pools the spans as given (these overlap): 45 s of span,
	// (10+20+8+10.9)·10 + 3·5 = 504 VU·s → 11.2 VUs; 4·50 iterations of
	// 2 s in 45 s → λW = 400/45 (hand calculation).
	near(t, "overall VUs", chk.Overall.VUs, 11.2, 1e-12)
	near(t, "overall λW", chk.Overall.BusyVUs, 400.0/45, 1e-12)
	if chk.Overall.Seconds != 45 || !chk.Overall.End.Equal(end.Add(5*time.Second)) {
		t.Errorf("overall %g s to %v", chk.Overall.Seconds, chk.Overall.End)
	}
	// W = 2 s is more than a tenth of a 10 s span.
	if len(chk.Warnings) != 1 || !strings.Contains(chk.Warnings[0], "in 4 of 5 span(s) the mean iteration lasts more than a tenth of the span") {
		t.Errorf("warnings %q", chk.Warnings)
	}
}

// In an open model the once-a-second vus snapshot of ~0.4 busy VUs reads 0
// or 1; over 10 s its mean has a standard error of √(0.4/10) = 0.2, so the
// band is 3·0.2 = 0.6 VUs (hand calculation).
func TestCheckLittleOpenBand(t *testing.T) {
	c := queueing.NewIterationCollector()
	for s := 0; s < 10; s++ {
		ns := t0.Add(time.Duration(s) * time.Second).UnixNano()
		for i := 0; i < 40; i++ {
			c.Add(&ingest.Sample{Metric: "iteration_duration", TimeNS: ns, Value: 10}) // no iterations counter
		}
	}
	end := t0.Add(10 * time.Second)
	chk, err := c.CheckLittle([]queueing.Span{{Start: t0, End: end, VUs: 0.8}, {Start: t0, End: end, VUs: 1.2}}, queueing.LittleOptions{Tolerance: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	l := chk.Levels[0]
	near(t, "λ", l.IterationsPerSecond, 40, 1e-12)
	near(t, "λW", l.BusyVUs, 0.4, 1e-12)
	near(t, "band", l.Band, 0.6, 1e-12)
	if l.Verdict != queueing.LittleHolds || chk.Levels[1].Verdict != queueing.LittleIdle {
		t.Errorf("verdicts %s, %s; want holds (gap 0.4 ≤ 0.6), idle (gap 0.8)", l.Verdict, chk.Levels[1].Verdict)
	}
}

func TestCheckLittleErrors(t *testing.T) {
	if _, err := queueing.NewIterationCollector().CheckLittle(nil, queueing.LittleOptions{}); err == nil ||
		err.Error() != "queueing: no iteration_duration samples: Little's law on a run needs the iteration rate and duration" {
		t.Errorf("empty collector: %v", err)
	}
	c := steady()
	if _, err := c.CheckLittle([]queueing.Span{{Start: t0, End: t0, VUs: 1}}, queueing.LittleOptions{}); err == nil ||
		err.Error() != "queueing: span 2026-11-30T00:53:20Z–2026-11-30T00:53:20Z has no length" {
		t.Errorf("empty span: %v", err)
	}
	if _, err := c.CheckLittle([]queueing.Span{{Start: t0, End: t0.Add(time.Second), VUs: math.NaN()}}, queueing.LittleOptions{}); err == nil ||
		err.Error() != "queueing: mean VUs must be finite and ≥ 0, got NaN" {
		t.Errorf("NaN VUs: %v", err)
	}
}

// levelsOf runs the knee analysis on a corpus file and returns the Little
// spans of its levels, the model, and the filled collector.
func levelsOf(t *testing.T, path string) ([]queueing.Span, string, *queueing.IterationCollector) {
	t.Helper()
	r, err := ingest.OpenAll([]string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	kc := knee.NewCollector("iteration_duration")
	ic := queueing.NewIterationCollector()
	for r.Next() {
		s := r.Sample()
		kc.Add(s)
		ic.Add(s)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	res, err := knee.Analyze(kc, r.Stats().ResolutionNS, knee.Options{})
	if err != nil {
		t.Fatal(err)
	}
	levels := res.Holds
	if res.Levels != "holds" {
		levels = res.RampSteps
	}
	var spans []queueing.Span
	for _, l := range levels {
		spans = append(spans, queueing.Span{Start: l.Start, End: l.End, VUs: float64(l.VUs)})
	}
	return spans, res.Model, ic
}

// closed_ramp (ramping-vus 0→120, 1 s think time, journeys of 3 requests):
// the corpus README says mean VUs ≈ λ_iter × iteration_duration. k6's own
// summary gives λ = 44.0367/s (over its 100.87 s) and W = 1.360110 s:
// 59.90 busy VUs. Over the 100 s of ramp steps λ = 4438/100 and the pooled
// L and λW agree within 1 %; λW is within 1 % of k6's figure.
// Per 10 s ramp step, the steps while VUs rise steadily (2–9) agree within
// 10 % (measured ratios 0.949–0.983); the first step lags (VUs whose first
// iteration has not ended: 0.838) and the ramp-down step shows iterations
// finishing after the gauge dropped their VUs (1.229).
func TestCheckLittleClosedRamp(t *testing.T) {
	spans, model, ic := levelsOf(t, "../../testdata/k6/closed_ramp.csv.gz")
	if model != knee.Closed || len(spans) != 10 {
		t.Fatalf("model %s, %d levels; want closed, 10 ramp steps", model, len(spans))
	}
	chk, err := ic.CheckLittle(spans, queueing.LittleOptions{Closed: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range chk.Levels {
		want := queueing.LittleHolds
		switch i {
		case 0:
			want = queueing.LittleIdle
		case 9:
			want = queueing.LittleExcess
		}
		if l.Verdict != want {
			t.Errorf("step %d (%.1f VUs, λW %.1f): %s, want %s", i+1, l.VUs, l.BusyVUs, l.Verdict, want)
		}
	}
	near(t, "step 1 ratio", chk.Levels[0].Ratio, 0.838, 0.001)
	near(t, "step 10 ratio", chk.Levels[9].Ratio, 1.229, 0.001)
	near(t, "overall ratio", chk.Overall.Ratio, 1, 0.01)
	near(t, "overall λW vs k6 summary", chk.Overall.BusyVUs, 44.036673852383274*1.360110302828903, 0.01*59.9)
	if chk.Overall.Verdict != queueing.LittleHolds {
		t.Errorf("overall %s: %s", chk.Overall.Verdict, chk.Overall.Reason)
	}
}

// open_ramp (ramping-arrival-rate 20→320 it/s, one request per iteration):
// the vus gauge counts busy VUs, so every ramp step agrees, the low-load
// ones (≈ 0.4–1.2 busy VUs) within the snapshot noise band; pooled over the
// run, L = 32.0 and λW = 32.3 (ratio 1.011).
func TestCheckLittleOpenRamp(t *testing.T) {
	spans, model, ic := levelsOf(t, "../../testdata/k6/open_ramp.csv.gz")
	if model != knee.Open || len(spans) != 13 {
		t.Fatalf("model %s, %d levels; want open, 13 ramp steps", model, len(spans))
	}
	chk, err := ic.CheckLittle(spans, queueing.LittleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range chk.Levels {
		if l.Verdict != queueing.LittleHolds {
			t.Errorf("step %d (%.1f VUs, λW %.2f, band %.2f): %s", i+1, l.VUs, l.BusyVUs, l.Band, l.Verdict)
		}
	}
	near(t, "overall ratio", chk.Overall.Ratio, 1.011, 0.001)
}

// The synthetic sweep writes W = N/X per second (testdata/scale/README.md),
// so λW = N = 8 in every second, and so over the run's one hold (knee
// takes a run that one hold covers for a steady run); W is written to
// 0.001 ms, so λW is 8 within 569/s · 0.0005 ms = 3e-4.
func TestCheckLittleSweepFile(t *testing.T) {
	spans, _, ic := levelsOf(t, "../../testdata/scale/vus8.csv")
	chk, err := ic.CheckLittle(spans, queueing.LittleOptions{Closed: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(chk.Levels) != 1 {
		t.Fatalf("%d levels", len(chk.Levels))
	}
	for _, l := range chk.Levels {
		near(t, "λW", l.BusyVUs, 8, 3e-4)
		near(t, "L", l.VUs, 8, 1e-12)
	}
}
