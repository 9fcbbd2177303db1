package knee

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// BenchmarkSegments30Min: the schedule segmentation of a 30-minute open
// ramp (1,800 s of offered load, Poisson noise), the part of the knee
// analysis that grows with the run's length; BenchmarkSegments24h the
// same ramp over a day (86,400 s, searched on at most maxPoints points).
func BenchmarkSegments30Min(b *testing.B) { benchSegments(b, 1800) }

func BenchmarkSegments24h(b *testing.B) { benchSegments(b, 86400) }

func benchSegments(b *testing.B, n int) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, n)
	for i := range x {
		lam := 10 + 390*float64(i)/float64(n)
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
		ref := partitionFull(y, w, d0, minLen)
		want := partition(y, w, d0, minLen, false)
		got := partition(y, w, d0, minLen, true)
		if !slices.Equal(got, ref) || !slices.Equal(want, ref) {
			t.Fatalf("trial %d (m %d, d0 %d, minLen %d): pruned %v, unpruned %v, full %v", trial, m, d0, minLen, got, want, ref)
		}
		if len(want) > 1 {
			pruned++
		}
	}
	if pruned < 100 {
		t.Fatalf("only %d of 300 trials had a change point: the test does not exercise pruning", pruned)
	}
}

// partitionFull is partition's search written plainly, the reference of
// TestPruningKeepsOptimum: every end t tries every start s, its piece
// grown from t−1 down to 0 (no pruning, no start left out early), and an
// end no piece reaches costs the whole stretch [0, t).
func partitionFull(y, w []float64, d0, minLen int) []int {
	m := len(y)
	l := math.Log(float64(m) + 1)
	f := make([]float64, m+1)
	last := make([]int, m+1)
	for t := 1; t <= m; t++ {
		f[t] = math.Inf(1)
		var ps polySums
		for s := t - 1; s >= 0; s-- {
			ps.add(float64(t-1-s), y[s]-y[t-1], w[s])
			if t-s < minLen || (s > 0 && (s < minLen || math.IsInf(f[s], 1))) {
				continue
			}
			if c, ok := pieceCost(&ps, d0, l); ok && f[s]+c < f[t] {
				f[t], last[t] = f[s]+c, s
			}
		}
		if math.IsInf(f[t], 1) {
			last[t], f[t] = 0, 0
			if c, ok := pieceCost(&ps, d0, l); ok {
				f[t] = c
			}
		}
	}
	var starts []int
	for t := m; t > 0; t = last[t] {
		starts = append(starts, last[t])
	}
	slices.Reverse(starts)
	return starts
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

// TestMedianOfSelects: medianOf (selection) is median of the sorted
// values, bit for bit, on random slices of every length up to 300 and a
// day's worth, with many ties, sorted and reversed input, and a NaN; and
// selectKth leaves every value before k at most d[k] and every one after
// at least it.
func TestMedianOfSelects(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	gens := []func(i, n int) float64{
		func(int, int) float64 { return rng.NormFloat64() * 100 },
		func(int, int) float64 { return float64(rng.IntN(4)) }, // ties
		func(i, _ int) float64 { return float64(i) },           // sorted
		func(i, n int) float64 { return float64(n - i) },       // reversed
		func(int, int) float64 { return 7 },                    // constant
	}
	check := func(d []float64) {
		t.Helper()
		sorted := slices.Clone(d)
		slices.Sort(sorted)
		want := median(sorted)
		got := medianOf(slices.Clone(d))
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("medianOf(%d values) = %v, want %v", len(d), got, want)
		}
		if len(d) == 0 || slices.ContainsFunc(d, math.IsNaN) {
			return
		}
		k := rng.IntN(len(d))
		c := slices.Clone(d)
		v := selectKth(c, k)
		if v != sorted[k] || slices.ContainsFunc(c[:k], func(x float64) bool { return x > v }) || slices.ContainsFunc(c[k+1:], func(x float64) bool { return x < v }) {
			t.Fatalf("selectKth(%d values, %d) = %v, want %v, partitioned", len(d), k, v, sorted[k])
		}
	}
	for n := range 300 {
		for _, g := range gens {
			d := make([]float64, n)
			for i := range d {
				d[i] = g(i, n)
			}
			check(d)
		}
	}
	for _, g := range gens {
		d := make([]float64, 86400)
		for i := range d {
			d[i] = g(i, len(d))
		}
		check(d)
	}
	check([]float64{3, math.NaN(), 1, 2})
}

// TestRunningMedianSlides: the sliding window's medians are those of
// each window sorted afresh, for several widths and lengths, with ties.
func TestRunningMedianSlides(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, k := range []int{1, 3, 5} {
		for _, n := range []int{0, 1, 2, 3, 6, 7, 8, 50, 1000} {
			x := make([]float64, n)
			for i := range x {
				x[i] = float64(rng.IntN(20)) + []float64{0, 0.5}[rng.IntN(2)]
			}
			got := runningMedian(x, k)
			for i := range x {
				w := slices.Clone(x[max(0, i-k):min(n, i+k+1)])
				slices.Sort(w)
				if want := median(w); got[i] != want {
					t.Fatalf("k %d, n %d: median at %d = %v, want %v", k, n, i, got[i], want)
				}
			}
		}
	}
}

// TestSortedReplace: replacing a value of a sorted window gives the
// slice that removing it and inserting the new one gives (slices.Sort's
// order, NaN first), for windows with repeated values, NaN and ±Inf,
// whichever side of the old value the new one lands.
func TestSortedReplace(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	pick := func() float64 {
		switch rng.IntN(12) {
		case 0:
			return math.NaN()
		case 1:
			return math.Inf(1)
		case 2:
			return math.Inf(-1)
		}
		return float64(rng.IntN(8)) // many repeats
	}
	for trial := range 5000 {
		n := 1 + rng.IntN(2*noiseWindow+1)
		s := make([]float64, n)
		for i := range s {
			s[i] = pick()
		}
		slices.Sort(s)
		out, in := s[rng.IntN(n)], pick()
		want := sortedInsert(sortedRemove(slices.Clone(s), out), in)
		got := sortedReplace(slices.Clone(s), out, in)
		same := len(got) == len(want)
		for i := 0; same && i < len(got); i++ {
			same = got[i] == want[i] || (math.IsNaN(got[i]) && math.IsNaN(want[i]))
		}
		if !same {
			t.Fatalf("trial %d: replace %g by %g in %v: %v, want %v", trial, out, in, s, got, want)
		}
	}
}
