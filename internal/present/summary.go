package present

import (
	"math"
	"strconv"
	"strings"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/summary"
)

// K6SummaryGrid lays a k6 end-of-test summary out as one table (`ldanalyze
// summary`): metric, type, count, rate, avg, p90, p95, p99, max, value and
// thresholds, times in ms. human rounds numbers to 6 significant digits;
// otherwise (CSV) they keep full precision.
func K6SummaryGrid(s *summary.Summary, human bool) *render.Grid {
	g := &render.Grid{Header: []string{"metric", "type", "count", "rate", "avg", "p90", "p95", "p99", "max", "value", "thresholds"}, Drop: summaryDrop}
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
		g.Rows = append(g.Rows, []string{m.Name, m.Type, num(m.Count), num(m.Rate), num(m.Avg), pct(m, "p90"), pct(m, "p95"), pct(m, "p99"), num(m.Max), num(m.Value), strings.Join(th, "; ")})
	}
	return g
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
