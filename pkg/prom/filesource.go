package prom

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// DefaultLookback is how far back an evaluation looks for a series' latest
// sample, Prometheus' default --query.lookback-delta (5 m).
const DefaultLookback = 5 * time.Minute

// Files is a Source over saved series: query_range answers or raw stored
// samples of bare metric names (series recognised by __name__ and
// labels), evaluated here the way Prometheus evaluates an instant vector:
// at time t each series takes its latest sample in (t − Lookback, t].
// It cannot run histogram_quantile itself (Quantile is
// ErrNotPushedDown), so percentiles come from bucket deltas.
type Files struct {
	byName   map[string][]Series
	warnings []string
	// Lookback is the evaluation's lookback (default DefaultLookback).
	Lookback time.Duration
}

// NewFiles indexes series by their __name__; series without one are left
// out (an aggregation result cannot be told apart). Samples that cannot
// be what their name says (a counter's NaN, ±Inf or negative values, a k6
// trend stat's NaN, ±Inf or absurd ones) are left out and counted in
// Warnings.
func NewFiles(series []Series) *Files {
	f := &Files{byName: map[string][]Series{}}
	series, f.warnings = validate(series)
	for _, s := range series {
		if n := s.Name(); n != "" {
			f.byName[n] = append(f.byName[n], s)
		}
	}
	return f
}

// FilesFromResponses builds a Files from responses read by ReadResponses:
// where a metric has a "raw_samples" response (every stored sample, at
// the times k6 pushed them) it is used, else its other responses.
func FilesFromResponses(rs []Response) *Files {
	raw := map[string]bool{}
	for _, r := range rs {
		if r.Section == "raw_samples" {
			for _, s := range r.Data.Series {
				raw[s.Name()] = true
			}
		}
	}
	var all []Series
	for _, r := range rs {
		for _, s := range r.Data.Series {
			if raw[s.Name()] && r.Section != "raw_samples" {
				continue
			}
			all = append(all, s)
		}
	}
	return NewFiles(all)
}

// Warnings count the samples NewFiles left out, per kind, naming the
// first with its series and time.
func (f *Files) Warnings() []string { return f.warnings }

func (f *Files) lookback() int64 {
	if f.Lookback > 0 {
		return int64(f.Lookback)
	}
	return int64(DefaultLookback)
}

func (f *Files) matching(name string, sel Selector) []Series {
	var out []Series
	for _, s := range f.byName[name] {
		if sel.Matches(s.Labels) {
			out = append(out, s)
		}
	}
	return out
}

