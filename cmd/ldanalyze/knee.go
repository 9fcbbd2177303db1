package main

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/cliapp"
	"github.com/ldanalyze/ldanalyze/internal/present"
	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/checks"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/over"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
	"github.com/ldanalyze/ldanalyze/pkg/threshold"
	"github.com/ldanalyze/ldanalyze/pkg/window"
	"github.com/urfave/cli/v2"
)

func kneeCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "knee",
		Usage:     "find the knee, the ceiling and the SLO capacity of a k6 run",
		ArgsUsage: "FILE... (k6 CSV or JSON output, plain/gzip/zstd; several files are one distributed run; - is stdin)",
		Flags: append(append(runFlags(30*time.Second, "window width (whole seconds, not finer than the file's time resolution)"),
			&cli.StringSliceFlag{Name: "by", Usage: "split windows by these tags, e.g. --by name or --by name,status"},
			&cli.IntFlag{Name: "by-limit", Value: window.DefaultMaxGroups, Usage: "with --by, rows for at most `N` tag values (the busiest); the rest are summed in (other) rows"},
			&cli.BoolFlag{Name: "windows", Usage: "also print the table of every --window window in the table and markdown output (JSON and CSV always have them)"},
			&cli.StringFlag{Name: "over", Usage: "count the samples of --metric above `LIMIT` (1s, 200ms, or a number in the metric's unit), over the run and per --by tag value, with the worst of each"},
		), append(fromPromFlags(), outputFlags()...)...),
		Action: func(c *cli.Context) error { return e.knee(c) },
	}
}

func (e *env) knee(c *cli.Context) error {
	paths := c.Args().Slice()
	if len(paths) == 0 && c.String("from-prom") == "" {
		return usageError{fmt.Errorf("knee: no input files: give one or more k6 output files, - for stdin, or --from-prom")}
	}
	opt, err := runOptions(c, 30*time.Second)
	if err != nil {
		return err
	}
	opt.By = cliapp.List(c.StringSlice("by"))
	if n := c.Int("by-limit"); n < 1 {
		return usageError{fmt.Errorf("knee: --by-limit %d: want at least 1", n)}
	}
	opt.ByLimit = c.Int("by-limit")
	if s := c.String("over"); s != "" {
		if c.String("from-prom") != "" {
			return usageError{fmt.Errorf("knee: --over counts samples, which a run read from Prometheus does not have (its series are summed by the store): use the k6 output file")}
		}
		limit, err := cliapp.Limit("over", s)
		if err != nil {
			return usageError{err}
		}
		opt.Over = &over.Options{Limit: limit, By: opt.By}
	}
	opt.Attribution = true
	opt.Checks.WindowNS = opt.Knee.WindowNS
	format, err := render.ParseFormat(c.String("format"))
	if err != nil {
		return usageError{err}
	}
	an, err := e.analyzeRun(c, paths, opt)
	if err != nil {
		return err
	}
	res := an.Knee
	pcts := opt.Knee.Percentiles
	e.warn(knee.Messages(res.Warnings)...)
	rep := present.KneeDoc{Result: res, Input: present.InputOf(an.Files, an.Input), Checks: an.Checks.Checks, Summary: an.SummaryRows, Attribution: an.Attribution,
		ShowWindows: c.Bool("windows"), Over: an.Over}
	if an.Over != nil {
		e.warn(an.Over.Warnings...)
	}
	if len(opt.By) > 0 {
		rep.Groups = present.GroupRows(an.Groups, opt.By, pcts)
	}
	return e.emit(c, func(w io.Writer, format render.Format) error {
		switch format {
		case render.JSON:
			return render.WriteJSON(w, rep)
		case render.GitHub:
			return present.KneeGitHub(w, &rep, pcts)
		case render.CSV:
			if len(opt.By) > 0 {
				return present.ByGrid(an.Groups, opt.By, pcts, true).Write(w, format)
			}
			return present.LevelGrid(res.Windows, res, pcts, true).Write(w, format)
		}
		return present.KneeText(w, format, &rep, an.Groups, opt.By, pcts)
	}, format)
}

// runOptions reads the flags every command that analyses a run shares
// (--metric, --window, --ramp-step, --percentiles, --slo, --summary,
// --prom, --link-mbps, --threshold, --generator-pod), those it defines.
// defWindow is the command's --window default (0: chosen from the run).
func runOptions(c *cli.Context, defWindow time.Duration) (pipeline.Options, error) {
	var opt pipeline.Options
	opt.Metric = c.String("metric")
	if c.IsSet("window") || defWindow > 0 {
		win := c.Duration("window")
		if win <= 0 {
			return opt, usageError{fmt.Errorf("%s: --window must be at least 1s", c.Command.Name)}
		}
		opt.Knee.WindowNS = int64(win)
	}
	if cliapp.Defines(c, "ramp-step") {
		step := c.Duration("ramp-step")
		if step != 0 && step < time.Second {
			return opt, usageError{fmt.Errorf("%s: --ramp-step must be at least 1s (or 0: chosen per ramp)", c.Command.Name)}
		}
		opt.Knee.RampStepNS = int64(step)
	}
	if cliapp.Defines(c, "users-per-vu") {
		n := c.Float64("users-per-vu")
		if n < 0 || math.IsNaN(n) || math.IsInf(n, 0) {
			return opt, usageError{fmt.Errorf("%s: --users-per-vu %v: want a positive number of users per VU", c.Command.Name, n)}
		}
		opt.Knee.UsersPerVU = n
	}
	if cliapp.Defines(c, "percentiles") {
		pcts, err := cliapp.Percentiles(c.String("percentiles"))
		if err != nil {
			return opt, usageError{err}
		}
		opt.Knee.Percentiles = pcts
	}
	if s := c.String("slo"); cliapp.Defines(c, "slo") && s != "" {
		slo, err := knee.ParseSLO(s)
		if err != nil {
			return opt, usageError{err}
		}
		opt.Knee.SLO = slo
	}
	if cliapp.Defines(c, "summary") {
		opt.SummaryPath = c.String("summary")
	}
	if cliapp.Defines(c, "prom") {
		opt.PromDir = c.String("prom")
	}
	if cliapp.Defines(c, "link-mbps") {
		opt.LinkMbps = c.Float64("link-mbps")
	}
	if cliapp.Defines(c, "threshold") {
		for _, s := range cliapp.Thresholds(c.StringSlice("threshold")) {
			t, err := threshold.Parse(s)
			if err != nil {
				return opt, usageError{err}
			}
			opt.Thresholds = append(opt.Thresholds, t)
		}
	}
	if cliapp.Defines(c, "generator-pod") {
		pods, err := checks.GeneratorPods(c.String("generator-pod"))
		if err != nil {
			return opt, usageError{err}
		}
		opt.GeneratorPods = pods
	}
	return opt, nil
}
