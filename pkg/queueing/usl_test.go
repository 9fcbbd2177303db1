package queueing

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func rel(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > tol*math.Abs(want) {
		t.Errorf("%s = %.7g, want %.7g ± %g%%", what, got, want, tol*100)
	}
}

// Synthetic data generated from known σ = 0.02, κ = 1e-4, λ = 1000
// (N* = √(0.98/1e-4) = 98.99) must be recovered (issue 7: within 1 %; the
// data are exact, so we ask for 1e-4 relative).
func TestFitUSLSynthetic(t *testing.T) {
	truth := USLModel{Sigma: 0.02, Kappa: 1e-4, Lambda: 1000}
	n := []float64{1, 2, 4, 8, 16, 32, 64, 128, 200}
	x := make([]float64, len(n))
	for i, v := range n {
		x[i] = truth.Throughput(v)
	}
	f, err := FitUSL(n, x, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	rel(t, "σ", f.Sigma, 0.02, 1e-4)
	rel(t, "κ", f.Kappa, 1e-4, 1e-4)
	rel(t, "λ", f.Lambda, 1000, 1e-4)
	rel(t, "N*", f.NStar, 98.9949, 1e-4)
	rel(t, "R²", f.R2, 1, 1e-9)
	if !f.HasPeak || f.KappaIncludesZero || len(f.Warnings) != 0 {
		t.Errorf("HasPeak %v, KappaIncludesZero %v, warnings %q", f.HasPeak, f.KappaIncludesZero, f.Warnings)
	}
}

// Synthetic data with ±1 % deterministic multiplicative noise: the known
// parameters must lie inside the 95 % intervals, and each estimate within
// 1 % (σ, λ) or 10 % (κ, less well determined) of the truth.
func TestFitUSLNoisy(t *testing.T) {
	truth := USLModel{Sigma: 0.05, Kappa: 2e-4, Lambda: 250}
	n := []float64{1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128}
	x := make([]float64, len(n))
	for i, v := range n {
		x[i] = truth.Throughput(v) * (1 + 0.01*math.Sin(float64(3*i+1)))
	}
	f, err := FitUSL(n, x, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	rel(t, "σ", f.Sigma, truth.Sigma, 0.05)
	rel(t, "κ", f.Kappa, truth.Kappa, 0.10)
	rel(t, "λ", f.Lambda, truth.Lambda, 0.01)
	for _, c := range []struct {
		name      string
		lo, v, hi float64
	}{
		{"σ", f.Low.Sigma, truth.Sigma, f.High.Sigma},
		{"κ", f.Low.Kappa, truth.Kappa, f.High.Kappa},
		{"λ", f.Low.Lambda, truth.Lambda, f.High.Lambda},
	} {
		if !(c.lo <= c.v && c.v <= c.hi) {
			t.Errorf("true %s = %g outside the 95%% interval %g–%g", c.name, c.v, c.lo, c.hi)
		}
	}
}

// codahale/usl's model_test.go fits 32 measurements (N = 1..32) with
// unconstrained Levenberg–Marquardt and expects σ = 0.02671591,
// κ = 7.690945e-4, λ = 995.6486 (tolerance 1e-5 there). The optimum is
// inside the bounds, so the bounded fit must agree; we allow 1e-4 relative
// for the different optimiser.
func TestFitUSLCodahale(t *testing.T) {
	x := []float64{955.16, 1878.91, 2688.01, 3548.68, 4315.54, 5130.43, 5931.37, 6531.08, 7219.8, 7867.61,
		8278.71, 8646.7, 9047.84, 9426.55, 9645.37, 9897.24, 10097.6, 10240.5, 10532.39, 10798.52,
		11151.43, 11518.63, 11806, 12089.37, 12075.41, 12177.29, 12211.41, 12158.93, 12155.27, 12118.04,
		12140.4, 12074.39}
	n := make([]float64, len(x))
	for i := range n {
		n[i] = float64(i + 1)
	}
	f, err := FitUSL(n, x, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	rel(t, "σ", f.Sigma, 0.02671591, 1e-4)
	rel(t, "κ", f.Kappa, 7.690945e-4, 1e-4)
	rel(t, "λ", f.Lambda, 995.6486, 1e-4)
	// codahale: MaxThroughput 12341.745 at MaxConcurrency ⌊35.x⌋ = 35.
	rel(t, "X(N*)", f.XMax, 12341.75, 1e-4)
	if math.Floor(f.NStar) != 35 {
		t.Errorf("N* = %g, want 35.x", f.NStar)
	}
}

// Amdahl data (κ = 0) must give κ = 0 or an interval reaching 0, and the
// Amdahl fit must recover σ = 0.1, λ = 50, ceiling λ/σ = 500 (hand
// calculation).
func TestFitUSLAmdahl(t *testing.T) {
	truth := USLModel{Sigma: 0.1, Lambda: 50}
	n := []float64{1, 2, 4, 8, 16, 32, 64}
	x := make([]float64, len(n))
	for i, v := range n {
		x[i] = truth.Throughput(v)
	}
	f, err := FitUSL(n, x, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if f.Kappa > 1e-9 || !f.KappaIncludesZero || f.HasPeak {
		t.Errorf("κ = %g, includes zero %v, peak %v", f.Kappa, f.KappaIncludesZero, f.HasPeak)
	}
	rel(t, "Amdahl σ", f.Amdahl.Sigma, 0.1, 1e-6)
	rel(t, "Amdahl λ", f.Amdahl.Lambda, 50, 1e-6)
	rel(t, "Amdahl ceiling", f.Amdahl.Ceiling, 500, 1e-6)
	if !strings.Contains(strings.Join(f.Warnings, "\n"), "no coherency penalty detected") {
		t.Errorf("warnings %q", f.Warnings)
	}
}

func TestFitUSLWarnings(t *testing.T) {
	m := USLModel{Sigma: 0.05, Kappa: 1e-3, Lambda: 100}
	n := []float64{2, 4, 6, 10}
	x := make([]float64, len(n))
	for i, v := range n {
		x[i] = m.Throughput(v)
	}
	x[0] *= 1.2 // a super-linear baseline
	f, err := FitUSL(n, x, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(f.Warnings, "\n")
	for _, w := range []string{"only 4 points", "no measurement at N = 1 (lowest N = 2)"} {
		if !strings.Contains(all, w) {
			t.Errorf("warnings lack %q:\n%s", w, all)
		}
	}
}

func TestFitUSLErrors(t *testing.T) {
	for _, c := range []struct {
		n, x []float64
		want string
	}{
		{[]float64{1, 2, 3}, []float64{1, 2, 3}, "queueing: a USL fit needs at least 4 points, got 3"},
		{[]float64{1, 2, 3, 4}, []float64{1, 2, 3}, "queueing: 4 concurrency values but 3 throughput values"},
		{[]float64{1, 2, 0, 4}, []float64{1, 2, 3, 4}, "queueing: point 3 (N=0, X=3): concurrency must be finite and > 0, throughput finite and ≥ 0"},
		{[]float64{1, 2, 3, 4}, []float64{1, 2, math.Inf(1), 4}, "queueing: point 3 (N=3, X=+Inf): concurrency must be finite and > 0, throughput finite and ≥ 0"},
		{[]float64{1, 1, 2, 2}, []float64{1, 1, 2, 2}, "queueing: a USL fit needs at least 3 distinct concurrencies, got 2"},
		{[]float64{1, 2, 3, 4}, []float64{0, 0, 0, 0}, "queueing: every throughput is 0"},
	} {
		_, err := FitUSL(c.n, c.x, 0.95)
		if err == nil || err.Error() != c.want {
			t.Errorf("FitUSL(%v, %v) error %v, want %q", c.n, c.x, err, c.want)
		}
	}
	if _, err := FitUSL([]float64{1, 2}, []float64{1, 2}, 0.95); !errors.Is(err, ErrUSLTooFewPoints) {
		t.Errorf("error %v does not wrap ErrUSLTooFewPoints", err)
	}
}

// SPEC SDM91 on a Sun SPARCcenter 2000 (Gunther 2007), as rounded in
// codahale/usl cmd/usl/example.csv. The R usl package (README, nlxb method,
// bounds as here; quoted in methods.md §2) reports σ = 0.0277,
// κ = 0.000104, λ = 90.0 and a peak of 1884 at N = 96.5; we allow 0.5 %
// for the rounding of the published figures.
func TestFitUSLSpecSDM91(t *testing.T) {
	f, err := FitUSL([]float64{1, 18, 36, 72, 108, 144, 216}, []float64{65, 996, 1652, 1853, 1829, 1775, 1702}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	rel(t, "σ", f.Sigma, 0.0277, 0.005)
	rel(t, "κ", f.Kappa, 0.000104, 0.005)
	rel(t, "λ", f.Lambda, 90.0, 0.005)
	rel(t, "N*", f.NStar, 96.5, 0.005)
	rel(t, "X(N*)", f.XMax, 1884, 0.005)
}

// Random sweeps (fixed seed) must never yield NaN or ±Inf, nor leave the
// bounds σ ∈ [0, 1], κ ≥ 0, λ ≥ 0: results go to JSON.
func TestFitUSLFinite(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for k := 0; k < 200; k++ {
		m := r.IntN(10) + 4
		n := make([]float64, m)
		x := make([]float64, m)
		for i := range n {
			n[i] = float64(i*r.IntN(20) + i + 1)
			x[i] = r.Float64() * 1000
		}
		f, err := FitUSL(n, x, 0.95)
		if err != nil {
			continue
		}
		vals := []float64{f.Sigma, f.Kappa, f.Lambda, f.R2, f.NStar, f.XMax, f.StdErr.Sigma, f.StdErr.Kappa, f.StdErr.Lambda,
			f.Low.Sigma, f.High.Sigma, f.Low.Kappa, f.High.Kappa, f.Low.Lambda, f.High.Lambda,
			f.Amdahl.Sigma, f.Amdahl.Lambda, f.Amdahl.R2, f.Amdahl.Ceiling}
		vals = append(append(append(vals, f.Fitted...), f.Residuals...), f.Efficiency...)
		for _, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("n=%v x=%v: non-finite value in %+v", n, x, f)
			}
		}
		if f.Sigma < 0 || f.Sigma > 1 || f.Kappa < 0 || f.Lambda < 0 {
			t.Fatalf("n=%v x=%v: out of bounds σ=%g κ=%g λ=%g", n, x, f.Sigma, f.Kappa, f.Lambda)
		}
	}
}
