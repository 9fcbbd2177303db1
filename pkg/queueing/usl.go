package queueing

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/stat/distuv"
)

// USLModel is the Universal Scalability Law (Gunther, Guerrilla Capacity
// Planning, 2007, ch. 4; methods.md §2):
//
//	X(N) = λN / (1 + σ(N−1) + κN(N−1))
//
// Sigma (σ, contention: the serial fraction, 0–1), Kappa (κ, coherency: the
// pairwise crosstalk penalty, ≥ 0) and Lambda (λ, the throughput of one
// unit of concurrency, in the throughput's unit, e.g. per second). κ = 0 is
// Amdahl's law; σ = κ = 0 is linear scaling.
type USLModel struct {
	Sigma, Kappa, Lambda float64
}

// Throughput returns X(N) for concurrency n (≥ 0), in λ's unit.
func (m USLModel) Throughput(n float64) float64 {
	return m.Lambda * n / (1 + m.Sigma*(n-1) + m.Kappa*n*(n-1))
}

// Peak returns the concurrency of maximum throughput, N* = √((1−σ)/κ)
// (Gunther 2007 ch. 4; codahale/usl MaxConcurrency; methods.md §2), and
// X(N*). ok is false when κ = 0 (Amdahl: throughput rises monotonically
// towards λ/σ and never peaks).
// N* is at least 1: when √((1−σ)/κ) < 1 (σ near 1) throughput falls from
// the first user on and the peak is X(1) = λ.
func (m USLModel) Peak() (nStar, xMax float64, ok bool) {
	if m.Kappa <= 0 {
		return 0, 0, false
	}
	nStar = math.Max(1, math.Sqrt((1-m.Sigma)/m.Kappa))
	return nStar, m.Throughput(nStar), true
}

// USLFit is a USL fitted to (concurrency, throughput) points by FitUSL.
type USLFit struct {
	// USLModel holds the fitted σ, κ, λ.
	USLModel
	// StdErr holds the standard error of each parameter (same fields);
	// valid when HasStdErr.
	StdErr    USLModel
	HasStdErr bool
	// Low and High bound each parameter at Level (estimate ± t·SE on DF
	// degrees of freedom), clipped to the bounds σ ∈ [0, 1], κ ≥ 0, λ ≥ 0.
	Low, High USLModel
	// KappaIncludesZero is true when κ's interval, before clipping, reaches
	// 0: the data show no coherency penalty.
	KappaIncludesZero bool
	// Level is the confidence level of the intervals, e.g. 0.95.
	Level float64
	// N is the number of points, DF = N−3.
	N, DF int
	// R2 is 1 − SSE/SST on the throughput scale.
	R2 float64
	// HasPeak is true when κ > 0; NStar is then √((1−σ)/κ) and XMax = X(N*).
	HasPeak     bool
	NStar, XMax float64
	// Fitted, Residuals (X − X̂) and Efficiency (X/(N·λ), a ratio; above 1
	// means faster than linear from λ) are per input point, in input order.
	Fitted, Residuals, Efficiency []float64
	// Amdahl is the fit with κ fixed at 0, for comparison.
	Amdahl AmdahlFit
	// Warnings are caveats in plain words (few points, no N = 1, peak
	// beyond the data, no coherency detected, efficiency above 1).
	Warnings []string
}

// AmdahlFit is the USL fitted with κ = 0 (Amdahl's law,
// X(N) = λN/(1 + σ(N−1))).
type AmdahlFit struct {
	// Sigma (0–1) and Lambda (λ's unit) are the fitted parameters.
	Sigma, Lambda float64
	// SigmaStdErr and LambdaStdErr are their standard errors (n−2 degrees
	// of freedom); valid when HasStdErr.
	SigmaStdErr, LambdaStdErr float64
	HasStdErr                 bool
	// R2 is 1 − SSE/SST on the throughput scale.
	R2 float64
	// Ceiling is the asymptote λ/σ in λ's unit; valid when HasCeiling
	// (σ > 0).
	Ceiling    float64
	HasCeiling bool
}

// PointError is an unusable point of FitUSL or Sweep: the Index-th (0-based)
// of the slices, its values and what is wrong with it. A caller that
// knows where its points came from names the input instead of the index
// (scale.Points.Sources).
type PointError struct {
	Index int
	N, X  float64
	Err   error
}

