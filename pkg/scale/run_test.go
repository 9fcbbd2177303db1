package scale

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
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
		{"data_received", `"data_received": want METRIC:STAT, e.g. data_received:total, http_reqs:rate or http_req_duration:p95`},
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

// readRun streams the files of one run to the consumers and returns the
// input's time resolution.
func readRun(t *testing.T, paths []string, consumers ...func(*ingest.Sample)) int64 {
	t.Helper()
	r, err := ingest.OpenAll(paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for r.Next() {
		for _, c := range consumers {
			c(r.Sample())
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	st := r.Stats()
	if st.Skipped > 0 {
		t.Fatalf("%v: %d lines skipped: %v", paths, st.Skipped, st.Errors)
	}
	return st.ResolutionNS
}

func runValue(t *testing.T, sel string, paths ...string) RunValue {
	t.Helper()
	s, err := ParseSelector(sel)
	if err != nil {
		t.Fatal(err)
	}
	a := NewRunAggregator(s)
	res := readRun(t, paths, a.Add)
	v, err := a.Close(res)
	if err != nil {
		t.Fatalf("%s of %v: %v", sel, paths, err)
	}
	return v
}

var rooms = []struct {
	x     float64
	files []string
}{
	{100, []string{"../../testdata/scale/room100.csv"}},
	{250, []string{"../../testdata/scale/room250.csv"}},
	{500, []string{"../../testdata/scale/room500a.csv", "../../testdata/scale/room500b.csv"}},
}

// The published growth case as three k6 runs (testdata/scale/README.md,
// hand sums): data_received totals 36 MB, 382 MB and 2645 MB give
// b = 2.665001 (methods.md §7), the same fit as the --point case.
func TestRunAggregatorRooms(t *testing.T) {
	var x, y []float64
	for i, want := range []float64{36e6, 382e6, 2645e6} {
		v := runValue(t, "data_received:total", rooms[i].files...)
		if v.Value != want || v.Unit != Bytes || v.DurationSeconds != 10 {
			t.Errorf("x=%g: data_received:total = %g %q over %g s, want %g B over 10 s", rooms[i].x, v.Value, v.Unit, v.DurationSeconds, want)
		}
		// Each run spans t … t+9 at 1 s resolution: 10 s.
		r := runValue(t, "data_received:rate", rooms[i].files...)
		near(t, "data_received:rate", r.Value, want/10, 1e-6)
		x, y = append(x, rooms[i].x), append(y, v.Value)
	}
	p, err := Fit(x, y, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "exponent", p.Exponent, 2.665001, 1e-5)

	// room100.csv: join durations 10, 20, 30, 40, 50 ms, one move of 100 ms.
	f := rooms[0].files
	for _, c := range []struct {
		sel  string
		want float64
	}{
		{"http_req_duration{name:join}:p95", 0.048}, // k6: rank 3.8, 40 + 0.8·10 ms
		{"http_req_duration{name:join}:mean", 0.030},
		{"http_req_duration{name:join}:count", 5},
		{"http_req_duration:max", 0.100},
		{"http_req_duration:min", 0.010},
		{"http_req_duration:med", 0.035}, // six values: (30 + 40)/2 ms
		{"http_req_duration:total", 0.250},
		{"http_reqs:rate", 0.6}, // 6 requests in 10 s
		{"data_sent:total", 3000},
	} {
		v := runValue(t, c.sel, f...)
		near(t, c.sel, v.Value, c.want, 1e-12)
	}
}

func TestRunAggregatorNoMetric(t *testing.T) {
	for _, sel := range []string{"ws_msgs_received:total", "http_req_duration{name:leave}:p95"} {
		s, _ := ParseSelector(sel)
		a := NewRunAggregator(s)
		res := readRun(t, rooms[1].files, a.Add)
		_, err := a.Close(res)
		if !errors.Is(err, ErrNoMetric) {
			t.Errorf("%s: error %v, want ErrNoMetric", sel, err)
		}
	}
	s, _ := ParseSelector("http_req_duration{name:leave}:p95")
	_, err := NewRunAggregator(s).Close(1e9)
	if err == nil || err.Error() != "no samples of the metric http_req_duration with tags {name:leave}" {
		t.Errorf("error %v", err)
	}
}

// Real k6 runs against k6's own end-of-test summaries
// (testdata/k6/*.summary.json): counts and sums are exact, percentiles
// within the sketch's relative error, rates within 1 % (k6 divides by the
// test's wall time, 100.87 s for closed_ramp; the CSV's whole-second
// stamps give 101 s).
func TestRunAggregatorK6Summary(t *testing.T) {
	closed := "../../testdata/k6/closed_ramp.csv.gz"
	for _, c := range []struct {
		sel  string
		want float64
		rel  float64
	}{
		{"data_received:total", 2832284, 0},
		{"data_sent:total", 1340953, 0},
		{"iterations:count", 4442, 0},
		{"iteration_duration:mean", 1.360110302828903, 1e-12},
		{"iteration_duration:p95", 1.6456578264, sketch.RelativeError},
		{"iteration_duration:max", 1.701186085, 1e-12},
		{"data_received:rate", 28078.42565630876, 0.01},
		{"http_reqs:rate", 132.11002155714982, 0.01},
		// 13326 requests less the 823 answered 429 (corpus README).
		{"http_reqs{expected_response:true}:count", 12503, 0},
	} {
		v := runValue(t, c.sel, closed)
		if math.Abs(v.Value-c.want) > c.rel*c.want {
			t.Errorf("closed_ramp %s = %.10g, want %.10g ± %g relative", c.sel, v.Value, c.want, c.rel)
		}
	}
	v := runValue(t, "data_received:total", "../../testdata/k6/open_ramp.csv.gz")
	if v.Value != 5256040 || v.Samples != 25032 {
		t.Errorf("open_ramp data_received = %g over %d samples, want 5256040 over 25032 (k6 summary)", v.Value, v.Samples)
	}
}

func analyse(t *testing.T, paths ...string) *knee.Result {
	t.Helper()
	col := knee.NewCollector("iteration_duration")
	res := readRun(t, paths, col.Add)
	r, err := knee.Analyze(col, res, knee.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The synthetic sweep (testdata/scale/README.md): constant-vus runs whose
// successful requests per second are written per second, so X over the
// 40 s hold is that count exactly.
func TestSteadyThroughputSweep(t *testing.T) {
	for _, c := range []struct {
		n    float64
		file string
		x    float64
	}{
		{1, "vus1.csv", 100}, {2, "vus2.csv", 190}, {4, "vus4.csv", 344},
		{8, "vus8.csv", 569}, {16, "vus16.csv", 804}, {32, "vus32.csv", 903},
	} {
		tp, err := SteadyThroughput(analyse(t, "../../testdata/scale/"+c.file), c.n)
		if err != nil {
			t.Fatal(err)
		}
		if tp.PerSecond != c.x || tp.Span != SpanHold || tp.Seconds != 40 || tp.VUs != c.n || !tp.HasVUs {
			t.Errorf("N=%g: %+v; want X=%g over a 40 s hold at %g VUs", c.n, tp, c.x, c.n)
		}
		if len(tp.Warnings) > 0 {
			t.Errorf("N=%g: warnings %q", c.n, tp.Warnings)
		}
		if c.n == 32 {
			// one 503 per second beside 903 successes
			near(t, "error rate", tp.ErrorRate, 1.0/904, 1e-12)
		}
	}
	// A label that is not the VU count is named.
	tp, err := SteadyThroughput(analyse(t, "../../testdata/scale/vus8.csv"), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(tp.Warnings) != 1 || !strings.Contains(tp.Warnings[0], "the hold's mean VUs is 8.0, 20% away from the label") {
		t.Errorf("warnings %q", tp.Warnings)
	}
}

// closed_ramp is a continuous ramp with no hold: X falls back to the whole
// run, 12503 successful requests in its 100 s of ramp steps (corpus
// README: 13326 requests, 823 of them 429), with a warning.
func TestSteadyThroughputNoHold(t *testing.T) {
	tp, err := SteadyThroughput(analyse(t, "../../testdata/k6/closed_ramp.csv.gz"), 60)
	if err != nil {
		t.Fatal(err)
	}
	if tp.Span != SpanRun || tp.Seconds != 100 {
		t.Errorf("span %s over %g s, want run over 100 s", tp.Span, tp.Seconds)
	}
	near(t, "X", tp.PerSecond, 125.03, 1e-9)
	near(t, "error rate", tp.ErrorRate, 823.0/13326, 1e-9)
	if len(tp.Warnings) == 0 || !strings.Contains(tp.Warnings[0], "no hold found") {
		t.Errorf("warnings %q", tp.Warnings)
	}
	if _, err := SteadyThroughput(nil, 1); err == nil {
		t.Error("nil result: no error")
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
