package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ldanalyze/ldanalyze/internal/present"
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
			"ldanalyze scale --fit --run 100=room100.csv --run 250=room250.csv --run 500=room500.csv [--y data_received:total | --y bytes_per_request]\n" +
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
			"pN or p(N): data_received:total (the default; B), http_reqs:rate (per second),\n" +
			"http_req_duration:p95 (seconds), http_req_duration{name:order}:mean; or a figure of the run's\n" +
			"longest hold as knee reports it: bytes_received_per_s, bytes_sent_per_s (B/s) or\n" +
			"bytes_per_request (data_received per response, B). k6's time trends are\n" +
			"converted from ms to s, data_received and data_sent are bytes (B), other metrics plain numbers.\n" +
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
		&cli.StringFlag{Name: "y", Value: "data_received:total", Usage: "with --fit and --run: the `METRIC[{TAG:VALUE}]:STAT` of each run to fit, STAT total, count, rate, mean, min, max, med, pN; or bytes_received_per_s, bytes_sent_per_s, bytes_per_request of its longest hold"},
	)...)
}

// uslFlags are the point inputs shared by `scale` and `queue usl`.
func uslFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "point", Aliases: []string{"p"}, Usage: "a point `X=Y`, e.g. 100=36MB (repeatable)"},
		&cli.StringSliceFlag{Name: "run", Usage: "a k6 run labelled with its x (--usl: its concurrency N), `X=FILE` (repeatable; repeat an X for the files of a distributed run)"},
		&cli.StringSliceFlag{Name: "levels", Usage: "--usl: one point per load level of the k6 run in `FILE` (N = the level's mean VUs, X its completed rate; a closed model's VU steps; repeat for the files of one distributed run)"},
		&cli.StringFlag{Name: "at", Usage: "project to this `X` (same unit as the points' x)"},
		&cli.Float64Flag{Name: "level", Value: 0.95, Usage: "confidence `LEVEL` of the intervals, in (0, 1)"},
	}
}