// Error writes "queueing: point 5 (N=16, X=-1): concurrency must be …".
func (e *PointError) Error() string {
	return fmt.Sprintf("queueing: point %d (N=%g, X=%g): %v", e.Index+1, e.N, e.X, e.Err)
}

// Unwrap returns Err.
func (e *PointError) Unwrap() error { return e.Err }

// PointIndex is Index (scale.Points.NamePoint reads it).
func (e *PointError) PointIndex() int { return e.Index }

// Reason is the error without the point's index: "N=16, X=-1: …".
func (e *PointError) Reason() string { return fmt.Sprintf("N=%g, X=%g: %v", e.N, e.X, e.Err) }

// Errors returned by FitUSL for unusable data; test with errors.Is.
var (
	ErrUSLTooFewPoints = errors.New("a USL fit needs at least 4 points")
	ErrUSLBadPoint     = errors.New("concurrency must be finite and > 0, throughput finite and ≥ 0")
)

// FitUSL fits the USL to concurrency n (VUs, threads, users; > 0) and
// throughput x (≥ 0, any rate unit) by bounded nonlinear least squares on
// the throughput residuals, σ ∈ [0, 1], κ ≥ 0, λ > 0, as the R usl package
// does (Moeding, R/usl.R; methods.md §2). level (e.g. 0.95) sets the
// parameter intervals.
//
// Method: λ enters linearly, so for given (σ, κ) the best λ is
// Σx·g/Σg² with g(N) = N/(1+σ(N−1)+κN(N−1)); the remaining two parameters
// are searched with gonum's Nelder–Mead from several starts on a grid,
// through σ = sin²u and κ = (v/N_max)² so the bounds always hold. Standard
// errors are from the Jacobian J at the optimum, cov = s²(JᵀJ)⁻¹ with
// s² = SSE/(n−3), and intervals use the Student-t quantile on n−3 degrees
// of freedom (the linear approximation of Bates & Watts, Nonlinear
// Regression Analysis and Its Applications, 1988, ch. 2; as R usl confint,
// which uses n−1 df).
// The Amdahl fit (κ = 0) is made the same way.
//
// It refuses fewer than 4 points or fewer than 3 distinct concurrencies,
// and warns below 6 points (codahale/usl and R usl draw the line at six;
// methods.md §2). Fitting codahale/usl's 32-point test data reproduces its
// σ = 0.02672, κ = 7.691e-4, λ = 995.6.
func FitUSL(n, x []float64, level float64) (USLFit, error) {
	var f USLFit
	if len(n) != len(x) {
		return f, errorf("%d concurrency values but %d throughput values", len(n), len(x))
	}
	if len(n) < 4 {
		return f, errorf("%w, got %d", ErrUSLTooFewPoints, len(n))
	}
	if !(level > 0 && level < 1) {
		return f, errorf("confidence level must be in (0, 1), got %g", level)
	}
	distinct := map[float64]bool{}
	nmax, xmax := 0.0, 0.0
	for i := range n {
		if math.IsNaN(n[i]) || math.IsInf(n[i], 0) || n[i] <= 0 || math.IsNaN(x[i]) || math.IsInf(x[i], 0) || x[i] < 0 {
			return f, &PointError{Index: i, N: n[i], X: x[i], Err: ErrUSLBadPoint}
		}
		distinct[n[i]] = true
		nmax, xmax = math.Max(nmax, n[i]), math.Max(xmax, x[i])
	}
	if len(distinct) < 3 {
		return f, errorf("a USL fit needs at least 3 distinct concurrencies, got %d", len(distinct))
	}
	if xmax == 0 {
		return f, errorf("every throughput is 0")
	}
	f.Level, f.N, f.DF = level, len(n), len(n)-3
	sst := 0.0
	mx := mean(x)
	for _, v := range x {
		sst += (v - mx) * (v - mx)
	}

	m := fitProfile(n, x, nmax, false)
	f.USLModel = m
	f.Fitted = make([]float64, len(n))
	f.Residuals = make([]float64, len(n))
	f.Efficiency = make([]float64, len(n))
	sse := 0.0
	for i := range n {
		f.Fitted[i] = m.Throughput(n[i])
		f.Residuals[i] = x[i] - f.Fitted[i]
		f.Efficiency[i] = x[i] / (n[i] * m.Lambda)
		sse += f.Residuals[i] * f.Residuals[i]
	}
	f.R2 = rsq(sse, sst)
	f.NStar, f.XMax, f.HasPeak = m.Peak()

	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(f.DF)}.Quantile(1 - (1-level)/2)
	if se, ok := stdErrors(n, m, sse, f.DF, true); ok {
		f.HasStdErr = true
		f.StdErr = USLModel{Sigma: se[0], Kappa: se[1], Lambda: se[2]}
		f.Low = USLModel{
			Sigma:  math.Max(0, m.Sigma-t*se[0]),
			Kappa:  math.Max(0, m.Kappa-t*se[1]),
			Lambda: math.Max(0, m.Lambda-t*se[2]),
		}
		f.High = USLModel{
			Sigma:  math.Min(1, m.Sigma+t*se[0]),
			Kappa:  m.Kappa + t*se[1],
			Lambda: m.Lambda + t*se[2],
		}
		f.KappaIncludesZero = m.Kappa-t*se[1] <= 0
	} else {
		f.Low, f.High = m, m
		f.KappaIncludesZero = m.Kappa == 0
	}

	a := fitProfile(n, x, nmax, true)
	f.Amdahl = AmdahlFit{Sigma: a.Sigma, Lambda: a.Lambda}
	asse := 0.0
	for i := range n {
		r := x[i] - a.Throughput(n[i])
		asse += r * r
	}
	f.Amdahl.R2 = rsq(asse, sst)
	if a.Sigma > 0 {
		f.Amdahl.Ceiling, f.Amdahl.HasCeiling = a.Lambda/a.Sigma, true
	}
	if se, ok := stdErrors(n, a, asse, len(n)-2, false); ok {
		f.Amdahl.HasStdErr = true
		f.Amdahl.SigmaStdErr, f.Amdahl.LambdaStdErr = se[0], se[2]
	}
	f.Warnings = f.warnings(n, x)
	return f, nil
}

