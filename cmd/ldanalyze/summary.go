package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/ldanalyze/ldanalyze/internal/present"
	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/summary"
	"github.com/urfave/cli/v2"
)

func summaryCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "summary",
		Usage:     "print a k6 end-of-test summary (--summary-export, handleSummary data or machine-readable) as one normalised table",
		UsageText: "ldanalyze summary [--format table|markdown|json|csv] [--fail-on-thresholds] FILE",
		Description: "Columns: metric, type, count, rate, avg, p90, p95, p99, max, value (gauges), thresholds.\n" +
			"count: counter total, rate-metric samples, trend samples (if k6 kept them); rate: counter per\n" +
			"second, or a rate metric's non-zero fraction (for http_req_failed: the failed fraction).\n" +
			"Times are in milliseconds. Thresholds show pass/fail with k6's inverted export booleans undone.",
		ArgsUsage: "FILE",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "fail-on-thresholds", Usage: "exit with code 1 when a threshold failed"},
		}, outputFlags()...),
		Action: e.summaryAction,
	}
}

func (e *env) summaryAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError{fmt.Errorf("summary: want one k6 summary FILE, got %d arguments", c.NArg())}
	}
	path := c.Args().First()
	var s *summary.Summary
	var err error
	if path == "-" {
		s, err = summary.Read(e.stdin, "-")
	} else {
		s, err = summary.ReadFile(path)
	}
	if err != nil {
		return err
	}
	e.warn(s.Warnings...)
	if err := e.emit(c, func(w io.Writer, f render.Format) error {
		if f == render.JSON {
			return render.WriteJSON(w, s)
		}
		return present.K6SummaryGrid(s, f != render.CSV).Write(w, f)
	}); err != nil {
		return err
	}
	if !c.Bool("fail-on-thresholds") {
		return nil
	}
	if failed := present.FailedThresholds(s); len(failed) > 0 {
		return errFinding{fmt.Sprintf("%d threshold(s) failed: %s", len(failed), strings.Join(failed, "; "))}
	}
	if s.Shape == summary.ShapeMachineReadable {
		// That shape has no threshold results: passing would be a claim
		// the file cannot support.
		return usageError{fmt.Errorf("%s: the machine-readable summary carries no threshold results, so --fail-on-thresholds cannot judge it; use the --summary-export (old shape) or handleSummary file, or ldanalyze check --summary", s.Source)}
	}
	return nil
}
