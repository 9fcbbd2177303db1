package checks

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/sketch"
)

// Threshold is one k6 threshold: a metric (optionally filtered by tags, as
// in k6 submetrics) and an expression on one of its statistics. Syntax as
// in k6 (docs "Thresholds"): "METRIC{tag:value,...}:EXPR", e.g.
// "http_req_failed:rate<0.01", "http_req_duration{name:order}:p(95)<500".
type Threshold struct {
	// Source is the threshold as given.
	Source string
	// Metric is the metric name, e.g. "http_req_duration".
	Metric string
	// Filter holds the submetric's tag filters as key, value pairs; a
	// sample matches when it has every tag with that value.
	Filter [][2]string
	// Stat is avg, min, max, med or p (trends, values in the metric's
	// unit, ms for time trends), rate (rate metrics: share of non-zero
	// samples 0–1; counters: count per second), count (counters) or value
	// (gauges: the last value).
	Stat string
	// Percentile is the percentile in percent when Stat is "p".
	Percentile float64
	// Op is <, <=, >, >=, == or !=.
	Op string
	// Limit is the right-hand side of the expression, in the metric's unit.
	Limit float64
}

var thrExprRe = regexp.MustCompile(`^\s*(avg|min|max|med|rate|count|value|p\(\s*([0-9.]+)\s*\)|p([0-9.]+))\s*(<=|<|>=|>|===|==|!=)\s*(-?[0-9.]+(?:[eE][-+]?[0-9]+)?)\s*$`)

// ParseThreshold parses "METRIC{tag:value}:EXPR". The metric part ends at
// the first ':' outside braces.
func ParseThreshold(s string) (Threshold, error) {
	depth, cut := 0, -1
	for i, r := range s {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
		case ':':
			if depth == 0 && cut < 0 {
				cut = i
			}
		}
	}
	if cut < 0 {
		return Threshold{}, fmt.Errorf("threshold %q: want METRIC:EXPR, e.g. 'http_req_failed:rate<0.01' or 'http_req_duration{name:order}:p(95)<500'", s)
	}
	t, err := ParseThresholdExpr(s[:cut], s[cut+1:])
	if err != nil {
		return Threshold{}, err
	}
	t.Source = strings.TrimSpace(s)
	return t, nil
}

// ParseThresholdExpr parses a threshold given as the (sub)metric name, e.g.
// "http_req_duration{expected_response:true}", and a k6 expression such as
// "p(95)<500" (the form a k6 summary file keys them by).
func ParseThresholdExpr(metric, expr string) (Threshold, error) {
	metric = strings.TrimSpace(metric)
	t := Threshold{Source: metric + ":" + strings.TrimSpace(expr), Metric: metric}
	if i := strings.IndexByte(metric, '{'); i >= 0 {
		if !strings.HasSuffix(metric, "}") {
			return Threshold{}, fmt.Errorf("threshold %q: unclosed '{' in the metric", t.Source)
		}
		t.Metric = strings.TrimSpace(metric[:i])
		for _, p := range strings.Split(metric[i+1:len(metric)-1], ",") {
			if strings.TrimSpace(p) == "" {
				continue
			}
			k, v, ok := strings.Cut(p, ":")
			if !ok {
				return Threshold{}, fmt.Errorf("threshold %q: tag filter %q: want key:value", t.Source, p)
			}
			t.Filter = append(t.Filter, [2]string{strings.TrimSpace(k), strings.Trim(strings.TrimSpace(v), `"'`)})
		}
	}
	if t.Metric == "" {
		return Threshold{}, fmt.Errorf("threshold %q: no metric name", t.Source)
	}
	m := thrExprRe.FindStringSubmatch(expr)
	if m == nil {
		return Threshold{}, fmt.Errorf("threshold %q: expression %q: want STAT OP NUMBER as in k6, STAT one of avg, min, max, med, p(N), rate, count, value", t.Source, strings.TrimSpace(expr))
	}
	t.Stat, t.Op = m[1], m[4]
	if t.Op == "===" {
		t.Op = "=="
	}
	if m[2] != "" || m[3] != "" {
		p, err := strconv.ParseFloat(m[2]+m[3], 64)
		if err != nil || p < 0 || p > 100 {
			return Threshold{}, fmt.Errorf("threshold %q: percentile %q: want a number in [0, 100]", t.Source, m[2]+m[3])
		}
		t.Stat, t.Percentile = "p", p
	}
	v, err := strconv.ParseFloat(m[5], 64)
	if err != nil {
		return Threshold{}, fmt.Errorf("threshold %q: limit %q: want a number", t.Source, m[5])
	}
	t.Limit = v
	return t, nil
}