func (f *USLFit) warnings(n, x []float64) []string {
	var w []string
	if f.N < 6 {
		w = append(w, fmt.Sprintf("only %d points: Gunther and both reference USL implementations ask for at least 6 concurrency levels; σ and κ are loosely determined", f.N))
	}
	nmin, nmax := n[0], n[0]
	for _, v := range n {
		nmin, nmax = math.Min(nmin, v), math.Max(nmax, v)
	}
	if nmin > 1 {
		w = append(w, fmt.Sprintf("no measurement at N = 1 (lowest N = %g): λ, the throughput of one user, is extrapolated", nmin))
	}
	if !f.HasStdErr {
		w = append(w, "the fit's Jacobian is singular: no standard errors")
	}
	if f.HasPeak && f.NStar > 2*nmax {
		w = append(w, fmt.Sprintf("the peak N* = %.4g lies beyond twice the largest tested N (%g): an extrapolation", f.NStar, nmax))
	}
	if f.KappaIncludesZero {
		s := fmt.Sprintf("κ's %g%% interval includes 0: no coherency penalty detected; the Amdahl fit (κ = 0, σ = %.4g", f.Level*100, f.Amdahl.Sigma)
		if f.Amdahl.HasCeiling {
			s += fmt.Sprintf(", ceiling λ/σ = %.4g", f.Amdahl.Ceiling)
		}
		w = append(w, s+") describes the data as well")
	}
	if f.Sigma >= 1 {
		w = append(w, "σ is at its bound 1: throughput does not grow with concurrency at all")
	}
	idx := make([]int, len(n))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return n[idx[a]] < n[idx[b]] })
	for _, i := range idx {
		if f.Efficiency[i] > 1.05 {
			w = append(w, fmt.Sprintf("N = %g: efficiency X/(N·λ) = %.2f > 1, faster than linear scaling: check the baseline, a warm-up or a cache", n[i], f.Efficiency[i]))
		}
	}
	return w
}

