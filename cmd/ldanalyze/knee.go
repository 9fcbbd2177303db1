package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/checks"
	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/prom"
	"github.com/ldanalyze/ldanalyze/pkg/summary"
	"github.com/ldanalyze/ldanalyze/pkg/window"
	"github.com/urfave/cli/v2"
)

func kneeCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "knee",
		Usage:     "find the knee, the ceiling and the SLO capacity of a k6 run",
		ArgsUsage: "FILE... (k6 CSV or JSON output, plain/gzip/zstd; several files are one distributed run; - is stdin)",
		Flags: append([]cli.Flag{
			&cli.DurationFlag{Name: "window", Aliases: []string{"w"}, Value: 30 * time.Second, Usage: "window width (whole seconds, not finer than the file's time resolution)"},
			&cli.StringFlag{Name: "metric", Aliases: []string{"m"}, Value: "http_req_duration", Usage: "the Trend metric whose latency is analysed (any Trend, custom ones too)"},
			&cli.StringSliceFlag{Name: "by", Usage: "split windows by these tags, e.g. --by name or --by name,status"},
			&cli.IntFlag{Name: "by-limit", Value: window.DefaultMaxGroups, Usage: "with --by, rows for at most `N` tag values (the busiest); the rest are summed in (other) rows"},
			&cli.StringFlag{Name: "percentiles", Value: "50,90,95,99", Usage: "percentiles per window, comma-separated (k6's definition)"},
			&cli.StringFlag{Name: "slo", Usage: "latency objective in k6 threshold syntax, e.g. 'p95<500ms' or 'p(99)<800'"},
			&cli.StringFlag{Name: "summary", Usage: "k6's own end-of-test summary of the same run (--summary-export or handleSummary JSON), printed beside the computed whole-run figures"},
			&cli.DurationFlag{Name: "ramp-step", Value: 10 * time.Second, Usage: "width of the load levels a continuous ramp is cut into"},
			&cli.StringFlag{Name: "prom", Usage: "`DIR` written by `ldanalyze prom pull`: name what saturated at the ceiling, imbalanced pods and restarts"},
			&cli.Float64Flag{Name: "link-mbps", Usage: "network link speed for --prom, megabits per second (0: network not judged)"},
		}, outputFlags()...),
		Action: func(c *cli.Context) error { return e.knee(c) },
	}
}

// kneeReport is the JSON document of `knee`: the knee.Result plus the
// per-tag windows and the input counts.
type kneeReport struct {
	*knee.Result
	// Checks are the validity verdicts of `ldanalyze check` on the same run.
	Checks []checks.Check `json:"checks"`
	Groups []groupRow     `json:"groups,omitempty"`
	// Summary compares k6's own summary (--summary) with the computed
	// whole-run figures.
	Summary []summaryRow `json:"summary_comparison,omitempty"`
	Input   inputSummary `json:"input"`
	// Attribution (with --prom) adds saturated, imbalance, invalid_holds.
	*prom.Attribution
}

type groupRow struct {
	Start time.Time         `json:"start"`
	Tags  map[string]string `json:"tags"`
	// Other marks the row that sums the tag values past --by-limit.
	Other       bool              `json:"other,omitempty"`
	Count       uint64            `json:"count"`
	Rate        knee.F            `json:"rate"`
	Mean        knee.F            `json:"mean"`
	Min         knee.F            `json:"min"`
	Max         knee.F            `json:"max"`
	Percentiles map[string]knee.F `json:"percentiles"`
	Failed      uint64            `json:"failed"`
}

