// Package prom reads Prometheus data — HTTP API JSON (query and
// query_range), Grafana panel CSV exports, VictoriaMetrics export JSON lines
// and the Prometheus/OpenMetrics text formats — pulls it from a live server
// through the official client, and lines it up with the load levels of a k6
// run to name what saturated.
//
// Prometheus series are kept apart from k6 samples: a Series is a label set
// and its points, times in Unix nanoseconds on the same clock as k6.
package prom

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/ldanalyze/ldanalyze/internal/steps"
)

// Point is one sample of a series: TimeNS in Unix nanoseconds, Value in the
// unit of the query that produced it (NaN and ±Inf are kept).
type Point = steps.Point

// Series is one time series: its labels (including "__name__" when the
// source had one), its float points and its native-histogram points, each
// in time order. A Prometheus series holds either kind of sample at a
// given time; most hold only one kind.
type Series struct {
	Labels     map[string]string
	Points     []Point
	Histograms []HistogramPoint
}

// Name is the metric name of s ("__name__"), or "" after an aggregation.
func (s *Series) Name() string { return s.Labels["__name__"] }

// Key is the canonical form of the label set, `{a="1", b="2"}` with names
// sorted, so that label sets which differ only in order compare equal.
func (s *Series) Key() string { return LabelsKey(s.Labels) }

// Mean is the time-weighted mean of the series over [startNS, endNS)
// (steps.Mean): each point at t stands for (t − step, t], step being the
// distance to the previous point (defStepNS for the first), as a
// Prometheus range query's samples do. NaN and ±Inf points are skipped;
// the result is NaN when no finite point overlaps the span. Times in ns
// since the epoch.
func (s Series) Mean(startNS, endNS, defStepNS int64) float64 {
	return steps.Mean(s.Points, startNS, endNS, defStepNS)
}

// LabelsKey is the canonical form of a label set: names sorted, values
// quoted Go-style, `{a="1", b="2"}`.
func LabelsKey(ls map[string]string) string {
	names := make([]string, 0, len(ls))
	for k := range ls {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(strconv.Quote(ls[k]))
	}
	b.WriteByte('}')
	return b.String()
}

// Normalize merges series with equal label sets (whatever the order of their
// labels in the source), sorts points by time and keeps the last value seen
// of a duplicated timestamp. It returns the merged series sorted by Key and
// the number of duplicate points dropped.
func Normalize(in []Series) (out []Series, duplicates int) {
	idx := map[string]int{}
	var keys []string
	for _, s := range in {
		k := s.Key()
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			keys = append(keys, k)
			out = append(out, Series{Labels: s.Labels})
		}
		out[i].Points = append(out[i].Points, s.Points...)
		out[i].Histograms = append(out[i].Histograms, s.Histograms...)
	}
	for i := range out {
		var d int
		out[i].Histograms, d = normalizeHistograms(out[i].Histograms)
		duplicates += d
		ps := out[i].Points
		// A stable sort keeps the source order of equal times, so the last
		// one seen wins below.
		sort.SliceStable(ps, func(a, b int) bool { return ps[a].TimeNS < ps[b].TimeNS })
		w := 0
		for r := range ps {
			if w > 0 && ps[w-1].TimeNS == ps[r].TimeNS {
				ps[w-1] = ps[r]
				duplicates++
				continue
			}
			ps[w] = ps[r]
			w++
		}
		out[i].Points = ps[:w]
	}
	order := make([]int, len(out))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return keys[order[a]] < keys[order[b]] })
	sorted := make([]Series, len(out))
	for i, j := range order {
		sorted[i] = out[j]
	}
	return sorted, duplicates
}

// Rate turns the points of a counter into per-second rates: each result
// point at t_i is (v_i − v_{i−1}) ÷ (t_i − t_{i−1}) in units per second. A
// decrease is a counter reset (a restarted process): the increase since the
// reset is then v_i itself, as Prometheus's rate() assumes. NaN or ±Inf
// points are skipped. The first point has no rate and is dropped, so the
// result has one point fewer than the finite input points.
func Rate(ps []Point) []Point {
	var out []Point
	prev := -1
	for i, p := range ps {
		if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
			continue
		}
		if prev >= 0 && p.TimeNS > ps[prev].TimeNS {
			inc := p.Value - ps[prev].Value
			if inc < 0 {
				inc = p.Value
			}
			out = append(out, Point{TimeNS: p.TimeNS, Value: inc / (float64(p.TimeNS-ps[prev].TimeNS) / 1e9)})
		}
		prev = i
	}
	return out
}

// Span is the first and last point time of all series, Unix ns; ok is false
// when there is no point.
func Span(ss []Series) (firstNS, lastNS int64, ok bool) {
	for _, s := range ss {
		var ts []int64
		if n := len(s.Points); n > 0 {
			ts = append(ts, s.Points[0].TimeNS, s.Points[n-1].TimeNS)
		}
		if n := len(s.Histograms); n > 0 {
			ts = append(ts, s.Histograms[0].TimeNS, s.Histograms[n-1].TimeNS)
		}
		for _, t := range ts {
			if !ok || t < firstNS {
				firstNS = t
			}
			if !ok || t > lastNS {
				lastNS = t
			}
			ok = true
		}
	}
	return firstNS, lastNS, ok
}
