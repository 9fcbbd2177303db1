package scale

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ldanalyze/ldanalyze/pkg/sketch"
)

// Statistics a Selector can take of a k6 metric over one run.
const (
	// StatTotal is the sum of the values: bytes for data_received and
	// data_sent, a count for counters such as http_reqs, seconds of busy
	// time for a time trend.
	StatTotal = "total"
	// StatCount is the number of samples.
	StatCount = "count"
	// StatRate is StatTotal divided by the run's duration in seconds, as
	// k6's end-of-test summary reports a counter's rate.
	StatRate = "rate"
	// StatMean is the arithmetic mean of the values (k6 "avg").
	StatMean = "mean"
	// StatMin and StatMax are the smallest and largest value.
	StatMin = "min"
	StatMax = "max"
	// StatQuantile is a percentile (p95, p(99.9), med), by k6's definition.
	StatQuantile = "quantile"
	// StatLevel is a figure of the run's steady level (its longest hold,
	// as SteadyThroughput picks it) rather than of the whole run: the
	// Selector is one of LevelFields, with no metric or statistic. Read it
	// with Selector.LevelValue.
	StatLevel = "level"
)

// LevelFields are the selectors of a level's figure (knee's JSON names):
// its data_received and data_sent per second, bytes/s, and its
// data_received per response, bytes.
var LevelFields = []string{"bytes_received_per_s", "bytes_sent_per_s", "bytes_per_request"}

// Selector picks one number from a k6 run: a metric, an optional tag
// filter and a statistic. Its text form follows k6's threshold syntax,
// METRIC[{TAG:VALUE,...}]:STAT, e.g. "data_received:total",
// "http_reqs:rate", "http_req_duration:p95" or
// "http_req_duration{name:order}:p(99.9)". See ParseSelector.
type Selector struct {
	// Metric is the k6 metric name, e.g. "data_received".
	Metric string
	// Tags, when not empty, keep only samples that carry every one of
	// these tags with exactly this value.
	Tags []TagMatch
	// Stat is one of StatTotal, StatCount, StatRate, StatMean, StatMin,
	// StatMax or StatQuantile.
	Stat string
	// Quantile is the quantile in (0, 1] when Stat is StatQuantile
	// (0.95 for p95, 0.5 for med).
	Quantile float64

	text string
}

// TagMatch is one TAG:VALUE condition of a Selector.
type TagMatch struct {
	// Key is the tag name (a k6 system tag such as name or status, or a
	// user tag); Value the exact value a sample must carry.
	Key, Value string
}

// String returns the selector as it was parsed, e.g. "data_received:total".
func (s Selector) String() string { return s.text }

