// Package window aggregates one metric's samples into fixed, epoch-aligned
// time windows, per tag set: count, rate, mean, min, max and percentiles
// from a mergeable sketch (package sketch), plus the failed requests of the
// same window and tag set.
//
// It is an accumulator in the style of vegeta's Metrics: Add every sample,
// then Close computes the rows once.
package window

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/sketch"
)

// Options configure an Aggregator.
type Options struct {
	// Metric is the metric to aggregate, e.g. "http_req_duration".
	Metric string
	// WidthNS is the window width in nanoseconds (> 0). Windows start at
	// multiples of WidthNS since the Unix epoch.
	WidthNS int64
	// By lists the tag keys that split the windows, e.g. ["name"]; empty
	// means one group per window.
	By []string
	// Percentiles are the quantiles to report, in percent (e.g. 95 for
	// p95). Empty means DefaultPercentiles.
	Percentiles []float64
}

// DefaultPercentiles are p50, p90, p95 and p99.
var DefaultPercentiles = []float64{50, 90, 95, 99}

// Aggregator accumulates samples into windows. Its zero value is not
// usable; call New.
type Aggregator struct {
	opt Options
	// minNS and maxNS bound the samples seen, so that the first and last
	// windows' rates are per second of data, not of window width.
	minNS, maxNS int64
	any          bool
	// cells holds the sketches per window (slot = window index, start /
	// WidthNS) and group id, sealed once the reader is past the window;
	// w is the Aggregator's writer to it.
	cells *sketch.Series
	w     *sketch.Writer
	// failed counts http_req_failed = 1 per window and group id; a key
	// present with 0 marks a cell with no failure.
	failed map[key]uint64
	ids    map[string]int      // group string → group id
	groups []string            // group id → group string
	names  map[string][]string // group string → tag values
	vals   []string
	sb     strings.Builder
}

type key struct {
	window int64 // window index: start / WidthNS
	group  int
}

// New returns an Aggregator. It returns an error when the options cannot
// work (no metric, a width ≤ 0, a percentile outside (0, 100]).
func New(opt Options) (*Aggregator, error) {
	if opt.Metric == "" {
		return nil, fmt.Errorf("window: no metric given")
	}
	if opt.WidthNS <= 0 {
		return nil, fmt.Errorf("window: width must be positive, got %dns", opt.WidthNS)
	}
	if len(opt.Percentiles) == 0 {
		opt.Percentiles = DefaultPercentiles
	}
	for _, p := range opt.Percentiles {
		if !(p > 0 && p <= 100) {
			return nil, fmt.Errorf("window: percentile %v outside (0, 100]", p)
		}
	}
	cells := sketch.NewSeries(-1) // windows never coarsen
	return &Aggregator{opt: opt, cells: cells, w: cells.Writer(), failed: map[key]uint64{}, ids: map[string]int{},
		names: map[string][]string{}, vals: make([]string, len(opt.By))}, nil
}

// Add adds a sample. Samples of Options.Metric go to their window and
// group; http_req_failed samples with value 1 count as failed in theirs;
// other samples are ignored.
func (a *Aggregator) Add(s *ingest.Sample) {
	failed := false
	if s.Metric != a.opt.Metric {
		if s.Metric != "http_req_failed" || s.Value == 0 {
			return
		}
		failed = true
	}
	if !a.any || s.TimeNS < a.minNS {
		a.minNS = s.TimeNS
	}
	if !a.any || s.TimeNS > a.maxNS {
		a.maxNS = s.TimeNS
	}
	a.any = true
	w := floorDiv(s.TimeNS, a.opt.WidthNS)
	g := a.id(a.group(s))
	if failed {
		a.failed[key{w, g}]++
		return
	}
	a.w.Add(w, g, s.Value)
}

// id returns the id of group string g.
func (a *Aggregator) id(g string) int {
	i, ok := a.ids[g]
	if !ok {
		i = len(a.groups)
		a.ids[g] = i
		a.groups = append(a.groups, g)
	}
	return i
}

