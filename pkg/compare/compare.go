// Package compare says whether a change helped: it matches the load levels
// (holds, or ramp steps) of a run before and a run after the change by
// offered load, and compares each matched pair with the statistics that
// fit each figure (research/methods.md §5):
//
//   - error rate: counts compared as counts. The requests of each level
//     are pooled and the two proportions are tested with Fisher's exact
//     test; the difference has Newcombe's hybrid score interval and each
//     side its Wilson interval. A sparse burst of failures (146 failed
//     requests in one level) is seen, where a median of per-window rates
//     would be 0.
//   - latency percentiles (p50, p95, p99) and goodput: a two-sided
//     Mann–Whitney U test over the per-window values, as benchstat tests
//     benchmark runs, and an interval of each side's level figure (the
//     pooled percentile of the level, as knee prints it) and of their
//     difference from a circular block bootstrap over the windows, when
//     each side has enough windows.
//   - knee and ceiling: the ceiling's change is tested against the two
//     runs' 95 % intervals; the knee's brackets are compared.
//
// Every row says which test and interval it used and, in Note, why one is
// missing. Significant is always a boolean: p < alpha and, for the rows
// with a bootstrap interval, that interval excluding 0 (the test and the
// interval agree).
//
// The unit of replication of the U test and of the bootstrap is the
// window, not the request: requests within one run are strongly
// autocorrelated and a test over them finds any trivial latency
// difference significant. Adjacent windows are still correlated, which
// the bootstrap's blocks absorb and the U test does not, so its p-values
// are optimistic; Fisher's test pools requests and shares that caveat for
// failures that come in bursts. Repeated runs per side would be the
// benchstat-faithful design.
package compare

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/sketch"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
	"golang.org/x/perf/benchmath"
)

// F is a JSON-safe float (NaN encodes as null).
type F = knee.F

