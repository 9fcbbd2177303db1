package main

import (
	"fmt"
	"io"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/cliapp"
	"github.com/ldanalyze/ldanalyze/internal/present"
	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/over"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
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
		return usageError{cliapp.Usagef(c, "--by-limit %d: want at least 1", n)}
	}
	opt.ByLimit = c.Int("by-limit")
	if s := c.String("over"); s != "" {
		if c.String("from-prom") != "" {
			return usageError{fmt.Errorf("knee: --over counts samples, which a run read from Prometheus does not have (its series are summed by the store): use the k6 output file")}
		}
		limit, err := cliapp.Limit("over", s)
		if err != nil {
			return usageError{cliapp.Usagef(c, "%v", err)}
		}
		opt.Over = &over.Options{Limit: limit, By: opt.By}
	}
	opt.Attribution = true
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
	if len(opt.By) > 0 && format == render.JSON {
		// Only the JSON document holds the group rows as GroupRows (the
		// other formats write an.Groups): 14,000 rows of maps at a day's
		// run at 30-s windows.
		rep.Groups = present.GroupRows(an.Groups, opt.By, pcts)
	}
	return e.emit(c, func(w io.Writer, f render.Format) error {
		return present.WriteKnee(w, f, &rep, an.Groups, opt.By, pcts)
	}, format)
}

// runOptions reads the flags of runFlags (cliapp.RunOptions).
func runOptions(c *cli.Context, defWindow time.Duration) (pipeline.Options, error) {
	return cliapp.RunOptions(c, defWindow)
}
