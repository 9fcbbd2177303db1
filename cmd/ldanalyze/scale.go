package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/jsonnum"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
	"github.com/ldanalyze/ldanalyze/pkg/queueing"
	"github.com/ldanalyze/ldanalyze/pkg/scale"
	"github.com/ldanalyze/ldanalyze/pkg/sketch"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
	"github.com/urfave/cli/v2"
)

func scaleCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "scale",
		Usage: "fit how a cost grows with size (growth exponent, --fit) or a Universal Scalability Law (--usl)",
		UsageText: "ldanalyze scale --fit --point 100=36MB --point 250=382MB --point 500=2645MB [--at 1000]\n" +
			"ldanalyze scale --fit points.csv\n" +
			"ldanalyze scale --fit --run 100=room100.csv --run 250=room250.csv --run 500=room500.csv [--y data_received:total]\n" +
			"ldanalyze scale --usl sweep.csv   (columns: concurrency, throughput)\n" +
			"ldanalyze scale --usl --run 1=vus1.csv --run 5=vus5.csv --run 10=vus10.csv --run 20=vus20.csv ...",
		ArgsUsage: "[FILE...] (CSV of x,y points with units such as 36MB, 2.6 GB, 500ms, 1.5k; - is stdin)",
		Description: "--fit fits y = a·x^b on log-log axes and prints b with its confidence interval (Student t, n−2 df),\n" +
			"a, R², the local exponent between neighbouring sizes, what b means, and with --at the projected y\n" +
			"and its interval. --usl fits X(N) = λN/(1+σ(N−1)+κN(N−1)) with σ∈[0,1], κ≥0 and prints σ, κ, λ\n" +
			"with standard errors, N* = √((1−σ)/κ), X(N*) and the Amdahl fit (κ = 0); it refuses fewer than 4\n" +
			"points and warns below 6.\n\n" +
			"Points come from CSV files, --point X=Y flags and k6 runs (--run X=FILE, repeatable; repeat an X to\n" +
			"add the files of one distributed run). With --fit a run's y is --y METRIC[{TAG:VALUE,...}]:STAT of\n" +
			"the whole run, STAT one of total, count, rate (total ÷ the run's duration), mean, min, max, med,\n" +
			"pN or p(N): data_received:total (the default; bytes), http_reqs:rate (per second),\n" +
			"http_req_duration:p95 (seconds), http_req_duration{name:order}:mean. k6's time trends are\n" +
			"converted from ms to s, data_received and data_sent are bytes, other metrics plain numbers.\n" +
			"With --usl a run's label is its concurrency N and its X is the completed rate, successful\n" +
			"requests per second (iterations per second without HTTP), over the run's longest hold as\n" +
			"`ldanalyze knee` finds it, or over the whole run, with a warning, when it has no hold.",
		Flags: append(scaleFlags(), outputFlags()...),
		Action: func(c *cli.Context) error {
			usl, fit := c.Bool("usl"), c.Bool("fit")
			if usl && fit {
				return usageError{errors.New("scale: give --fit or --usl, not both")}
			}
			if usl {
				return e.uslAction(c)
			}
			return e.scaleFitAction(c)
		},
	}
}

func scaleFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.BoolFlag{Name: "fit", Usage: "fit a growth exponent y = a·x^b (the default)"},
		&cli.BoolFlag{Name: "usl", Usage: "fit the Universal Scalability Law to (concurrency, throughput) points"},
	}, append(uslFlags(),
		&cli.StringFlag{Name: "y", Value: "data_received:total", Usage: "with --fit and --run: the `METRIC[{TAG:VALUE}]:STAT` of each run to fit, STAT total, count, rate, mean, min, max, med, pN"},
	)...)
}

