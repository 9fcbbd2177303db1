package scale

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// The published case of issue 7 (bytes sent to players in one game):
// 100 players 36 MB, 250 players 382 MB, 500 players 2,645 MB. Expected
// values are from methods.md §7, recomputed by hand with the textbook OLS
// formulas (Python, float64): b = 2.665001, a = 1.6438e-4 MB, SE(b) =
// 0.060188, t(0.975, 1) = 12.7062, interval 1.90024–3.42976, log residuals
// +0.02409, −0.05593, +0.03184, local exponents 2.58, 2.79.
var (
	published = struct{ x, y []float64 }{[]float64{100, 250, 500}, []float64{36e6, 382e6, 2645e6}}
	afterFix  = struct{ x, y []float64 }{[]float64{100, 250, 500}, []float64{3.4e6, 12e6, 36e6}}
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > tol {
		t.Errorf("%s = %.6g, want %.6g ± %g", what, got, want, tol)
	}
}

func TestFitPublished(t *testing.T) {
	p, err := Fit(published.x, published.y, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "exponent", p.Exponent, 2.665001, 1e-5)
	near(t, "std err", p.StdErr, 0.060188, 1e-5)
	near(t, "exponent low", p.ExponentLow, 1.90024, 1e-4)
	near(t, "exponent high", p.ExponentHigh, 3.42976, 1e-4)
	near(t, "coefficient (bytes)", p.Coefficient, 164.3767, 1e-3)
	near(t, "R²", p.R2, 0.9995, 1e-4)
	if !p.HasInterval || p.N != 3 || p.DF != 1 {
		t.Errorf("HasInterval, N, DF = %v, %d, %d; want true, 3, 1", p.HasInterval, p.N, p.DF)
	}
	for i, want := range []float64{0.024087, -0.055927, 0.031841} {
		near(t, "residual", p.Residuals[i], want, 1e-5)
	}
	// ln(382/36)/ln(2.5) = 2.577677; ln(2645/382)/ln(2) = 2.7916 (hand calculation).
	if len(p.Local) != 2 {
		t.Fatalf("local exponents: %v", p.Local)
	}
	near(t, "local 100→250", p.Local[0].Exponent, 2.577677, 1e-5)
	near(t, "local 250→500", p.Local[1].Exponent, 2.7916, 1e-4)
	if !strings.HasPrefix(p.Interpretation, "nearly cubic") {
		t.Errorf("interpretation %q, want nearly cubic (issue 7)", p.Interpretation)
	}
	want := []string{"only 3 points: 1 degree of freedom (t = 12.71)", "spans more than one growth class", "local exponent rises 2.58→2.79"}
	all := strings.Join(p.Warnings, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("warnings lack %q:\n%s", w, all)
		}
	}
}

// After the fix: 3.4, 12, 36 MB at 100, 250, 500 players gives b ≈ 1.46
// (issue 7); hand calculation 1.461493.
func TestFitAfterFix(t *testing.T) {
	p, err := Fit(afterFix.x, afterFix.y, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "exponent", p.Exponent, 1.461493, 1e-5)
}

// Projection of the published case to 1000 players: ≈ 16.25 GB, 95 %
// interval of the mean 4.77–55.3 GB (methods.md §7; hand calculation
// 16249.6, 4770.9, 55346.3 MB).
func TestProject(t *testing.T) {
	p, err := Fit(published.x, published.y, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := p.Project(1000)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "y", pr.Y/1e6, 16249.6, 0.5)
	near(t, "low", pr.Low/1e6, 4770.9, 0.5)
	near(t, "high", pr.High/1e6, 55346.3, 2)
	if !pr.HasInterval || len(pr.Warnings) != 0 {
		t.Errorf("HasInterval %v, warnings %q", pr.HasInterval, pr.Warnings)
	}
	pr, err = p.Project(5000)
	if err != nil || len(pr.Warnings) != 1 || !strings.Contains(pr.Warnings[0], "far outside") {
		t.Errorf("projection at 5000: err %v, warnings %q; want an extrapolation warning", err, pr.Warnings)
	}
	if _, err := p.Project(0); !errors.Is(err, ErrNotPositive) {
		t.Errorf("Project(0) error %v, want ErrNotPositive", err)
	}
	if _, err := (PowerLaw{}).Project(10); err == nil {
		t.Error("Project on a zero PowerLaw: no error")
	}
}

