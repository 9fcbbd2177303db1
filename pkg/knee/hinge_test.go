package knee

import (
	"math"
	"testing"
)

// TestHingeNeedsARise: the hinge places a knee only after completed load
// rose with the offered. A closed ramp whose throughput grows as N/(Z+R₀)
// = N/0.5 s up to 60 VUs (120 req/s) and is flat after bends at 60 VUs;
// a run saturated from its first level (flat at ~1000 req/s from 12.5 to
// 362.5 VUs, a slight rise and a last level cut short at 906 req/s, the
// shape of a closed ramp with no think time on a 1000 req/s server) has
// no bend, where the fit alone (b > 0, c < b/2) found one at the top.
func TestHingeNeedsARise(t *testing.T) {
	mk := func(xs, ys []float64) []Level {
		var ls []Level
		for i := range xs {
			ls = append(ls, Level{Offered: F(xs[i]), CompletedRPS: F(ys[i])})
		}
		return ls
	}
	var xs, ys []float64
	for n := 10.0; n <= 150; n += 10 {
		xs, ys = append(xs, n), append(ys, math.Min(n, 60)/0.5)
	}
	if tau, ok := hinge(mk(xs, ys)); !ok || math.Abs(tau-60) > 1 {
		t.Errorf("closed ramp bending at 60 VUs: τ %.2f, %v", tau, ok)
	}
	flat := []float64{933.6, 998.4, 1003.7, 1000.4, 999.8, 999.5, 1000.0, 998.8, 997.2, 1000.8, 1004.1, 998.3, 999.7, 1002.2, 996.9, 906.6}
	xs = xs[:0]
	for i := range flat {
		xs = append(xs, 12.5+25*float64(i))
	}
	xs[len(xs)-1] = 370.7
	if tau, ok := hinge(mk(xs, flat)); ok {
		t.Errorf("saturated from the first level: a bend at τ %.1f", tau)
	}
}
