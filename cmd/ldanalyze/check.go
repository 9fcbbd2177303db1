package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/present"
	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/urfave/cli/v2"
)

func checkCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "did the test measure the system, or itself? validity checks with evidence (exit 1 when one fails)",
		ArgsUsage: "FILE... (k6 CSV or JSON output, plain/gzip/zstd; several files are one distributed run; - is stdin)",
		Flags: append(append(runFlags(10*time.Second, "window width for saying when errors and 429s happened (whole seconds)"),
			fromPromFlags()...), outputFlags()...),
		Action: func(c *cli.Context) error { return e.check(c) },
	}
}

func (e *env) check(c *cli.Context) error {
	paths := c.Args().Slice()
	if len(paths) == 0 && c.String("from-prom") == "" {
		return usageError{fmt.Errorf("check: no input files: give one or more k6 output files, - for stdin, or --from-prom")}
	}
	opt, err := runOptions(c, 10*time.Second)
	if err != nil {
		return err
	}
	// The checks' error windows are --window (unset: the pipeline's default,
	// as in knee); the levels get knee's default windows (widened).
	opt.Checks.WindowNS, opt.Knee.WindowNS = opt.Knee.WindowNS, 0
	if !c.IsSet("window") {
		opt.Checks.WindowNS = 0
	}
	opt.WidenWindow, opt.AllowNoMetric, opt.SummaryThresholds = true, true, true
	format, err := render.ParseFormat(c.String("format"))
	if err != nil {
		return usageError{err}
	}
	an, err := e.analyzeRun(c, paths, opt)
	if err != nil {
		return err
	}
	warnSpans(e.stderr, an.Name(), an.Knee)
	rep := an.Checks
	doc := &present.CheckDoc{Report: rep, Input: present.InputOf(an.Files, an.Input)}
	if err := e.emit(c, doc.Write, format); err != nil {
		return err
	}
	if rep.Failed() {
		return errFinding{msg: "failed checks: " + strings.Join(present.FailedChecks(rep), ", ")}
	}
	return nil
}