// fitProfile finds σ ∈ [0,1], κ ≥ 0 (κ = 0 when amdahl) minimising the
// profiled SSE, with λ solved in closed form. Throughput is scaled by its
// maximum so the objective is O(1) whatever the unit.
func fitProfile(n, x []float64, nmax float64, amdahl bool) USLModel {
	xs := 0.0
	for _, v := range x {
		xs = math.Max(xs, v)
	}
	y := make([]float64, len(x))
	for i := range x {
		y[i] = x[i] / xs
	}
	model := func(p []float64) USLModel {
		s := math.Sin(p[0])
		m := USLModel{Sigma: s * s}
		if !amdahl {
			m.Kappa = (p[1] / nmax) * (p[1] / nmax)
		}
		m.Lambda = bestLambda(n, y, m.Sigma, m.Kappa)
		return m
	}
	obj := func(p []float64) float64 { return sseOf(n, y, model(p)) }

	// Starting points: a grid in (σ, v), best few first.
	type start struct {
		p []float64
		f float64
	}
	var starts []start
	for _, s0 := range []float64{0, 0.01, 0.05, 0.2, 0.5, 0.9} {
		u := math.Asin(math.Sqrt(s0))
		if amdahl {
			p := []float64{u}
			starts = append(starts, start{p, obj(p)})
			continue
		}
		for _, v := range []float64{0, 0.1, 0.3, 1, 3, 10} {
			p := []float64{u, v}
			starts = append(starts, start{p, obj(p)})
		}
	}
	sort.SliceStable(starts, func(i, j int) bool { return starts[i].f < starts[j].f })
	if len(starts) > 4 {
		starts = starts[:4]
	}
	best := starts[0]
	settings := &optimize.Settings{
		Converger:       &optimize.FunctionConverge{Absolute: 1e-24, Relative: 1e-13, Iterations: 60},
		MajorIterations: 4000,
	}
	run := func(p0 []float64) {
		res, err := optimize.Minimize(optimize.Problem{Func: obj}, p0, settings, &optimize.NelderMead{})
		if res == nil || (err != nil && res.X == nil) {
			return
		}
		if fv := obj(res.X); fv < best.f {
			best = start{append([]float64(nil), res.X...), fv}
		}
	}
	for _, s := range starts {
		run(s.p)
	}
	run(best.p) // a restart polishes a collapsed simplex
	m := model(best.p)
	// Snap values that are 0 to working precision onto the bound, then
	// re-solve λ.
	if m.Sigma < 1e-12 {
		m.Sigma = 0
	}
	if m.Sigma > 1-1e-12 {
		m.Sigma = 1
	}
	if m.Kappa*nmax*nmax < 1e-12 {
		m.Kappa = 0
	}
	m.Lambda = bestLambda(n, y, m.Sigma, m.Kappa) * xs
	return m
}

// bestLambda is the least-squares λ for fixed σ, κ: Σy·g/Σg².
func bestLambda(n, y []float64, sigma, kappa float64) float64 {
	var num, den float64
	for i := range n {
		g := n[i] / (1 + sigma*(n[i]-1) + kappa*n[i]*(n[i]-1))
		num += y[i] * g
		den += g * g
	}
	if den == 0 {
		return 0
	}
	return num / den
}

func sseOf(n, y []float64, m USLModel) float64 {
	s := 0.0
	for i := range n {
		r := y[i] - m.Throughput(n[i])
		s += r * r
	}
	return s
}

// stdErrors returns the standard errors of (σ, κ, λ) from the analytic
// Jacobian of X(N): ∂X/∂σ = −λN(N−1)/D², ∂X/∂κ = −λN²(N−1)/D²,
// ∂X/∂λ = N/D with D = 1+σ(N−1)+κN(N−1). With withKappa false the κ column
// is left out (Amdahl) and se[1] is 0. ok is false when JᵀJ is singular or
// df < 1.
func stdErrors(n []float64, m USLModel, sse float64, df int, withKappa bool) (se [3]float64, ok bool) {
	if df < 1 {
		return se, false
	}
	cols := []int{0, 2}
	if withKappa {
		cols = []int{0, 1, 2}
	}
	k := len(cols)
	j := mat.NewDense(len(n), k, nil)
	for i, N := range n {
		d := 1 + m.Sigma*(N-1) + m.Kappa*N*(N-1)
		all := [3]float64{-m.Lambda * N * (N - 1) / (d * d), -m.Lambda * N * N * (N - 1) / (d * d), N / d}
		for c, col := range cols {
			j.Set(i, c, all[col])
		}
	}
	var jtj, inv mat.Dense
	jtj.Mul(j.T(), j)
	if err := inv.Inverse(&jtj); err != nil {
		return se, false
	}
	s2 := sse / float64(df)
	for c, col := range cols {
		v := inv.At(c, c) * s2
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return se, false
		}
		se[col] = math.Sqrt(v)
	}
	return se, true
}

func rsq(sse, sst float64) float64 {
	if sst == 0 {
		if sse == 0 {
			return 1
		}
		return 0
	}
	return math.Max(0, 1-sse/sst)
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}
