package present

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/jsonnum"
	"github.com/ldanalyze/ldanalyze/pkg/queueing"
	"github.com/ldanalyze/ldanalyze/pkg/scale"
)

// RunPoint is one --run in the JSON of `scale` and `queue usl`: its
// label x (N for --usl), its files and the y (X for --usl) it gave, in
// y_unit. --fit fills samples and duration_s; --usl the span it measured.
type RunPoint struct {
	X         float64    `json:"x"`
	Files     []string   `json:"files"`
	Y         float64    `json:"y"`
	YUnit     string     `json:"y_unit"`
	Selector  string     `json:"selector"`
	Samples   uint64     `json:"samples,omitempty"`
	DurationS float64    `json:"duration_s,omitempty"`
	Span      string     `json:"span,omitempty"`
	Start     *time.Time `json:"start,omitempty"`
	End       *time.Time `json:"end,omitempty"`
	Seconds   float64    `json:"seconds,omitempty"`
	VUs       *float64   `json:"vus,omitempty"`
	ErrorRate *float64   `json:"error_rate,omitempty"`
	// P95MS is the p95 over the span of Metric, the run's request Trend
	// (iteration_duration without one), ms (--usl).
	P95MS  *float64 `json:"p95_ms,omitempty"`
	Metric string   `json:"metric,omitempty"`
}

// USLSelector names what --usl takes from a run, LevelSelector what
// --usl --levels takes from each level.
const (
	USLSelector   = "successful requests/s over the longest hold"
	LevelSelector = "completed rate of the level"
)

// LevelSpan is the Span of a point from a run's level (--usl --levels).
const LevelSpan = "level"

// ScaleFitDoc is the JSON document of `scale --fit` (issue 7 contract:
// exponent, exponent_low, exponent_high, coefficient, r2, n,
// local_exponents, projection). Values are in base units: bytes, seconds,
// counts; x_unit and y_unit name them.
type ScaleFitDoc struct {
	Exponent       float64          `json:"exponent"`
	ExponentLow    jsonnum.Float    `json:"exponent_low"`
	ExponentHigh   jsonnum.Float    `json:"exponent_high"`
	StdErr         jsonnum.Float    `json:"std_err"`
	Level          float64          `json:"level"`
	Coefficient    float64          `json:"coefficient"`
	R2             float64          `json:"r2"`
	N              int              `json:"n"`
	DF             int              `json:"df"`
	LocalExponents []ScaleLocal     `json:"local_exponents"`
	Projection     *ScaleProjection `json:"projection"`
	Interpretation string           `json:"interpretation"`
	XName          string           `json:"x_name,omitempty"`
	YName          string           `json:"y_name,omitempty"`
	XUnit          string           `json:"x_unit"`
	YUnit          string           `json:"y_unit"`
	Points         []ScaleFitPoint  `json:"points"`
	Runs           []RunPoint       `json:"runs,omitempty"`
	Warnings       []string         `json:"warnings"`
}

// ScaleLocal is the local exponent between two neighbouring sizes From
// and To (x units): the slope of log y between them.
type ScaleLocal struct {
	From     float64 `json:"from"`
	To       float64 `json:"to"`
	Exponent float64 `json:"exponent"`
}

// ScaleProjection is the fitted y at x, with the confidence interval of
// the mean (Low, High; null with two points), in the points' units.
type ScaleProjection struct {
	X    float64       `json:"x"`
	Y    float64       `json:"y"`
	Low  jsonnum.Float `json:"low"`
	High jsonnum.Float `json:"high"`
}

// ScaleFitPoint is one point of the fit: its x and y, the fitted y and
// ln(y ÷ fitted).
type ScaleFitPoint struct {
	X           float64 `json:"x"`
	Y           float64 `json:"y"`
	Fitted      float64 `json:"fitted"`
	LogResidual float64 `json:"log_residual"`
}

