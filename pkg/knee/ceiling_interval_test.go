package knee

import (
	"math"
	"testing"
)

// TestCountInterval: the exact Poisson (Garwood) 95 % interval, against
// the published table values (Garwood 1936; e.g. Ulm 1990, Table 1): 0
// events → [0, 3.689], 10 events → [4.795, 18.39]; per second, over 2 s
// the same halved. Tolerance: the tables' last digit.
func TestCountInterval(t *testing.T) {
	for _, c := range []struct{ k, secs, lo, hi float64 }{
		{0, 1, 0, 3.689},
		{10, 1, 4.795, 18.39},
		{10, 2, 2.398, 9.195},
	} {
		lo, hi := countInterval(c.k, c.secs)
		if math.Abs(lo-c.lo) > 0.001 || math.Abs(hi-c.hi) > 0.01 {
			t.Errorf("countInterval(%g, %g) = [%.4f, %.4f], want [%g, %g]", c.k, c.secs, lo, hi, c.lo, c.hi)
		}
	}
}

// TestCeilingOneSecond: when the only level past the knee is one second
// (a ramp step of 1 s, as a noisy short staircase cut into many pieces
// gave: "176 (95% interval 176–176)"), the ceiling's interval is that
// second's counting interval, 176 events in 1 s: [150.96, 204.01] (the
// exact Poisson bounds, P(X ≥ 176 | 150.96) = P(X ≤ 176 | 204.01) = 0.025,
// found by bisection on the Poisson CDF by hand; tolerance 0.02), never
// the one value alone.
func TestCeilingOneSecond(t *testing.T) {
	a := closedAnalysis()
	levels := closedSteps(math.Inf(1)) // 19 levels of 30 s with headroom
	n := 30*len(levels) + 1
	comp := make([]float64, n)
	for k := range levels {
		levels[k].i0, levels[k].i1 = 30*k, 30*(k+1)
		for i := 30 * k; i < 30*(k+1); i++ {
			comp[i] = float64(levels[k].CompletedRPS)
		}
	}
	comp[n-1] = 176
	// One second at 21 VUs: goodput 176 of 200 requests, the rest failed.
	last := Level{Kind: RampStep, Offered: 21, VUs: 21, Seconds: 1, CompletedRPS: 176, RequestsRPS: 200, ErrorRate: 0.12,
		P50MS: 200, P95MS: 400, Count: 200, nReqs: 200, nUnits: 176, nFailed: 24, nOffered: math.NaN(), i0: n - 1, i1: n}
	levels = append(levels, last)
	a.p = &perSecond{n: n, completed: perSec{f: comp}}
	a.judge(levels, a.baselineOf(levels))
	c := a.ceiling(levels)
	if c == nil || c.CompletedRPS != 176 {
		t.Fatalf("ceiling %+v, want 176 from the last level", c)
	}
	if math.Abs(float64(c.Low)-150.96) > 0.02 || math.Abs(float64(c.High)-204.01) > 0.02 {
		t.Errorf("ceiling 176 (95%% interval %.2f–%.2f), want 150.96–204.01", float64(c.Low), float64(c.High))
	}
}