// uslFlags are the point inputs shared by `scale` and `queue usl`.
func uslFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "point", Aliases: []string{"p"}, Usage: "a point `X=Y`, e.g. 100=36MB (repeatable)"},
		&cli.StringSliceFlag{Name: "run", Usage: "a k6 run labelled with its x (--usl: its concurrency N), `X=FILE` (repeatable; repeat an X for the files of a distributed run)"},
		&cli.StringFlag{Name: "at", Usage: "project to this `X` (same unit as the points' x)"},
		&cli.Float64Flag{Name: "level", Value: 0.95, Usage: "confidence `LEVEL` of the intervals, in (0, 1)"},
	}
}

// scaleRunInput is one run of --run: its label and its files.
type scaleRunInput struct {
	label string
	x     scale.Quantity
	files []string
}

// parseRuns groups --run X=FILE values by X, in order of first appearance.
func parseRuns(vals []string) ([]scaleRunInput, error) {
	var runs []scaleRunInput
	for _, v := range vals {
		xs, file, ok := strings.Cut(v, "=")
		xs, file = strings.TrimSpace(xs), strings.TrimSpace(file)
		if !ok || file == "" {
			return nil, usageError{fmt.Errorf("--run %q: want X=FILE, e.g. 100=room100.csv", v)}
		}
		x, err := scale.ParseQuantity(xs)
		if err != nil {
			return nil, usageError{fmt.Errorf("--run %q: x: %w", v, err)}
		}
		i := slices.IndexFunc(runs, func(r scaleRunInput) bool { return r.x == x })
		if i < 0 {
			runs = append(runs, scaleRunInput{label: xs, x: x})
			i = len(runs) - 1
		}
		runs[i].files = append(runs[i].files, file)
	}
	return runs, nil
}

// scaleRunRow is one --run in the JSON of `scale` and `queue usl`: its
// label x (N for --usl), its files and the y (X for --usl) it gave, in
// y_unit. --fit fills samples and duration_s; --usl the span it measured.
type scaleRunRow struct {
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
}

// uslSelector names what --usl takes from a run.
const uslSelector = "successful requests/s over the longest hold"

// runPoints reads each run and adds its point: for --fit the --y selector
// of the whole run (scale.RunAggregator), for --usl the completed rate of
// its longest hold (knee.Analyze, then scale.SteadyThroughput).
func (e *env) runPoints(c *cli.Context, p *scale.Points, usl bool) ([]scaleRunRow, []string, error) {
	runs, err := parseRuns(c.StringSlice("run"))
	if err != nil || len(runs) == 0 {
		return nil, nil, err
	}
	var sel scale.Selector
	if usl {
		if c.IsSet("y") {
			return nil, nil, usageError{errors.New("scale --usl: --y applies to --fit; a run's X is its completed rate (successful requests/s) over its longest hold")}
		}
	} else if sel, err = scale.ParseSelector(c.String("y")); err != nil {
		return nil, nil, usageError{fmt.Errorf("--y %w", err)}
	}
	var rows []scaleRunRow
	var warn []string
	for _, r := range runs {
		name := fmt.Sprintf("--run %s=%s", r.label, strings.Join(r.files, ","))
		row := scaleRunRow{X: r.x.Value, Files: r.files}
		var y scale.Quantity
		if usl {
			an, err := e.analyze(r.files, pipeline.Options{Metric: "iteration_duration"})
			if err != nil {
				if errors.Is(err, knee.ErrNoSamples) {
					return nil, nil, usageError{fmt.Errorf("%s: no iteration_duration samples: the run has no completed iterations to measure", name)}
				}
				return nil, nil, fmt.Errorf("%s: %w", name, err)
			}
			levels, err := pipeline.RunLevels(an)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", name, err)
			}
			t, err := scale.SteadyThroughput(levels, r.x.Value)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", name, err)
			}
			y = scale.Quantity{Value: t.PerSecond, Unit: scale.PerSecond}
			row.Selector, row.Span, row.Start, row.End, row.Seconds = uslSelector, t.Span, &t.Start, &t.End, t.Seconds
			row.ErrorRate = &t.ErrorRate
			if t.HasVUs {
				row.VUs = &t.VUs
			}
			warn = append(warn, t.Warnings...)
		} else {
			q := timeline.Query{Metric: sel.Metric}
			for _, m := range sel.Tags {
				q.Filter = append(q.Filter, [2]string{m.Key, m.Value})
			}
			an, err := e.analyze(r.files, pipeline.Options{Queries: []timeline.Query{q}, AllowNoMetric: true})
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", name, err)
			}
			v, err := sel.Value(pipeline.QueryStats(an, 0))
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", name, err)
			}
			y = scale.Quantity{Value: v.Value, Unit: v.Unit}
			row.Selector, row.Samples, row.DurationS = sel.String(), v.Samples, v.DurationSeconds
			if !v.Exact {
				warn = append(warn, fmt.Sprintf("%s: %s comes from a histogram (relative error ≤ %.2f%%)", name, sel, 100*sketch.RelativeError))
			}
		}
		row.Y, row.YUnit = y.Value, string(y.Unit)
		if err := p.Add(r.x, y); err != nil {
			return nil, nil, usageError{fmt.Errorf("%s: %w", name, err)}
		}
		rows = append(rows, row)
	}
	if p.YName == "" {
		if usl {
			p.YName = "X"
		} else {
			p.YName = sel.String()
		}
	}
	return rows, warn, nil
}

