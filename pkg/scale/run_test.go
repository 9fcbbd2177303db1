package scale

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/sketch"
)

func TestParseSelector(t *testing.T) {
	for _, c := range []struct {
		in     string
		metric string
		tags   []TagMatch
		stat   string
		q      float64
		unit   Unit
	}{
		{"data_received:total", "data_received", nil, StatTotal, 0, Bytes},
		{"data_sent:sum", "data_sent", nil, StatTotal, 0, Bytes},
		{"data_received:rate", "data_received", nil, StatRate, 0, BytesPerSecond},
		{"data_received:p95", "data_received", nil, StatQuantile, 0.95, Bytes},
		{"http_reqs:rate", "http_reqs", nil, StatRate, 0, PerSecond},
		{"http_reqs:count", "http_reqs", nil, StatCount, 0, Count},
		{"http_req_duration:p95", "http_req_duration", nil, StatQuantile, 0.95, Seconds},
		{"http_req_duration:p(99.9)", "http_req_duration", nil, StatQuantile, 0.999, Seconds},
		{"http_req_duration:med", "http_req_duration", nil, StatQuantile, 0.5, Seconds},
		{"http_req_duration:avg", "http_req_duration", nil, StatMean, 0, Seconds},
		{"iteration_duration:rate", "iteration_duration", nil, StatRate, 0, Count},
		{"http_req_duration:count", "http_req_duration", nil, StatCount, 0, Count},
		{"players:max", "players", nil, StatMax, 0, Count},
		{"http_req_duration{name:order}:p95", "http_req_duration", []TagMatch{{"name", "order"}}, StatQuantile, 0.95, Seconds},
		{" http_reqs{ expected_response:true , status:200 }:rate ", "http_reqs", []TagMatch{{"expected_response", "true"}, {"status", "200"}}, StatRate, 0, PerSecond},
		{"bytes_received_per_s", "bytes_received_per_s", nil, StatLevel, 0, BytesPerSecond},
		{"bytes_sent_per_s", "bytes_sent_per_s", nil, StatLevel, 0, BytesPerSecond},
		{"bytes_per_request", "bytes_per_request", nil, StatLevel, 0, Bytes},
	} {
		s, err := ParseSelector(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if s.Metric != c.metric || s.Stat != c.stat || math.Abs(s.Quantile-c.q) > 1e-12 || len(s.Tags) != len(c.tags) || s.Unit() != c.unit {
			t.Errorf("%q: got %+v unit %q; want %s %v %s %g %q", c.in, s, s.Unit(), c.metric, c.tags, c.stat, c.q, c.unit)
			continue
		}
		for i := range c.tags {
			if s.Tags[i] != c.tags[i] {
				t.Errorf("%q: tag %d = %v, want %v", c.in, i, s.Tags[i], c.tags[i])
			}
		}
		if s.String() != strings.TrimSpace(c.in) {
			t.Errorf("%q: String() = %q", c.in, s.String())
		}
	}
}

func TestParseSelectorErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"data_received", `"data_received": want METRIC:STAT, e.g. data_received:total, http_reqs:rate or http_req_duration:p95, or a level's bytes_received_per_s, bytes_sent_per_s, bytes_per_request`},
		{":total", `":total": bad metric name ""`},
		{"data_received:sum2", `"data_received:sum2": unknown statistic "sum2" (want total, count, rate, mean, min, max, med, or a percentile such as p95 or p(99.9))`},
		{"http_req_duration:p0", `"http_req_duration:p0": percentile "p0": want a number in (0, 100]`},
		{"http_req_duration:p(101)", `"http_req_duration:p(101)": percentile "p(101)": want a number in (0, 100]`},
		{"http_req_duration{name:order:p95", `"http_req_duration{name:order:p95": unclosed tag filter: want METRIC{TAG:VALUE}:STAT`},
		{"http_req_duration{name}:p95", `"http_req_duration{name}:p95": tag filter "name": want TAG:VALUE`},
		{"http_req_duration{name:order}", `"http_req_duration{name:order}": want METRIC{TAG:VALUE}:STAT, e.g. http_req_duration{name:order}:p95`},
	} {
		_, err := ParseSelector(c.in)
		if err == nil || err.Error() != c.want {
			t.Errorf("ParseSelector(%q) error %v, want %q", c.in, err, c.want)
		}
	}
}

// TestSelectorValue computes each statistic from hand-made stats: values
// 10, 20, 30, 40, 50 and 100 ms (the join and move durations of
// testdata/scale/room100.csv) over a 10 s run.
func TestSelectorValue(t *testing.T) {
	var sk sketch.Sketch
	for _, v := range []float64{10, 20, 30, 40, 50, 100} {
		sk.Add(v)
	}
	st := RunStats{Samples: 6, Sum: 250, Values: &sk, DurationSeconds: 10}
	for _, c := range []struct {
		sel  string
		want float64
	}{
		{"http_req_duration:max", 0.100},
		{"http_req_duration:min", 0.010},
		{"http_req_duration:med", 0.035}, // (30 + 40)/2 ms
		{"http_req_duration:total", 0.250},
		{"http_req_duration:mean", 0.250 / 6},
		{"http_req_duration:count", 6},
		{"http_req_duration:p95", 0.0875}, // k6: rank 0.95·5 = 4.75, 50 + 0.75·50 ms
		{"x:rate", 25},
	} {
		sel, err := ParseSelector(c.sel)
		if err != nil {
			t.Fatal(err)
		}
		v, err := sel.Value(st)
		if err != nil {
			t.Fatal(err)
		}
		near(t, c.sel, v.Value, c.want, 1e-12)
	}
	sel, _ := ParseSelector("http_req_duration{name:leave}:p95")
	_, err := sel.Value(RunStats{})
	if !errors.Is(err, ErrNoMetric) || err.Error() != "no samples of the metric http_req_duration with tags {name:leave}" {
		t.Errorf("error %v", err)
	}
	sel, _ = ParseSelector("x:rate")
	if _, err := sel.Value(RunStats{Samples: 1, Sum: 1}); err == nil || err.Error() != "x:rate: the run has no duration, so no rate" {
		t.Errorf("rate over no duration: %v", err)
	}
}

// FuzzParseSelector: no input panics, and a parsed selector parses again
// from its String to the same selector.
func FuzzParseSelector(f *testing.F) {
	for _, s := range []string{"data_received:total", "http_req_duration{name:order}:p(99.9)", "x{a:b,c:d}:med", "a:p", "{}:", "a{:}:rate"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseSelector(in)
		if err != nil {
			return
		}
		again, err := ParseSelector(s.String())
		if err != nil || again.Metric != s.Metric || again.Stat != s.Stat || again.Quantile != s.Quantile || len(again.Tags) != len(s.Tags) {
			t.Fatalf("%q → %+v → %+v, %v", in, s, again, err)
		}
		_ = s.Unit()
	})
}
