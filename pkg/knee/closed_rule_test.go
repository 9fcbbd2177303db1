package knee

import (
	"math"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// closedSteps builds 30-s closed-model ramp steps at 2 … 20 VUs of a
// system that serves X = min(10·(N − 1), 140) req/s at N VUs on the vus
// gauge (the interactive response time law X = N/(Z + R), Denning & Buzen
// 1978, with Z + R = 0.1 s and one VU of the gauge starting, not busy, as
// k6gen's vus = ⌈rate·latency⌉ + 1 has it), so that its bend is at
// N* = 15 VUs; from errFrom VUs on, 3 % of the requests fail (errors
// before the bend), p95 flat at 50 ms throughout.
func closedSteps(errFrom float64) []Level {
	var out []Level
	for n := 2.0; n <= 20; n++ {
		x := math.Min(10*(n-1), 140)
		l := Level{Kind: RampStep, Offered: F(n), VUs: F(n), Seconds: 30, CompletedRPS: F(x), RequestsRPS: F(x),
			P50MS: 20, P95MS: 50, Count: uint64(30 * x), nReqs: 30 * x, nUnits: 30 * x, nOffered: math.NaN()}
		if n >= errFrom {
			l.nFailed = 0.03 * l.nReqs
			l.ErrorRate = 0.03
			l.CompletedRPS = F(0.97 * x)
		}
		out = append(out, l)
	}
	return out
}

func closedAnalysis() *analysis {
	opt := Options{}
	opt.defaults()
	tl := timeline.New(timeline.Options{}).Close(1e9)
	return &analysis{tl: tl, opt: opt, model: Closed, res: &Result{OfferedUnit: "VUs", Levels: "ramp"}}
}

// TestClosedLowestLevelsHeadroom: below the bend (N* = 15 VUs, see
// closedSteps) and before any error every level has headroom; the lowest
// ones, whose throughput per gauge VU is the lowest (X/N = 10·(1 − 1/N)),
// are not short of a per-VU rate measured above them.
func TestClosedLowestLevelsHeadroom(t *testing.T) {
	a := closedAnalysis()
	levels := closedSteps(math.Inf(1))
	a.judge(levels, a.baselineOf(levels))
	for _, l := range levels {
		if l.Offered < 15 && l.Verdict != Headroom {
			t.Errorf("%g VUs (below N* = 15): %s (%s), want headroom", float64(l.Offered), l.Verdict, l.Reason)
		}
	}
}

// TestClosedNextLevelAboveKnee: errors from 10 VUs make the levels from
// there lack headroom while throughput still climbs to the bend at 15 VUs,
// where the hinge places the knee: the level named next, and High, are
// above the knee, never below it.
func TestClosedNextLevelAboveKnee(t *testing.T) {
	a := closedAnalysis()
	levels := closedSteps(10)
	a.judge(levels, a.baselineOf(levels))
	k := a.knee(levels)
	if k == nil || !k.Reached {
		t.Fatalf("knee %+v, want reached", k)
	}
	// The hinge's grid puts the bend within a level of N* = 15.
	if math.Abs(float64(k.Offered)-15) > 1 {
		t.Errorf("knee at %g VUs, want 15 ± 1", float64(k.Offered))
	}
	if !(k.High >= k.Offered) || !(k.Low <= k.Offered) {
		t.Errorf("knee %g outside its range [%g, %g]", float64(k.Offered), float64(k.Low), float64(k.High))
	}
	if k.Next != "" && !(float64(k.High) > float64(k.Offered)) {
		t.Errorf("next level %q not above the knee at %g", k.Next, float64(k.Offered))
	}
	t.Logf("knee %g [%g, %g], next %s", float64(k.Offered), float64(k.Low), float64(k.High), k.Next)
}