// scalePoints gathers the points of the CSV files (arguments), the
// --point flags and the --run k6 runs, in that order. Skipped CSV lines
// and caveats about the runs come back as warnings.
func (e *env) scalePoints(c *cli.Context, usl bool) (scale.Points, []string, []scaleRunRow, error) {
	var p scale.Points
	var warn []string
	for _, path := range c.Args().Slice() {
		var r io.Reader = e.stdin
		if path != "-" {
			f, err := os.Open(path)
			if err != nil {
				return p, nil, nil, err
			}
			defer f.Close()
			r = f
		}
		n := len(p.Errors)
		if err := p.ReadCSV(r, path); err != nil {
			return p, nil, nil, err
		}
		for _, se := range p.Errors[n:] {
			warn = append(warn, "skipped "+se.Error())
		}
	}
	for _, s := range c.StringSlice("point") {
		if err := p.AddString(s); err != nil {
			return p, nil, nil, usageError{fmt.Errorf("--point: %w", err)}
		}
	}
	runs, rw, err := e.runPoints(c, &p, usl)
	if err != nil {
		return p, nil, nil, err
	}
	warn = append(warn, rw...)
	if len(p.X) == 0 {
		return p, nil, nil, usageError{errors.New("scale: no points: give --point X=Y flags, --run X=FILE k6 runs or a CSV file of x,y")}
	}
	return p, warn, runs, nil
}

// scaleFitReport is the JSON document of `scale --fit` (issue 7 contract:
// exponent, exponent_low, exponent_high, coefficient, r2, n,
// local_exponents, projection). Values are in base units: bytes, seconds,
// counts; x_unit and y_unit name them.
type scaleFitReport struct {
	Exponent       float64         `json:"exponent"`
	ExponentLow    jsonnum.Float   `json:"exponent_low"`
	ExponentHigh   jsonnum.Float   `json:"exponent_high"`
	StdErr         jsonnum.Float   `json:"std_err"`
	Level          float64         `json:"level"`
	Coefficient    float64         `json:"coefficient"`
	R2             float64         `json:"r2"`
	N              int             `json:"n"`
	DF             int             `json:"df"`
	LocalExponents []scaleLocal    `json:"local_exponents"`
	Projection     *scaleProj      `json:"projection"`
	Interpretation string          `json:"interpretation"`
	XName          string          `json:"x_name,omitempty"`
	YName          string          `json:"y_name,omitempty"`
	XUnit          string          `json:"x_unit"`
	YUnit          string          `json:"y_unit"`
	Points         []scaleFitPoint `json:"points"`
	Runs           []scaleRunRow   `json:"runs,omitempty"`
	Warnings       []string        `json:"warnings"`
}

type scaleLocal struct {
	From     float64 `json:"from"`
	To       float64 `json:"to"`
	Exponent float64 `json:"exponent"`
}