// ParseSelector parses METRIC[{TAG:VALUE,...}]:STAT. STAT is total (or
// sum), count, rate, mean (or avg), min, max, med, pN or p(N) with N a
// percentile in (0, 100], e.g. p95, p99.9, p(99.9). The statistic is
// required: a total of bytes and a p95 of durations are different
// questions, and the tool should not guess.
//
// A selector that is one of LevelFields (bytes_per_request) takes that
// figure of the run's longest hold instead (StatLevel).
func ParseSelector(text string) (Selector, error) {
	s := Selector{text: strings.TrimSpace(text)}
	t := s.text
	if slices.Contains(LevelFields, t) {
		return Selector{Metric: t, Stat: StatLevel, text: t}, nil
	}
	var stat string
	if i := strings.IndexByte(t, '{'); i >= 0 {
		j := strings.IndexByte(t, '}')
		if j < i {
			return Selector{}, fmt.Errorf("%q: unclosed tag filter: want METRIC{TAG:VALUE}:STAT", text)
		}
		s.Metric = t[:i]
		for _, kv := range strings.Split(t[i+1:j], ",") {
			if strings.TrimSpace(kv) == "" {
				continue
			}
			k, v, ok := strings.Cut(kv, ":")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if !ok || k == "" {
				return Selector{}, fmt.Errorf("%q: tag filter %q: want TAG:VALUE", text, kv)
			}
			s.Tags = append(s.Tags, TagMatch{Key: k, Value: v})
		}
		rest := t[j+1:]
		if !strings.HasPrefix(rest, ":") {
			return Selector{}, fmt.Errorf("%q: want METRIC{TAG:VALUE}:STAT, e.g. http_req_duration{name:order}:p95", text)
		}
		stat = rest[1:]
	} else {
		i := strings.LastIndexByte(t, ':')
		if i < 0 {
			return Selector{}, fmt.Errorf("%q: want METRIC:STAT, e.g. data_received:total, http_reqs:rate or http_req_duration:p95, or a level's %s", text, strings.Join(LevelFields, ", "))
		}
		s.Metric, stat = t[:i], t[i+1:]
	}
	s.Metric = strings.TrimSpace(s.Metric)
	if s.Metric == "" || strings.ContainsAny(s.Metric, " \t:{}") {
		return Selector{}, fmt.Errorf("%q: bad metric name %q", text, s.Metric)
	}
	stat = strings.TrimSpace(stat)
	switch stat {
	case "total", "sum":
		s.Stat = StatTotal
	case "count":
		s.Stat = StatCount
	case "rate":
		s.Stat = StatRate
	case "mean", "avg":
		s.Stat = StatMean
	case "min":
		s.Stat = StatMin
	case "max":
		s.Stat = StatMax
	case "med":
		s.Stat, s.Quantile = StatQuantile, 0.5
	default:
		q, ok := strings.CutPrefix(stat, "p")
		if !ok {
			return Selector{}, fmt.Errorf("%q: unknown statistic %q (want total, count, rate, mean, min, max, med, or a percentile such as p95 or p(99.9))", text, stat)
		}
		if strings.HasPrefix(q, "(") && strings.HasSuffix(q, ")") {
			q = q[1 : len(q)-1]
		}
		v, err := strconv.ParseFloat(q, 64)
		if err != nil || !(v > 0 && v <= 100) {
			return Selector{}, fmt.Errorf("%q: percentile %q: want a number in (0, 100]", text, stat)
		}
		// 99.9/100 is 0.9990000000000001 in float64; rounding the
		// percentile to 10 decimals first gives the nearest double to 0.999.
		s.Stat, s.Quantile = StatQuantile, math.Round(v*1e10)/1e12
	}
	return s, nil
}

// timeMetrics are the k6 built-in Trends whose values are milliseconds
// (k6 docs, "Built-in metrics"). Custom Trends carry no unit in k6's CSV
// or JSON output and are taken as plain numbers.
var timeMetrics = map[string]bool{
	"http_req_duration": true, "http_req_blocked": true, "http_req_connecting": true,
	"http_req_tls_handshaking": true, "http_req_sending": true, "http_req_waiting": true,
	"http_req_receiving": true, "iteration_duration": true, "group_duration": true,
	"ws_connecting": true, "ws_session_duration": true, "ws_ping": true, "grpc_req_duration": true,
}

// byteMetrics are the k6 built-in Counters whose values are bytes.
var byteMetrics = map[string]bool{"data_received": true, "data_sent": true}

// Unit returns the unit of the selected number: for data_received and
// data_sent bytes (total, mean, min, max, percentiles) or bytes per second
// (rate); for k6's time trends seconds (converted from k6's milliseconds;
// total is busy seconds and rate, busy seconds per second, is a plain
// number); for every other metric a plain number, or per second for rate.
// StatCount is always a plain number.
func (s Selector) Unit() Unit {
	switch {
	case s.Stat == StatLevel && s.Metric == "bytes_per_request":
		return Bytes
	case s.Stat == StatLevel:
		return BytesPerSecond
	case s.Stat == StatCount:
		return Count
	case byteMetrics[s.Metric]:
		if s.Stat == StatRate {
			return BytesPerSecond
		}
		return Bytes
	case timeMetrics[s.Metric]:
		if s.Stat == StatRate {
			return Count
		}
		return Seconds
	case s.Stat == StatRate:
		return PerSecond
	}
	return Count
}

