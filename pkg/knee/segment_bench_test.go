package knee

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// BenchmarkSegments30Min: the schedule segmentation of a 30-minute open
// ramp (1,800 s of offered load, Poisson noise), the part of the knee
// analysis that grows with the run's length.
func BenchmarkSegments30Min(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, 1800)
	for i := range x {
		lam := 10 + 390*float64(i)/1800
		x[i] = lam + rng.NormFloat64()*math.Sqrt(lam)
	}
	b.ResetTimer()
	for range b.N {
		segments(x, nil, 4, true)
	}
}

// TestSSEAgreesWithFit: the partitioning's squared error (sse2, LDLᵀ) is fit's,
// on random weighted stretches, for the three degrees.
func TestSSEAgreesWithFit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 500 {
		var ps polySums
		n := 3 + rng.IntN(200)
		for i := range n {
			ps.add(float64(i), 50+3*float64(i)+rng.NormFloat64()*10, 0.5+rng.Float64())
		}
		for d := 0; d <= 2; d++ {
			want, _, _, ok := ps.fit(d)
			// sse2 gives degree d as its lower result, and as its upper
			// one from degree d−1.
			var got float64
			var ok2 bool
			if d == 0 {
				got, ok2, _, _ = ps.sse2(0)
			} else {
				_, _, got, ok2 = ps.sse2(d - 1)
			}
			if ok != ok2 || (ok && math.Abs(got-want) > 1e-6*(1+math.Abs(want))) {
				t.Fatalf("trial %d, degree %d: sse %v %v, fit %v %v", trial, d, got, ok2, want, ok)
			}
		}
	}
}

// TestPruningKeepsOptimum: partitionPoly's pruning (PELT) finds the same
// pieces as the full O(m²) search, on staircases, ramps, spikes and pure
// noise, open (cumulative, d0 = 1) and closed (d0 = 0), for several
// minimum lengths, with and without missing points (weight 0).
func TestPruningKeepsOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pruned := 0
	for trial := range 300 {
		m := 20 + rng.IntN(400)
		x := make([]float64, m)
		level, slope := 50+rng.Float64()*200, 0.0
		for i := range x {
			if rng.IntN(60) == 0 { // a new stage
				level, slope = 20+rng.Float64()*400, 0
				if rng.IntN(2) == 0 {
					slope = rng.NormFloat64() * 2
				}
			}
			level = math.Max(1, level+slope)
			x[i] = level + rng.NormFloat64()*math.Sqrt(level)*(0.2+rng.Float64())
			if rng.IntN(200) == 0 {
				x[i] *= 3 // a spike
			}
		}
		d0 := trial % 2
		y := x
		if d0 == 1 {
			y = make([]float64, m)
			sum := 0.0
			for i, v := range x {
				sum += v
				y[i] = sum
			}
		}
		w := make([]float64, m)
		for i := range w {
			w[i] = 1 / (1 + rng.Float64()*50)
		}
		// Missing points (weight 0) in every third trial, alone or in
		// runs of up to 6 (a missing second, a stalled generator).
		for i := 0; trial%3 == 2 && i < m; i++ {
			if rng.IntN(25) == 0 {
				for j := i; j < min(m, i+1+rng.IntN(6)); j++ {
					w[j] = 0
				}
			}
		}
		minLen := 2 + rng.IntN(6)
		want := partition(y, w, d0, minLen, false)
		got := partition(y, w, d0, minLen, true)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (m %d, d0 %d, minLen %d): pruned %v, full %v", trial, m, d0, minLen, got, want)
		}
		if len(want) > 1 {
			pruned++
		}
	}
	if pruned < 100 {
		t.Fatalf("only %d of 300 trials had a change point: the test does not exercise pruning", pruned)
	}
}

// TestNoiseVarianceSlidingWindow: noiseVariance's sliding sorted window
// gives exactly what sorting each point's window afresh gives, with and
// without missing points, for the three difference orders.
func TestNoiseVarianceSlidingWindow(t *testing.T) {
	// The reference sorts each point's window afresh (the differences
	// are noiseDiffs' either way).
	ref := func(y []float64, missing []bool, k int, floor []float64) []float64 {
		m := len(y)
		d, ok, binom := noiseDiffs(y, missing, k)
		out := make([]float64, m)
		for i := range y {
			if missing != nil && missing[i] {
				out[i] = math.Inf(1)
				continue
			}
			var buf []float64
			for j := max(0, i-noiseWindow); j <= min(m-1, i+noiseWindow); j++ {
				if ok[j] {
					buf = append(buf, d[j])
				}
			}
			s := 0.0
			if len(buf) >= 3 {
				slices.Sort(buf)
				s = quantileSorted(buf, 0.25) / 0.3186 / math.Sqrt(binom)
			}
			out[i] = max(s*s, floor[i])
		}
		return out
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		m := rng.IntN(120)
		y := make([]float64, m)
		floor := make([]float64, m)
		var missing []bool
		if trial%2 == 1 {
			missing = make([]bool, m)
		}
		for i := range y {
			// Integer counts: equal differences are common.
			y[i] = float64(rng.IntN(20) + i)
			floor[i] = rng.Float64()
			if missing != nil && rng.IntN(6) == 0 {
				missing[i] = true
			}
		}
		for k := 1; k <= 3; k++ {
			got, want := noiseVariance(y, missing, k, floor), ref(y, missing, k, floor)
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d, k %d: got %v, want %v", trial, k, got, want)
			}
		}
	}
}
