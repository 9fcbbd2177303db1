package threshold

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in     string
		metric string
		filter [][2]string
		e      Expr
		err    string
	}{
		{in: "http_req_duration{name:order,expected_response:true}:p(95)<500", metric: "http_req_duration",
			filter: [][2]string{{"name", "order"}, {"expected_response", "true"}}, e: Expr{Stat: P, Percentile: 95, Op: "<", Limit: 500}},
		{in: "http_req_failed:rate<=0.01", metric: "http_req_failed", e: Expr{Stat: Rate, Op: "<=", Limit: 0.01}},
		{in: "dropped_iterations:count<1", metric: "dropped_iterations", e: Expr{Stat: Count, Op: "<", Limit: 1}},
		{in: "http_req_duration:p99.9 < 1200", metric: "http_req_duration", e: Expr{Stat: P, Percentile: 99.9, Op: "<", Limit: 1200}},
		{in: "checks:rate>0.95", metric: "checks", e: Expr{Stat: Rate, Op: ">", Limit: 0.95}},
		{in: "vus:value!=0", metric: "vus", e: Expr{Stat: Value, Op: "!=", Limit: 0}},
		{in: "x:avg===1e3", metric: "x", e: Expr{Stat: Avg, Op: "==", Limit: 1000}},
		{in: "http_req_duration:p(95) < 1.5s", metric: "http_req_duration", e: Expr{Stat: P, Percentile: 95, Op: "<", Limit: 1500}},
		{in: "grpc_req_duration{call:ok}:p(95)<300", metric: "grpc_req_duration", filter: [][2]string{{"call", "ok"}}, e: Expr{Stat: P, Percentile: 95, Op: "<", Limit: 300}},
		{in: "http_req_duration", err: `threshold "http_req_duration": want METRIC:EXPR, e.g. 'http_req_failed:rate<0.01' or 'http_req_duration{name:order}:p(95)<500'`},
		{in: "x:p(95)~5", err: `threshold "x:p(95)~5": column 8: want an operator: <, <=, >, >=, == or !=`},
		{in: "x{a}:avg<1", err: `threshold "x{a}:avg<1": column 2: tag filter "a": want key:value`},
		{in: "x{a:1:avg<1", err: `threshold "x{a:1:avg<1": want METRIC:EXPR, e.g. 'http_req_failed:rate<0.01' or 'http_req_duration{name:order}:p(95)<500'`},
		{in: ":avg<1", err: `threshold ":avg<1": column 1: no metric name before ':'`},
		{in: "x:p(101)<5", err: `threshold "x:p(101)<5": column 5: percentile 101: want a number in [0, 100]`},
		{in: "x:avg<1_000", err: `threshold "x:avg<1_000": column 8: unexpected "_000" after the number: want the end, or a unit ms, s or us`},
		{in: "x:avg<0x10", err: `threshold "x:avg<0x10": column 8: unexpected "x10" after the number: want the end, or a unit ms, s or us`},
		{in: "x:rate<5ms", err: `threshold "x:rate<5ms": column 9: a unit goes only with a trend statistic (avg, min, max, med, p(N)), not rate`},
		{in: "x:mean<5", err: `threshold "x:mean<5": column 3: ` + wantStat},
		{in: "x:avg<", err: `threshold "x:avg<": column 7: want a number (decimal, e.g. 500 or 0.01)`},
		{in: "x:avg<inf", err: `threshold "x:avg<inf": column 7: want a number (decimal, e.g. 500 or 0.01)`},
	} {
		th, err := Parse(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: error %v\nwant %s", tc.in, err, tc.err)
			}
			var se *SyntaxError
			if err != nil && !errors.As(err, &se) {
				t.Errorf("%q: %T is not a *SyntaxError", tc.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if th.Metric != tc.metric || th.Expr != tc.e || len(th.Filter) != len(tc.filter) {
			t.Errorf("%q: got %+v", tc.in, th)
			continue
		}
		for i := range th.Filter {
			if th.Filter[i] != tc.filter[i] {
				t.Errorf("%q: filter %d = %v, want %v", tc.in, i, th.Filter[i], tc.filter[i])
			}
		}
	}
}

func TestParseExpr(t *testing.T) {
	// The form of a k6 summary file: "thresholds": {"p(95)<500": {...}}
	// under the metric "http_req_duration{expected_response:true}".
	th, err := ParseExpr("http_req_duration{expected_response:true}", " p(95)<500")
	if err != nil {
		t.Fatal(err)
	}
	if th.Metric != "http_req_duration" || th.Filter[0] != [2]string{"expected_response", "true"} || th.Stat != P || th.Limit != 500 || th.Source != "http_req_duration{expected_response:true}:p(95)<500" {
		t.Errorf("got %+v", th)
	}
	_, err = ParseExpr("checks", "rate>>0.9")
	if err == nil || err.Error() != `threshold "checks:rate>>0.9": column 13: want a number (decimal, e.g. 500 or 0.01)` {
		t.Errorf("error: %v", err)
	}
}

func TestParseLatency(t *testing.T) {
	for in, want := range map[string]Expr{
		"p95<500ms":     {Stat: P, Percentile: 95, Op: "<", Limit: 500},
		"p(99.9)<=1.5s": {Stat: P, Percentile: 99.9, Op: "<=", Limit: 1500},
		"avg < 200":     {Stat: Avg, Op: "<", Limit: 200},
		"med<800us":     {Stat: Med, Op: "<", Limit: 0.8},
		" max<2000 ":    {Stat: Max, Op: "<", Limit: 2000},
	} {
		got, err := ParseLatency(in)
		if err != nil || got != want {
			t.Errorf("%q = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{
		"p95":       `SLO "p95": column 4: want an operator: <, <=, >, >=, == or !=`,
		"p(101)<5":  `SLO "p(101)<5": column 3: percentile 101: want a number in [0, 100]`,
		"rate<0.1":  `SLO "rate<0.1": column 1: rate is not a latency statistic: want avg, min, max, med, pNN or p(NN), e.g. 'p95<500ms'`,
		"p95==3":    `SLO "p95==3": == cannot bound a latency; use < or <=`,
		"p(95)>500": `SLO "p(95)>500": > asks latency to stay high: an SLO bounds it from above; use < or <=, e.g. 'p(95)<500'`,
		"p95<5min":  `SLO "p95<5min": column 6: unexpected "min" after the number: want the end, or a unit ms, s or us`,
	} {
		if _, err := ParseLatency(in); err == nil || err.Error() != msg {
			t.Errorf("%q: %v\nwant %s", in, err, msg)
		}
	}
}

func TestHolds(t *testing.T) {
	e := Expr{Stat: P, Percentile: 95, Op: "<", Limit: 500}
	if !e.Holds(499) || e.Holds(500) || e.Holds(math.NaN()) {
		t.Error("<")
	}
	ne := Expr{Stat: Value, Op: "!=", Limit: 0}
	if !ne.Holds(1) || ne.Holds(0) || ne.Holds(math.NaN()) {
		t.Error("!=")
	}
	if q := e.Quantile(); q != 0.95 {
		t.Errorf("quantile %v", q)
	}
	if s := e.String(); s != "p(95)<500" {
		t.Errorf("String %q", s)
	}
}

// FuzzParse checks that what parses writes back (Expr.String) to an
// expression that parses to the same threshold, and that every error is a
// *SyntaxError with a column inside the input.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"http_req_duration{name:order}:p(95)<500", "http_req_failed:rate<0.01", "x:p99.9<=1.5s",
		"checks:rate>0.95", "x:avg===1e3", "vus:value!=0", "x:p(95)~5", "x{a:b", "a:b:c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		th, err := Parse(s)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%q: %T is not a *SyntaxError", s, err)
			}
			if se.Column < 0 || se.Column > len([]rune(s))+1 {
				t.Fatalf("%q: column %d outside the input", s, se.Column)
			}
			return
		}
		if math.IsNaN(th.Limit) || math.IsInf(th.Limit, 0) {
			t.Fatalf("%q: limit %v", s, th.Limit)
		}
		if strings.ContainsAny(th.Metric, "{}") {
			return // a metric name with braces inside: not written back
		}
		again, err := ParseExpr(th.Metric, th.Expr.String())
		if err != nil {
			t.Fatalf("%q → %q: %v", s, th.Expr.String(), err)
		}
		if again.Expr != th.Expr {
			t.Fatalf("%q: %+v, written back %q reads %+v", s, th.Expr, th.Expr.String(), again.Expr)
		}
	})
}
