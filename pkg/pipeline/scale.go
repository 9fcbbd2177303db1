package pipeline

import (
	"github.com/ldanalyze/ldanalyze/pkg/scale"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// SelectorQuery is the timeline query that keeps the samples a scale
// selector (`scale --fit --run --y METRIC{TAG:VALUE}:STAT`) reads: pass it
// in Options.Queries and read the value back with SelectorValue.
func SelectorQuery(sel scale.Selector) timeline.Query {
	q := timeline.Query{Metric: sel.Metric}
	for _, m := range sel.Tags {
		q.Filter = append(q.Filter, [2]string{m.Key, m.Value})
	}
	return q
}

// SelectorValue is the selected number of a run analysed with
// SelectorQuery(sel) as its query i.
func SelectorValue(an *Analysis, i int, sel scale.Selector) (scale.RunValue, error) {
	return sel.Value(QueryStats(an, i))
}

// SteadyThroughput is the completed rate of an analysed run over its
// longest hold (scale.SteadyThroughput), the X of a USL point whose
// concurrency is n.
func SteadyThroughput(an *Analysis, n float64) (scale.Throughput, error) {
	levels, err := RunLevels(an)
	if err != nil {
		return scale.Throughput{}, err
	}
	return scale.SteadyThroughput(levels, n)
}
