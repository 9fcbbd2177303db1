package pipeline

import (
	"fmt"
	"math"

	"github.com/ldanalyze/ldanalyze/pkg/jsonnum"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/summary"
)

// SummaryRow puts one whole-run figure of k6's own end-of-test summary
// beside the one ldanalyze computed from the samples.
type SummaryRow struct {
	Metric string        `json:"metric"`
	Stat   string        `json:"stat"`
	K6     jsonnum.Float `json:"k6"`
	Ours   jsonnum.Float `json:"ldanalyze"`
	// Diff is (ldanalyze − k6) ÷ k6, a ratio.
	Diff jsonnum.Float `json:"diff_ratio"`
}

// CompareSummary lines k6's summary up with the computed whole-run figures
// of the metric and of the request counters. It returns an error when the
// summary has neither the metric nor http_reqs.
func CompareSummary(s *summary.Summary, metric string, o knee.Overall) ([]SummaryRow, error) {
	var rows []SummaryRow
	add := func(m, stat string, k6 *float64, ours float64) {
		if k6 == nil {
			return
		}
		d := math.NaN()
		if *k6 != 0 {
			d = (ours - *k6) / *k6
		}
		rows = append(rows, SummaryRow{Metric: m, Stat: stat, K6: jsonnum.Float(*k6), Ours: jsonnum.Float(ours), Diff: jsonnum.Float(d)})
	}
	if m, ok := s.Metric(metric); ok {
		add(metric, "avg", m.Avg, float64(o.MeanMS))
		add(metric, "min", m.Min, float64(o.MinMS))
		add(metric, "med", m.Med, float64(o.P50MS))
		for _, p := range []struct {
			name string
			v    knee.F
		}{{"p90", o.P90MS}, {"p95", o.P95MS}, {"p99", o.P99MS}} {
			if v, ok := m.Percentile(p.name); ok {
				add(metric, p.name, &v, float64(p.v))
			}
		}
		add(metric, "max", m.Max, float64(o.MaxMS))
	}
	if m, ok := s.Metric("http_reqs"); ok {
		add("http_reqs", "count", m.Count, float64(o.Requests))
	}
	if m, ok := s.Metric("http_req_failed"); ok {
		add("http_req_failed", "rate", m.Rate, float64(o.ErrorRate))
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no %s or http_reqs in the summary to compare with", s.Source, metric)
	}
	return rows, nil
}

// summaryMismatch returns a warning when the counts of the summary and of
// the samples disagree: k6 counts every sample, so a summary of the same
// run gives the same counts exactly.
func summaryMismatch(rows []SummaryRow, path string) []string {
	for _, r := range rows {
		if r.Stat == "count" && r.K6 != r.Ours {
			return []string{fmt.Sprintf("%s counts %.0f %s against %.0f in the samples: it is not the summary of this run, or the run's output is incomplete", path, float64(r.K6), r.Metric, float64(r.Ours))}
		}
	}
	return nil
}
