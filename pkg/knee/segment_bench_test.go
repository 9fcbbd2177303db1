package knee

import (
	"math"
	"math/rand/v2"
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

// TestSSEAgreesWithFit: the partitioning's squared error (LDLᵀ) is fit's,
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
			got, ok2 := ps.sse(d)
			if ok != ok2 || (ok && math.Abs(got-want) > 1e-6*(1+math.Abs(want))) {
				t.Fatalf("trial %d, degree %d: sse %v %v, fit %v %v", trial, d, got, ok2, want, ok)
			}
		}
	}
}
