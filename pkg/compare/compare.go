// Package compare says whether a change helped: it matches the load levels
// (holds, or ramp steps) of a run before and a run after the change by
// offered load, and compares per-window statistics at each matched level
// the way benchstat compares benchmark runs (research/methods.md §5):
// median of the per-window values with an order-statistic confidence
// interval on each side, and a two-sided Mann–Whitney U test between the
// sides; a change whose p-value is not below alpha is "~", no difference.
//
// The unit of replication is the window, not the request: requests within
// one run are strongly autocorrelated and a test over them finds any
// trivial difference significant. Adjacent windows are still correlated,
// so p-values here are optimistic; repeated runs per side would be the
// benchstat-faithful design.
package compare

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"golang.org/x/perf/benchmath"
)

// F is a JSON-safe float (NaN encodes as null).
type F = knee.F

// Options tune Compare. The zero value works.
type Options struct {
	// Alpha is the significance level of the U test (default 0.05).
	Alpha float64
	// Confidence is the level of the median intervals, 0–1 (default
	// 0.95).
	Confidence float64
	// Tolerance is the largest relative difference of offered load at
	// which two levels match, 0–1 (default 0.05: 200 and 209 it/s match).
	Tolerance float64
}

func (o *Options) defaults() {
	if o.Alpha <= 0 {
		o.Alpha = 0.05
	}
	if o.Confidence <= 0 || o.Confidence >= 1 {
		o.Confidence = 0.95
	}
	if o.Tolerance <= 0 {
		o.Tolerance = 0.05
	}
}

// Metric is a per-window statistic compared at each matched level.
type Metric struct {
	// Name is the JSON name, unit included: "p95_ms", "completed_rps",
	// "error_rate" (a 0–1 ratio).
	Name string
	// LowerIsBetter is true for latency and errors, false for throughput.
	LowerIsBetter bool
	value         func(*knee.Level) knee.F
}

// Metrics are the statistics Compare reports, in row order.
var Metrics = []Metric{
	{"p50_ms", true, func(l *knee.Level) knee.F { return l.P50MS }},
	{"p95_ms", true, func(l *knee.Level) knee.F { return l.P95MS }},
	{"p99_ms", true, func(l *knee.Level) knee.F { return l.P99MS }},
	{"completed_rps", false, func(l *knee.Level) knee.F { return l.CompletedRPS }},
	{"error_rate", true, func(l *knee.Level) knee.F { return l.ErrorRate }},
}

// Summary is one side's per-window values at a level: their median and
// its confidence interval.
type Summary struct {
	// Median of the per-window values; Low and High bound it at
	// Result.Confidence (±Inf when there are too few windows).
	Median F `json:"median"`
	Low    F `json:"low"`
	High   F `json:"high"`
	// N is the number of windows.
	N int `json:"n"`
}

// Row is one metric at one matched level.
type Row struct {
	// Offered is the before run's offered load at the level, and
	// AfterOffered the after run's (Result.OfferedUnit).
	Offered      F `json:"offered"`
	AfterOffered F `json:"after_offered"`
	// StartS is the level's start in the before run, s from its start.
	StartS float64 `json:"start_s"`
	Metric string  `json:"metric"`
	Before Summary `json:"before"`
	After  Summary `json:"after"`
	// P is the U test's p-value (1 when the test could not run).
	P F `json:"p"`
	// Significant is P < alpha.
	Significant bool `json:"significant"`
	// DeltaPct is the change of the medians, in percent of before; NaN
	// when before's median is 0.
	DeltaPct F `json:"delta_pct"`
	// Better says whether a significant change is an improvement.
	Better   bool     `json:"better"`
	Warnings []string `json:"warnings,omitempty"`
}

// Point is a knee or ceiling estimate of each run.
type Point struct {
	Before F `json:"before"`
	After  F `json:"after"`
	// DeltaPct is the change in percent of before.
	DeltaPct F `json:"delta_pct"`
}

// Result is the comparison of two runs.
type Result struct {
	OfferedUnit string  `json:"offered_unit"`
	Alpha       float64 `json:"alpha"`
	Confidence  float64 `json:"confidence"`
	// WindowS is the window width the samples were taken at, s.
	WindowS float64 `json:"window_s"`
	Rows    []Row   `json:"rows"`
	// KneeOffered, CeilingRPS compare the runs' knee (offered load) and
	// ceiling (goodput, req/s); NaN where a run has none.
	KneeOffered Point `json:"knee_offered"`
	CeilingRPS  Point `json:"ceiling_rps"`
	// Unmatched counts levels of each run with no partner within the
	// tolerance.
	UnmatchedBefore int      `json:"unmatched_before"`
	UnmatchedAfter  int      `json:"unmatched_after"`
	Warnings        []string `json:"warnings"`
}

// ErrNoLevels is returned when a run has neither holds nor ramp steps.
var ErrNoLevels = errors.New("no load levels to match")

