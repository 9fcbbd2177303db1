package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/cost"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
	"github.com/urfave/cli/v2"
)

// repeated is a flag value that may be given several times; unlike
// cli.StringSliceFlag it does not split on commas (item names and paths
// may hold them).
type repeated []string

func (r *repeated) Set(s string) error { *r = append(*r, s); return nil }
func (r *repeated) String() string     { return strings.Join(*r, "; ") }

// costOptions are the parsed flags of `ldanalyze cost`.
type costOptions struct {
	usage      string
	offerFiles []string
	price      cost.Options
	// window is --window; runs are the k6 output files of --run, whose
	// peak hold becomes the window (read in runCost).
	window *cost.Window
	runs   []string
	// env reads the --run files.
	env *env
}

func costCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "cost",
		Usage:     "price a load test's peak usage at AWS on-demand prices (USD per hour and per month)",
		UsageText: "ldanalyze cost --usage usage.yaml [--region us-west-2] [--window START/END | --run k6.csv] [--what-if 'NAME=0.09'] [--project 30000:100000] [--offer-file index.json] [--format json]",
		Description: "Prices each line item of a usage file (YAML: region and items, each a kind and its usage per hour)\n" +
			"with the embedded, dated on-demand catalogue or AWS Price List offer files, and prints each item's\n" +
			"usage, unit price, price status and source, USD per hour, share and USD per month, and the total.\n" +
			"Prices whose status is unverified are named in the warnings. A usage may be a series of a Prometheus\n" +
			"export (series: {file, unit, match, agg}) averaged over --window or the peak hold of the k6 run --run.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "usage", Aliases: []string{"u"}, Required: true, Usage: "usage `FILE` (YAML)"},
			&cli.StringFlag{Name: "region", Usage: "AWS `REGION` code; overrides the usage file's region"},
			&cli.GenericFlag{Name: "what-if", Value: &repeated{}, Usage: "scale item NAME's usage by FACTOR, `NAME=FACTOR` (repeatable)"},
			&cli.StringFlag{Name: "project", Usage: "project from load FROM to load TO by each item's growth exponent, `FROM:TO`"},
			&cli.GenericFlag{Name: "offer-file", Value: &repeated{}, Usage: "AWS Price List offer `FILE` (JSON) whose on-demand prices override the catalogue (repeatable)"},
			&cli.Float64Flag{Name: "hours-per-month", Usage: "duty for the monthly figures, `HOURS` per month (default: the catalogue's 730)"},
			&cli.DurationFlag{Name: "run-duration", Usage: "duration of the load test, to price the run itself, e.g. `6m`"},
			&cli.StringFlag{Name: "window", Usage: "average usage series over `START/END` (RFC 3339 or Unix seconds each)"},
			&cli.GenericFlag{Name: "run", Value: &repeated{}, Usage: "average usage series over the peak hold (highest completed_rps) of the k6 run in `FILE` (CSV or JSON output; repeat for the files of one distributed run)"},
		}, outputFlags()...),
		Action: func(c *cli.Context) error {
			opt, err := costFlags(c)
			if err != nil {
				return err
			}
			opt.env = e
			rep, err := runCost(opt)
			if err != nil {
				return err
			}
			w, f, closeOut, err := e.output(c)
			if err != nil {
				return err
			}
			if err := writeCost(w, e.stderr, f, rep); err != nil {
				closeOut()
				return err
			}
			return closeOut()
		},
	}
}

// costFlags turns the flags into costOptions; bad values are usage errors.
func costFlags(c *cli.Context) (costOptions, error) {
	opt := costOptions{usage: c.String("usage")}
	opt.price.Region = c.String("region")
	for _, s := range *c.Generic("what-if").(*repeated) {
		w, err := cost.ParseWhatIf(s)
		if err != nil {
			return opt, usageError{err}
		}
		opt.price.WhatIf = append(opt.price.WhatIf, w)
	}
	if s := c.String("project"); s != "" {
		p, err := cost.ParseProjection(s)
		if err != nil {
			return opt, usageError{err}
		}
		opt.price.Projection = &p
	}
	opt.offerFiles = *c.Generic("offer-file").(*repeated)
	if h := c.Float64("hours-per-month"); c.IsSet("hours-per-month") && !(h > 0 && h <= 744) {
		return opt, usageError{fmt.Errorf("--hours-per-month %g: want hours in (0, 744]", h)}
	}
	opt.price.HoursPerMonth = c.Float64("hours-per-month")
	opt.runs = *c.Generic("run").(*repeated)
	if s := c.String("window"); s != "" {
		if len(opt.runs) > 0 {
			return opt, usageError{fmt.Errorf("--window and --run both given: want one averaging window")}
		}
		w, err := cost.ParseWindow(s)
		if err != nil {
			return opt, usageError{err}
		}
		opt.window = &w
	}
	if len(opt.runs) > 0 {
		if err := pipeline.DistinctFiles(opt.runs); err != nil {
			return opt, usageError{err}
		}
	}
	if d := c.Duration("run-duration"); d < 0 {
		return opt, usageError{fmt.Errorf("--run-duration %v: want a positive duration", d)}
	} else {
		opt.price.RunHours = d.Hours()
	}
	return opt, nil
}

