package pipeline

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ldanalyze/ldanalyze/pkg/knee"
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

// LevelSelectorValue is the figure of a level selector
// (scale.StatLevel: bytes_per_request, …) over the steady span of an
// analysed run whose x is x: its longest hold, as SteadyThroughput picks
// it. It returns that span too.
func LevelSelectorValue(an *Analysis, x float64, sel scale.Selector) (scale.Throughput, scale.RunValue, error) {
	t, err := SteadyThroughput(an, x)
	if err != nil {
		return t, scale.RunValue{}, err
	}
	v, err := sel.LevelValue(t)
	return t, v, err
}

// SweepLevels are the load levels of one analysed run as the points of a
// sweep (`scale --usl --levels`): each decision level's mean VUs (N),
// completed rate (X), span, error rate and p95, in the order of the way
// up. It returns an error when the run has no level with a vus gauge,
// and a warning for an open model, whose VUs are the busy ones (Little's
// law L = λW), not a concurrency the test set.
func SweepLevels(an *Analysis) ([]scale.Throughput, []string, error) {
	if an.Knee == nil {
		return nil, nil, an.KneeErr
	}
	var out []scale.Throughput
	for _, l := range an.Knee.DecisionLevels() {
		if !l.VUs.Valid() || !(l.VUs > 0) || !l.CompletedRPS.Valid() {
			continue
		}
		t := scale.Throughput{PerSecond: float64(l.CompletedRPS), Span: string(l.Kind), Start: l.Start, End: l.End, Seconds: l.Seconds,
			VUs: float64(l.VUs), HasVUs: true, ErrorRate: float64(l.ErrorRate), P95MS: float64(l.P95MS)}
		if math.IsNaN(t.ErrorRate) {
			t.ErrorRate = 0
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("no load level with a vus gauge: give one run per concurrency with --run N=FILE")
	}
	var warn []string
	if an.Knee.Model == knee.Open {
		warn = append(warn, "an open model's VUs are the busy ones (L = λW), set by the system's latency, not by the test: the USL's N should be the concurrency a closed (VU) executor sets")
	}
	return out, warn, nil
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

// SweepRun is one run of a sweep (`scale --run X=FILE`): its label as
// given, its x and its files (several for a distributed run).
type SweepRun struct {
	Label string
	X     scale.Quantity
	Files []string
}

// ParseSweepRuns groups --run X=FILE values by X, in order of first
// appearance. It returns an error naming the value that is not X=FILE or
// whose X is not a quantity.
func ParseSweepRuns(vals []string) ([]SweepRun, error) {
	var runs []SweepRun
	for _, v := range vals {
		xs, file, ok := strings.Cut(v, "=")
		xs, file = strings.TrimSpace(xs), strings.TrimSpace(file)
		if !ok || file == "" {
			return nil, fmt.Errorf("--run %q: want X=FILE, e.g. 100=room100.csv", v)
		}
		x, err := scale.ParseQuantity(xs)
		if err != nil {
			return nil, fmt.Errorf("--run %q: x: %w", v, err)
		}
		i := slices.IndexFunc(runs, func(r SweepRun) bool { return r.X == x })
		if i < 0 {
			runs = append(runs, SweepRun{Label: xs, X: x})
			i = len(runs) - 1
		}
		runs[i].Files = append(runs[i].Files, file)
	}
	return runs, nil
}
