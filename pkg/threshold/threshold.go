// Package threshold is ldanalyze's one k6 threshold grammar: the
// `thresholds` of a k6 script ("http_req_duration{name:order}:p(95)<500"),
// the same expressions as a k6 summary file keys them ("p(95)<500" under a
// (sub)metric name), and a latency objective on the analysed Trend
// (`--slo 'p95<500ms'`). `knee --slo`, `check --threshold` and the
// thresholds read from a summary all parse here.
//
// Grammar (k6 docs "Thresholds"; k6's own parser is
// internal/lib/thresholds/parser.go in grafana/k6):
//
//	threshold  = metric [ "{" filter { "," filter } "}" ] ":" expression
//	filter     = key ":" value
//	expression = stat op number [ unit ]
//	stat       = "avg" | "min" | "max" | "med" | "rate" | "count" | "value"
//	           | "p(" number ")" | "p" number
//	op         = "<" | "<=" | ">" | ">=" | "==" | "===" | "!="
//	unit       = "ms" | "s" | "us" | "µs"      (trend statistics only)
//
// Blanks may surround every token. Numbers are decimal (an optional sign,
// digits with an optional fraction and exponent); underscores, hex, Inf and
// NaN are not numbers. A unit is ldanalyze's extension for time trends: the
// limit is converted to ms, the unit of k6's time trends; without a unit
// the limit is in the metric's own unit, as in k6.
package threshold

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// SyntaxError is an expression that does not parse: the input, the
// 1-based column (in runes) where it goes wrong, and what was expected
// there.
type SyntaxError struct {
	// What names the input: "threshold" or "SLO".
	What string
	// Input is the text as given.
	Input string
	// Column is the 1-based rune position of the problem (0: the whole
	// input).
	Column int
	// Msg says what was expected.
	Msg string
}

func (e *SyntaxError) Error() string {
	if e.Column > 0 {
		return fmt.Sprintf("%s %q: column %d: %s", e.What, e.Input, e.Column, e.Msg)
	}
	return fmt.Sprintf("%s %q: %s", e.What, e.Input, e.Msg)
}

// The statistics an expression can bound.
const (
	Avg   = "avg"
	Min   = "min"
	Max   = "max"
	Med   = "med"
	P     = "p" // a percentile, with Expr.Percentile
	Rate  = "rate"
	Count = "count"
	Value = "value"
)

// Expr is one threshold expression: a statistic, a comparison and a limit.
type Expr struct {
	// Stat is one of Avg, Min, Max, Med, P (trends: values in the metric's
	// unit, ms for time trends), Rate (rate metrics: the share of non-zero
	// samples 0–1; counters: count per second), Count (counters) or Value
	// (gauges: the last value).
	Stat string
	// Percentile is the percentile, in percent (0–100), when Stat is P.
	Percentile float64
	// Op is "<", "<=", ">", ">=", "==" or "!=" ("===" is read as "==").
	Op string
	// Limit is the right-hand side, in the metric's unit (ms for time
	// trends when a unit was given).
	Limit float64
}

// Trend reports whether the statistic is one of a Trend's (avg, min, max,
// med, a percentile).
func (e Expr) Trend() bool {
	switch e.Stat {
	case Avg, Min, Max, Med, P:
		return true
	}
	return false
}

// Quantile is the quantile (0–1) a Med or P statistic asks for, NaN for
// the others.
func (e Expr) Quantile() float64 {
	switch e.Stat {
	case Med:
		return 0.5
	case P:
		return e.Percentile / 100
	}
	return math.NaN()
}

// Holds reports whether the value v meets the expression. NaN never does.
func (e Expr) Holds(v float64) bool {
	if math.IsNaN(v) {
		return false
	}
	switch e.Op {
	case "<":
		return v < e.Limit
	case "<=":
		return v <= e.Limit
	case ">":
		return v > e.Limit
	case ">=":
		return v >= e.Limit
	case "==":
		return v == e.Limit
	case "!=":
		return v != e.Limit
	}
	return false
}

// StatName is the statistic as k6 writes it: "avg", "med", "p(95)".
func (e Expr) StatName() string {
	if e.Stat == P {
		return "p(" + strconv.FormatFloat(e.Percentile, 'f', -1, 64) + ")"
	}
	return e.Stat
}

// String writes the expression back in the grammar, the limit in full
// precision and without a unit ("p(95)<500"): parsing it gives e again.
func (e Expr) String() string {
	return e.StatName() + e.Op + strconv.FormatFloat(e.Limit, 'g', -1, 64)
}

// Threshold is a k6 threshold: a metric, optionally narrowed by tags as in
// k6 submetrics, and an expression on one of its statistics.
type Threshold struct {
	// Source is the threshold as given, trimmed.
	Source string
	// Metric is the metric name, e.g. "http_req_duration".
	Metric string
	// Filter holds the submetric's tag filters as (key, value) pairs; a
	// sample matches when it has every tag with exactly that value.
	Filter [][2]string
	Expr
}