func (e *env) knee(c *cli.Context) error {
	paths := c.Args().Slice()
	if len(paths) == 0 {
		return usageError{fmt.Errorf("knee: no input files: give one or more k6 output files, or - for stdin")}
	}
	if err := distinctFiles(paths); err != nil {
		return usageError{err}
	}
	pcts, err := parsePercentiles(c.String("percentiles"))
	if err != nil {
		return usageError{err}
	}
	opt := knee.Options{
		WindowNS:    int64(c.Duration("window")),
		RampStepNS:  int64(c.Duration("ramp-step")),
		Percentiles: pcts,
	}
	if opt.WindowNS <= 0 || opt.RampStepNS < int64(time.Second) {
		return usageError{fmt.Errorf("knee: --window and --ramp-step must be at least 1s")}
	}
	if s := c.String("slo"); s != "" {
		if opt.SLO, err = knee.ParseSLO(s); err != nil {
			return usageError{err}
		}
	}
	metric := c.String("metric")
	by := splitList(c.StringSlice("by"))
	w, format, closeOut, err := e.output(c)
	if err != nil {
		return err
	}
	if n := c.Int("by-limit"); n < 1 {
		return usageError{fmt.Errorf("knee: --by-limit %d: want at least 1", n)}
	}
	wopt := window.Options{Metric: metric, WidthNS: opt.WindowNS, By: by, Percentiles: pcts, MaxGroups: c.Int("by-limit")}
	if len(by) > 0 {
		if _, err := window.New(wopt); err != nil {
			closeOut()
			return usageError{err}
		}
	}
	newAcc := checkAccs(checks.Options{Metric: metric, WindowNS: opt.WindowNS})
	acc, st, rerr := readParallel(paths, e.stdin, e.stderr,
		func() *kneeAcc {
			a := &kneeAcc{checkAcc: newAcc()}
			if len(by) > 0 {
				a.agg, _ = window.New(wopt)
			}
			return a
		},
		func(a *kneeAcc) func(*ingest.Sample) { return a.add }, (*kneeAcc).merge,
		func(a *kneeAcc, path string) { a.setInput(path) })
	reportStats(e.stderr, st)
	if rerr != nil {
		closeOut()
		return rerr
	}
	col, cc, agg := acc.kc, acc.cc, acc.agg
	res, err := knee.Analyze(col, st.ResolutionNS, opt)
	if err != nil {
		closeOut()
		return fmt.Errorf("%s: %w", strings.Join(paths, ", "), err)
	}
	rep := kneeReport{Result: res, Input: summarizeInput(paths, st), Checks: checks.Evaluate(cc, res).Checks}
	if err := cc.Err(); err != nil {
		closeOut()
		return fmt.Errorf("%s: %w", strings.Join(paths, ", "), err)
	}
	if path := c.String("summary"); path != "" {
		sum, err := summary.ReadFile(path)
		if err != nil {
			closeOut()
			return err
		}
		if rep.Summary, err = compareSummary(sum, metric, res.Overall); err != nil {
			closeOut()
			return err
		}
		res.Warnings = append(res.Warnings, summaryMismatch(rep.Summary, path)...)
	}
	if dir := c.String("prom"); dir != "" {
		exp, err := prom.ReadDir(dir)
		if err == nil {
			rep.Attribution, err = prom.Attribute(exp, res, prom.AttributeOptions{LinkMbps: c.Float64("link-mbps")})
		}
		if err != nil {
			closeOut()
			return fmt.Errorf("--prom %s: %w", dir, err)
		}
		// The load generator's own pods (k6.*) judged as `check --prom` does.
		rep.Checks = checks.WithGenerator(rep.Checks, checks.GeneratorFromExport(exp, nil), res)
	}
	var rows []window.Row
	if agg != nil {
		rows = agg.Close()
		if err := agg.Err(); err != nil {
			closeOut()
			return fmt.Errorf("%s: %w", strings.Join(paths, ", "), err)
		}
		rep.Groups = groupRows(rows, by, pcts)
		res.Warnings = append(res.Warnings, agg.Warnings()...)
	}
	switch format {
	case render.JSON:
		err = render.WriteJSON(w, rep)
	case render.CSV:
		csvWarnings(format, e.stderr, res.Warnings)
		if agg != nil {
			err = byGrid(rows, by, pcts, true).Write(w, format)
		} else {
			err = levelGrid(res.Windows, res, pcts, true).Write(w, format)
		}
	default:
		err = writeKneeText(w, format, &rep, rows, by, pcts)
	}
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	return err
}

// kneeAcc is what knee accumulates from the samples; one per core.
type kneeAcc struct {
	checkAcc
	agg *window.Aggregator // nil without --by
}

func (a *kneeAcc) add(s *ingest.Sample) {
	a.checkAcc.add(s)
	if a.agg != nil {
		a.agg.Add(s)
	}
}

func (a *kneeAcc) merge(o *kneeAcc) {
	a.checkAcc.merge(&o.checkAcc)
	if a.agg != nil {
		a.agg.Merge(o.agg)
	}
}