// Options tune Compare. The zero value works.
type Options struct {
	// Alpha is the significance level of every test (default 0.05).
	Alpha float64
	// Confidence is the level of every interval, 0–1 (default 0.95).
	Confidence float64
	// Tolerance is the largest relative difference of offered load at
	// which two levels match, 0–1 (default 0.05: 200 and 209 it/s match).
	Tolerance float64
	// Resamples is the number of bootstrap resamples per level and side
	// (default 1000).
	Resamples int
	// MinWindows is the fewest windows a side of a level needs for a
	// bootstrap interval (default 5).
	MinWindows int
	// Seed seeds the bootstrap (default 1), so that the same runs give
	// the same intervals.
	Seed uint64
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
	if o.Resamples <= 0 {
		o.Resamples = 1000
	}
	if o.MinWindows <= 0 {
		o.MinWindows = 5
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
}

// LatencyFunc returns the successful latencies (ms) of a run's analysed
// Trend in the Unix seconds [from, to) as a new sketch
// (timeline.Timeline.Latency).
type LatencyFunc func(from, to int64) *sketch.Sketch

// Run is one side of a comparison: a run's knee analysis and, for the
// bootstrap intervals of its latency percentiles, its latency per second
// (nil: the percentile rows get no interval, and say so).
type Run struct {
	Knee    *knee.Result
	Latency LatencyFunc
	// Samples, when set, fingerprints the run's samples: a comparison of
	// two runs with the same samples (one run given twice, or its CSV and
	// its JSON) warns that it can show no change.
	Samples *timeline.Fingerprint
}

// Metric is a figure compared at each matched level.
type Metric struct {
	// Name is the JSON name, unit included: "p95_ms", "completed_rps",
	// "error_rate" (a 0–1 ratio).
	Name string
	// LowerIsBetter is true for latency and errors, false for goodput.
	LowerIsBetter bool
	// quantile is the latency quantile (0–1) of a percentile row, 0
	// otherwise.
	quantile float64
	value    func(*knee.Level) knee.F
}

// Metrics are the figures Compare reports, in row order.
var Metrics = []Metric{
	{"p50_ms", true, 0.50, func(l *knee.Level) knee.F { return l.P50MS }},
	{"p95_ms", true, 0.95, func(l *knee.Level) knee.F { return l.P95MS }},
	{"p99_ms", true, 0.99, func(l *knee.Level) knee.F { return l.P99MS }},
	{"completed_rps", false, 0, func(l *knee.Level) knee.F { return l.CompletedRPS }},
	{"error_rate", true, 0, func(l *knee.Level) knee.F { return l.ErrorRate }},
}

// Tests and intervals a row names.
const (
	// TestMannWhitney is the two-sided Mann–Whitney U test over the
	// per-window values (golang.org/x/perf/benchmath, AssumeNothing).
	TestMannWhitney = "mann-whitney-u"
	// TestFisher is Fisher's exact test on the pooled requests.
	TestFisher = "fisher-exact"
	// IntervalBootstrap is the circular block bootstrap over the windows,
	// percentile method.
	IntervalBootstrap = "block-bootstrap"
	// IntervalScore is Wilson's score interval of each side and
	// Newcombe's hybrid score interval of the difference.
	IntervalScore = "wilson-newcombe"
)

// Side is one run's figure at a matched level.
type Side struct {
	// Value is the level's figure: its pooled percentile (ms), goodput
	// (req/s) or error rate (0–1), as knee reports the level.
	Value F `json:"value"`
	// Low and High bound Value at Result.Confidence; NaN (null) when the
	// row's Note says why not.
	Low  F `json:"low"`
	High F `json:"high"`
	// N is the number of windows the test and the bootstrap used, or
	// for error_rate the number of requests.
	N int64 `json:"n"`
	// Failed is the number of failed requests (error_rate rows only).
	Failed *int64 `json:"failed,omitempty"`
}

// Row is one figure at one matched level.
type Row struct {
	// Offered is the before run's offered load at the level, and
	// AfterOffered the after run's (Result.OfferedUnit).
	Offered      F `json:"offered"`
	AfterOffered F `json:"after_offered"`
	// StartS is the level's start in the before run, s from its start.
	StartS float64 `json:"start_s"`
	Metric string  `json:"metric"`
	Before Side    `json:"before"`
	After  Side    `json:"after"`
	// Delta is After.Value − Before.Value in the metric's unit (a 0–1
	// difference for error_rate), with its interval DeltaLow–DeltaHigh
	// at Result.Confidence (NaN when Note says why not).
	Delta     F `json:"delta"`
	DeltaLow  F `json:"delta_low"`
	DeltaHigh F `json:"delta_high"`
	// DeltaPct is Delta in percent of Before.Value; NaN when that is 0.
	DeltaPct F `json:"delta_pct"`
	// P is the test's two-sided p-value (1 when it could not run: Note
	// says why).
	P F `json:"p"`
	// Significant is P < alpha and, where the row has an interval of
	// Delta from the bootstrap, that interval excludes 0.
	Significant bool `json:"significant"`
	// Better says whether a significant change is an improvement.
	Better bool `json:"better"`
	// Test and Interval name the methods (Test…, Interval… constants).
	Test     string `json:"test"`
	Interval string `json:"interval"`
	// Note says why an interval or the test is missing, in plain words.
	Note string `json:"note,omitempty"`
}

// Point is the knee or the ceiling of each run and their change.
type Point struct {
	Before F `json:"before"`
	After  F `json:"after"`
	// BeforeLow … AfterHigh bound each run's figure: the ceiling's 95 %
	// interval, or the knee's bracket (the last level with headroom and
	// the first without).
	BeforeLow  F `json:"before_low"`
	BeforeHigh F `json:"before_high"`
	AfterLow   F `json:"after_low"`
	AfterHigh  F `json:"after_high"`
	// BeforeReached and AfterReached are false when a run's figure is a
	// lower bound (the run never reached its knee or ceiling).
	BeforeReached bool `json:"before_reached"`
	AfterReached  bool `json:"after_reached"`
	// DeltaPct is the change in percent of Before.
	DeltaPct F `json:"delta_pct"`
	// P is the two-sided p-value of the ceiling's change, read from the
	// two intervals as normal; NaN for the knee, whose brackets are not
	// confidence intervals.
	P F `json:"p"`
	// Significant: for the ceiling P < alpha, for the knee brackets that
	// do not overlap; false whenever a run did not reach it.
	Significant bool `json:"significant"`
	// Better says whether a significant change is an improvement (higher).
	Better bool   `json:"better"`
	Note   string `json:"note,omitempty"`
}

// Result is the comparison of two runs.
type Result struct {
	OfferedUnit string  `json:"offered_unit"`
	Alpha       float64 `json:"alpha"`
	Confidence  float64 `json:"confidence"`
	// WindowS is the window width the per-window values were taken at, s.
	WindowS float64 `json:"window_s"`
	// Resamples is the number of bootstrap resamples per level and side.
	Resamples int   `json:"resamples"`
	Rows      []Row `json:"rows"`
	// KneeOffered and CeilingRPS compare the runs' knee (offered load)
	// and ceiling (goodput, req/s); NaN where a run has none.
	KneeOffered Point `json:"knee_offered"`
	CeilingRPS  Point `json:"ceiling_rps"`
	// Unmatched counts levels of each run with no partner within the
	// tolerance.
	UnmatchedBefore int      `json:"unmatched_before"`
	UnmatchedAfter  int      `json:"unmatched_after"`
	Warnings        []string `json:"warnings"`
}

// Regressions lists what got significantly worse: "p95_ms at 180
// iterations/s", "ceiling".
func (r *Result) Regressions() []string {
	var out []string
	for _, row := range r.Rows {
		if row.Significant && !row.Better {
			out = append(out, fmt.Sprintf("%s at %.4g %s", row.Metric, float64(row.Offered), r.OfferedUnit))
		}
	}
	if p := r.KneeOffered; p.Significant && !p.Better {
		out = append(out, "knee")
	}
	if p := r.CeilingRPS; p.Significant && !p.Better {
		out = append(out, "ceiling")
	}
	return out
}

// ErrNoLevels is returned when a run has neither holds nor ramp steps.
var ErrNoLevels = errors.New("no load levels to match")

// Compare matches the levels of before and after by offered load and
// compares Metrics at each matched pair. The runs must share a workload
// model (offered load in the same unit) and their windows should have one
// width. It returns an error for runs in different units or without
// levels.
func Compare(before, after Run, opt Options) (*Result, error) {
	opt.defaults()
	kb, ka := before.Knee, after.Knee
	if kb.OfferedUnit != ka.OfferedUnit {
		return nil, fmt.Errorf("compare: the runs offer load in different units (%s before, %s after): an open and a closed model cannot be matched", kb.OfferedUnit, ka.OfferedUnit)
	}
	lb, la := kb.DecisionLevels(), ka.DecisionLevels()
	if len(lb) == 0 {
		return nil, fmt.Errorf("compare: before: %w", ErrNoLevels)
	}
	if len(la) == 0 {
		return nil, fmt.Errorf("compare: after: %w", ErrNoLevels)
	}
	r := &Result{OfferedUnit: kb.OfferedUnit, Alpha: opt.Alpha, Confidence: opt.Confidence, WindowS: kb.WindowS, Resamples: opt.Resamples,
		Warnings: []string{}, Rows: []Row{}}
	if kb.WindowS != ka.WindowS {
		r.Warnings = append(r.Warnings, fmt.Sprintf("window widths differ (%g s before, %g s after): per-window values are not alike", kb.WindowS, ka.WindowS))
	}
	if kb.CompletedUnit != ka.CompletedUnit || kb.Metric != ka.Metric {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the runs' request units differ (%s of %s before, %s of %s after): their goodput, latency, knee and ceiling measure different requests and are not comparable",
			kb.CompletedUnit, kb.Metric, ka.CompletedUnit, ka.Metric))
	}
	if sb, sa := before.Samples, after.Samples; sb != nil && sa != nil && sb.SameSamples(*sa) {
		r.Warnings = append(r.Warnings, fmt.Sprintf("same run given twice: before and after hold the same %d samples of %s over the same span (the same file, or one run's CSV and JSON outputs), so no difference can show", sb.Count, sb.Metric))
	}
	pairs := match(lb, la, opt.Tolerance)
	r.UnmatchedBefore, r.UnmatchedAfter = len(lb)-len(pairs), len(la)-len(pairs)
	if len(pairs) == 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("no level of one run is within %g%% of a level of the other: nothing to compare at equal load", 100*opt.Tolerance))
	}
	var qs []float64
	for _, m := range Metrics {
		if m.quantile > 0 {
			qs = append(qs, m.quantile)
		}
	}
	t0 := kb.Start.Truncate(1e9)
	for i, p := range pairs {
		b, a := &lb[p[0]], &la[p[1]]
		sb, sa := sideOf(before, b), sideOf(after, a)
		var rb, ra *replicates
		if len(sb.wins) >= opt.MinWindows && len(sa.wins) >= opt.MinWindows {
			x := bootstrap(&sb, opt.Resamples, qs, rand.New(rand.NewPCG(opt.Seed, uint64(2*i))))
			y := bootstrap(&sa, opt.Resamples, qs, rand.New(rand.NewPCG(opt.Seed, uint64(2*i+1))))
			rb, ra = &x, &y
		}
		qi := 0
		for _, m := range Metrics {
			row := Row{Offered: b.Offered, AfterOffered: a.Offered, StartS: b.Start.Sub(t0).Seconds(), Metric: m.Name}
			switch {
			case m.Name == "error_rate":
				countsRow(&row, b, a, opt)
			case m.quantile > 0:
				var reps [2][]float64
				if rb != nil && sb.lat != nil && sa.lat != nil {
					reps = [2][]float64{rb.q[qi], ra.q[qi]}
				}
				windowRow(&row, m, b, a, &sb, &sa, reps, opt)
				qi++
			default:
				var reps [2][]float64
				if rb != nil {
					reps = [2][]float64{rb.rps, ra.rps}
				}
				windowRow(&row, m, b, a, &sb, &sa, reps, opt)
			}
			if bv := float64(row.Before.Value); bv != 0 && !math.IsNaN(bv) {
				row.DeltaPct = F(100 * float64(row.Delta) / bv)
			}
			if row.Significant {
				row.Better = (row.Delta < 0) == m.LowerIsBetter
			}
			r.Rows = append(r.Rows, row)
		}
	}
	r.KneeOffered = kneePoint(kb.Knee, ka.Knee)
	r.CeilingRPS = ceilingPoint(kb.Ceiling, ka.Ceiling, opt)
	return r, nil
}