// Exact data y = 3·x² must give b = 2, a = 3, R² = 1, a zero-width interval
// (hand calculation: SSE = 0).
func TestFitExact(t *testing.T) {
	x := []float64{1, 2, 4, 8, 16}
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = 3 * v * v
	}
	p, err := Fit(x, y, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "exponent", p.Exponent, 2, 1e-12)
	near(t, "coefficient", p.Coefficient, 3, 1e-12)
	near(t, "R²", p.R2, 1, 1e-12)
	near(t, "width", p.ExponentHigh-p.ExponentLow, 0, 1e-9)
	if len(p.Warnings) != 0 {
		t.Errorf("warnings on 5 exact points: %q", p.Warnings)
	}
	if !strings.HasPrefix(p.Interpretation, "quadratic") {
		t.Errorf("interpretation %q", p.Interpretation)
	}
}

// Two points: exact line, no interval, a loud warning (issue 7).
func TestFitTwoPoints(t *testing.T) {
	p, err := Fit([]float64{100, 500}, []float64{36, 2645}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	// ln(2645/36)/ln(5) = 2.669819 (hand calculation).
	near(t, "exponent", p.Exponent, 2.669819, 1e-5)
	if p.HasInterval || p.ExponentLow != p.Exponent || p.ExponentHigh != p.Exponent {
		t.Errorf("2-point fit has an interval: %+v", p)
	}
	if len(p.Warnings) == 0 || !strings.HasPrefix(p.Warnings[0], "only 2 points") {
		t.Errorf("warnings %q", p.Warnings)
	}
	pr, err := p.Project(1000)
	if err != nil || pr.HasInterval || pr.Low != pr.Y {
		t.Errorf("projection %+v, %v", pr, err)
	}
}

func TestFitErrors(t *testing.T) {
	for _, c := range []struct {
		x, y  []float64
		level float64
		want  string
	}{
		{[]float64{1}, []float64{1}, 0.95, "scale: a growth fit needs at least 2 points, got 1"},
		{[]float64{1, 2}, []float64{1}, 0.95, "scale: 2 x values but 1 y values"},
		{[]float64{1, 0}, []float64{1, 2}, 0.95, "scale: point 2 (x=0, y=2): x and y must be finite and > 0 for a log-log fit"},
		{[]float64{1, 2}, []float64{1, math.NaN()}, 0.95, "scale: point 2 (x=2, y=NaN): x and y must be finite and > 0 for a log-log fit"},
		{[]float64{3, 3, 3}, []float64{1, 2, 3}, 0.95, "scale: all x are equal: the exponent is undefined (x=3)"},
		{[]float64{1, 2}, []float64{1, 2}, 1, "scale: confidence level must be in (0, 1), got 1"},
	} {
		_, err := Fit(c.x, c.y, c.level)
		if err == nil || err.Error() != c.want {
			t.Errorf("Fit(%v, %v, %g) error %v, want %q", c.x, c.y, c.level, err, c.want)
		}
	}
}

func TestInterpret(t *testing.T) {
	for _, c := range []struct {
		b    float64
		want string
	}{
		{-1, "decreasing"}, {0, "constant"}, {0.5, "sub-linear"}, {1, "linear"},
		{1.46, "super-linear, nearer linear than quadratic"}, {1.7, "nearly quadratic"}, {2, "quadratic"},
		{2.3, "super-quadratic"}, {2.665, "nearly cubic"}, {3, "cubic"}, {4, "super-cubic"},
	} {
		if got := className(Interpret(c.b)); got != c.want {
			t.Errorf("Interpret(%g) class %q, want %q", c.b, got, c.want)
		}
	}
}