// parsePercentiles reads "50,90,95,99" (also "p95", "p(99.9)").
func parsePercentiles(s string) ([]float64, error) {
	var out []float64
	for _, f := range splitList([]string{s}) {
		f = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(f, "p"), "("), ")")
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v > 0 && v <= 100) { // NaN is no percentile
			return nil, fmt.Errorf("--percentiles: %q is not a percentile in (0, 100]", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func groupRows(rows []window.Row, by []string, pcts []float64) []groupRow {
	out := make([]groupRow, len(rows))
	for i, r := range rows {
		g := groupRow{Start: time.Unix(0, r.StartNS).UTC(), Tags: map[string]string{}, Other: r.Other, Count: r.Count, Rate: knee.F(r.Rate),
			Mean: knee.F(r.Mean), Min: knee.F(r.Min), Max: knee.F(r.Max), Failed: r.Failed, Percentiles: map[string]knee.F{}}
		for j, k := range by {
			g.Tags[k] = r.Tags[j]
		}
		for j, p := range pcts {
			g.Percentiles[knee.PercentileName(p)] = knee.F(r.Percentiles[j])
		}
		out[i] = g
	}
	return out
}

// num formats a number for a table: NaN as "-", otherwise with digits
// suited to its size.
func num(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "-"
	case math.Abs(v) >= 1e9:
		return strconv.FormatFloat(v, 'g', 4, 64)
	case v == math.Trunc(v):
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case math.Abs(v) >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// csvNum formats a number for CSV output: full precision, NaN as empty.
func csvNum(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func pct(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(100*v, 'f', 1, 64) + "%"
}

// byGrid is the per-window, per-tag table. Its first columns are the ones
// shared/bench compares: window (unix s), the --by tags, count, the
// percentiles, failed. With machine false (terminal and markdown) windows
// are UTC clock times and numbers are rounded for reading.
func byGrid(rows []window.Row, by []string, pcts []float64, machine bool) *render.Grid {
	f := num
	first := "window"
	if !machine {
		first = "window (UTC)"
	} else {
		f = csvNum
	}
	g := &render.Grid{Header: append([]string{first}, by...)}
	g.Header = append(g.Header, "count")
	for _, p := range pcts {
		h := knee.PercentileName(p)
		if !machine {
			h += " ms"
		}
		g.Header = append(g.Header, h)
	}
	if machine {
		g.Header = append(g.Header, "failed", "rate", "mean", "min", "max")
	} else {
		g.Header = append(g.Header, "failed", "per s", "mean ms", "min ms", "max ms")
	}
	for _, r := range rows {
		w := strconv.FormatInt(r.StartNS/1e9, 10)
		if !machine {
			w = time.Unix(0, r.StartNS).UTC().Format("15:04:05")
		}
		row := []string{w}
		row = append(row, r.Tags...)
		row = append(row, strconv.FormatUint(r.Count, 10))
		for _, v := range r.Percentiles {
			row = append(row, f(v))
		}
		row = append(row, strconv.FormatUint(r.Failed, 10), f(r.Rate), f(r.Mean), f(r.Min), f(r.Max))
		g.Rows = append(g.Rows, row)
	}
	return g
}

// levelGrid is a table of holds, ramp steps or windows.
func levelGrid(ls []knee.Level, res *knee.Result, pcts []float64, machine bool) *render.Grid {
	f := num
	if machine {
		f = csvNum
	}
	offered := "offered it/s"
	if res.OfferedUnit == "VUs" {
		offered = "offered VUs"
	}
	// Short headers keep the table within ~130 columns: goodput/s is
	// successful responses per second, all/s every response.
	g := &render.Grid{Header: []string{"start", "s", offered, "goodput/s", "all/s", "errors", "dropped/s", "VUs"}}
	if machine {
		g.Header = []string{"start", "seconds", "offered", "completed_rps", "requests_rps", "error_rate", "dropped_per_s", "vus", "count", "mean_ms", "min_ms", "max_ms"}
	}
	for _, p := range pcts {
		h := knee.PercentileName(p)
		if machine {
			h += "_ms"
		} else {
			h += " ms"
		}
		g.Header = append(g.Header, h)
	}
	g.Header = append(g.Header, "verdict")
	for _, l := range ls {
		start := l.Start.Format(time.RFC3339)
		if !machine {
			start = "+" + num(l.Start.Sub(res.Start.Truncate(time.Second)).Seconds()) + "s"
		}
		row := []string{start, f(l.Seconds), f(float64(l.Offered)), f(float64(l.CompletedRPS)), f(float64(l.RequestsRPS))}
		if machine {
			row = append(row, f(float64(l.ErrorRate)))
		} else {
			row = append(row, pct(float64(l.ErrorRate)))
		}
		row = append(row, f(float64(l.DroppedPerS)), f(float64(l.VUs)))
		if machine {
			row = append(row, strconv.FormatUint(l.Count, 10), f(float64(l.MeanMS)), f(float64(l.MinMS)), f(float64(l.MaxMS)))
		}
		for _, p := range pcts {
			row = append(row, f(float64(l.Percentiles[knee.PercentileName(p)])))
		}
		row = append(row, l.Verdict)
		g.Rows = append(g.Rows, row)
	}
	return g
}