// sideOf is the windows of run wholly inside level l, with their latency.
func sideOf(run Run, l *knee.Level) side {
	s := side{wins: within(run.Knee.Windows, l)}
	if run.Latency != nil {
		s.lat = make([]*sketch.Sketch, len(s.wins))
		for i, w := range s.wins {
			s.lat[i] = run.Latency(w.Start.Unix(), w.End.Unix())
		}
	}
	return s
}

// windowRow fills a latency or goodput row: the levels' own figures, the
// U test over the per-window values and, with bootstrap replicates of
// both sides, the intervals.
func windowRow(row *Row, m Metric, b, a *knee.Level, sb, sa *side, reps [2][]float64, opt Options) {
	nan := F(math.NaN())
	row.Test, row.Interval = TestMannWhitney, IntervalBootstrap
	row.Before = Side{Value: m.value(b), Low: nan, High: nan}
	row.After = Side{Value: m.value(a), Low: nan, High: nan}
	row.Delta, row.DeltaLow, row.DeltaHigh, row.DeltaPct, row.P = row.After.Value-row.Before.Value, nan, nan, nan, 1
	th := &benchmath.Thresholds{CompareAlpha: opt.Alpha}
	vb, va := values(sb.wins, m), values(sa.wins, m)
	row.Before.N, row.After.N = int64(len(vb)), int64(len(va))
	var notes []string
	switch {
	case len(vb) == 0 || len(va) == 0:
		notes = append(notes, fmt.Sprintf("no window with a value on one side (%d before, %d after): no test", len(vb), len(va)))
	case allEqual(vb, va):
		notes = append(notes, "every window has the same value on both sides: no difference to test (p = 1)")
	default:
		c := benchmath.AssumeNothing.Compare(benchmath.NewSample(vb, th), benchmath.NewSample(va, th))
		row.P = F(c.P)
		row.Significant = c.P < opt.Alpha
		if need := uTestMin(opt.Alpha); !row.Significant && len(vb) < need && len(va) < need {
			notes = append(notes, fmt.Sprintf("%d+%d windows: the U test needs %d on a side to reach alpha %v (a longer level or a shorter --window)", len(vb), len(va), need, opt.Alpha))
		}
	}
	switch {
	case reps[0] == nil && m.quantile > 0 && (sb.lat == nil || sa.lat == nil):
		notes = append(notes, "no per-second latency to resample: no interval")
	case reps[0] == nil:
		notes = append(notes, fmt.Sprintf("%d windows before, %d after: an interval needs %d a side (a longer level or a shorter --window)", len(sb.wins), len(sa.wins), opt.MinWindows))
	default:
		var okb, oka, okd bool
		var lo, hi float64
		lo, hi, okb = percentileInterval(reps[0], opt.Confidence)
		row.Before.Low, row.Before.High = F(lo), F(hi)
		lo, hi, oka = percentileInterval(reps[1], opt.Confidence)
		row.After.Low, row.After.High = F(lo), F(hi)
		lo, hi, okd = percentileInterval(diff(reps[0], reps[1]), opt.Confidence)
		row.DeltaLow, row.DeltaHigh = F(lo), F(hi)
		if !okb || !oka || !okd {
			notes = append(notes, "windows without a value left too few resamples with one: no interval")
		}
	}
	// Significant needs the U test and, where there is one, the interval
	// of the difference to agree: the one compares the per-window
	// values, the other the level's pooled figure.
	if holds0 := row.DeltaLow <= 0 && row.DeltaHigh >= 0; row.DeltaLow.Valid() && row.DeltaHigh.Valid() {
		switch {
		case row.Significant && holds0:
			row.Significant = false
			notes = append(notes, "the U test over the windows finds a shift but the interval of the level's figure holds 0: not called significant")
		case !row.Significant && !holds0 && len(vb) > 0 && len(va) > 0:
			notes = append(notes, "the interval of the level's figure excludes 0 but the U test over the windows finds no shift: not called significant")
		}
	}
	row.Note = joinNotes(notes)
}

