// Package scale fits growth exponents: how a cost y (bytes sent, CPU
// seconds, memory) grows with a size x (players in a room, users, tenants).
//
// The model is the power law y = a·x^b, fitted by ordinary least squares on
// log-log data (methods.md §7). The exponent b is reported with a Student-t
// confidence interval, the local exponent between neighbouring sizes shows
// curvature, and Project extrapolates y to a new size with its interval.
// Points are read from CSV or "x=y" strings with units (36MB, 2.6 GB, 500ms,
// 1.5k) converted once to base units (bytes, seconds, counts), or taken
// from k6 runs labelled with their x: a RunAggregator reduces one run to a
// metric's total, rate or percentile (Selector), and SteadyThroughput
// reduces a run's knee analysis to the completed rate of its longest hold
// (the X of a Universal Scalability Law point).
//
// Nothing here prints; caveats ride on the results as Warnings.
package scale

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// PowerLaw is the least-squares fit of y = a·x^b on log-log data, as returned
// by Fit.
type PowerLaw struct {
	// N is the number of points fitted.
	N int
	// DF is the residual degrees of freedom, N−2.
	DF int
	// Level is the confidence level of the intervals, in (0, 1), e.g. 0.95.
	Level float64

	// Exponent is b, dimensionless: y grows like x^b.
	Exponent float64
	// StdErr is the standard error of b; 0 when N = 2 (no degrees of freedom).
	StdErr float64
	// HasInterval is false when N = 2: the line passes through both points
	// exactly and there is no uncertainty estimate. ExponentLow and
	// ExponentHigh then equal Exponent.
	HasInterval bool
	// ExponentLow and ExponentHigh bound b at Level: b ± t·StdErr with t the
	// Student-t quantile on DF degrees of freedom.
	ExponentLow, ExponentHigh float64

	// Coefficient is a, in y's unit divided by x's unit to the power b:
	// the fitted y at x = 1.
	Coefficient float64
	// R2 is the coefficient of determination on the log scale, in [0, 1]
	// (1 when every ln y is equal and the fit is exact).
	R2 float64
	// Residuals are ln y − ln ŷ for each input point, in input order:
	// dimensionless relative errors (0.024 means y is 2.4 % above the fit).
	Residuals []float64
	// Local holds the exponents between neighbouring sizes, sorted by x.
	Local []LocalExponent
	// XMin and XMax are the smallest and largest x fitted.
	XMin, XMax float64

	// Interpretation names the growth class of b in plain words; see
	// Interpret.
	Interpretation string
	// Warnings are caveats about the fit (few points, a wide interval,
	// curvature), in plain words.
	Warnings []string

	meanLogX, sxx, s, t float64
}

// LocalExponent is the exponent between two neighbouring sizes:
// ln(y1/y0) / ln(x1/x0), the slope of the segment on log-log axes.
// A local exponent that rises with x means the curve bends upward and a
// single power law understates growth beyond the data.
type LocalExponent struct {
	X0, X1   float64
	Exponent float64
}

// Projection is the fitted y at a new x with its confidence interval, as
// returned by PowerLaw.Project. Y, Low and High are in y's unit.
type Projection struct {
	X, Y float64
	// Low and High bound the mean y at x at the fit's Level: on the log
	// scale ŷ ± t·s·√(1/n + (ln x − mean ln x)²/Sxx), then exponentiated.
	// They equal Y when the fit has no interval (2 points).
	Low, High   float64
	HasInterval bool
	// Warnings are caveats about the projection (extrapolation).
	Warnings []string
}

// Errors returned by Fit for unusable data. They are wrapped with the
// offending point; test with errors.Is.
var (
	ErrTooFewPoints = errors.New("a growth fit needs at least 2 points")
	ErrNotPositive  = errors.New("x and y must be finite and > 0 for a log-log fit")
	ErrSameX        = errors.New("all x are equal: the exponent is undefined")
)