// Compare matches the levels of before and after by offered load and
// compares Metrics at each matched pair. The runs must share a workload
// model (offered load in the same unit) and their windows should have one
// width.
func Compare(before, after *knee.Result, opt Options) (*Result, error) {
	opt.defaults()
	if before.OfferedUnit != after.OfferedUnit {
		return nil, fmt.Errorf("compare: the runs offer load in different units (%s before, %s after): an open and a closed model cannot be matched", before.OfferedUnit, after.OfferedUnit)
	}
	lb, la := levels(before), levels(after)
	if len(lb) == 0 {
		return nil, fmt.Errorf("compare: before: %w", ErrNoLevels)
	}
	if len(la) == 0 {
		return nil, fmt.Errorf("compare: after: %w", ErrNoLevels)
	}
	r := &Result{OfferedUnit: before.OfferedUnit, Alpha: opt.Alpha, Confidence: opt.Confidence, WindowS: before.WindowS, Warnings: []string{}, Rows: []Row{}}
	if before.WindowS != after.WindowS {
		r.Warnings = append(r.Warnings, fmt.Sprintf("window widths differ (%g s before, %g s after): per-window values are not alike", before.WindowS, after.WindowS))
	}
	pairs := match(lb, la, opt.Tolerance)
	r.UnmatchedBefore, r.UnmatchedAfter = len(lb)-len(pairs), len(la)-len(pairs)
	if len(pairs) == 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("no level of one run is within %g%% of a level of the other: nothing to compare at equal load", 100*opt.Tolerance))
	}
	th := &benchmath.Thresholds{CompareAlpha: opt.Alpha}
	t0 := before.Start.Truncate(1e9)
	for _, p := range pairs {
		b, a := &lb[p[0]], &la[p[1]]
		wb, wa := within(before.Windows, b), within(after.Windows, a)
		for _, m := range Metrics {
			row := Row{Offered: b.Offered, AfterOffered: a.Offered, StartS: b.Start.Sub(t0).Seconds(), Metric: m.Name}
			sb := benchmath.NewSample(values(wb, m), th)
			sa := benchmath.NewSample(values(wa, m), th)
			row.Before = summarize(sb, opt.Confidence)
			row.After = summarize(sa, opt.Confidence)
			row.P, row.DeltaPct = F(1), F(math.NaN())
			if len(sb.Values) > 0 && len(sa.Values) > 0 {
				c := benchmath.AssumeNothing.Compare(sb, sa)
				row.P = F(c.P)
				row.Significant = c.P < opt.Alpha
				for _, w := range c.Warnings {
					row.Warnings = append(row.Warnings, w.Error())
				}
			} else {
				row.Warnings = append(row.Warnings, "no window with a value on one side")
			}
			if bm := float64(row.Before.Median); bm != 0 && !math.IsNaN(bm) {
				row.DeltaPct = F(100 * (float64(row.After.Median)/bm - 1))
			}
			if row.Significant {
				row.Better = (row.After.Median < row.Before.Median) == m.LowerIsBetter
			}
			r.Rows = append(r.Rows, row)
		}
	}
	r.KneeOffered = point(kneeOffered(before), kneeOffered(after))
	r.CeilingRPS = point(ceiling(before), ceiling(after))
	return r, nil
}

func levels(r *knee.Result) []knee.Level { return r.DecisionLevels() }

// match pairs levels whose offered loads differ by at most tol of the
// before level's, closest pairs first; each level is used once. Pairs come
// back in the before run's order.
func match(lb, la []knee.Level, tol float64) [][2]int {
	type cand struct {
		i, j int
		d    float64
	}
	var cs []cand
	for i := range lb {
		for j := range la {
			ob, oa := float64(lb[i].Offered), float64(la[j].Offered)
			if !(ob > 0) || math.IsNaN(oa) {
				continue
			}
			if d := math.Abs(oa-ob) / ob; d <= tol {
				cs = append(cs, cand{i, j, d})
			}
		}
	}
	slices.SortStableFunc(cs, func(x, y cand) int {
		switch {
		case x.d < y.d:
			return -1
		case x.d > y.d:
			return 1
		}
		return 0
	})
	usedB, usedA := map[int]bool{}, map[int]bool{}
	var out [][2]int
	for _, c := range cs {
		if usedB[c.i] || usedA[c.j] {
			continue
		}
		usedB[c.i], usedA[c.j] = true, true
		out = append(out, [2]int{c.i, c.j})
	}
	slices.SortFunc(out, func(x, y [2]int) int { return x[0] - y[0] })
	return out
}

// within returns the windows that lie wholly inside level l.
func within(ws []knee.Level, l *knee.Level) []knee.Level {
	var out []knee.Level
	for _, w := range ws {
		if !w.Start.Before(l.Start) && !w.End.After(l.End) {
			out = append(out, w)
		}
	}
	return out
}

func values(ws []knee.Level, m Metric) []float64 {
	var out []float64
	for i := range ws {
		if v := m.value(&ws[i]); v.Valid() {
			out = append(out, float64(v))
		}
	}
	return out
}

func summarize(s *benchmath.Sample, confidence float64) Summary {
	if len(s.Values) == 0 {
		nan := F(math.NaN())
		return Summary{Median: nan, Low: nan, High: nan}
	}
	sum := benchmath.AssumeNothing.Summary(s, confidence)
	return Summary{Median: F(sum.Center), Low: F(sum.Lo), High: F(sum.Hi), N: len(s.Values)}
}

func kneeOffered(r *knee.Result) float64 {
	if r.Knee == nil {
		return math.NaN()
	}
	return float64(r.Knee.Offered)
}

func ceiling(r *knee.Result) float64 {
	if r.Ceiling == nil {
		return math.NaN()
	}
	return float64(r.Ceiling.CompletedRPS)
}

func point(b, a float64) Point {
	p := Point{Before: F(b), After: F(a), DeltaPct: F(math.NaN())}
	if b != 0 && !math.IsNaN(b) && !math.IsNaN(a) {
		p.DeltaPct = F(100 * (a/b - 1))
	}
	return p
}