// countsRow fills an error_rate row from the levels' pooled requests.
func countsRow(row *Row, b, a *knee.Level, opt Options) {
	row.Test, row.Interval = TestFisher, IntervalScore
	x1, n1 := counts(b)
	x2, n2 := counts(a)
	side := func(x, n int64) Side {
		lo, hi := Wilson(x, n, opt.Confidence)
		v := math.NaN()
		if n > 0 {
			v = float64(x) / float64(n)
		}
		return Side{Value: F(v), Low: F(lo), High: F(hi), N: n, Failed: &x}
	}
	row.Before, row.After = side(x1, n1), side(x2, n2)
	row.Delta = row.After.Value - row.Before.Value
	lo, hi := Newcombe(x1, n1, x2, n2, opt.Confidence)
	row.DeltaLow, row.DeltaHigh, row.DeltaPct = F(lo), F(hi), F(math.NaN())
	row.P = 1
	if n1 == 0 || n2 == 0 {
		row.Note = fmt.Sprintf("no request on one side (%d before, %d after): no test", n1, n2)
		return
	}
	row.P = F(FisherExact(x1, n1, x2, n2))
	row.Significant = float64(row.P) < opt.Alpha
}

// counts returns a level's failed and all requests (iterations, none
// failed, in a run without requests), from its rates and length.
func counts(l *knee.Level) (failed, all int64) {
	rps := float64(l.RequestsRPS)
	if math.IsNaN(rps) {
		rps = float64(l.CompletedRPS)
	}
	if math.IsNaN(rps) {
		return 0, 0
	}
	all = int64(math.Round(rps * l.Seconds))
	if e := float64(l.ErrorRate); !math.IsNaN(e) {
		failed = int64(math.Round(e * float64(all)))
	}
	return failed, all
}

