package main

import (
	"fmt"
	"io"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/cliapp"
	"github.com/ldanalyze/ldanalyze/internal/present"
	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/compare"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/urfave/cli/v2"
)

func compareCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "compare",
		Usage: "did the change help? per matched load level, before vs after with a Mann–Whitney U test (benchstat-style, ~ when not significant)",
		Description: "BEFORE and AFTER are k6 outputs of one run each, optionally labelled (before=a.csv); several files of one\n" +
			"distributed run are joined with commas. Levels (holds, or ramp steps) are matched by offered load; at\n" +
			"each, the per-window p50/p95/p99, completed rate and error rate are summarised as median ± CI and tested.",
		ArgsUsage: "BEFORE AFTER",
		Flags: append(append(runFlags(time.Second, "window width: each window is one sample of the test (whole seconds)"),
			&cli.Float64Flag{Name: "alpha", Value: 0.05, Usage: "significance level of the U test"},
			&cli.Float64Flag{Name: "tolerance", Value: 0.05, Usage: "largest relative difference of offered load at which two levels match"},
		), outputFlags()...),
		Action: func(c *cli.Context) error { return e.compare(c) },
	}
}

func (e *env) compare(c *cli.Context) error {
	if c.NArg() != 2 {
		return usageError{fmt.Errorf("compare: want two runs, BEFORE AFTER (got %d argument(s))", c.NArg())}
	}
	if a := c.Float64("alpha"); !(a > 0 && a < 1) {
		return usageError{fmt.Errorf("compare: --alpha must be in (0, 1), got %v", a)}
	}
	opt, err := runOptions(c, time.Second)
	if err != nil {
		return err
	}
	var labels [2]string
	var runs [2]*knee.Result
	for i, arg := range c.Args().Slice() {
		label, paths := cliapp.Label(arg, [2]string{"before", "after"}[i])
		labels[i] = label
		an, err := e.analyze(paths, opt)
		if err != nil {
			return err
		}
		runs[i] = an.Knee
		warnSpans(e.stderr, label, runs[i])
	}
	res, err := compare.Compare(runs[0], runs[1], compare.Options{Alpha: c.Float64("alpha"), Tolerance: c.Float64("tolerance")})
	if err != nil {
		return err
	}
	doc := &present.CompareDoc{Before: labels[0], After: labels[1], Result: res}
	e.warn(doc.AllWarnings()...)
	return e.emit(c, func(w io.Writer, f render.Format) error {
		if f == render.GitHub {
			return present.CompareGitHub(w, doc)
		}
		return doc.Write(w, f)
	})
}