// Write renders the fit: JSON as the report; table, markdown and
// CSV as one row per point, then (not for CSV) the summary lines. CSV sends
// the warnings to stderr so the file stays one table.
func (r *ScaleFitDoc) Write(w io.Writer, f render.Format) error {
	if f == render.JSON {
		return render.WriteJSON(w, r)
	}
	xu, yu := scale.Unit(r.XUnit), scale.Unit(r.YUnit)
	xn, yn := orDefault(r.XName, "x"), orDefault(r.YName, "y")
	g := render.Grid{Header: []string{xn, yn, "fitted " + yn, "log residual", "local exponent to next"}}
	local := map[float64]float64{}
	for _, l := range r.LocalExponents {
		local[l.From] = l.Exponent
	}
	for _, pt := range r.Points {
		row := []string{xu.Format(pt.X), yu.Format(pt.Y), yu.Format(pt.Fitted), strconv.FormatFloat(pt.LogResidual, 'f', 4, 64), ""}
		if f == render.CSV {
			row = []string{full(pt.X), full(pt.Y), full(pt.Fitted), full(pt.LogResidual), ""}
		}
		if b, ok := local[pt.X]; ok {
			row[4] = strconv.FormatFloat(b, 'f', 3, 64)
			if f == render.CSV {
				row[4] = full(b)
			}
			delete(local, pt.X)
		}
		g.Rows = append(g.Rows, row)
	}
	if err := g.Write(w, f); err != nil {
		return err
	}
	if f == render.CSV {
		return nil
	}
	ci := "no interval (2 points)"
	if r.ExponentLow.Valid() {
		ci = fmt.Sprintf("%g%% CI %.2f–%.2f", r.Level*100, float64(r.ExponentLow), float64(r.ExponentHigh))
	}
	lines := []string{
		fmt.Sprintf("%s ∝ %s^%.3f (%s, n=%d, R²=%.4f)", yn, xn, r.Exponent, ci, r.N, r.R2),
		fmt.Sprintf("%s = %s · %s^%.3f", yn, yu.Format(r.Coefficient), xn, r.Exponent),
		"meaning: " + r.Interpretation,
	}
	if p := r.Projection; p != nil {
		s := fmt.Sprintf("at %s = %s: %s = %s", xn, xu.Format(p.X), yn, yu.Format(p.Y))
		if p.Low.Valid() {
			s += fmt.Sprintf(" (%g%% CI of the mean %s – %s)", r.Level*100, yu.Format(float64(p.Low)), yu.Format(float64(p.High)))
		}
		lines = append(lines, s)
	}
	lines = append(lines, runLines(r.Runs, xn)...)
	return Lines(w, f, lines, r.Warnings)
}

// runLines says where each --run's point came from.
func runLines(runs []RunPoint, xn string) []string {
	var out []string
	for _, r := range runs {
		yu := scale.Unit(r.YUnit)
		s := fmt.Sprintf("run %s = %g: %s = %s (%s", xn, r.X, r.Selector, yu.Format(r.Y), strings.Join(r.Files, ", "))
		switch {
		case r.Span == scale.SpanHold:
			s += fmt.Sprintf("; hold %s–%s, %.0f s", r.Start.Format(time.TimeOnly), r.End.Format(time.TimeOnly), r.Seconds)
		case r.Span == scale.SpanRun:
			s += fmt.Sprintf("; no hold: whole run, %.0f s", r.Seconds)
		case r.Span == LevelSpan && r.Start != nil:
			s += fmt.Sprintf("; level %s–%s, %.0f s", r.Start.Format(time.TimeOnly), r.End.Format(time.TimeOnly), r.Seconds)
		default:
			s += fmt.Sprintf("; %d samples over %s", r.Samples, scale.Seconds.Format(r.DurationS))
		}
		if r.VUs != nil {
			s += fmt.Sprintf(", %.1f VUs", *r.VUs)
		}
		out = append(out, s+")")
	}
	return out
}

// USLDoc is the JSON document of `scale --usl` and `queue usl` (issue 7
// contract: sigma, kappa, lambda, n_star, x_max, r2). n_star and x_max are
// null when κ = 0 (no peak).
type USLDoc struct {
	Sigma             float64        `json:"sigma"`
	Kappa             float64        `json:"kappa"`
	Lambda            float64        `json:"lambda"`
	NStar             jsonnum.Float  `json:"n_star"`
	XMax              jsonnum.Float  `json:"x_max"`
	R2                float64        `json:"r2"`
	N                 int            `json:"n"`
	Level             float64        `json:"level"`
	SigmaStdErr       jsonnum.Float  `json:"sigma_std_err"`
	KappaStdErr       jsonnum.Float  `json:"kappa_std_err"`
	LambdaStdErr      jsonnum.Float  `json:"lambda_std_err"`
	SigmaInterval     [2]float64     `json:"sigma_interval"`
	KappaInterval     [2]float64     `json:"kappa_interval"`
	LambdaInterval    [2]float64     `json:"lambda_interval"`
	KappaIncludesZero bool           `json:"kappa_interval_includes_zero"`
	Amdahl            USLAmdahl      `json:"amdahl"`
	XUnit             string         `json:"x_unit"`
	Prediction        *USLPrediction `json:"prediction,omitempty"`
	Points            []USLPoint     `json:"points"`
	Runs              []RunPoint     `json:"runs,omitempty"`
	Warnings          []string       `json:"warnings"`
}

