package present

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/summary"
)

// K6SummaryGrid lays a k6 end-of-test summary out as one table (`ldanalyze
// summary`): metric, type, count, rate, avg, min, med, p90, p95, p99 and
// every other percentile the summary holds (a custom summaryTrendStats'
// p(99.9), in order), max, value and thresholds, times in ms. human rounds
// numbers to 6 significant digits and shows a Rate metric's rate (a share)
// as a percentage; otherwise (CSV) they keep full precision.
func K6SummaryGrid(s *summary.Summary, human bool) *render.Grid {
	pcts := summaryPercentiles(s)
	header := append([]string{"metric", "type", "count", "rate", "avg", "min", "med"}, pcts...)
	g := &render.Grid{Header: append(header, "max", "value", "thresholds"), Drop: summaryDrop}
	num := func(v *float64) string {
		if v == nil {
			return ""
		}
		return summaryNumber(*v, human)
	}
	pct := func(m *summary.Metric, k string) string {
		if v, ok := m.Percentile(k); ok {
			return summaryNumber(v, human)
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
		rate := num(m.Rate)
		if human && m.Type == "rate" && m.Rate != nil {
			// A Rate's rate is the share of non-zero samples, not a
			// per-second rate as the counters' beside it: a percentage.
			rate = Pct(*m.Rate)
		}
		row := []string{m.Name, m.Type, num(m.Count), rate, num(m.Avg), num(m.Min), num(m.Med)}
		for _, k := range pcts {
			row = append(row, pct(m, k))
		}
		g.Rows = append(g.Rows, append(row, num(m.Max), num(m.Value), strings.Join(th, "; ")))
	}
	return g
}

// summaryPercentiles are the percentile columns of K6SummaryGrid: p90,
// p95 and p99, and any other percentile a metric of s has, ordered by
// their value ("p75" before "p90", "p99.9" after "p99").
func summaryPercentiles(s *summary.Summary) []string {
	cols := []string{"p90", "p95", "p99"}
	for i := range s.Metrics {
		for k := range s.Metrics[i].Percentiles {
			if !slices.Contains(cols, k) {
				cols = append(cols, k)
			}
		}
	}
	q := func(k string) float64 {
		v, err := strconv.ParseFloat(strings.TrimPrefix(k, "p"), 64)
		if err != nil {
			return math.Inf(1) // not a number: after the others
		}
		return v
	}
	slices.SortStableFunc(cols, func(a, b string) int {
		if c := cmp.Compare(q(a), q(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return cols
}

// FailedThresholds lists the thresholds of s that failed, "metric:
// expression" each.
func FailedThresholds(s *summary.Summary) []string {
	var failed []string
	for _, m := range s.Metrics {
		for _, t := range m.Thresholds {
			if !t.OK {
				failed = append(failed, m.Name+": "+t.Source)
			}
		}
	}
	return failed
}

func summaryNumber(v float64, human bool) string {
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

// K6SummaryChecks are the lines of a summary's checks, one per check
// with its passes, fails and pass rate ("✓" when none failed, "✗"
// otherwise); none when the summary has no checks.
func K6SummaryChecks(s *summary.Summary) []string {
	var out []string
	for _, c := range s.Checks {
		mark := "✓"
		if c.Fails > 0 {
			mark = "✗"
		}
		// The group path names a check inside a group ("browse::menu
		// status 200"); the root group's "::" is left out, as knee and
		// check name checks.
		name := c.Name
		if c.Path != "" {
			name = strings.TrimPrefix(c.Path, "::")
		}
		rate := "-"
		if n := c.Passes + c.Fails; n > 0 {
			rate = strconv.FormatFloat(100*float64(c.Passes)/float64(n), 'f', 2, 64) + "%"
		}
		out = append(out, fmt.Sprintf("%s check %q: %d passed, %d failed (%s)", mark, name, c.Passes, c.Fails, rate))
	}
	return out
}