// Holds reports whether value v meets the threshold. NaN never does.
func (t *Threshold) Holds(v float64) bool {
	switch t.Op {
	case "<":
		return v < t.Limit
	case "<=":
		return v <= t.Limit
	case ">":
		return v > t.Limit
	case ">=":
		return v >= t.Limit
	case "==":
		return v == t.Limit
	case "!=":
		return v != t.Limit && !math.IsNaN(v)
	}
	return false
}

func (t *Threshold) trend() bool {
	switch t.Stat {
	case "avg", "min", "max", "med", "p":
		return true
	}
	return false
}

// knownCounters are k6's built-in counters (k6-formats.md §3): their "rate"
// is per second, not a share of non-zero samples.
var knownCounters = map[string]bool{
	"http_reqs": true, "iterations": true, "dropped_iterations": true, "data_sent": true, "data_received": true,
	"ws_sessions": true, "ws_msgs_sent": true, "ws_msgs_received": true,
	"grpc_streams": true, "grpc_streams_msgs_sent": true, "grpc_streams_msgs_received": true,
}

// thrAgg accumulates one threshold's metric per second.
type thrAgg struct {
	t         Threshold
	secs      map[int64]*thrSec
	nonBinary bool
}

type thrSec struct {
	sk               sketch.Sketch
	n, nonzero       uint64
	sum, last        float64
	lastNS           int64
	hasLast, hasData bool
}

func newThrAgg(t Threshold) *thrAgg { return &thrAgg{t: t, secs: map[int64]*thrSec{}} }

func (a *thrAgg) add(s *ingest.Sample) {
	if s.Metric != a.t.Metric {
		return
	}
	for _, f := range a.t.Filter {
		if v, _ := s.Tags.Get(f[0]); v != f[1] {
			return
		}
	}
	k := secOf(s.TimeNS)
	sc := a.secs[k]
	if sc == nil {
		sc = &thrSec{}
		a.secs[k] = sc
	}
	sc.hasData = true
	if a.t.trend() {
		sc.sk.Add(s.Value)
		return
	}
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

// value computes the threshold's statistic over seconds [s0, s1); ok is
// false when the span has no sample of the metric.
func (a *thrAgg) value(s0, s1 int64) (float64, bool) {
	var sk sketch.Sketch
	var n, nonzero uint64
	var sum, last float64
	var lastNS int64
	any := false
	for k := s0; k < s1; k++ {
		sc := a.secs[k]
		if sc == nil || !sc.hasData {
			continue
		}
		any = true
		if a.t.trend() {
			sk.Merge(&sc.sk)
			continue
		}
		n += sc.n
		nonzero += sc.nonzero
		sum += sc.sum
		if sc.hasLast && (lastNS == 0 || sc.lastNS >= lastNS) {
			last, lastNS = sc.last, sc.lastNS
		}
	}
	if !any {
		return math.NaN(), false
	}
	switch a.t.Stat {
	case "avg":
		return sk.Mean(), true
	case "min":
		return sk.Min(), true
	case "max":
		return sk.Max(), true
	case "med":
		return sk.Quantile(0.5), true
	case "p":
		return sk.Quantile(a.t.Percentile / 100), true
	case "count":
		return sum, true
	case "value":
		return last, true
	}
	// rate
	if knownCounters[a.t.Metric] || a.nonBinary {
		return sum / float64(s1-s0), true
	}
	if n == 0 {
		return math.NaN(), false
	}
	return float64(nonzero) / float64(n), true
}

// merge adds o's seconds to a (same threshold).
func (a *thrAgg) merge(o *thrAgg) {
	a.nonBinary = a.nonBinary || o.nonBinary
	for k, os := range o.secs {
		s := a.secs[k]
		if s == nil {
			s = &thrSec{}
			a.secs[k] = s
		}
		s.sk.Merge(&os.sk)
		s.n += os.n
		s.nonzero += os.nonzero
		s.sum += os.sum
		if os.hasLast && (!s.hasLast || os.lastNS >= s.lastNS) {
			s.last, s.lastNS, s.hasLast = os.last, os.lastNS, true
		}
		s.hasData = s.hasData || os.hasData
	}
}