// USLAmdahl is the Amdahl fit (κ = 0) beside the USL: σ, λ, its ceiling
// λ/σ (null when σ = 0) and R².
type USLAmdahl struct {
	Sigma   float64       `json:"sigma"`
	Lambda  float64       `json:"lambda"`
	Ceiling jsonnum.Float `json:"ceiling"`
	R2      float64       `json:"r2"`
}

// USLPrediction is the fitted throughput X (per second) at concurrency N.
type USLPrediction struct {
	N float64 `json:"n"`
	X float64 `json:"x"`
}

// USLPoint is one (N, X) point with the fitted X, X − fitted, the
// efficiency X ÷ (N·λ) against the fit and X ÷ (N·X(1)) against the
// measured X(1) (measured_efficiency: queueing.SweepStep), ratios, the
// marginal gain of the step to it, its label (headroom, saturation or
// contention) with the reason, and a run's p95 (ms; null for points
// that are not runs).
type USLPoint struct {
	N                  float64       `json:"n"`
	X                  float64       `json:"x"`
	Fitted             float64       `json:"fitted"`
	Residual           float64       `json:"residual"`
	Efficiency         float64       `json:"efficiency"`
	MeasuredEfficiency jsonnum.Float `json:"measured_efficiency"`
	Gain               jsonnum.Float `json:"gain"`
	Label              string        `json:"label"`
	LabelReason        string        `json:"label_reason"`
	P95MS              jsonnum.Float `json:"p95_ms"`
}

// Write renders a USL fit like ScaleFitDoc.Write: a row per point (N, X,
// the p95 of a run, X ÷ (N·X(1)), the label, the fit), then the
// coefficients as lines.
func (r *USLDoc) Write(w io.Writer, f render.Format) error {
	if f == render.JSON {
		return render.WriteJSON(w, r)
	}
	xu := scale.Unit(r.XUnit)
	g := render.Grid{Header: []string{"N", "X", "p95 ms", "X/(N·X(1))", "label", "fitted X", "residual", "X/(N·λ)"}, Drop: []string{"X/(N·λ)", "residual"}}
	if f == render.CSV {
		g.Header = []string{"n", "x", "p95_ms", "measured_efficiency", "label", "fitted", "residual", "efficiency"}
	}
	for _, p := range r.Points {
		row := []string{strconv.FormatFloat(p.N, 'g', -1, 64), xu.Format(p.X), Num(float64(p.P95MS)), Num(float64(p.MeasuredEfficiency)), p.Label,
			xu.Format(p.Fitted), xu.Format(p.Residual), strconv.FormatFloat(p.Efficiency, 'f', 3, 64)}
		if f == render.CSV {
			row = []string{full(p.N), full(p.X), CSVNum(float64(p.P95MS)), CSVNum(float64(p.MeasuredEfficiency)), p.Label, full(p.Fitted), full(p.Residual), full(p.Efficiency)}
		}
		g.Rows = append(g.Rows, row)
	}
	if err := g.Write(w, f); err != nil {
		return err
	}
	if f == render.CSV {
		return nil
	}
	pm := func(name string, v float64, se jsonnum.Float, iv [2]float64) string {
		s := fmt.Sprintf("%s = %.4g", name, v)
		if se.Valid() {
			s += fmt.Sprintf(" ± %.2g (%g%% CI %.4g – %.4g)", float64(se), r.Level*100, iv[0], iv[1])
		}
		return s
	}
	lines := []string{
		pm("σ (contention)", r.Sigma, r.SigmaStdErr, r.SigmaInterval),
		pm("κ (coherency)", r.Kappa, r.KappaStdErr, r.KappaInterval),
		pm("λ (X at N=1)", r.Lambda, r.LambdaStdErr, r.LambdaInterval),
	}
	if r.NStar.Valid() {
		lines = append(lines, fmt.Sprintf("peak: X(N*) = %s at N* = %.1f", xu.Format(float64(r.XMax)), float64(r.NStar)))
	} else {
		lines = append(lines, "no peak: κ = 0, throughput rises towards λ/σ")
	}
	lines = append(lines, fmt.Sprintf("R² = %.4f", r.R2))
	am := fmt.Sprintf("Amdahl (κ = 0): σ = %.4g, λ = %.4g, R² = %.4f", r.Amdahl.Sigma, r.Amdahl.Lambda, r.Amdahl.R2)
	if r.Amdahl.Ceiling.Valid() {
		am += ", ceiling λ/σ = " + xu.Format(float64(r.Amdahl.Ceiling))
		// An Amdahl ceiling far above every measured X, from a fit worse
		// than the USL's, is an extrapolation of the wrong model: say so
		// beside it rather than let it read as capacity.
		maxX := math.Inf(-1)
		for _, p := range r.Points {
			maxX = math.Max(maxX, p.X)
		}
		if float64(r.Amdahl.Ceiling) > 1.25*maxX && r.Amdahl.R2 < r.R2 && r.NStar.Valid() {
			am += fmt.Sprintf(" (an extrapolation: the most measured is %s, and the USL fits better; the USL's peak is the figure to read)", xu.Format(maxX))
		}
	}
	lines = append(lines, am)
	if p := r.Prediction; p != nil {
		lines = append(lines, fmt.Sprintf("at N = %g: X = %s", p.N, xu.Format(p.X)))
	}
	for _, p := range r.Points {
		if p.Label != "" {
			lines = append(lines, fmt.Sprintf("N = %g: %s (%s)", p.N, p.Label, p.LabelReason))
		}
	}
	lines = append(lines, runLines(r.Runs, "N")...)
	return Lines(w, f, lines, r.Warnings)
}