// Parse parses "METRIC{tag:value,…}:EXPR". The metric part ends at the
// first ':' outside braces. Errors are *SyntaxError.
func Parse(s string) (Threshold, error) {
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
		return Threshold{}, &SyntaxError{What: "threshold", Input: s, Msg: "want METRIC:EXPR, e.g. 'http_req_failed:rate<0.01' or 'http_req_duration{name:order}:p(95)<500'"}
	}
	t, err := parse(s, s[:cut], s[cut+1:], len([]rune(s[:cut]))+1)
	if err != nil {
		return Threshold{}, err
	}
	t.Source = strings.TrimSpace(s)
	return t, nil
}

// ParseExpr parses a threshold given as its (sub)metric name, e.g.
// "http_req_duration{expected_response:true}", and a k6 expression such as
// "p(95)<500": the form a k6 summary file keys them by. Errors are
// *SyntaxError on the joined "METRIC:EXPR".
func ParseExpr(metric, expr string) (Threshold, error) {
	src := strings.TrimSpace(metric) + ":" + strings.TrimSpace(expr)
	return parse(src, strings.TrimSpace(metric), strings.TrimSpace(expr), len([]rune(strings.TrimSpace(metric)))+1)
}

// parse parses the metric part and the expression of src, whose
// expression starts after rune offset exprAt of src.
func parse(src, metric, expr string, exprAt int) (Threshold, error) {
	t := Threshold{Source: strings.TrimSpace(src), Metric: strings.TrimSpace(metric)}
	m := strings.TrimSpace(metric)
	if i := strings.IndexByte(m, '{'); i >= 0 {
		// i is in the trimmed name; the column counts the blanks before it.
		col := len([]rune(metric[:strings.Index(metric, m)+i])) + 1
		if !strings.HasSuffix(m, "}") {
			return Threshold{}, &SyntaxError{What: "threshold", Input: src, Column: col, Msg: "'{' is not closed: want METRIC{key:value,…}"}
		}
		t.Metric = strings.TrimSpace(m[:i])
		inner := m[i+1 : len(m)-1]
		for _, p := range strings.Split(inner, ",") {
			if strings.TrimSpace(p) == "" {
				continue
			}
			k, v, ok := strings.Cut(p, ":")
			if !ok || strings.TrimSpace(k) == "" {
				return Threshold{}, &SyntaxError{What: "threshold", Input: src, Column: col, Msg: fmt.Sprintf("tag filter %q: want key:value", strings.TrimSpace(p))}
			}
			t.Filter = append(t.Filter, [2]string{strings.TrimSpace(k), strings.Trim(strings.TrimSpace(v), `"'`)})
		}
	}
	if t.Metric == "" {
		return Threshold{}, &SyntaxError{What: "threshold", Input: src, Column: 1, Msg: "no metric name before ':'"}
	}
	e, err := parseExpr("threshold", src, expr, exprAt)
	if err != nil {
		return Threshold{}, err
	}
	t.Expr = e
	return t, nil
}

// ParseLatency parses a latency objective on the analysed Trend, the
// `--slo` of knee and report: a trend expression ("p95<500ms",
// "p(99)<800", "p(99.9)<=1s", "avg<200", "med<300", "max<2000"), the
// limit in ms unless a unit follows. It refuses statistics that are not a
// Trend's, == / != (an equality cannot bound a latency) and > / >= (a
// latency objective is an upper bound). Errors are
// *SyntaxError.
func ParseLatency(s string) (Expr, error) {
	e, err := parseExpr("SLO", s, s, 0)
	if err != nil {
		return Expr{}, err
	}
	if !e.Trend() {
		return Expr{}, &SyntaxError{What: "SLO", Input: s, Column: 1, Msg: fmt.Sprintf("%s is not a latency statistic: want avg, min, max, med, pNN or p(NN), e.g. 'p95<500ms'", e.Stat)}
	}
	if e.Op == "==" || e.Op == "!=" {
		return Expr{}, &SyntaxError{What: "SLO", Input: s, Msg: e.Op + " cannot bound a latency; use < or <="}
	}
	if e.Op == ">" || e.Op == ">=" {
		return Expr{}, &SyntaxError{What: "SLO", Input: s, Msg: e.Op + " asks latency to stay high: an SLO bounds it from above; use < or <=, e.g. 'p(95)<500'"}
	}
	if !(e.Limit >= 0) || math.IsInf(e.Limit, 0) {
		return Expr{}, &SyntaxError{What: "SLO", Input: s, Msg: fmt.Sprintf("the limit %g is not a latency (a finite number of ms ≥ 0): no level can meet it", e.Limit)}
	}
	return e, nil
}

// scanner walks an expression by runes, counting columns from base.
type scanner struct {
	what, src string
	r         []rune
	i, base   int
}

func (s *scanner) blanks() {
	for s.i < len(s.r) && (s.r[s.i] == ' ' || s.r[s.i] == '\t') {
		s.i++
	}
}

