package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/present"
	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/compare"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/urfave/cli/v2"
	"golang.org/x/perf/benchmath"
)

func compareCommand(e *env) *cli.Command { return interspersed(e, compareParsed(e)) }

func compareParsed(e *env) *cli.Command {
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

// compareReport is the JSON document of `compare`.
type compareReport struct {
	Before string `json:"before"`
	After  string `json:"after"`
	*compare.Result
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
		label, paths := splitLabel(arg, [2]string{"before", "after"}[i])
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
	return e.emit(c, func(w io.Writer, format render.Format) error {
		switch format {
		case render.JSON:
			return render.WriteJSON(w, compareReport{Before: labels[0], After: labels[1], Result: res})
		case render.CSV:
			return compareGrid(res, labels, true).Write(w, format)
		}
		if err := compareGrid(res, labels, false).Write(w, format); err != nil {
			return err
		}
		_, err := fmt.Fprint(w, compareFooter(res, labels, format))
		return err
	})
}

// splitLabel reads "label=a.csv,b.csv" (benchstat's label syntax; the
// label defaults to def) into a label and the files of one run.
func splitLabel(arg, def string) (string, []string) {
	label, rest := def, arg
	if i := strings.IndexByte(arg, '='); i > 0 && !strings.ContainsAny(arg[:i], "/\\.") {
		label, rest = arg[:i], arg[i+1:]
	}
	return label, splitList([]string{rest})
}

// compareGrid is one row per matched level and metric: before and after
// as median ± CI, and the change, "~" when not significant.
func compareGrid(res *compare.Result, labels [2]string, machine bool) *render.Grid {
	if machine {
		g := &render.Grid{Header: []string{"offered", "after_offered", "start_s", "metric", "before_median", "before_low", "before_high", "before_n",
			"after_median", "after_low", "after_high", "after_n", "p", "significant", "delta_pct"}}
		for _, r := range res.Rows {
			g.Rows = append(g.Rows, []string{present.CSVNum(float64(r.Offered)), present.CSVNum(float64(r.AfterOffered)), present.CSVNum(r.StartS), r.Metric,
				present.CSVNum(float64(r.Before.Median)), present.CSVNum(float64(r.Before.Low)), present.CSVNum(float64(r.Before.High)), strconv.Itoa(r.Before.N),
				present.CSVNum(float64(r.After.Median)), present.CSVNum(float64(r.After.Low)), present.CSVNum(float64(r.After.High)), strconv.Itoa(r.After.N),
				present.CSVNum(float64(r.P)), strconv.FormatBool(r.Significant), present.CSVNum(float64(r.DeltaPct))})
		}
		return g
	}
	g := &render.Grid{Header: []string{"offered (" + res.OfferedUnit + ")", "metric", labels[0], labels[1], "vs " + labels[0]}}
	for _, r := range res.Rows {
		offered := present.Num(float64(r.Offered))
		if r.AfterOffered != r.Offered {
			offered += " / " + present.Num(float64(r.AfterOffered))
		}
		offered += " @+" + present.Num(r.StartS) + "s"
		cmp := benchmath.Comparison{P: float64(r.P), N1: r.Before.N, N2: r.After.N, Alpha: res.Alpha}
		delta := "~"
		if r.Significant {
			delta = cmp.FormatDelta(float64(r.Before.Median), float64(r.After.Median))
		}
		g.Rows = append(g.Rows, []string{offered, r.Metric, medianCI(r.Metric, r.Before), medianCI(r.Metric, r.After), delta + " (" + cmp.String() + ")"})
	}
	return g
}

// medianCI formats a summary as benchstat does: "212 ± 3%".
func medianCI(metric string, s compare.Summary) string {
	if s.N == 0 {
		return "-"
	}
	v := present.Num(float64(s.Median))
	if metric == "error_rate" {
		v = present.Pct(float64(s.Median))
	}
	return v + " ± " + benchmath.Summary{Center: float64(s.Median), Lo: float64(s.Low), Hi: float64(s.High)}.PctRangeString()
}

// compareFooter states the knee and ceiling of each run, what was not
// matched, and the distinct warnings of the rows.
func compareFooter(res *compare.Result, labels [2]string, f render.Format) string {
	var b strings.Builder
	b.WriteString("\n")
	line := func(s string) {
		if f == render.Markdown {
			b.WriteString("- ")
		}
		b.WriteString(s + "\n")
	}
	change := func(p compare.Point) string {
		if !p.DeltaPct.Valid() {
			return ""
		}
		return fmt.Sprintf(" (%+.1f%%)", float64(p.DeltaPct))
	}
	line(fmt.Sprintf("knee: %s → %s %s%s", present.Num(float64(res.KneeOffered.Before)), present.Num(float64(res.KneeOffered.After)), res.OfferedUnit, change(res.KneeOffered)))
	line(fmt.Sprintf("ceiling: %s → %s req/s%s", present.Num(float64(res.CeilingRPS.Before)), present.Num(float64(res.CeilingRPS.After)), change(res.CeilingRPS)))
	line(fmt.Sprintf("%s windows, U test at alpha %v, median intervals at %v; levels not matched: %d %s, %d %s",
		time.Duration(res.WindowS*1e9), res.Alpha, res.Confidence, res.UnmatchedBefore, labels[0], res.UnmatchedAfter, labels[1]))
	seen := map[string]bool{}
	warn := append([]string{}, res.Warnings...)
	for _, r := range res.Rows {
		warn = append(warn, r.Warnings...)
	}
	for _, w := range warn {
		if !seen[w] {
			seen[w] = true
			line("warning: " + w)
		}
	}
	return b.String()
}