// RunValue is the number a Selector took from one run, as returned by
// Selector.Value.
type RunValue struct {
	// Value is in Unit (see Selector.Unit): bytes, seconds, a count, or a
	// rate per second.
	Value float64
	Unit  Unit
	// Samples is the number of samples of the metric that passed the tag
	// filter.
	Samples uint64
	// DurationSeconds is the run's length: from its first to its last
	// sample of any metric, plus one timestamp resolution (so a k6 CSV with
	// whole-second timestamps from t to t+99 lasted 100 s). StatRate
	// divides by it.
	DurationSeconds float64
	// Exact is false when a percentile came from the sketch's histogram
	// (relative error ≤ sketch.RelativeError) rather than every value.
	Exact bool
}

// ErrNoMetric is returned by Selector.Value when no sample of the
// selected metric (with its tags) was seen.
var ErrNoMetric = errors.New("no samples of the metric")

// RunStats are the samples a Selector picked from one run, added up: their
// number, their sum, their values (for min, max and percentiles) and the
// run's length (from its first to its last sample of any metric, plus one
// timestamp resolution).
type RunStats struct {
	Samples         uint64
	Sum             float64
	Values          *sketch.Sketch
	DurationSeconds float64
}

// Value computes the selected number from the run's stats. It returns an
// error wrapping ErrNoMetric when no sample matched, and an error for a
// rate over a run of no length or a value that is not finite.
func (sel Selector) Value(st RunStats) (RunValue, error) {
	v := RunValue{Unit: sel.Unit(), Samples: st.Samples, Exact: true, DurationSeconds: st.DurationSeconds}
	if st.Samples == 0 {
		what := sel.Metric
		if len(sel.Tags) > 0 {
			var tags []string
			for _, m := range sel.Tags {
				tags = append(tags, m.Key+":"+m.Value)
			}
			what += " with tags {" + strings.Join(tags, ",") + "}"
		}
		return v, fmt.Errorf("%w %s", ErrNoMetric, what)
	}
	scaleBy := 1.0
	if timeMetrics[sel.Metric] {
		scaleBy = 1e-3 // k6 time trends are in ms
	}
	values := st.Values
	if values == nil {
		values = &sketch.Sketch{}
	}
	switch sel.Stat {
	case StatTotal:
		v.Value = st.Sum * scaleBy
	case StatCount:
		v.Value = float64(st.Samples)
	case StatRate:
		if !(v.DurationSeconds > 0) {
			return v, fmt.Errorf("%s: the run has no duration, so no rate", sel)
		}
		v.Value = st.Sum * scaleBy / v.DurationSeconds
	case StatMean:
		v.Value = st.Sum / float64(st.Samples) * scaleBy
	case StatMin:
		v.Value = values.Min() * scaleBy
	case StatMax:
		v.Value = values.Max() * scaleBy
	case StatQuantile:
		v.Value = values.Quantile(sel.Quantile) * scaleBy
		v.Exact = values.Exact()
	case StatLevel:
		return v, fmt.Errorf("selector %q is a level's figure: read it with LevelValue", sel)
	default:
		return v, fmt.Errorf("selector %q: unknown statistic %q", sel, sel.Stat)
	}
	if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
		return v, fmt.Errorf("%s: the value is not finite", sel)
	}
	return v, nil
}

// LevelValue is the figure of a StatLevel selector over the steady span
// t of a run (SteadyThroughput): bytes per second or bytes per response.
// Samples is left 0 and DurationSeconds is the span's length. It returns
// an error for a selector that is not StatLevel or a figure that is not
// finite (a run without data_received rows has 0 bytes, a finite figure;
// a span without responses has no bytes per response).
func (sel Selector) LevelValue(t Throughput) (RunValue, error) {
	v := RunValue{Unit: sel.Unit(), Exact: true, DurationSeconds: t.Seconds}
	switch sel.Metric {
	case "bytes_received_per_s":
		v.Value = t.BytesReceivedPerS
	case "bytes_sent_per_s":
		v.Value = t.BytesSentPerS
	case "bytes_per_request":
		v.Value = t.BytesPerRequest
	default:
		return v, fmt.Errorf("selector %q: not a level's figure (want one of %s)", sel, strings.Join(LevelFields, ", "))
	}
	if !finite(v.Value) {
		return v, fmt.Errorf("%s: not known over the %s (no responses)", sel, t.Span)
	}
	return v, nil
}
