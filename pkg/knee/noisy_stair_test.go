package knee

import (
	"math"
	"math/rand/v2"
	"testing"
)

// poissonStair is the per-second offered load of a staircase of holds of
// holdS seconds at rates 1·step, 2·step, … levels·step it/s, each second
// a Poisson count of its rate (arrivals of a Poisson process: variance =
// mean; normal approximation with continuity rounding, the rates being
// ≥ 20).
func poissonStair(seed uint64, levels, holdS int, step float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 7))
	var x []float64
	for k := 1; k <= levels; k++ {
		lam := step * float64(k)
		for range holdS {
			x = append(x, math.Max(0, math.Round(lam+math.Sqrt(lam)*r.NormFloat64())))
		}
	}
	return x
}

// TestSegmentsNoisyLongStaircase: 10 holds of 1,500 s at 20 … 200 it/s
// with Poisson noise are 10 plateaus (the schedule's truth), each change
// within 5 % of a hold of the true one, none a ramp.
func TestSegmentsNoisyLongStaircase(t *testing.T) {
	const levels, holdS = 10, 1500
	for seed := uint64(1); seed <= 3; seed++ {
		x := poissonStair(seed, levels, holdS, 20)
		got := shapes(stages(segments(x, nil, 3, true), x, 5))
		var want []shape
		for k := range levels {
			want = append(want, shape{false, k * holdS, (k + 1) * holdS})
		}
		if !sameShape(got, want, holdS/20) {
			t.Errorf("seed %d: %d pieces %v, want the %d holds %v", seed, len(got), got, levels, want)
		}
	}
}

// TestSegmentsMissingSecond: one second without data (a k6 output hiccup)
// in the noisy staircase, inside a hold or at a change, gives the same 10
// holds: the second is missing, not a count (offeredSeries carries the
// second before into it, as here).
func TestSegmentsMissingSecond(t *testing.T) {
	const levels, holdS = 10, 1500
	for _, gap := range []int{7000, 7500, 40} {
		x := poissonStair(1, levels, holdS, 20)
		miss := make([]bool, len(x))
		miss[gap] = true
		x[gap] = x[gap-1]
		got := shapes(stages(segments(x, miss, 3, true), x, 5))
		var want []shape
		for k := range levels {
			want = append(want, shape{false, k * holdS, (k + 1) * holdS})
		}
		if !sameShape(got, want, holdS/20) {
			t.Errorf("second %d missing: %d pieces %v, want the %d holds", gap, len(got), got, levels)
		}
	}
}
