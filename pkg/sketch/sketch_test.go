package sketch

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// k6Quantile is k6's TrendSink.P (metrics/sink.go): linear interpolation at
// rank q·(n−1) of the sorted values.
func k6Quantile(sorted []float64, q float64) float64 {
	r := q * float64(len(sorted)-1)
	lo := int(math.Floor(r))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (r-float64(lo))*(sorted[hi]-sorted[lo])
}

func TestExactMatchesK6(t *testing.T) {
	// Hand-checked: values 1..10, p95 rank 8.55 → 9 + 0.55·(10−9) = 9.55;
	// p50 rank 4.5 → 5.5; p90 rank 8.1 → 9.1.
	var s Sketch
	for _, v := range []float64{7, 3, 10, 1, 5, 9, 2, 8, 4, 6} {
		s.Add(v)
	}
	for _, c := range []struct{ q, want float64 }{{0.5, 5.5}, {0.9, 9.1}, {0.95, 9.55}, {0, 1}, {1, 10}} {
		if got := s.Quantile(c.q); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	if !s.Exact() || s.Count() != 10 || s.Sum() != 55 || s.Mean() != 5.5 || s.Min() != 1 || s.Max() != 10 {
		t.Errorf("count/sum/mean/min/max = %d %v %v %v %v", s.Count(), s.Sum(), s.Mean(), s.Min(), s.Max())
	}
}

func TestEmpty(t *testing.T) {
	var s Sketch
	if !math.IsNaN(s.Quantile(0.5)) || !math.IsNaN(s.Mean()) || !math.IsNaN(s.Min()) {
		t.Fatal("empty sketch must give NaN")
	}
	s.Add(3)
	if s.Quantile(0.99) != 3 || !math.IsNaN(s.Quantile(1.5)) {
		t.Fatal("one value")
	}
}

// TestHistogramError checks the documented bound: every quantile of a
// histogram-mode sketch is within RelativeError of k6's exact value, on
// log-normal latencies (ms), on values spanning 12 decades, with zeros and
// negatives.
func TestHistogramError(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gens := map[string]func() float64{
		"lognormal": func() float64 { return math.Exp(rng.NormFloat64()*1.2 + 3) },
		"wide":      func() float64 { return math.Pow(10, rng.Float64()*12-6) },
		"signed":    func() float64 { return rng.NormFloat64() * 50 },
		"zeros":     func() float64 { return float64(rng.IntN(3)) * 0.5 },
	}
	for name, gen := range gens {
		var s Sketch
		vals := make([]float64, 50_000)
		for i := range vals {
			vals[i] = gen()
			s.Add(vals[i])
		}
		if s.Exact() {
			t.Fatalf("%s: still exact after %d values", name, len(vals))
		}
		slices.Sort(vals)
		for _, q := range []float64{0, 0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999, 1} {
			want := k6Quantile(vals, q)
			got := s.Quantile(q)
			if math.Abs(got-want) > RelativeError*math.Abs(want)+1e-12 {
				t.Errorf("%s: Quantile(%v) = %v, want %v ± %.3g%%", name, q, got, want, RelativeError*100)
			}
		}
	}
}

// TestMerge checks that merging the sketches of parts gives the same
// quantiles as one sketch of the whole (the histogram merge is exact).
func TestMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var whole, a, b, small Sketch
	for i := range 20_000 {
		v := math.Exp(rng.NormFloat64() + 2)
		whole.Add(v)
		if i%3 == 0 {
			a.Add(v)
		} else {
			b.Add(v)
		}
	}
	a.Merge(&b)
	for _, q := range []float64{0.5, 0.95, 0.99} {
		if a.Quantile(q) != whole.Quantile(q) {
			t.Errorf("merged Quantile(%v) = %v, whole = %v", q, a.Quantile(q), whole.Quantile(q))
		}
	}
	if a.Count() != whole.Count() || a.Min() != whole.Min() || a.Max() != whole.Max() {
		t.Error("merged count/min/max differ")
	}
	// Two small exact sketches stay exact when merged.
	var x Sketch
	x.Add(1)
	x.Add(3)
	small.Add(2)
	small.Merge(&x)
	if !small.Exact() || small.Quantile(0.5) != 2 {
		t.Errorf("small merge: exact=%v p50=%v", small.Exact(), small.Quantile(0.5))
	}
}

func BenchmarkAdd(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	vals := make([]float64, 4096)
	for i := range vals {
		vals[i] = math.Exp(rng.NormFloat64() + 3)
	}
	var s Sketch
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Add(vals[i&4095])
	}
}

// TestResetReuse checks that a reset sketch reused for other values
// answers as a new one: Reset keeps the bucket memory, never its counts.
func TestResetReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	var s Sketch
	for range 5000 {
		s.Add(math.Exp(rng.NormFloat64()*2 + 5))
	}
	s.Reset()
	// Ascending, so that the reused buckets are only ever extended (a
	// value below the first would reallocate them).
	vals := make([]float64, 3000)
	for i := range vals {
		vals[i] = math.Exp(rng.NormFloat64()*3 + 2)
	}
	slices.Sort(vals)
	var fresh Sketch
	for _, v := range vals {
		s.Add(v)
		fresh.Add(v)
	}
	for _, q := range []float64{0.01, 0.5, 0.99, 0.999} {
		if a, b := s.Quantile(q), fresh.Quantile(q); a != b {
			t.Errorf("q%v: reused %v, fresh %v", q, a, b)
		}
	}
	if s.Count() != 3000 {
		t.Errorf("count %d", s.Count())
	}
}

// TestCountAtMost: exact counts below ExactLimit (ties included), and in
// histogram mode counts within one bucket of the truth.
func TestCountAtMost(t *testing.T) {
	var s Sketch
	for _, v := range []float64{5, 1, 3, 3, 9} {
		s.Add(v)
	}
	for x, want := range map[float64]uint64{0.5: 0, 1: 1, 2.9: 1, 3: 3, 4: 3, 9: 5, 100: 5} {
		if got := s.CountAtMost(x); got != want {
			t.Errorf("exact: CountAtMost(%v) = %d, want %d", x, got, want)
		}
	}
	var h Sketch
	for i := 1; i <= 10000; i++ {
		h.Add(float64(i))
	}
	if h.Exact() {
		t.Fatal("10,000 values: still exact")
	}
	for _, x := range []float64{100, 2500, 4000, 9999.5} {
		got, want := float64(h.CountAtMost(x)), math.Floor(x)
		if math.Abs(got-want) > x*RelativeError*2+1 {
			t.Errorf("histogram: CountAtMost(%v) = %v, want %v within a bucket", x, got, want)
		}
	}
	if h.CountAtMost(math.NaN()) != 0 || h.CountAtMost(1e9) != 10000 || h.CountAtMost(0) != 0 {
		t.Error("edges")
	}
}
