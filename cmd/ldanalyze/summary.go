package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ldanalyze/ldanalyze/internal/present"
	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/summary"
	"github.com/urfave/cli/v2"
)

func summaryCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "summary",
		Usage:     "print a k6 end-of-test summary (--summary-export, handleSummary data or machine-readable) as one normalised table; several files, a directory or k6 outputs as the suite table",
		UsageText: "ldanalyze summary [--format table|markdown|json|csv] [--fail-on-thresholds] FILE|DIR...",
		Description: "One summary: columns metric, type, count, rate, avg, min, med, p90, p95, p99, max, value (gauges),\n" +
			"thresholds, then the checks. count: counter total, rate-metric samples, trend samples (if k6 kept them);\n" +
			"rate: counter per second, or a rate metric's non-zero fraction (for http_req_failed: the failed fraction).\n" +
			"Times are in milliseconds. Thresholds show pass/fail with k6's inverted export booleans undone.\n" +
			"Several files, a directory or a k6 output (CSV, JSON lines): one row per run, as `ldanalyze suite`.",
		ArgsUsage: "FILE|DIR...",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "fail-on-thresholds", Usage: "exit with code 1 when a threshold failed"},
		}, outputFlags()...),
		Action: e.summaryAction,
	}
}

func (e *env) summaryAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return usageError{fmt.Errorf("summary: want one k6 summary FILE (or several files, a directory or k6 outputs for the suite table), got none")}
	}
	path := c.Args().First()
	if c.NArg() > 1 || (path != "-" && !isSummary(path)) {
		return e.summaryMany(c, c.Args().Slice())
	}
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
		if err := present.K6SummaryGrid(s, f != render.CSV).Write(w, f); err != nil {
			return err
		}
		return present.Lines(w, f, present.K6SummaryChecks(s), nil)
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

// isSummary reports whether path is a file that reads as a k6 summary
// (or cannot be told: summary.ReadFile then names what is wrong).
func isSummary(path string) bool {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return false
	}
	f, err := ingest.Detect(path)
	return err != nil || f == ingest.FormatSummary
}

// summaryMany is `summary` on several files, a directory or k6 outputs:
// the suite table, and with --fail-on-thresholds exit 1 when a run's
// thresholds failed.
func (e *env) summaryMany(c *cli.Context, args []string) error {
	doc, err := e.suiteDoc(c, args)
	if err != nil {
		return err
	}
	if err := e.emit(c, doc.Write); err != nil {
		return err
	}
	if c.Bool("fail-on-thresholds") {
		var failed []string
		for _, r := range doc.Runs {
			if r.Thresholds != nil && r.Scenario == "" {
				for _, f := range r.Thresholds.Failures {
					failed = append(failed, r.File+": "+f)
				}
			}
		}
		if len(failed) > 0 {
			return errFinding{fmt.Sprintf("%d threshold(s) failed: %s", len(failed), strings.Join(failed, "; "))}
		}
	}
	return nil
}
