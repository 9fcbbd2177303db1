package queueing

import (
	"math"
	"testing"
)

// TestSweep labels testdata/scale's ladder, X(N) = 100N/(1 + 0.05(N−1) +
// 0.001N(N−1)) rounded: 100, 190, 344, 569, 804, 903 at N = 1 … 32, plus
// a retrograde 800 at N = 64 (X(64) of the model is 692). Marginal gains
// by hand, ΔX ÷ (ΔN · 100): 0.9, 0.77, 0.5625, 0.29375, 0.061875 and
// −0.0322; efficiency at 32 is 903 ÷ 3200 = 0.2822.
func TestSweep(t *testing.T) {
	n := []float64{64, 1, 2, 4, 8, 16, 32}
	x := []float64{800, 100, 190, 344, 569, 804, 903}
	steps, base, err := Sweep(n, x)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		label string
		gain  float64
	}{{LabelHeadroom, 1}, {LabelHeadroom, 0.9}, {LabelHeadroom, 0.77}, {LabelHeadroom, 0.5625},
		{LabelSaturation, 0.29375}, {LabelSaturation, 0.061875}, {LabelContention, (800 - 903) / 3200.0}}
	if base != 1 || len(steps) != len(want) {
		t.Fatalf("base %v, %d steps", base, len(steps))
	}
	for i, w := range want {
		if s := steps[i]; s.Label != w.label || math.Abs(s.Gain-w.gain) > 1e-12 {
			t.Errorf("N=%g: %s gain %v, want %s %v (%s)", s.N, s.Label, s.Gain, w.label, w.gain, s.Reason)
		}
	}
	if e := steps[5].Efficiency; math.Abs(e-903.0/3200) > 1e-12 {
		t.Errorf("efficiency at 32 = %v", e)
	}
	// X falling 3.5 % at N = 64 (under the retrograde tolerance) is
	// saturation that added nothing, not "only -1 %": 32 ÷ (32 · 100).
	steps, _, _ = Sweep([]float64{1, 32, 64}, []float64{100, 903, 903 - 32})
	if s := steps[2]; s.Label != LabelSaturation || s.Reason != "N 32 → 64 added nothing (-1% of linear scaling: X fell, but less than the 5% below the best that is retrograde)" {
		t.Errorf("a small fall: %s (%s)", s.Label, s.Reason)
	}
	// Without N = 1 the smallest N is the baseline: X(1) = 190/2 = 95.
	steps, base, _ = Sweep(n[2:], x[2:])
	if base != 2 || math.Abs(steps[1].Efficiency-344/(4*95.0)) > 1e-12 {
		t.Errorf("base %v efficiency %v", base, steps[1].Efficiency)
	}
	for _, c := range []struct{ n, x []float64 }{{[]float64{1}, []float64{1}}, {[]float64{1, 1}, []float64{1, 2}}, {[]float64{1, 2}, []float64{1, 0}}, {[]float64{1, 2}, []float64{1}}} {
		if _, _, err := Sweep(c.n, c.x); err == nil {
			t.Errorf("Sweep(%v, %v): no error", c.n, c.x)
		}
	}
}
