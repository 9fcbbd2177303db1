package knee

import (
	"math"
	"math/rand/v2"
	"testing"
)

// addRef is polySums.add as first written (the loop over the powers): the
// reference the written-out version must match bit for bit, since the
// partitioning compares the costs made of its sums.
func (p *polySums) addRef(u, y, w float64) {
	p.umax = max(p.umax, u)
	uk := 1.0
	for k := 0; k < 5; k++ {
		p.w[k] += w * uk
		if k < 3 {
			p.wy[k] += w * uk * y
		}
		uk *= u
	}
	p.yy += w * y * y
}

// TestPolySumsMatchReference: add gives the bits of addRef, and so the
// same costs (sse2, both degrees), for stretches grown one point at a
// time as the partitioning grows them (u = 0, 1, 2, …), with levels,
// ramps, noise, zero, tiny, huge and infinite weights.
func TestPolySumsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	bits := math.Float64bits
	for k := range 300 {
		var got, want polySums
		slope := rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
		for u := range 1 + rng.IntN(400) {
			y := slope*float64(u) + rng.NormFloat64()*math.Pow(10, float64(rng.IntN(7)-3))
			w := rng.ExpFloat64()
			switch rng.IntN(40) {
			case 0:
				w = 0
			case 1:
				w = 1e-300
			case 2:
				w = 1e300
			case 3:
				w = math.Inf(1)
			case 4:
				y = 0
			}
			got.add(float64(u), y, w)
			want.addRef(float64(u), y, w)
			if got != want && !(math.IsNaN(got.yy) && math.IsNaN(want.yy)) {
				for i := range got.w {
					if bits(got.w[i]) != bits(want.w[i]) {
						t.Fatalf("case %d, u %d: w[%d] %v, want %v", k, u, i, got.w[i], want.w[i])
					}
				}
				for i := range got.wy {
					if bits(got.wy[i]) != bits(want.wy[i]) {
						t.Fatalf("case %d, u %d: wy[%d] %v, want %v", k, u, i, got.wy[i], want.wy[i])
					}
				}
				if bits(got.yy) != bits(want.yy) || bits(got.umax) != bits(want.umax) {
					t.Fatalf("case %d, u %d: yy/umax %v %v, want %v %v", k, u, got.yy, got.umax, want.yy, want.umax)
				}
			}
			for d := range 2 {
				lo, okLo, hi, okHi := got.sse2(d)
				wlo, wokLo, whi, wokHi := want.sse2(d)
				if bits(lo) != bits(wlo) || okLo != wokLo || bits(hi) != bits(whi) || okHi != wokHi {
					t.Fatalf("case %d, u %d, d %d: sse2 %v %v %v %v, want %v %v %v %v", k, u, d, lo, okLo, hi, okHi, wlo, wokLo, whi, wokHi)
				}
			}
		}
	}
}

// sse2Loop is polySums.sse2 as first written, a loop over the rows of the
// normal equations: the reference the written-out factorisation must
// match bit for bit.
func (p *polySums) sse2Loop(d int) (lo float64, okLo bool, hi float64, okHi bool) {
	n := d + 2
	sc := max(1, p.umax)
	var pow [5]float64
	pow[0] = 1
	for k := 1; k < 5; k++ {
		pow[k] = pow[k-1] * sc
	}
	var a [3][3]float64
	var b [3]float64
	for r := 0; r < n; r++ {
		for c := 0; c < n; c++ {
			a[r][c] = p.w[r+c] / pow[r+c]
		}
		b[r] = p.wy[r] / pow[r]
	}
	explained := 0.0
	for c := 0; c < n; c++ {
		if c == n-1 {
			lo, okLo = max(0, p.yy-explained), true
		}
		piv := a[c][c]
		if !(piv > 1e-300*max(1, math.Abs(a[0][0]))) {
			return lo, okLo, 0, false
		}
		explained += b[c] * b[c] / piv
		for r := c + 1; r < n; r++ {
			f := a[r][c] / piv
			for q := c + 1; q < n; q++ {
				a[r][q] -= f * a[c][q]
			}
			b[r] -= f * b[c]
		}
	}
	return lo, okLo, max(0, p.yy-explained), true
}

// TestSSE2MatchesLoop: the written-out sse2 gives the bits and flags of
// the loop, both degrees, on stretches of every length from one point,
// including undetermined ones (one or two points, zero weights) and
// ill-conditioned ones (huge u, tiny or huge weights).
func TestSSE2MatchesLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	bits := math.Float64bits
	for k := range 400 {
		var ps polySums
		scale := math.Pow(10, float64(rng.IntN(13)-6))
		for u := range 1 + rng.IntN(300) {
			w := rng.ExpFloat64() * scale
			if rng.IntN(15) == 0 {
				w = 0
			}
			ps.add(float64(u), rng.NormFloat64()*scale+float64(u%7), w)
			for d := range 2 {
				lo, okLo, hi, okHi := ps.sse2(d)
				wlo, wokLo, whi, wokHi := ps.sse2Loop(d)
				if bits(lo) != bits(wlo) || okLo != wokLo || bits(hi) != bits(whi) || okHi != wokHi {
					t.Fatalf("case %d, %d points, d %d: sse2 %v %v %v %v, loop %v %v %v %v", k, u+1, d, lo, okLo, hi, okHi, wlo, wokLo, whi, wokHi)
				}
			}
		}
	}
}

// TestSSE2Degenerate: sse2 matches the loop (bit for bit, and in what it
// calls determined) on stretches the partitioning meets at its edges: no
// weight at all, weights of 1e-310 (below the pivot threshold), one
// point, NaN and +Inf weights, and weights just either side of 1, where
// the threshold's scale max(1, |Σw|) changes rule.
func TestSSE2Degenerate(t *testing.T) {
	bits := math.Float64bits
	for _, w := range []float64{0, 1e-310, 1e-300, math.NaN(), math.Inf(1), 0.5, math.Nextafter(1, 0), 1, math.Nextafter(1, 2), 3} {
		for n := 1; n <= 4; n++ {
			var ps polySums
			for u := range n {
				ps.add(float64(u), float64(u*u%3), w)
			}
			for d := range 2 {
				lo, okLo, hi, okHi := ps.sse2(d)
				wlo, wokLo, whi, wokHi := ps.sse2Loop(d)
				if bits(lo) != bits(wlo) || okLo != wokLo || bits(hi) != bits(whi) || okHi != wokHi {
					t.Errorf("w %g, %d points, d %d: sse2 %v %v %v %v, loop %v %v %v %v", w, n, d, lo, okLo, hi, okHi, wlo, wokLo, whi, wokHi)
				}
			}
		}
	}
}