// runCost reads the usage file and offer files and prices the usage.
func runCost(opt costOptions) (*cost.Report, error) {
	u, err := cost.ReadUsageFile(opt.usage)
	if err != nil {
		return nil, err
	}
	if err := u.ResolveExponents(filepath.Dir(opt.usage)); err != nil {
		return nil, err
	}
	win := opt.window
	if len(opt.runs) > 0 {
		if win, err = opt.env.peakHold(opt.runs); err != nil {
			return nil, err
		}
	}
	seriesNotes, err := u.ResolveSeries(filepath.Dir(opt.usage), win)
	if err != nil {
		return nil, err
	}
	opt.price.Window = win
	cat, err := cost.DefaultCatalog()
	if err != nil {
		return nil, err
	}
	region := opt.price.Region
	if region == "" {
		region = u.Region
	}
	notes := seriesNotes
	for _, path := range opt.offerFiles {
		o, err := cost.ReadOfferFile(path, region)
		if err != nil {
			return nil, err
		}
		keys := cat.Override(o)
		notes = append(notes, o.Warnings...)
		notes = append(notes, fmt.Sprintf("offer file %s (%s, published %s) set %d prices for %s", path, o.OfferCode, o.PublicationDate, len(keys), region))
	}
	rep, err := cost.Compute(cat, u, opt.price)
	if err != nil {
		return nil, err
	}
	rep.Warnings = append(rep.Warnings, notes...)
	return rep, nil
}

// peakHold reads the k6 run in paths as `knee` does (default options)
// and returns its peak level (knee.Result.PeakLevel: the decision level
// with the highest completed_rps) as the averaging window.
func (e *env) peakHold(paths []string) (*cost.Window, error) {
	an, err := e.analyze(paths, pipeline.Options{})
	if err != nil {
		return nil, fmt.Errorf("--run: %w", err)
	}
	res := an.Knee
	l, ok := res.PeakLevel()
	if !ok {
		return nil, fmt.Errorf("--run %s: no hold or ramp step with a completed rate: the run gives no peak to average usage over; give --window START/END", an.Name())
	}
	return &cost.Window{Start: l.Start, End: l.End,
		Source: fmt.Sprintf("peak %s of %s (completed %.1f req/s, offered %.4g %s)", res.LevelNoun(), an.Name(), float64(l.CompletedRPS), float64(l.Offered), res.OfferedUnit)}, nil
}

// writeCost renders rep: JSON as the report itself; table, markdown and
// CSV as one row per item plus the total, then (not for CSV) the summary
// lines. CSV sends the warnings to stderr so the file stays one table.
func writeCost(w, stderr io.Writer, f render.Format, rep *cost.Report) error {
	if f == render.JSON {
		return render.WriteJSON(w, rep)
	}
	usd := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	g := render.Grid{Header: []string{"item", "kind", "used per hour", "unit price (USD)", "USD/h", "share %", "USD/month", "price status", "price source"}}
	for _, l := range rep.Items {
		g.Rows = append(g.Rows, []string{l.Name, l.Kind, l.UsageText, l.PriceText, usd(l.USDPerHour),
			strconv.FormatFloat(l.SharePct, 'f', 1, 64), strconv.FormatFloat(l.USDPerMonth, 'f', 2, 64), string(l.Status), l.Source})
	}
	g.Rows = append(g.Rows, []string{"total", "", "", "", usd(rep.TotalUSDPerHour), "100.0", strconv.FormatFloat(rep.TotalUSDPerMonth, 'f', 2, 64), "", ""})
	if err := g.Write(w, f); err != nil {
		return err
	}
	if f == render.CSV {
		for _, s := range rep.Warnings {
			fmt.Fprintln(stderr, "warning:", s)
		}
		return nil
	}
	bullet := ""
	if f == render.Markdown {
		bullet = "- "
		fmt.Fprintln(w)
	}
	lines := []string{
		fmt.Sprintf("region %s (%s), on-demand prices of the catalogue dated %s", rep.Region, rep.RegionName, rep.CatalogueDate),
		fmt.Sprintf("total $%.2f per hour; dominant item: %s (%.1f%%)", rep.TotalUSDPerHour, rep.Dominant, rep.DominantSharePct),
		fmt.Sprintf("per month at %g h: $%.2f", rep.HoursPerMonth, rep.TotalUSDPerMonth),
	}
	if win := rep.Window; win != nil {
		lines = append(lines, fmt.Sprintf("usage series averaged over %s (%s, %s)", win, win.Source, win.End.Sub(win.Start)))
		for _, l := range rep.Items {
			for _, s := range l.Series {
				q := ""
				if s.Query != "" {
					q = " query " + s.Query
				}
				lines = append(lines, fmt.Sprintf("%s: %s = %s(%s%s%s) mean %s %s over %d points of %d series",
					l.Name, s.Field, s.Agg, s.File, q, s.Match, fmtSig(s.Mean), s.MeanUnit, s.Points, s.Series))
			}
		}
	}
	if rep.RunHours > 0 {
		lines = append(lines, fmt.Sprintf("the test run itself (%.3g h): $%.2f", rep.RunHours, rep.RunUSD))
	}
	for _, wi := range rep.WhatIf {
		lines = append(lines, fmt.Sprintf("what-if: %s × %g", wi.Name, wi.Factor))
	}
	if p := rep.Projection; p != nil {
		lines = append(lines, fmt.Sprintf("projected from load %g to %g by each item's growth exponent", p.From, p.To))
	}
	for _, s := range rep.Warnings {
		lines = append(lines, "warning: "+s)
	}
	for _, s := range lines {
		if _, err := fmt.Fprintln(w, bullet+s); err != nil {
			return err
		}
	}
	return nil
}

// fmtSig formats a mean: 6 significant digits below a million, whole
// numbers above (no exponent for byte rates).
func fmtSig(v float64) string {
	if math.Abs(v) >= 1e6 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}