func (a *Aggregator) group(s *ingest.Sample) string {
	switch len(a.opt.By) {
	case 0:
		return ""
	case 1:
		v, _ := s.Tags.Get(a.opt.By[0])
		if _, ok := a.names[v]; !ok {
			a.names[v] = []string{v}
		}
		return v
	}
	a.sb.Reset()
	for i, k := range a.opt.By {
		v, _ := s.Tags.Get(k)
		a.vals[i] = v
		if i > 0 {
			a.sb.WriteByte(0)
		}
		a.sb.WriteString(v)
	}
	g := a.sb.String()
	if _, ok := a.names[g]; !ok {
		a.names[g] = slices.Clone(a.vals)
	}
	return g
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && (a < 0) {
		q--
	}
	return q
}

// Row is one window of one tag set. Durations are in the metric's unit
// (ms for time trends).
type Row struct {
	// StartNS is the window start in ns since the epoch.
	StartNS int64
	// Tags are the values of Options.By, in order ("" when absent).
	Tags []string
	// Count is the number of samples of the metric.
	Count uint64
	// Rate is Count per second of data in the window: the window width,
	// except for the run's first and last windows, which count only the
	// seconds (at 1 s granularity) the run covers.
	Rate float64
	// Seconds is the span Rate divides by, s.
	Seconds float64
	// Mean, Min and Max of the values; NaN when Count is 0.
	Mean, Min, Max float64
	// Percentiles are the values at Options.Percentiles, in order.
	Percentiles []float64
	// Failed counts http_req_failed samples with value 1.
	Failed uint64
	// Exact reports whether the percentiles are exact.
	Exact bool
}

// Err returns why the rows of Close cannot be trusted: a sealed window
// sketch that failed to decode (a bug, see sketch.Series.Err), or nil.
func (a *Aggregator) Err() error { return a.cells.Err() }

// Close returns the rows ordered by window then tag values; check Err
// after it.
func (a *Aggregator) Close() []Row {
	qs := make([]float64, len(a.opt.Percentiles))
	for i, p := range a.opt.Percentiles {
		qs[i] = p / 100
	}
	a.w.Flush()
	sks := map[key]*sketch.Sketch{}
	a.cells.Each(func(w int64, g int, sk *sketch.Sketch) { sks[key{w, g}] = sk })
	for k := range a.failed {
		if sks[k] == nil {
			sks[k] = &sketch.Sketch{}
		}
	}
	rows := make([]Row, 0, len(sks))
	// The run covers the whole seconds from its first sample's to its
	// last's.
	runStart := floorDiv(a.minNS, 1e9) * 1e9
	runEnd := (floorDiv(a.maxNS, 1e9) + 1) * 1e9
	for k, sk := range sks {
		start := k.window * a.opt.WidthNS
		sec := float64(min(start+a.opt.WidthNS, runEnd)-max(start, runStart)) / 1e9
		if sec <= 0 {
			sec = float64(a.opt.WidthNS) / 1e9
		}
		tags := a.names[a.groups[k.group]]
		if tags == nil {
			tags = []string{}
		}
		rows = append(rows, Row{
			StartNS: start, Tags: tags, Count: sk.Count(),
			Rate: float64(sk.Count()) / sec, Seconds: sec, Mean: sk.Mean(), Min: sk.Min(), Max: sk.Max(),
			Percentiles: sk.Quantiles(qs), Failed: a.failed[k], Exact: sk.Exact(),
		})
	}
	slices.SortFunc(rows, func(x, y Row) int {
		if x.StartNS != y.StartNS {
			if x.StartNS < y.StartNS {
				return -1
			}
			return 1
		}
		return slices.Compare(x.Tags, y.Tags)
	})
	return rows
}

// Merge adds o's windows to a, as if a had been given o's samples too
// (sketches merge exactly). o must have the same options and must not be
// used afterwards.
func (a *Aggregator) Merge(o *Aggregator) {
	if o.any {
		if !a.any || o.minNS < a.minNS {
			a.minNS = o.minNS
		}
		if !a.any || o.maxNS > a.maxNS {
			a.maxNS = o.maxNS
		}
		a.any = true
	}
	o.w.Flush()
	o.cells.Each(func(w int64, g int, sk *sketch.Sketch) {
		a.cells.AddSketch(w, a.id(o.groups[g]), sk)
	})
	for k, n := range o.failed {
		a.failed[key{k.window, a.id(o.groups[k.group])}] += n
	}
	for g, tags := range o.names {
		if _, ok := a.names[g]; !ok {
			a.names[g] = tags
		}
	}
}
