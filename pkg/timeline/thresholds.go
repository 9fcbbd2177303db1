package timeline

import (
	"math"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/sketch"
	"github.com/ldanalyze/ldanalyze/pkg/threshold"
)

// Query selects the samples of one metric, optionally only those that
// carry every tag of Filter with exactly that value (as k6 submetrics
// do). The Timeline keeps their per-second aggregate (Timeline.Query).
type Query struct {
	Metric string
	// Filter holds (key, value) pairs.
	Filter [][2]string
}

// Aggregate is what a Query's samples add up to over a span of seconds.
type Aggregate struct {
	// Count is the number of samples, Nonzero those with a value other
	// than 0; Sum is their sum and Last the value of the latest one.
	Count, Nonzero uint64
	Sum, Last      float64
	// Values holds the values (for percentiles, min and max).
	Values sketch.Sketch
	// NonBinary is set when a value other than 0 and 1 was seen anywhere
	// in the run (so the metric is not a k6 Rate).
	NonBinary bool
}

// queryAgg accumulates one query's samples per second.
type queryAgg struct {
	q         Query
	secs      map[int64]*querySec
	nonBinary bool
}

type querySec struct {
	sk         sketch.Sketch
	n, nonzero uint64
	sum, last  float64
	lastNS     int64
	hasLast    bool
}

func newQueryAgg(q Query) *queryAgg { return &queryAgg{q: q, secs: map[int64]*querySec{}} }

// secFor is the second of s in the query's aggregate, made on first use;
// nil when s is not of the query's metric or fails one of its tag filters.
func (a *queryAgg) secFor(s *ingest.Sample) *querySec {
	if s.Metric != a.q.Metric {
		return nil
	}
	for _, f := range a.q.Filter {
		if v, _ := s.Tags.Get(f[0]); v != f[1] {
			return nil
		}
	}
	k := secOf(s.TimeNS)
	sc := a.secs[k]
	if sc == nil {
		sc = &querySec{}
		a.secs[k] = sc
	}
	return sc
}

func (a *queryAgg) add(s *ingest.Sample) {
	sc := a.secFor(s)
	if sc == nil {
		return
	}
	sc.sk.Add(s.Value)
	sc.n++
	sc.sum += s.Value
	if s.Value != 0 {
		sc.nonzero++
	}
	if s.Value != 0 && s.Value != 1 {
		a.nonBinary = true
	}
	if !sc.hasLast || s.TimeNS >= sc.lastNS {
		sc.last, sc.lastNS, sc.hasLast = s.Value, s.TimeNS, true
	}
}

// span adds up the seconds [from, to); ok is false when none has a
// sample.
func (a *queryAgg) span(from, to int64) (Aggregate, bool) {
	g := Aggregate{NonBinary: a.nonBinary}
	var lastNS int64
	any := false
	visit := func(sc *querySec) {
		any = true
		g.Values.Merge(&sc.sk)
		g.Count += sc.n
		g.Nonzero += sc.nonzero
		g.Sum += sc.sum
		if sc.hasLast && (lastNS == 0 || sc.lastNS >= lastNS) {
			g.Last, lastNS = sc.last, sc.lastNS
		}
	}
	if to-from <= int64(len(a.secs)) {
		for k := from; k < to; k++ {
			if sc := a.secs[k]; sc != nil {
				visit(sc)
			}
		}
	} else {
		// A span wider than the data (a stray timestamp): visit the
		// records, not the seconds.
		for k, sc := range a.secs {
			if k >= from && k < to {
				visit(sc)
			}
		}
	}
	return g, any
}

// merge adds o's seconds to a (the same query); o is not used afterwards.
func (a *queryAgg) merge(o *queryAgg) {
	a.nonBinary = a.nonBinary || o.nonBinary
	for k, os := range o.secs {
		s := a.secs[k]
		if s == nil {
			a.secs[k] = os
			continue
		}
		s.sk.Merge(&os.sk)
		s.n += os.n
		s.nonzero += os.nonzero
		s.sum += os.sum
		if os.hasLast && (!s.hasLast || os.lastNS >= s.lastNS) {
			s.last, s.lastNS, s.hasLast = os.last, os.lastNS, true
		}
	}
}

// knownCounters are k6's built-in counters (research/k6-formats.md §3):
// their "rate" is per second, not a share of non-zero samples.
var knownCounters = map[string]bool{
	"http_reqs": true, "iterations": true, "dropped_iterations": true, "data_sent": true, "data_received": true,
	"ws_sessions": true, "ws_msgs_sent": true, "ws_msgs_received": true,
	"grpc_streams": true, "grpc_streams_msgs_sent": true, "grpc_streams_msgs_received": true,
}

// Query returns query i's aggregate (Options.Queries) over the seconds
// [from, to); ok is false when the span has no matching sample.
func (t *Timeline) Query(i int, from, to int64) (Aggregate, bool) {
	return t.qs[i].span(from, to)
}

// Thresholds are the thresholds the Timeline was given (Options).
func (t *Timeline) Thresholds() []threshold.Threshold { return t.opt.Thresholds }

// ThresholdValue is threshold i's statistic over the seconds [from, to),
// as k6 computes it (trends: avg, min, max, med, p(N) of the values;
// count: the sum; value: the last value; rate: for a counter the sum per
// second of the span, for a Rate the share of non-zero samples); ok is
// false when the span has no sample of its metric.
func (t *Timeline) ThresholdValue(i int, from, to int64) (v float64, ok bool) {
	th := t.opt.Thresholds[i]
	g, ok := t.qs[len(t.opt.Queries)+i].span(from, to)
	if !ok {
		return math.NaN(), false
	}
	switch th.Stat {
	case threshold.Avg:
		return g.Values.Mean(), true
	case threshold.Min:
		return g.Values.Min(), true
	case threshold.Max:
		return g.Values.Max(), true
	case threshold.Med, threshold.P:
		return g.Values.Quantile(th.Quantile()), true
	case threshold.Count:
		return g.Sum, true
	case threshold.Value:
		return g.Last, true
	}
	if knownCounters[th.Metric] || g.NonBinary {
		return g.Sum / float64(to-from), true
	}
	if g.Count == 0 {
		return math.NaN(), false
	}
	return float64(g.Nonzero) / float64(g.Count), true
}