type scaleProj struct {
	X    float64       `json:"x"`
	Y    float64       `json:"y"`
	Low  jsonnum.Float `json:"low"`
	High jsonnum.Float `json:"high"`
}

type scaleFitPoint struct {
	X           float64 `json:"x"`
	Y           float64 `json:"y"`
	Fitted      float64 `json:"fitted"`
	LogResidual float64 `json:"log_residual"`
}

func (e *env) scaleFitAction(c *cli.Context) error {
	pts, warn, runs, err := e.scalePoints(c, false)
	if err != nil {
		return err
	}
	var at *scale.Quantity
	if s := c.String("at"); s != "" {
		q, err := scale.ParseQuantity(s)
		if err != nil {
			return usageError{fmt.Errorf("--at: %w", err)}
		}
		if q.Unit != pts.XUnit {
			return usageError{fmt.Errorf("--at %s: unit %q differs from the points' x unit %q", s, q.Unit, pts.XUnit)}
		}
		at = &q
	}
	p, err := scale.Fit(pts.X, pts.Y, c.Float64("level"))
	if err != nil {
		return usageError{err}
	}
	rep := scaleFitReport{
		Exponent: p.Exponent, ExponentLow: jsonnum.Float(math.NaN()), ExponentHigh: jsonnum.Float(math.NaN()), StdErr: jsonnum.Float(math.NaN()),
		Level: p.Level, Coefficient: p.Coefficient, R2: p.R2, N: p.N, DF: p.DF,
		LocalExponents: []scaleLocal{}, Interpretation: p.Interpretation,
		XName: pts.XName, YName: pts.YName, XUnit: string(pts.XUnit), YUnit: string(pts.YUnit),
		Runs:     runs,
		Warnings: append(warn, p.Warnings...),
	}
	if p.HasInterval {
		rep.ExponentLow, rep.ExponentHigh, rep.StdErr = jsonnum.Float(p.ExponentLow), jsonnum.Float(p.ExponentHigh), jsonnum.Float(p.StdErr)
	}
	for _, l := range p.Local {
		rep.LocalExponents = append(rep.LocalExponents, scaleLocal{l.X0, l.X1, l.Exponent})
	}
	for i := range pts.X {
		rep.Points = append(rep.Points, scaleFitPoint{X: pts.X[i], Y: pts.Y[i], Fitted: pts.Y[i] / math.Exp(p.Residuals[i]), LogResidual: p.Residuals[i]})
	}
	if at != nil {
		pr, err := p.Project(at.Value)
		if err != nil {
			return usageError{err}
		}
		rep.Projection = &scaleProj{X: pr.X, Y: pr.Y, Low: jsonnum.Float(math.NaN()), High: jsonnum.Float(math.NaN())}
		if pr.HasInterval {
			rep.Projection.Low, rep.Projection.High = jsonnum.Float(pr.Low), jsonnum.Float(pr.High)
		}
		rep.Warnings = append(rep.Warnings, pr.Warnings...)
	}
	if rep.Warnings == nil {
		rep.Warnings = []string{}
	}
	return e.emit(c, func(w io.Writer, f render.Format) error { return writeScaleFit(w, e.stderr, f, &rep) })
}

// writeScaleFit renders the fit: JSON as the report; table, markdown and
// CSV as one row per point, then (not for CSV) the summary lines. CSV sends
// the warnings to stderr so the file stays one table.
func writeScaleFit(w, stderr io.Writer, f render.Format, r *scaleFitReport) error {
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
			row = []string{scaleCSV(pt.X), scaleCSV(pt.Y), scaleCSV(pt.Fitted), scaleCSV(pt.LogResidual), ""}
		}
		if b, ok := local[pt.X]; ok {
			row[4] = strconv.FormatFloat(b, 'f', 3, 64)
			if f == render.CSV {
				row[4] = scaleCSV(b)
			}
			delete(local, pt.X)
		}
		g.Rows = append(g.Rows, row)
	}
	if err := g.Write(w, f); err != nil {
		return err
	}
	if csvWarnings(f, stderr, r.Warnings) {
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
	return writeLines(w, f, lines, r.Warnings)
}

