package queueing_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/queueing"
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > tol {
		t.Errorf("%s = %.6g, want %.6g ± %g", what, got, want, tol)
	}
}

var t0 = time.Unix(1796000000, 0).UTC()

// steady is 10 s of 5 iterations per second, each 2000 ms long: λ = 5/s,
// W = 2 s, so λW = 10 busy VUs (hand calculation).
func steady(start, end time.Time, vus float64) queueing.Span {
	return queueing.Span{Start: start, End: end, VUs: vus, Iterations: 50, Durations: 50, DurationSumMS: 50 * 2000}
}

func TestCheckLittleHandChecked(t *testing.T) {
	end := t0.Add(10 * time.Second)
	spans := []queueing.Span{
		steady(t0, end, 10),   // λW = 10 = L
		steady(t0, end, 20),   // 10 of 20 VUs idle
		steady(t0, end, 8),    // λW = 10 > 8
		steady(t0, end, 10.9), // 8.3 % off: within 10 %
		{Start: end, End: end.Add(5 * time.Second), VUs: 3},
	}
	chk, err := queueing.CheckLittle(spans, queueing.LittleOptions{Closed: true})
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
	end := t0.Add(10 * time.Second)
	// 400 iteration_duration samples of 10 ms, no iterations counter.
	span := func(vus float64) queueing.Span {
		return queueing.Span{Start: t0, End: end, VUs: vus, Durations: 400, DurationSumMS: 4000}
	}
	chk, err := queueing.CheckLittle([]queueing.Span{span(0.8), span(1.2)}, queueing.LittleOptions{Tolerance: 0.05})
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
	if _, err := queueing.CheckLittle(nil, queueing.LittleOptions{}); err == nil ||
		err.Error() != "queueing: no iteration_duration samples: Little's law on a run needs the iteration rate and duration" {
		t.Errorf("no spans: %v", err)
	}
	s := steady(t0, t0, 1)
	if _, err := queueing.CheckLittle([]queueing.Span{s}, queueing.LittleOptions{}); err == nil ||
		err.Error() != "queueing: span 2026-11-30T00:53:20Z–2026-11-30T00:53:20Z has no length" {
		t.Errorf("empty span: %v", err)
	}
	s = steady(t0, t0.Add(time.Second), math.NaN())
	if _, err := queueing.CheckLittle([]queueing.Span{s}, queueing.LittleOptions{}); err == nil ||
		err.Error() != "queueing: mean VUs must be finite and ≥ 0, got NaN" {
		t.Errorf("NaN VUs: %v", err)
	}
}
