package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

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
	for _, w := range s.Warnings {
		fmt.Fprintln(e.stderr, "ldanalyze: warning:", w)
	}
	w, format, closeOut, err := e.output(c)
	if err != nil {
		return err
	}
	if format == render.JSON {
		err = render.WriteJSON(w, s)
	} else {
		err = summaryGrid(s, format != render.CSV).Write(w, format)
	}
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if c.Bool("fail-on-thresholds") {
		var failed []string
		for _, m := range s.Metrics {
			for _, t := range m.Thresholds {
				if !t.OK {
					failed = append(failed, m.Name+": "+t.Source)
				}
			}
		}
		if len(failed) > 0 {
			return errFinding{fmt.Sprintf("%d threshold(s) failed: %s", len(failed), strings.Join(failed, "; "))}
		}
		if s.Shape == summary.ShapeMachineReadable {
			// That shape has no threshold results: passing would be a
			// claim the file cannot support.
			return usageError{fmt.Errorf("%s: the machine-readable summary carries no threshold results, so --fail-on-thresholds cannot judge it; use the --summary-export (old shape) or handleSummary file, or ldanalyze check --summary", s.Source)}
		}
	}
	return nil
}

// summaryGrid lays the summary out as a table; human rounds numbers to 6
// significant digits, otherwise they keep full precision.
func summaryGrid(s *summary.Summary, human bool) *render.Grid {
	g := &render.Grid{Header: []string{"metric", "type", "count", "rate", "avg", "p90", "p95", "p99", "max", "value", "thresholds"}}
	num := func(v *float64) string {
		if v == nil {
			return ""
		}
		return formatNumber(*v, human)
	}
	pct := func(m *summary.Metric, k string) string {
		if v, ok := m.Percentile(k); ok {
			return formatNumber(v, human)
		}
		return ""
	}
	for i := range s.Metrics {
		m := &s.Metrics[i]
		var th []string
		for _, t := range m.Thresholds {
			verdict := "pass"
			if !t.OK {
				verdict = "FAIL"
			}
			th = append(th, t.Source+" "+verdict)
		}
		g.Rows = append(g.Rows, []string{m.Name, m.Type, num(m.Count), num(m.Rate), num(m.Avg), pct(m, "p90"), pct(m, "p95"), pct(m, "p99"), num(m.Max), num(m.Value), strings.Join(th, "; ")})
	}
	return g
}

func formatNumber(v float64, human bool) string {
	if !human {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	if math.Abs(v) >= 1e6 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}
