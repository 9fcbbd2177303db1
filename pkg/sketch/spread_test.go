package sketch

import (
	"math"
	"testing"
)

// AddSpread is n calls of Add at the spread values: in exact mode value
// for value, in histogram mode bucket for bucket (so every quantile,
// min, max and the count agree exactly and the sums to float rounding),
// for buckets as wide as a native histogram's (schema 3: ×2^(1/8)), as
// narrow as a tenth of the sketch's own, and reaching zero.
func TestAddSpreadIsAdds(t *testing.T) {
	cases := []struct {
		lo, hi float64
		n      uint64
	}{
		{10, 10.905, 5}, {10, 10.905, 700}, {10, 10.905, 50_000}, // schema-3 bucket: exact, exact, histogram
		{200, 200.08, 3000},     // narrower than the sketch's buckets (0.39 %): value by value
		{0, 0.001, 2000},        // from zero
		{-5, 5, 3000},           // through zero (value by value)
		{180.5, 120.25, 40_000}, // bounds swapped
	}
	qs := []float64{0, 0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999, 1}
	for _, c := range cases {
		var a, b Sketch
		// A few values already there, so the switch to histogram mode
		// happens inside AddSpread.
		for _, v := range []float64{3, 150, 400} {
			a.Add(v)
			b.Add(v)
		}
		a.AddSpread(c.lo, c.hi, c.n)
		lo, hi := min(c.lo, c.hi), max(c.lo, c.hi)
		for k := range c.n {
			b.Add(SpreadValue(lo, hi, k, c.n))
		}
		if a.Count() != b.Count() || a.Min() != b.Min() || a.Max() != b.Max() || a.Exact() != b.Exact() {
			t.Errorf("%+v: count/min/max/exact %d %v %v %v, adds %d %v %v %v", c, a.Count(), a.Min(), a.Max(), a.Exact(), b.Count(), b.Min(), b.Max(), b.Exact())
		}
		if math.Abs(a.Sum()-b.Sum()) > 1e-9*math.Abs(b.Sum())+1e-9 {
			t.Errorf("%+v: sum %v, adds %v", c, a.Sum(), b.Sum())
		}
		for _, q := range qs {
			if ga, gb := a.Quantile(q), b.Quantile(q); ga != gb {
				t.Errorf("%+v: q%v = %v, adds %v", c, q, ga, gb)
			}
		}
	}
}

// A bucket of ten million observations costs the buckets it covers, not
// ten million adds (a few dozen allocations as the bucket store grows).
// Hand-checked: ten million values spread over [100, 200] ms have their
// median at 150 ms, p95 at 195 ms and p1 at 101 ms (rank q·(n−1) of
// evenly spread values), within the sketch's RelativeError.
func TestAddSpreadLarge(t *testing.T) {
	var s Sketch
	s.AddSpread(100, 200, 10_000_000)
	if s.Count() != 10_000_000 || s.Exact() {
		t.Fatalf("count %d exact %v", s.Count(), s.Exact())
	}
	for _, c := range []struct{ q, want float64 }{{0.5, 150}, {0.95, 195}, {0.01, 101}} {
		if got := s.Quantile(c.q); math.Abs(got-c.want)/c.want > RelativeError {
			t.Errorf("q%v = %v, want %v within %.3g %%", c.q, got, c.want, 100*RelativeError)
		}
	}
	if m := s.Mean(); math.Abs(m-150) > 1e-9 {
		t.Errorf("mean %v, want 150", m)
	}
	if n := testing.AllocsPerRun(10, func() { var x Sketch; x.AddSpread(100, 200, 10_000_000) }); n > 32 {
		t.Errorf("%v allocations for one spread bucket", n)
	}
}

// AddN is n calls of Add.
func TestAddN(t *testing.T) {
	for _, n := range []uint64{1, 500, 5000} {
		var a, b Sketch
		a.Add(1)
		b.Add(1)
		a.AddN(42.5, n)
		for range n {
			b.Add(42.5)
		}
		if a.Count() != b.Count() || a.Sum() != b.Sum() || a.Quantile(0.5) != b.Quantile(0.5) || a.Quantile(0) != b.Quantile(0) {
			t.Errorf("n %d: %d %v %v, adds %d %v %v", n, a.Count(), a.Sum(), a.Quantile(0.5), b.Count(), b.Sum(), b.Quantile(0.5))
		}
	}
}

// SpreadBelow counts the spread values below x: of 4 values over [0, 8]
// (at 1, 3, 5, 7), 2 are below 4 and 3 below 5.5; none below 1, all
// below 7.5.
func TestSpreadBelow(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want uint64
	}{{4, 2}, {5.5, 3}, {1, 0}, {1.0001, 1}, {7.5, 4}, {-1, 0}, {100, 4}} {
		if got := SpreadBelow(0, 8, 4, c.x); got != c.want {
			t.Errorf("SpreadBelow(0, 8, 4, %v) = %d, want %d", c.x, got, c.want)
		}
	}
}