// Names lists the metric names with a series matching sel.
func (f *Files) Names(_ context.Context, sel Selector) ([]string, error) {
	var out []string
	for n := range f.byName {
		if len(f.matching(n, sel)) > 0 {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Span is the first and last sample time of the named metrics within r
// (all of it when r's bounds are zero) and the median interval between
// consecutive samples of a series. For a counter (a name ending in
// _total) the last sample of a series is where its value last changed: a
// query_range answer repeats a series' last value at every step for the
// lookback (5 m) after its last sample, and those repeats are not
// observations (raw samples of a k6 counter do not repeat: k6 pushes a
// series only with new samples), so that saved query_range answers and
// raw samples give the same run window, within one step.
func (f *Files) Span(_ context.Context, names []string, sel Selector, r Range) (time.Time, time.Time, time.Duration, error) {
	var first, last int64
	ok := false
	var gaps []int64
	in := func(t int64) bool {
		return (r.Start.IsZero() || t >= r.Start.UnixNano()) && (r.End.IsZero() || t <= r.End.UnixNano())
	}
	for _, n := range names {
		for _, s := range f.matching(n, sel) {
			var ts []int64
			for _, p := range s.Points {
				ts = append(ts, p.TimeNS)
			}
			for _, h := range s.Histograms {
				ts = append(ts, h.TimeNS)
			}
			if strings.HasSuffix(n, "_total") {
				ts = ts[:lastChange(s.Points)]
			}
			prev := int64(0)
			for i, t := range ts {
				if !in(t) {
					continue
				}
				if !ok || t < first {
					first = t
				}
				if !ok || t > last {
					last = t
				}
				ok = true
				if i > 0 && t > prev {
					gaps = append(gaps, t-prev)
				}
				prev = t
			}
		}
	}
	if !ok {
		return time.Time{}, time.Time{}, 0, fmt.Errorf("no sample of %v in the files", names)
	}
	var interval time.Duration
	if len(gaps) > 0 {
		sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
		interval = time.Duration(gaps[len(gaps)/2]).Round(time.Millisecond)
	}
	return time.Unix(0, first).UTC(), time.Unix(0, last).UTC(), interval, nil
}

// lastChange is the length of ps without the trailing repeats of its
// last value (len(ps) when it has none; at least 1 when ps is not empty).
func lastChange(ps []Point) int {
	n := len(ps)
	for n > 1 && ps[n-2].Value == ps[n-1].Value {
		n--
	}
	return n
}

// at is the index of the latest point of ts (times, ascending) in
// (t − lookback, t], or −1; from is where to start looking and is
// advanced.
func latest(n int, timeAt func(int) int64, t, lookback int64, from *int) int {
	for *from < n && timeAt(*from) <= t {
		*from++
	}
	i := *from - 1
	if i < 0 || timeAt(i) <= t-lookback {
		return -1
	}
	return i
}

// Sum is sum by (by) (name{sel}) at each time of r.
func (f *Files) Sum(_ context.Context, name string, sel Selector, by []string, r Range) ([]Series, error) {
	return f.aggregate(name, sel, by, r, false)
}

// CountSeries is count by (by) (name{sel}) at each time of r: how many
// series each group's sum adds.
func (f *Files) CountSeries(_ context.Context, name string, sel Selector, by []string, r Range) ([]Series, error) {
	return f.aggregate(name, sel, by, r, true)
}

// aggregate is Sum, or with count the number of series summed.
func (f *Files) aggregate(name string, sel Selector, by []string, r Range, count bool) ([]Series, error) {
	times := r.Times()
	groups := map[string]*Series{}
	var keys []string
	lb := f.lookback()
	for _, s := range f.matching(name, sel) {
		k, g := groupKey(s.Labels, by)
		out := groups[k]
		if out == nil {
			out = &Series{Labels: g, Points: make([]Point, len(times))}
			for i, t := range times {
				out.Points[i] = Point{TimeNS: t.UnixNano(), Value: nan()}
			}
			groups[k] = out
			keys = append(keys, k)
		}
		from := 0
		for i, t := range times {
			j := latest(len(s.Points), func(j int) int64 { return s.Points[j].TimeNS }, t.UnixNano(), lb, &from)
			if j < 0 {
				continue
			}
			if v := out.Points[i].Value; v != v {
				out.Points[i].Value = 0
			}
			if count {
				out.Points[i].Value++
			} else {
				out.Points[i].Value += s.Points[j].Value
			}
		}
	}
	return sortedGroups(groups, keys), nil
}

// SumProduct is sum by (by) (a{sel} * b{sel}) at each time of r, a and b
// matched on all labels but __name__.
func (f *Files) SumProduct(_ context.Context, a, b string, sel Selector, by []string, r Range) ([]Series, error) {
	times := r.Times()
	bs := map[string]Series{}
	for _, s := range f.matching(b, sel) {
		bs[LabelsKey(withoutName(s.Labels))] = s
	}
	groups := map[string]*Series{}
	var keys []string
	lb := f.lookback()
	for _, sa := range f.matching(a, sel) {
		sb, ok := bs[LabelsKey(withoutName(sa.Labels))]
		if !ok {
			continue
		}
		k, g := groupKey(sa.Labels, by)
		out := groups[k]
		if out == nil {
			out = &Series{Labels: g, Points: make([]Point, len(times))}
			for i, t := range times {
				out.Points[i] = Point{TimeNS: t.UnixNano(), Value: nan()}
			}
			groups[k] = out
			keys = append(keys, k)
		}
		fa, fb := 0, 0
		for i, t := range times {
			ja := latest(len(sa.Points), func(j int) int64 { return sa.Points[j].TimeNS }, t.UnixNano(), lb, &fa)
			jb := latest(len(sb.Points), func(j int) int64 { return sb.Points[j].TimeNS }, t.UnixNano(), lb, &fb)
			if ja < 0 || jb < 0 {
				continue
			}
			if v := out.Points[i].Value; v != v {
				out.Points[i].Value = 0
			}
			out.Points[i].Value += sa.Points[ja].Value * sb.Points[jb].Value
		}
	}
	return sortedGroups(groups, keys), nil
}

// sortedGroups are the groups in key order, each without the points at
// which none of its series had a sample (NaN), as Prometheus answers.
func sortedGroups(groups map[string]*Series, keys []string) []Series {
	sort.Strings(keys)
	res := make([]Series, 0, len(keys))
	for _, k := range keys {
		g := groups[k]
		kept := g.Points[:0]
		for _, p := range g.Points {
			if !math.IsNaN(p.Value) {
				kept = append(kept, p)
			}
		}
		g.Points = kept
		res = append(res, *g)
	}
	return res
}

// SumHistogram is sum by (by) (name{sel}) of native histograms at each
// time of r.
func (f *Files) SumHistogram(_ context.Context, name string, sel Selector, by []string, r Range) ([]Series, error) {
	times := r.Times()
	lb := f.lookback()
	type member struct {
		s    Series
		from int
	}
	members := map[string][]*member{}
	labels := map[string]map[string]string{}
	var keys []string
	for _, s := range f.matching(name, sel) {
		k, g := groupKey(s.Labels, by)
		if _, ok := members[k]; !ok {
			keys = append(keys, k)
			labels[k] = g
		}
		members[k] = append(members[k], &member{s: s})
	}
	groups := map[string]*Series{}
	for _, k := range keys {
		out := &Series{Labels: labels[k]}
		for _, t := range times {
			var parts []HistogramPoint
			for _, m := range members[k] {
				j := latest(len(m.s.Histograms), func(j int) int64 { return m.s.Histograms[j].TimeNS }, t.UnixNano(), lb, &m.from)
				if j >= 0 {
					parts = append(parts, m.s.Histograms[j])
				}
			}
			if len(parts) == 0 {
				continue
			}
			h := AddHistograms(parts...)
			h.TimeNS = t.UnixNano()
			out.Histograms = append(out.Histograms, h)
		}
		groups[k] = out
	}
	return sortedGroups(groups, keys), nil
}

// Quantile is ErrNotPushedDown: files cannot evaluate PromQL.
func (f *Files) Quantile(context.Context, float64, string, Selector, time.Duration, Range) ([]Point, error) {
	return nil, ErrNotPushedDown
}

func withoutName(ls map[string]string) map[string]string {
	out := make(map[string]string, len(ls))
	for k, v := range ls {
		if k != "__name__" {
			out[k] = v
		}
	}
	return out
}

func nan() float64 { return math.NaN() }

// FilesFromPath reads saved Prometheus API JSON into a Files: a file (one
// response, or an object of responses as the k6-v2 corpus export has;
// plain or gzipped) or a directory of such files (.json, .json.gz; a
// `prom pull` manifest.json is skipped). Series are recognised by their
// __name__; errors name the file, line and column.
func FilesFromPath(path string) (*Files, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		rs, err := readResponsesFile(path)
		if err != nil {
			return nil, err
		}
		return FilesFromResponses(rs), nil
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var rs []Response
	for _, ent := range ents {
		n := ent.Name()
		if ent.IsDir() || n == ManifestFile || !(strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".json.gz")) {
			continue
		}
		r, err := readResponsesFile(filepath.Join(path, n))
		if err != nil {
			return nil, err
		}
		rs = append(rs, r...)
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("%s: no .json or .json.gz file of Prometheus API answers", path)
	}
	return FilesFromResponses(rs), nil
}