// bounded is a knee's or ceiling's figure with its bounds and whether it
// was reached.
type bounded struct {
	v, low, high F
	reached      bool
}

// newPoint is the Point of two figures (nil: the run has none).
func newPoint(b, a *bounded) Point {
	nan := F(math.NaN())
	p := Point{Before: nan, After: nan, BeforeLow: nan, BeforeHigh: nan, AfterLow: nan, AfterHigh: nan, DeltaPct: nan, P: nan}
	if b != nil {
		p.Before, p.BeforeLow, p.BeforeHigh, p.BeforeReached = b.v, b.low, b.high, b.reached
	}
	if a != nil {
		p.After, p.AfterLow, p.AfterHigh, p.AfterReached = a.v, a.low, a.high, a.reached
	}
	p.DeltaPct = pct(p.Before, p.After)
	return p
}

func kneePoint(b, a *knee.Knee) Point {
	of := func(k *knee.Knee) *bounded {
		if k == nil {
			return nil
		}
		return &bounded{k.Offered, k.Low, k.High, k.Reached}
	}
	p := newPoint(of(b), of(a))
	switch {
	case b == nil || a == nil:
		p.Note = "a run has no knee (its lowest level already lacked headroom)"
	case !b.Reached || !a.Reached:
		p.Note = "a run never reached its knee: its figure is a lower bound, so no change is measured"
	case p.AfterLow > p.BeforeHigh || p.BeforeLow > p.AfterHigh:
		p.Significant = true
		p.Better = p.After > p.Before
	default:
		p.Note = "the knees' brackets (last level with headroom to first without) overlap"
	}
	return p
}

