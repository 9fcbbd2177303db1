package prom

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// maxTrendSeconds bounds a time trend's stat (k6 writes them in seconds):
// 10⁶ s = 10⁹ ms, eleven days for one request, is no real duration.
const maxTrendSeconds = 1e6

// tally counts skipped values of one kind for a warning: how many, in how
// many series, and the first (by time) with its series.
type tally struct {
	n           int
	series      map[string]bool
	firstSeries string
	firstNS     int64
	firstValue  float64
	hasFirst    bool
}

// add counts one value v of series (its name and labels) at ns.
func (t *tally) add(series string, ns int64, v float64) {
	t.n++
	if t.series == nil {
		t.series = map[string]bool{}
	}
	t.series[series] = true
	if !t.hasFirst || ns < t.firstNS {
		t.firstSeries, t.firstNS, t.firstValue, t.hasFirst = series, ns, v, true
	}
}

// message is "" with nothing counted, else "<n> <what> in <m> series
// (the first <series> at <time>: <value>)<then>".
func (t *tally) message(what, then string) string {
	if t.n == 0 {
		return ""
	}
	return fmt.Sprintf("%d %s in %d series (the first %s at %s: %s)%s", t.n, what, len(t.series), t.firstSeries,
		time.Unix(0, t.firstNS).UTC().Format("2006-01-02T15:04:05.000Z"), fmtValue(t.firstValue), then)
}

func fmtValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return fmt.Sprintf("%g", v)
}

// seriesName is name{labels} without __name__, for messages.
func seriesName(name string, ls map[string]string) string {
	return name + LabelsKey(withoutName(ls))
}

// badCounter says whether v cannot be a counter's value: NaN, ±Inf and
// negative values are not counts.
func badCounter(v float64) bool {
	return math.IsNaN(v) || math.IsInf(v, 0) || v < 0
}

// badTrendStat says whether v cannot be stat of k6 trend tr: NaN or ±Inf
// for any trend; for a time trend (seconds) also a negative value, or a
// duration over maxTrendSeconds (its _count is a number, not bounded).
func badTrendStat(tr, stat string, v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return true
	}
	if !k6TimeTrends[tr] {
		return false
	}
	return v < 0 || (stat != "count" && stat != "sum" && v > maxTrendSeconds)
}

// validate drops from the series of a Files the samples that cannot be
// what their name says: a counter's (name ending in _total) NaN, ±Inf or
// negative values, and a k6 trend stat's NaN or ±Inf (and, for a time
// trend, negative or over 10⁶ s = 10⁹ ms) values, and returns the
// warnings that count them (per kind: how many, in how many series, the
// first with its series and time). Nothing panics on them downstream and
// no sum of them becomes a silent wrong number.
func validate(series []Series) (out []Series, warnings []string) {
	var counters, stats tally
	out = series[:0:0]
	for _, s := range series {
		name := s.Name()
		var check func(v float64) bool
		var t *tally
		switch m := trendStatName.FindStringSubmatch(name); {
		case strings.HasSuffix(name, "_total"):
			check, t = badCounter, &counters
		case m != nil && strings.HasPrefix(name, "k6_"):
			check, t = func(v float64) bool { return badTrendStat(m[1], m[2], v) }, &stats
		}
		if check != nil {
			kept := s.Points[:0:0]
			for _, p := range s.Points {
				if check(p.Value) {
					t.add(seriesName(name, s.Labels), p.TimeNS, p.Value)
					continue
				}
				kept = append(kept, p)
			}
			s.Points = kept
		}
		out = append(out, s)
	}
	if m := counters.message("counter samples that are NaN, ±Inf or negative", ": skipped, the counters read from their other samples"); m != "" {
		warnings = append(warnings, m)
	}
	if m := stats.message("k6 trend-stat samples that are NaN, ±Inf, negative or over 10⁹ ms", ": skipped, the trend stats read from their other samples"); m != "" {
		warnings = append(warnings, m)
	}
	return out, warnings
}