// Fit fits y = a·x^b by ordinary least squares on (ln x, ln y), with a
// confidence interval for b at level (e.g. 0.95).
//
// With u = ln x and v = ln y (methods.md §7; any regression text, e.g.
// Montgomery, Peck & Vining, Introduction to Linear Regression Analysis,
// 5th ed., §2.2–2.4):
//
//	b = Sxy/Sxx,  ln a = mean(v) − b·mean(u)
//	SE(b) = √(SSE/(n−2)) / √Sxx
//	interval b ± t(1−(1−level)/2, n−2)·SE(b)
//	R² = 1 − SSE/SST
//
// The log transform assumes multiplicative errors, which suits byte, CPU and
// latency growth. x and y must have the same length ≥ 2, every value finite
// and > 0, and at least two distinct x; otherwise Fit returns an error
// wrapping ErrTooFewPoints, ErrNotPositive or ErrSameX. level must lie in
// (0, 1).
//
// With n = 2 the line is exact and HasInterval is false; with n = 3 the
// interval has one degree of freedom (t = 12.71 at 95 %) and a warning says
// so. The published case 100→36 MB, 250→382 MB, 500→2645 MB gives
// b = 2.665, 95 % interval 1.90–3.43 (methods.md §7).
func Fit(x, y []float64, level float64) (PowerLaw, error) {
	var p PowerLaw
	if len(x) != len(y) {
		return p, fmt.Errorf("scale: %d x values but %d y values", len(x), len(y))
	}
	n := len(x)
	if n < 2 {
		return p, fmt.Errorf("scale: %w, got %d", ErrTooFewPoints, n)
	}
	if !(level > 0 && level < 1) {
		return p, fmt.Errorf("scale: confidence level must be in (0, 1), got %g", level)
	}
	u := make([]float64, n)
	v := make([]float64, n)
	for i := range x {
		if !positive(x[i]) || !positive(y[i]) {
			return p, fmt.Errorf("scale: point %d (x=%g, y=%g): %w", i+1, x[i], y[i], ErrNotPositive)
		}
		u[i], v[i] = math.Log(x[i]), math.Log(y[i])
	}
	var mu, mv float64
	for i := range u {
		mu += u[i]
		mv += v[i]
	}
	mu /= float64(n)
	mv /= float64(n)
	var sxx, sxy, sst float64
	for i := range u {
		du, dv := u[i]-mu, v[i]-mv
		sxx += du * du
		sxy += du * dv
		sst += dv * dv
	}
	if sxx == 0 {
		return p, fmt.Errorf("scale: %w (x=%g)", ErrSameX, x[0])
	}
	b := sxy / sxx
	lna := mv - b*mu
	p.Residuals = make([]float64, n)
	var sse float64
	for i := range u {
		r := v[i] - (lna + b*u[i])
		p.Residuals[i] = r
		sse += r * r
	}
	p.N, p.DF, p.Level = n, n-2, level
	p.Exponent, p.Coefficient = b, math.Exp(lna)
	if p.Coefficient == 0 || math.IsInf(p.Coefficient, 0) || math.IsNaN(b) {
		return PowerLaw{}, fmt.Errorf("scale: the coefficient a = e^%g is out of float64 range: rescale x or y", lna)
	}
	p.R2 = 1
	if sst > 0 {
		p.R2 = math.Max(0, 1-sse/sst)
	}
	p.XMin, p.XMax = x[0], x[0]
	for _, xi := range x {
		p.XMin, p.XMax = math.Min(p.XMin, xi), math.Max(p.XMax, xi)
	}
	p.meanLogX, p.sxx = mu, sxx
	p.ExponentLow, p.ExponentHigh = b, b
	if p.DF > 0 {
		p.HasInterval = true
		p.s = math.Sqrt(sse / float64(p.DF))
		p.t = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(p.DF)}.Quantile(1 - (1-level)/2)
		p.StdErr = p.s / math.Sqrt(sxx)
		p.ExponentLow, p.ExponentHigh = b-p.t*p.StdErr, b+p.t*p.StdErr
	}
	p.Local = localExponents(x, y)
	p.Interpretation = Interpret(b)
	p.Warnings = p.warnings()
	return p, nil
}

// localExponents returns ln(y1/y0)/ln(x1/x0) between neighbours in x order,
// skipping neighbours with the same x.
func localExponents(x, y []float64) []LocalExponent {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	var out []LocalExponent
	for k := 1; k < len(idx); k++ {
		i, j := idx[k-1], idx[k]
		if x[i] == x[j] {
			continue
		}
		out = append(out, LocalExponent{X0: x[i], X1: x[j], Exponent: math.Log(y[j]/y[i]) / math.Log(x[j]/x[i])})
	}
	return out
}