func ceilingPoint(b, a *knee.Ceiling, opt Options) Point {
	of := func(c *knee.Ceiling) *bounded {
		if c == nil {
			return nil
		}
		return &bounded{c.CompletedRPS, c.Low, c.High, c.Reached}
	}
	p := newPoint(of(b), of(a))
	switch {
	case b == nil || a == nil:
		p.Note = "a run has no ceiling (every level shed more than 5 % of its requests)"
	case !b.Reached || !a.Reached:
		p.Note = "a run never reached its ceiling: its figure is a lower bound, so no change is measured"
	default:
		// The ceiling's interval is a 95 % t interval whatever
		// Options.Confidence is.
		p.P = F(intervalZ(float64(p.Before), float64(p.BeforeLow), float64(p.BeforeHigh), float64(p.After), float64(p.AfterLow), float64(p.AfterHigh), 0.95))
		if p.P.Valid() {
			p.Significant = float64(p.P) < opt.Alpha
			p.Better = p.After > p.Before
		} else {
			p.Note = "a ceiling has no interval: no test"
		}
	}
	return p
}

func pct(b, a F) F {
	if b == 0 || !b.Valid() || !a.Valid() {
		return F(math.NaN())
	}
	return F(100 * (float64(a)/float64(b) - 1))
}

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

func allEqual(a, b []float64) bool {
	for _, v := range append(slices.Clone(a), b...) {
		if v != a[0] {
			return false
		}
	}
	return true
}

// uTestMin is the fewest samples a side needs for the smallest two-sided
// U-test p-value, 2 ÷ C(2n, n) with n a side, to be below alpha.
func uTestMin(alpha float64) int {
	for n := 1; n < 50; n++ {
		c := 1.0
		for k := 1; k <= n; k++ {
			c = c * float64(n+k) / float64(k)
		}
		if 2/c < alpha {
			return n
		}
	}
	return 50
}

func joinNotes(ns []string) string { return strings.Join(ns, "; ") }