// runPoints reads each run and adds its point: for --fit the --y selector
// of the whole run, for --usl the completed rate of its longest hold.
func (e *env) runPoints(c *cli.Context, p *scale.Points, usl bool) ([]present.RunPoint, []string, error) {
	if files := c.StringSlice("levels"); len(files) > 0 {
		if !usl {
			return nil, nil, usageError{errors.New("scale: --levels takes a run's load levels as USL points: use it with --usl")}
		}
		return e.levelPoints(files, p)
	}
	runs, err := pipeline.ParseSweepRuns(c.StringSlice("run"))
	if err != nil || len(runs) == 0 {
		return nil, nil, usageOrNil(err)
	}
	var sel scale.Selector
	if usl {
		if c.IsSet("y") {
			return nil, nil, usageError{errors.New("scale --usl: --y applies to --fit; a run's X is its completed rate (successful requests/s) over its longest hold")}
		}
	} else if sel, err = scale.ParseSelector(c.String("y")); err != nil {
		return nil, nil, usageError{fmt.Errorf("--y %w", err)}
	}
	var rows []present.RunPoint
	var warn []string
	for _, r := range runs {
		name := fmt.Sprintf("--run %s=%s", r.Label, strings.Join(r.Files, ","))
		var row present.RunPoint
		if usl {
			an, err := e.analyzeSweepRun(r.Files)
			if err != nil {
				if errors.Is(err, knee.ErrNoSamples) {
					return nil, nil, usageError{fmt.Errorf("%s: no request Trend and no iteration_duration samples: the run has no completed requests or iterations to measure", name)}
				}
				return nil, nil, fmt.Errorf("%s: %w", name, err)
			}
			t, err := pipeline.SteadyThroughput(an, r.X.Value)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", name, err)
			}
			row = present.USLRunPoint(r.X.Value, r.Files, t)
			row.Metric = an.Knee.Metric
			warn = append(warn, t.Warnings...)
		} else if sel.Stat == scale.StatLevel {
			an, err := e.analyzeSweepRun(r.Files)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", name, err)
			}
			t, v, err := pipeline.LevelSelectorValue(an, r.X.Value, sel)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", name, err)
			}
			row = present.LevelRunPoint(r.X.Value, r.Files, sel, t, v)
			warn = append(warn, t.Warnings...)
		} else {
			an, err := e.analyze(r.Files, pipeline.Options{Queries: []timeline.Query{pipeline.SelectorQuery(sel)}, AllowNoMetric: true})
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", name, err)
			}
			v, err := pipeline.SelectorValue(an, 0, sel)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", name, err)
			}
			row = present.FitRunPoint(r.X.Value, r.Files, sel, v)
			if !v.Exact {
				warn = append(warn, fmt.Sprintf("%s: %s comes from a histogram (relative error ≤ %.2f%%)", name, sel, 100*sketch.RelativeError))
			}
		}
		if err := p.AddFrom(r.X, scale.Quantity{Value: row.Y, Unit: scale.Unit(row.YUnit)}, name); err != nil {
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

// levelPoints adds one USL point per load level of the run in files.
func (e *env) levelPoints(files []string, p *scale.Points) ([]present.RunPoint, []string, error) {
	an, err := e.analyzeSweepRun(files)
	if err != nil {
		return nil, nil, fmt.Errorf("--levels %s: %w", strings.Join(files, ","), err)
	}
	ts, warn, err := pipeline.SweepLevels(an)
	if err != nil {
		return nil, nil, usageError{fmt.Errorf("--levels %s: %w", strings.Join(files, ","), err)}
	}
	var rows []present.RunPoint
	for _, t := range ts {
		row := present.USLRunPoint(t.VUs, files, t)
		row.Metric, row.Selector, row.Span = an.Knee.Metric, present.LevelSelector, present.LevelSpan
		if err := p.Add(scale.Quantity{Value: t.VUs, Unit: scale.Count}, scale.Quantity{Value: t.PerSecond, Unit: scale.PerSecond}); err != nil {
			return nil, nil, usageError{err}
		}
		rows = append(rows, row)
	}
	p.YName = "X"
	return rows, warn, nil
}

// analyzeSweepRun analyses one run of a sweep with its request Trend, or
// iteration_duration when it has none (a run of iterations only): its
// levels, rates and p95.
func (e *env) analyzeSweepRun(files []string) (*pipeline.Analysis, error) {
	an, err := e.analyze(files, pipeline.Options{})
	if errors.Is(err, knee.ErrNoSamples) {
		an, err = e.analyze(files, pipeline.Options{Metric: "iteration_duration"})
	}
	return an, err
}

// scalePoints gathers the points of the CSV files (arguments), the
// --point flags and the --run k6 runs, in that order. Skipped CSV lines
// and caveats about the runs come back as warnings.
func (e *env) scalePoints(c *cli.Context, usl bool) (scale.Points, []string, []present.RunPoint, error) {
	var p scale.Points
	var warn []string
	for _, path := range c.Args().Slice() {
		r, err := e.open(path)
		if err != nil {
			return p, nil, nil, err
		}
		err = p.ReadCSV(r, path)
		r.Close()
		if err != nil {
			return p, nil, nil, err
		}
	}
	for _, se := range p.Errors {
		warn = append(warn, "skipped "+se.Error())
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
	rep := present.NewScaleFitDoc(pts, p, runs, warn)
	if at != nil {
		pr, err := p.Project(at.Value)
		if err != nil {
			return usageError{err}
		}
		rep.SetProjection(pr)
	}
	return e.render(c, rep.Warnings, rep.Write)
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
		return usageError{fmt.Errorf("scale --usl: %w", pts.NamePoint(err))}
	}
	rep := present.NewUSLDoc(pts, f, runs, warn)
	if s := c.String("at"); s != "" {
		q, err := scale.ParseQuantity(s)
		if err != nil || q.Unit != scale.Count || !(q.Value > 0) {
			return usageError{fmt.Errorf("--at %q: want a concurrency > 0", s)}
		}
		rep.Prediction = &present.USLPrediction{N: q.Value, X: f.Throughput(q.Value)}
	}
	return e.render(c, rep.Warnings, rep.Write)
}
