package prom

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// CheckGroup is one step's k6 checks of one name, scenario and group:
// how many passed and failed in the step.
type CheckGroup struct {
	Check, Scenario, Group string
	Pass, Fail             float64
}

// checkLabels are the labels k6_checks_rate is summed by.
var checkLabels = []string{"check", "scenario", "group"}

// maxChecksPerIteration bounds the multiples of a scenario's iterations
// tried as the number of checks of one name (checkCounts).
const maxChecksPerIteration = 4

// readChecks fills the steps' Checks from k6_checks_rate.
//
// k6 exports a Rate metric as a gauge k6_<name>_rate whose value is its
// sink's running ratio, non-zero samples ÷ samples since the start of the
// run ("Rate | Gauge | k6_*_rate" in k6's docs, results-output/real-time/
// prometheus-remote-write; prom_rw_native ends at 0.74647656… =
// 27277/36541, its CSV's passes ÷ checks): the number of checks is not
// exported.
// The counts are derived as ratio × N, N = k × the cumulative
// k6_iterations_total of the series' scenario (every scenario's when the
// series has no scenario label), with k the smallest of 1 …
// maxChecksPerIteration for which ratio × N is a whole number at every
// step: exact when every iteration of the scenario made k checks of that
// name. When no k fits, k = 1 and the counts are estimates (the pass
// ratio of a series over the run, its last value, is exact either way).
// A warning says which.
func (run *K6Run) readChecks(ctx context.Context, src Source, sel Selector, has map[string]bool, eval Range, times []time.Time) error {
	const name = "k6_checks_rate"
	if !has[name] {
		return nil
	}
	ss, err := src.Sum(ctx, name, sel, checkLabels, eval)
	if err != nil || len(ss) == 0 {
		return err
	}
	if len(ss) > MaxK6Groups {
		run.Warnings = append(run.Warnings, fmt.Sprintf("%s: %d series summed by %s, more than %d: the checks are left out", name, len(ss), strings.Join(checkLabels, ", "), MaxK6Groups))
		return nil
	}
	// The cumulative iterations per scenario ("" all of them) at each
	// evaluation time, carried over gaps.
	iters := map[string][]float64{}
	if has["k6_iterations_total"] {
		is, err := src.Sum(ctx, "k6_iterations_total", sel, []string{"scenario"}, eval)
		if err != nil {
			return err
		}
		all := make([]float64, len(times))
		for _, s := range is {
			vals := valuesAt(s.Points, times, math.NaN())
			prev := 0.0
			for i, v := range vals {
				if math.IsNaN(v) || badCounter(v) {
					v = prev
				}
				vals[i], prev = v, v
				all[i] += v
			}
			if sc := s.Labels["scenario"]; sc != "" {
				iters[sc] = vals
			}
		}
		iters[""] = all
	}
	var exact, estimated, summed, noIters []string
	for _, s := range ss {
		named := map[string]string{}
		for k, v := range s.Labels {
			if v != "" {
				named[k] = v
			}
		}
		series := seriesName(name, named)
		ratio := valuesAt(s.Points, times, math.NaN())
		n := iters[s.Labels["scenario"]]
		if n == nil {
			n = iters[""]
		}
		if n == nil {
			noIters = append(noIters, series)
			continue
		}
		if over := slicesMax(ratio); over > 1+1e-9 {
			// Several series in one sum (k6 instances, extra tags): a sum
			// of ratios is no ratio.
			summed = append(summed, series)
			continue
		}
		pass, fail, k, ok := checkCounts(ratio, n)
		if ok {
			exact = append(exact, fmt.Sprintf("%s (k = %d)", series, k))
		} else {
			estimated = append(estimated, series)
		}
		for i := range run.Steps {
			p, f := pass[i+1]-pass[i], fail[i+1]-fail[i]
			if p > 0 || f > 0 {
				run.Steps[i].Checks = append(run.Steps[i].Checks, CheckGroup{Check: s.Labels["check"], Scenario: s.Labels["scenario"], Group: s.Labels["group"], Pass: p, Fail: f})
			}
		}
	}
	sort.Strings(exact)
	if len(exact) > 0 {
		run.Warnings = append(run.Warnings, fmt.Sprintf("checks counted from k6_checks_rate, a running ratio (passes ÷ checks since the start; k6 exports no count of checks): passes = ratio × k × the scenario's k6_iterations_total, a whole number at every step, so exact if each iteration made k checks of that name: %s", strings.Join(exact, ", ")))
	}
	if len(estimated) > 0 {
		run.Warnings = append(run.Warnings, fmt.Sprintf("checks estimated from k6_checks_rate, a running ratio (passes ÷ checks since the start; k6 exports no count of checks): ratio × the scenario's k6_iterations_total is not a whole number at every step for any of 1 to %d checks per iteration, so the counts and the steps of the failures are estimates, one check per iteration (a series' pass ratio over the run is exact): %s", maxChecksPerIteration, strings.Join(estimated, ", ")))
	}
	if len(noIters) > 0 {
		run.Warnings = append(run.Warnings, fmt.Sprintf("checks left out: k6_checks_rate is a running ratio (passes ÷ checks since the start) and without k6_iterations_total the number of checks cannot be known: %s", strings.Join(noIters, ", ")))
	}
	if len(summed) > 0 {
		run.Warnings = append(run.Warnings, fmt.Sprintf("checks left out: k6_checks_rate summed by %s exceeds 1, so several series (k6 instances or extra tags) share a group and their ratios cannot be told apart: %s", strings.Join(checkLabels, ", "), strings.Join(summed, ", ")))
	}
	return nil
}

// slicesMax is the largest value of xs that is not NaN, -Inf when none
// is (slices.Max returns NaN when any value is, and a ratio series has
// NaN where a step has no sample).
func slicesMax(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		if x > m {
			m = x
		}
	}
	return m
}

// checkCounts derives the cumulative passes and failures at each time
// from the running pass ratio and the cumulative iterations n (both NaN
// or carried where absent): pass = round(ratio · k·n), fail = k·n − pass,
// each kept non-decreasing. k is the smallest of 1 … maxChecksPerIteration
// for which ratio · k·n is within 10⁻⁶ (plus float64 rounding of k·n) of a
// whole number at every time with a ratio; ok false when none is (then
// k = 1).
func checkCounts(ratio, n []float64) (pass, fail []float64, k int, ok bool) {
	fits := func(k float64) bool {
		for i, r := range ratio {
			if math.IsNaN(r) {
				continue
			}
			x := r * k * n[i]
			if math.Abs(x-math.Round(x)) > 1e-6+1e-12*k*n[i] {
				return false
			}
		}
		return true
	}
	k = 1
	for c := 1; c <= maxChecksPerIteration; c++ {
		if fits(float64(c)) {
			k, ok = c, true
			break
		}
	}
	pass, fail = make([]float64, len(ratio)), make([]float64, len(ratio))
	var p, f float64
	for i, r := range ratio {
		if !math.IsNaN(r) {
			total := float64(k) * n[i]
			p = math.Max(p, math.Round(math.Min(1, math.Max(0, r))*total))
			f = math.Max(f, total-p)
		}
		pass[i], fail[i] = p, f
	}
	return pass, fail, k, ok
}