// runLines says where each --run's point came from.
func runLines(runs []scaleRunRow, xn string) []string {
	var out []string
	for _, r := range runs {
		yu := scale.Unit(r.YUnit)
		s := fmt.Sprintf("run %s = %g: %s = %s (%s", xn, r.X, r.Selector, yu.Format(r.Y), strings.Join(r.Files, ", "))
		switch {
		case r.Span == scale.SpanHold:
			s += fmt.Sprintf("; hold %s–%s, %.0f s", r.Start.Format(time.TimeOnly), r.End.Format(time.TimeOnly), r.Seconds)
		case r.Span == scale.SpanRun:
			s += fmt.Sprintf("; no hold: whole run, %.0f s", r.Seconds)
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

// uslReport is the JSON document of `scale --usl` and `queue usl` (issue 7
// contract: sigma, kappa, lambda, n_star, x_max, r2). n_star and x_max are
// null when κ = 0 (no peak).
type uslReport struct {
	Sigma             float64       `json:"sigma"`
	Kappa             float64       `json:"kappa"`
	Lambda            float64       `json:"lambda"`
	NStar             jsonnum.Float `json:"n_star"`
	XMax              jsonnum.Float `json:"x_max"`
	R2                float64       `json:"r2"`
	N                 int           `json:"n"`
	Level             float64       `json:"level"`
	SigmaStdErr       jsonnum.Float `json:"sigma_std_err"`
	KappaStdErr       jsonnum.Float `json:"kappa_std_err"`
	LambdaStdErr      jsonnum.Float `json:"lambda_std_err"`
	SigmaInterval     [2]float64    `json:"sigma_interval"`
	KappaInterval     [2]float64    `json:"kappa_interval"`
	LambdaInterval    [2]float64    `json:"lambda_interval"`
	KappaIncludesZero bool          `json:"kappa_interval_includes_zero"`
	Amdahl            uslAmdahl     `json:"amdahl"`
	XUnit             string        `json:"x_unit"`
	Prediction        *uslPredict   `json:"prediction,omitempty"`
	Points            []uslPoint    `json:"points"`
	Runs              []scaleRunRow `json:"runs,omitempty"`
	Warnings          []string      `json:"warnings"`
}

type uslAmdahl struct {
	Sigma   float64       `json:"sigma"`
	Lambda  float64       `json:"lambda"`
	Ceiling jsonnum.Float `json:"ceiling"`
	R2      float64       `json:"r2"`
}

type uslPredict struct {
	N float64 `json:"n"`
	X float64 `json:"x"`
}

type uslPoint struct {
	N          float64 `json:"n"`
	X          float64 `json:"x"`
	Fitted     float64 `json:"fitted"`
	Residual   float64 `json:"residual"`
	Efficiency float64 `json:"efficiency"`
}

func (e *env) uslAction(c *cli.Context) error {
	pts, warn, runs, err := e.scalePoints(c, true)
	if err != nil {
		return err
	}
	if pts.XUnit != scale.Count {
		return usageError{fmt.Errorf("usl: concurrency must be a plain number, got unit %q", pts.XUnit)}
	}
	f, err := queueing.FitUSL(pts.X, pts.Y, c.Float64("level"))
	if err != nil {
		return usageError{err}
	}
	nan := jsonnum.Float(math.NaN())
	rep := uslReport{
		Sigma: f.Sigma, Kappa: f.Kappa, Lambda: f.Lambda, NStar: nan, XMax: nan, R2: f.R2, N: f.N, Level: f.Level,
		SigmaStdErr: nan, KappaStdErr: nan, LambdaStdErr: nan,
		SigmaInterval: [2]float64{f.Low.Sigma, f.High.Sigma}, KappaInterval: [2]float64{f.Low.Kappa, f.High.Kappa},
		LambdaInterval: [2]float64{f.Low.Lambda, f.High.Lambda}, KappaIncludesZero: f.KappaIncludesZero,
		Amdahl:   uslAmdahl{Sigma: f.Amdahl.Sigma, Lambda: f.Amdahl.Lambda, Ceiling: nan, R2: f.Amdahl.R2},
		XUnit:    string(pts.YUnit),
		Runs:     runs,
		Warnings: append(warn, f.Warnings...),
	}
	if f.HasPeak {
		rep.NStar, rep.XMax = jsonnum.Float(f.NStar), jsonnum.Float(f.XMax)
	}
	if f.HasStdErr {
		rep.SigmaStdErr, rep.KappaStdErr, rep.LambdaStdErr = jsonnum.Float(f.StdErr.Sigma), jsonnum.Float(f.StdErr.Kappa), jsonnum.Float(f.StdErr.Lambda)
	}
	if f.Amdahl.HasCeiling {
		rep.Amdahl.Ceiling = jsonnum.Float(f.Amdahl.Ceiling)
	}
	for i := range pts.X {
		rep.Points = append(rep.Points, uslPoint{N: pts.X[i], X: pts.Y[i], Fitted: f.Fitted[i], Residual: f.Residuals[i], Efficiency: f.Efficiency[i]})
	}
	if s := c.String("at"); s != "" {
		q, err := scale.ParseQuantity(s)
		if err != nil || q.Unit != scale.Count || !(q.Value > 0) {
			return usageError{fmt.Errorf("--at %q: want a concurrency > 0", s)}
		}
		rep.Prediction = &uslPredict{N: q.Value, X: f.Throughput(q.Value)}
	}
	if rep.Warnings == nil {
		rep.Warnings = []string{}
	}
	w, format, closeOut, err := e.output(c)
	if err != nil {
		return err
	}
	if err := writeUSL(w, e.stderr, format, &rep); err != nil {
		closeOut()
		return err
	}
	return closeOut()
}

// writeUSL renders a USL fit like writeScaleFit: a row per point, then the
// coefficients as lines.
func writeUSL(w, stderr io.Writer, f render.Format, r *uslReport) error {
	if f == render.JSON {
		return render.WriteJSON(w, r)
	}
	xu := scale.Unit(r.XUnit)
	g := render.Grid{Header: []string{"N", "X", "fitted X", "residual", "efficiency"}}
	for _, p := range r.Points {
		row := []string{strconv.FormatFloat(p.N, 'g', -1, 64), xu.Format(p.X), xu.Format(p.Fitted), xu.Format(p.Residual), strconv.FormatFloat(p.Efficiency, 'f', 3, 64)}
		if f == render.CSV {
			row = []string{scaleCSV(p.N), scaleCSV(p.X), scaleCSV(p.Fitted), scaleCSV(p.Residual), scaleCSV(p.Efficiency)}
		}
		g.Rows = append(g.Rows, row)
	}
	if err := g.Write(w, f); err != nil {
		return err
	}
	if csvWarnings(f, stderr, r.Warnings) {
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
	}
	lines = append(lines, am)
	if p := r.Prediction; p != nil {
		lines = append(lines, fmt.Sprintf("at N = %g: X = %s", p.N, xu.Format(p.X)))
	}
	lines = append(lines, runLines(r.Runs, "N")...)
	return writeLines(w, f, lines, r.Warnings)
}

// writeLines writes summary lines and warnings after a table; markdown
// gets a blank line and bullets.
func writeLines(w io.Writer, f render.Format, lines, warnings []string) error {
	bullet := ""
	if f == render.Markdown {
		bullet = "- "
		fmt.Fprintln(w)
	}
	for _, s := range warnings {
		lines = append(lines, "warning: "+s)
	}
	for _, s := range lines {
		if _, err := fmt.Fprintln(w, bullet+s); err != nil {
			return err
		}
	}
	return nil
}

// scaleCSV writes a number for CSV output at full precision.
func scaleCSV(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