// FitRunPoint is the point a k6 run (files, labelled x) gave `scale
// --fit`: the value v its selector sel took.
func FitRunPoint(x float64, files []string, sel scale.Selector, v scale.RunValue) RunPoint {
	return RunPoint{X: x, Files: files, Y: v.Value, YUnit: string(v.Unit), Selector: sel.String(), Samples: v.Samples, DurationS: v.DurationSeconds}
}

// LevelRunPoint is the point a k6 run (files, labelled x) gave `scale
// --fit` for a level selector sel (bytes_per_request, …): the value v it
// took over the run's steady span t.
func LevelRunPoint(x float64, files []string, sel scale.Selector, t scale.Throughput, v scale.RunValue) RunPoint {
	p := RunPoint{X: x, Files: files, Y: v.Value, YUnit: string(v.Unit), Selector: sel.String() + " over the longest hold",
		Span: t.Span, Start: &t.Start, End: &t.End, Seconds: t.Seconds, ErrorRate: &t.ErrorRate}
	if t.HasVUs {
		p.VUs = &t.VUs
	}
	return p
}

// USLRunPoint is the point a k6 run (files, labelled with its concurrency
// n) gave `scale --usl`: its steady throughput t.
func USLRunPoint(n float64, files []string, t scale.Throughput) RunPoint {
	p := RunPoint{X: n, Files: files, Y: t.PerSecond, YUnit: string(scale.PerSecond), Selector: USLSelector,
		Span: t.Span, Start: &t.Start, End: &t.End, Seconds: t.Seconds, ErrorRate: &t.ErrorRate}
	if t.HasVUs {
		p.VUs = &t.VUs
	}
	if !math.IsNaN(t.P95MS) && !math.IsInf(t.P95MS, 0) {
		p.P95MS = &t.P95MS
	}
	return p
}

// NewScaleFitDoc is the document of a growth-exponent fit p of the points
// pts, with the runs they came from and the caveats of gathering them.
func NewScaleFitDoc(pts scale.Points, p scale.PowerLaw, runs []RunPoint, warnings []string) *ScaleFitDoc {
	nan := jsonnum.Float(math.NaN())
	d := &ScaleFitDoc{
		Exponent: p.Exponent, ExponentLow: nan, ExponentHigh: nan, StdErr: nan,
		Level: p.Level, Coefficient: p.Coefficient, R2: p.R2, N: p.N, DF: p.DF,
		LocalExponents: []ScaleLocal{}, Interpretation: p.Interpretation,
		XName: pts.XName, YName: pts.YName, XUnit: string(pts.XUnit), YUnit: string(pts.YUnit),
		Runs:     runs,
		Warnings: append(append([]string{}, warnings...), p.Warnings...),
	}
	if p.HasInterval {
		d.ExponentLow, d.ExponentHigh, d.StdErr = jsonnum.Float(p.ExponentLow), jsonnum.Float(p.ExponentHigh), jsonnum.Float(p.StdErr)
	}
	for _, l := range p.Local {
		d.LocalExponents = append(d.LocalExponents, ScaleLocal{l.X0, l.X1, l.Exponent})
	}
	for i := range pts.X {
		d.Points = append(d.Points, ScaleFitPoint{X: pts.X[i], Y: pts.Y[i], Fitted: pts.Y[i] / math.Exp(p.Residuals[i]), LogResidual: p.Residuals[i]})
	}
	return d
}