func (p *PowerLaw) warnings() []string {
	var w []string
	switch {
	case p.N == 2:
		w = append(w, "only 2 points: the line passes through both exactly, so the exponent has no uncertainty estimate; measure at least 5 sizes spaced ×1.5–2 apart")
	case p.N == 3:
		w = append(w, fmt.Sprintf("only 3 points: 1 degree of freedom (t = %.2f), so the %s interval of the exponent is wide (%.2f–%.2f); measure at least 5 sizes spaced ×1.5–2 apart",
			p.t, percent(p.Level), p.ExponentLow, p.ExponentHigh))
	}
	if p.XMax/p.XMin < 2 {
		w = append(w, fmt.Sprintf("x spans only ×%.2g: the exponent is poorly determined; spread the sizes at least ×4", p.XMax/p.XMin))
	}
	if p.HasInterval {
		lo, hi := Interpret(p.ExponentLow), Interpret(p.ExponentHigh)
		if lo != hi {
			w = append(w, fmt.Sprintf("the %s interval %.2f–%.2f spans more than one growth class (from %q to %q): the data do not pin down the mechanism",
				percent(p.Level), p.ExponentLow, p.ExponentHigh, className(lo), className(hi)))
		}
	}
	if k := len(p.Local); k >= 2 {
		first, last := p.Local[0].Exponent, p.Local[k-1].Exponent
		rising, falling := true, true
		for i := 1; i < k; i++ {
			rising = rising && p.Local[i].Exponent > p.Local[i-1].Exponent
			falling = falling && p.Local[i].Exponent < p.Local[i-1].Exponent
		}
		switch {
		case rising && last-first >= 0.1:
			w = append(w, fmt.Sprintf("the local exponent rises %.2f→%.2f with x: the curve bends upward on log-log axes, so a projection beyond the data likely understates y", first, last))
		case falling && first-last >= 0.1:
			w = append(w, fmt.Sprintf("the local exponent falls %.2f→%.2f with x: the curve bends downward on log-log axes, so a projection beyond the data likely overstates y", first, last))
		}
	}
	return w
}

// Project returns the fitted y at x with the confidence interval of the mean
// response at the fit's level (Montgomery, Peck & Vining §2.4.2), computed on
// the log scale and exponentiated:
//
//	ln ŷ = ln a + b·ln x,  ln ŷ ± t·s·√(1/n + (ln x − mean ln x)²/Sxx)
//
// x must be finite and > 0. A warning is attached when x lies outside
// [XMin/2, 2·XMax]: the interval assumes the power law holds out there.
// Project works on a PowerLaw returned by Fit. For the published case,
// x = 1000 gives ≈ 16.2 GB with a 95 % interval ≈ 4.8–55 GB (methods.md §7).
func (p PowerLaw) Project(x float64) (Projection, error) {
	if !positive(x) {
		return Projection{}, fmt.Errorf("scale: projection at x=%g: %w", x, ErrNotPositive)
	}
	if p.N < 2 || p.sxx == 0 {
		return Projection{}, errors.New("scale: Project needs a PowerLaw returned by Fit")
	}
	lx := math.Log(x)
	ly := math.Log(p.Coefficient) + p.Exponent*lx
	pr := Projection{X: x, Y: math.Exp(ly), Low: math.Exp(ly), High: math.Exp(ly)}
	if p.HasInterval {
		d := lx - p.meanLogX
		h := p.t * p.s * math.Sqrt(1/float64(p.N)+d*d/p.sxx)
		pr.HasInterval = true
		pr.Low, pr.High = math.Exp(ly-h), math.Exp(ly+h)
	} else {
		pr.Warnings = append(pr.Warnings, "no interval: a 2-point fit has no uncertainty estimate")
	}
	if x > 2*p.XMax || x < p.XMin/2 {
		pr.Warnings = append(pr.Warnings, fmt.Sprintf("x=%g is far outside the measured range %g–%g: the projection assumes the power law still holds there", x, p.XMin, p.XMax))
	}
	if math.IsInf(pr.High, 0) || math.IsInf(pr.Y, 0) || pr.Y == 0 {
		return Projection{}, fmt.Errorf("scale: projection at x=%g overflows", x)
	}
	return pr, nil
}

func positive(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

func percent(level float64) string {
	return fmt.Sprintf("%g%%", math.Round(level*1000)/10)
}