func (s *scanner) err(msg string) error {
	return &SyntaxError{What: s.what, Input: s.src, Column: s.base + s.i + 1, Msg: msg}
}

func (s *scanner) peek(p string) bool { return strings.HasPrefix(string(s.r[s.i:]), p) }

// number scans a decimal number: [+-] digits [. digits] [e [+-] digits]
// (also ".5").
func (s *scanner) number() (float64, bool) {
	start := s.i
	if s.i < len(s.r) && (s.r[s.i] == '+' || s.r[s.i] == '-') {
		s.i++
	}
	digits := 0
	for s.i < len(s.r) && s.r[s.i] >= '0' && s.r[s.i] <= '9' {
		s.i++
		digits++
	}
	if s.i < len(s.r) && s.r[s.i] == '.' {
		s.i++
		for s.i < len(s.r) && s.r[s.i] >= '0' && s.r[s.i] <= '9' {
			s.i++
			digits++
		}
	}
	if digits == 0 {
		s.i = start
		return 0, false
	}
	if s.i < len(s.r) && (s.r[s.i] == 'e' || s.r[s.i] == 'E') {
		j := s.i + 1
		if j < len(s.r) && (s.r[j] == '+' || s.r[j] == '-') {
			j++
		}
		k := j
		for k < len(s.r) && s.r[k] >= '0' && s.r[k] <= '9' {
			k++
		}
		if k > j {
			s.i = k
		}
	}
	v, err := strconv.ParseFloat(string(s.r[start:s.i]), 64)
	if err != nil || math.IsInf(v, 0) {
		s.i = start
		return 0, false
	}
	return v, true
}

const wantStat = "want a statistic: avg, min, max, med, p(N), pN, rate, count or value"

func parseExpr(what, src, expr string, base int) (Expr, error) {
	// base counts the runes of src before expr.
	s := &scanner{what: what, src: src, r: []rune(expr), base: base}
	var e Expr
	s.blanks()
	switch {
	case s.peek("p(") || s.peek("p "):
		s.i++
		s.blanks()
		if !s.peek("(") {
			return e, s.err("want '(' after p")
		}
		s.i++
		s.blanks()
		at := s.i
		v, ok := s.number()
		if !ok {
			return e, s.err("want a percentile number in p(N)")
		}
		if v < 0 || v > 100 {
			s.i = at
			return e, s.err(fmt.Sprintf("percentile %s: want a number in [0, 100]", strconv.FormatFloat(v, 'f', -1, 64)))
		}
		s.blanks()
		if !s.peek(")") {
			return e, s.err("want ')' to close p(N)")
		}
		s.i++
		e.Stat, e.Percentile = P, v
	case s.peek("p") && s.i+1 < len(s.r) && (s.r[s.i+1] >= '0' && s.r[s.i+1] <= '9' || s.r[s.i+1] == '.'):
		s.i++
		at := s.i
		v, ok := s.number()
		if !ok {
			return e, s.err("want a percentile number in pN")
		}
		if v < 0 || v > 100 {
			s.i = at
			return e, s.err(fmt.Sprintf("percentile %s: want a number in [0, 100]", strconv.FormatFloat(v, 'f', -1, 64)))
		}
		e.Stat, e.Percentile = P, v
	default:
		for _, st := range []string{Avg, Min, Max, Med, Rate, Count, Value} {
			if s.peek(st) {
				e.Stat = st
				s.i += len(st)
				break
			}
		}
		if e.Stat == "" {
			return e, s.err(wantStat)
		}
	}
	s.blanks()
	for _, op := range []string{"===", "==", "!=", "<=", ">=", "<", ">"} {
		if s.peek(op) {
			e.Op = op
			s.i += len([]rune(op))
			break
		}
	}
	if e.Op == "" {
		return e, s.err("want an operator: <, <=, >, >=, == or !=")
	}
	if e.Op == "===" {
		e.Op = "=="
	}
	s.blanks()
	v, ok := s.number()
	if !ok {
		return e, s.err("want a number (decimal, e.g. 500 or 0.01)")
	}
	e.Limit = v
	s.blanks()
	if s.i < len(s.r) {
		rest := string(s.r[s.i:])
		unit := strings.TrimRight(rest, " \t")
		f, isUnit := map[string]float64{"ms": 1, "s": 1000, "us": 0.001, "µs": 0.001}[unit]
		switch {
		case isUnit && e.Trend() && math.IsInf(e.Limit*f, 0):
			return e, s.err(fmt.Sprintf("%g%s is too large to hold in ms", e.Limit, unit))
		case isUnit && e.Trend():
			e.Limit *= f
			s.i = len(s.r)
		case isUnit:
			return e, s.err(fmt.Sprintf("a unit goes only with a trend statistic (avg, min, max, med, p(N)), not %s", e.Stat))
		default:
			return e, s.err(fmt.Sprintf("unexpected %q after the number: want the end, or a unit ms, s or us", rest))
		}
	}
	return e, nil
}