// SetProjection puts the fit's projection pr (--at) into the document.
func (r *ScaleFitDoc) SetProjection(pr scale.Projection) {
	r.Projection = &ScaleProjection{X: pr.X, Y: pr.Y, Low: jsonnum.Float(math.NaN()), High: jsonnum.Float(math.NaN())}
	if pr.HasInterval {
		r.Projection.Low, r.Projection.High = jsonnum.Float(pr.Low), jsonnum.Float(pr.High)
	}
	r.Warnings = append(r.Warnings, pr.Warnings...)
}

// NewUSLDoc is the document of a Universal Scalability Law fit f of the
// (N, X) points pts, with the runs they came from and the caveats of
// gathering them.
func NewUSLDoc(pts scale.Points, f queueing.USLFit, runs []RunPoint, warnings []string) *USLDoc {
	nan := jsonnum.Float(math.NaN())
	d := &USLDoc{
		Sigma: f.Sigma, Kappa: f.Kappa, Lambda: f.Lambda, NStar: nan, XMax: nan, R2: f.R2, N: f.N, Level: f.Level,
		SigmaStdErr: nan, KappaStdErr: nan, LambdaStdErr: nan,
		SigmaInterval: [2]float64{f.Low.Sigma, f.High.Sigma}, KappaInterval: [2]float64{f.Low.Kappa, f.High.Kappa},
		LambdaInterval: [2]float64{f.Low.Lambda, f.High.Lambda}, KappaIncludesZero: f.KappaIncludesZero,
		Amdahl:   USLAmdahl{Sigma: f.Amdahl.Sigma, Lambda: f.Amdahl.Lambda, Ceiling: nan, R2: f.Amdahl.R2},
		XUnit:    string(pts.YUnit),
		Runs:     runs,
		Warnings: append(append([]string{}, warnings...), f.Warnings...),
	}
	if f.HasPeak {
		d.NStar, d.XMax = jsonnum.Float(f.NStar), jsonnum.Float(f.XMax)
	}
	if f.HasStdErr {
		d.SigmaStdErr, d.KappaStdErr, d.LambdaStdErr = jsonnum.Float(f.StdErr.Sigma), jsonnum.Float(f.StdErr.Kappa), jsonnum.Float(f.StdErr.Lambda)
	}
	if f.Amdahl.HasCeiling {
		d.Amdahl.Ceiling = jsonnum.Float(f.Amdahl.Ceiling)
	}
	// The runs are the last points, in order (scalePoints adds them
	// after the CSV files and --point flags).
	first := len(pts.X) - len(runs)
	for i := range pts.X {
		p := USLPoint{N: pts.X[i], X: pts.Y[i], Fitted: f.Fitted[i], Residual: f.Residuals[i], Efficiency: f.Efficiency[i],
			MeasuredEfficiency: nan, Gain: nan, P95MS: nan}
		if j := i - first; j >= 0 && runs[j].P95MS != nil {
			p.P95MS = jsonnum.Float(*runs[j].P95MS)
		}
		d.Points = append(d.Points, p)
	}
	steps, _, err := queueing.Sweep(pts.X, pts.Y)
	if err != nil {
		d.Warnings = append(d.Warnings, "no headroom/saturation/contention labels: "+pts.NamePoint(err).Error())
		return d
	}
	for i := range d.Points {
		for _, s := range steps {
			if s.N == d.Points[i].N {
				p := &d.Points[i]
				p.MeasuredEfficiency, p.Gain, p.Label, p.LabelReason = jsonnum.Float(s.Efficiency), jsonnum.Float(s.Gain), s.Label, s.Reason
			}
		}
	}
	return d
}
