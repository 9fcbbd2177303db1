package summary

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var (
	corpusK6     = filepath.Join("..", "..", "..", "shared", "corpus", "k6")
	corpusPublic = filepath.Join("..", "..", "..", "shared", "corpus", "public")
)

func read(t *testing.T, dir, name string) *Summary {
	t.Helper()
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("corpus file %s not available", p)
	}
	s, err := ReadFile(p)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func metric(t *testing.T, s *Summary, name string) *Metric {
	t.Helper()
	m, ok := s.Metric(name)
	if !ok {
		t.Fatalf("%s: no metric %q", s.Source, name)
	}
	return m
}

// near checks a figure copied from the file; tolerance 1e-9 relative.
func near(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: missing, want %v", what, want)
		return
	}
	if math.Abs(*got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %v, want %v", what, *got, want)
	}
}

func pct(m *Metric, k string) *float64 {
	v, ok := m.Percentile(k)
	if !ok {
		return nil
	}
	return &v
}

func thresholds(m *Metric) string {
	var b []string
	for _, t := range m.Thresholds {
		st := "fail"
		if t.OK {
			st = "pass"
		}
		b = append(b, t.Source+":"+st)
	}
	return strings.Join(b, ",")
}

// TestAllCorpusSummariesRead: every summary in the corpora reads, with its
// shape and no warnings.
func TestAllCorpusSummariesRead(t *testing.T) {
	for _, c := range []struct {
		dir, file string
		shape     Shape
		metrics   int
	}{
		{corpusK6, "closed_ramp.summary.json", ShapeExport, 0},
		{corpusK6, "open_ramp.summary.json", ShapeExport, 18},
		{corpusK6, "open_ramp.handle_summary.json", ShapeHandleSummary, 18},
		{corpusK6, "breakpoint.summary.json", ShapeMachineReadable, 0},
		{corpusPublic, "k6-summary-export-v0.31-qr-code-generator.json", ShapeExport, 17},
		{corpusPublic, "k6-summary-export-2024-ticket-reserve.json", ShapeExport, 0},
		{corpusPublic, "k6-summary-export-2025-apigateway-benchmarks.json", ShapeExport, 0},
	} {
		s := read(t, c.dir, c.file)
		if s.Shape != c.shape || len(s.Warnings) != 0 || len(s.Metrics) == 0 {
			t.Errorf("%s: shape %s, %d metrics, warnings %q; want %s, no warnings", c.file, s.Shape, len(s.Metrics), s.Warnings, c.shape)
		}
		if c.metrics > 0 && len(s.Metrics) != c.metrics {
			t.Errorf("%s: %d metrics, want %d", c.file, len(s.Metrics), c.metrics)
		}
		for _, m := range s.Metrics {
			if m.Type == "" {
				t.Errorf("%s: %s has no type", c.file, m.Name)
			}
		}
	}
}

// Figures below are copied from the files named; the old export's inverted
// names are checked against the corpus README (closed_ramp:
// http_req_failed passes 823 = the 823 failed /search requests).
func TestExportShape(t *testing.T) {
	s := read(t, corpusK6, "closed_ramp.summary.json")
	f := metric(t, s, "http_req_failed")
	if f.Type != "rate" || f.Contains != "default" || thresholds(f) != "rate<0.05:fail" {
		t.Errorf("http_req_failed: %+v thresholds %s; want a rate whose rate<0.05 FAILED (export true)", f, thresholds(f))
	}
	near(t, "http_req_failed matches (failed requests)", f.Matches, 823)
	near(t, "http_req_failed count", f.Count, 823+12503)
	near(t, "http_req_failed rate", f.Rate, 0.06175896743208765)
	o := metric(t, s, "http_req_duration{name:order}")
	if o.Type != "trend" || o.Contains != "time" || thresholds(o) != "p(95)<300:pass" {
		t.Errorf("order: type %s contains %s thresholds %s", o.Type, o.Contains, thresholds(o))
	}
	near(t, "order p95", pct(o, "p95"), 231.39982740000002)
	near(t, "order p99", pct(o, "p(99)"), 246.85836967)
	near(t, "order med", o.Med, 142.0963255)
	near(t, "vus_max value", metric(t, s, "vus_max").Value, 120)
	it := metric(t, s, "iterations")
	if it.Type != "counter" {
		t.Errorf("iterations type %s", it.Type)
	}
	near(t, "iterations count", it.Count, 4442)
	near(t, "iterations rate", it.Rate, 44.036673852383274)
	want := map[string][2]int64{"menu status 200": {4442, 0}, "search status 200": {3619, 823}, "order status 200": {4442, 0}}
	if len(s.Checks) != 3 {
		t.Errorf("checks = %+v, want 3 from the groups browse and checkout", s.Checks)
	}
	for _, c := range s.Checks {
		if w := want[c.Name]; w != [2]int64{c.Passes, c.Fails} {
			t.Errorf("check %q = %d/%d, want %v", c.Name, c.Passes, c.Fails, w)
		}
	}

	// Public README §3: custom summaryTrendStats count, p(99), p(99.9).
	q := read(t, corpusPublic, "k6-summary-export-v0.31-qr-code-generator.json")
	d := metric(t, q, "http_req_duration")
	near(t, "qr http_req_duration count", d.Count, 493168)
	if _, ok := d.Percentile("p95"); ok || pct(d, "p99.9") == nil || pct(d, "p99") == nil {
		t.Errorf("qr percentiles = %v, want p99 and p99.9 only", d.Percentiles)
	}
	qf := metric(t, q, "http_req_failed")
	near(t, "qr http_req_failed matches", qf.Matches, 0)
	near(t, "qr http_req_failed count", qf.Count, 493168)

	// Public README §5: ticket-reserve is the percentile reference.
	tr := read(t, corpusPublic, "k6-summary-export-2024-ticket-reserve.json")
	td := metric(t, tr, "http_req_duration")
	near(t, "ticket p95", pct(td, "p95"), 4101.811365)
	near(t, "ticket p90", pct(td, "p90"), 4030.33387)
	near(t, "ticket med", td.Med, 3390.69845)
	near(t, "ticket http_req_failed matches", metric(t, tr, "http_req_failed").Matches, 1)
	v := metric(t, tr, "vus")
	near(t, "ticket vus min", v.Min, 15)
	near(t, "ticket vus max", v.Max, 97)

	// Public README §9: fast_latency p(95)<50 true = FAILED (p95 137.3).
	g := read(t, corpusPublic, "k6-summary-export-2025-apigateway-benchmarks.json")
	fl := metric(t, g, "fast_latency")
	if thresholds(fl) != "p(95)<50:fail" || fl.Contains != "" {
		t.Errorf("fast_latency thresholds %s contains %q; want p(95)<50:fail and unknown contains", thresholds(fl), fl.Contains)
	}
	near(t, "fast_latency p95", pct(fl, "p95"), 137.34654)
	if y := metric(t, g, "yarp_latency"); thresholds(y) != "p(95)<50:pass" {
		t.Errorf("yarp_latency thresholds %s", thresholds(y))
	}
	near(t, "dropped_iterations", metric(t, g, "dropped_iterations").Count, 7207)
}

// TestHandleSummaryEqualsExport: open_ramp.handle_summary.json and
// open_ramp.summary.json are the same run in two shapes; normalised, every
// statistic agrees.
func TestHandleSummaryEqualsExport(t *testing.T) {
	h := read(t, corpusK6, "open_ramp.handle_summary.json")
	e := read(t, corpusK6, "open_ramp.summary.json")
	if h.DurationMS != 130006.548284 {
		t.Errorf("duration %v ms, want 130006.548284 (state.testRunDurationMs)", h.DurationMS)
	}
	f := metric(t, h, "http_req_failed")
	near(t, "handleSummary http_req_failed matches", f.Matches, 5028)
	near(t, "handleSummary http_req_failed count", f.Count, 25032)
	if thresholds(f) != "rate<0.05:fail" {
		t.Errorf("thresholds %s", thresholds(f))
	}
	if len(h.Metrics) != len(e.Metrics) {
		t.Fatalf("%d vs %d metrics", len(h.Metrics), len(e.Metrics))
	}
	eq := func(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	for i := range h.Metrics {
		a, b := &h.Metrics[i], &e.Metrics[i]
		if a.Name != b.Name || a.Type != b.Type || a.Contains != b.Contains || !eq(a.Count, b.Count) || !eq(a.Rate, b.Rate) ||
			!eq(a.Matches, b.Matches) || !eq(a.Value, b.Value) || !eq(a.Min, b.Min) || !eq(a.Max, b.Max) || !eq(a.Avg, b.Avg) ||
			!eq(a.Med, b.Med) || len(a.Percentiles) != len(b.Percentiles) || thresholds(a) != thresholds(b) {
			t.Errorf("%s differs:\nhandleSummary %+v\nexport        %+v", a.Name, *a, *b)
		}
		for k, v := range a.Percentiles {
			if b.Percentiles[k] != v {
				t.Errorf("%s %s: %v vs %v", a.Name, k, v, b.Percentiles[k])
			}
		}
	}
}

// TestMachineReadable: breakpoint.summary.json, the v1.5+ shape.
func TestMachineReadable(t *testing.T) {
	s := read(t, corpusK6, "breakpoint.summary.json")
	if s.K6Version != "2.2.0" || s.SchemaVersion != "1.0.0" || math.Abs(s.DurationMS-130235.406902) > 1e-6 {
		t.Errorf("version %q schema %q duration %v", s.K6Version, s.SchemaVersion, s.DurationMS)
	}
	f := metric(t, s, "http_req_failed")
	near(t, "matches", f.Matches, 3298)
	near(t, "total", f.Count, 23232)
	near(t, "rate", f.Rate, 0.14195936639118456)
	d := metric(t, s, "http_req_duration")
	near(t, "p95", pct(d, "p95"), 273.40867095000004)
	near(t, "p90", pct(d, "p(90)"), 253.44027950000006)
	dr := metric(t, s, "dropped_iterations")
	near(t, "dropped count", dr.Count, 47)
	// No rate in this shape: count / config.duration (130.235406902 s).
	near(t, "dropped rate", dr.Rate, 47/130.235406902)
	if len(s.Checks) != 1 || s.Checks[0] != (Check{Name: "status is 200", Passes: 19934, Fails: 3298}) {
		t.Errorf("checks %+v", s.Checks)
	}
}

func TestReadErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"{\n  \"metrics\": {\n    \"x\": {\"count\": 1,\n", "s.json:3:22: the JSON ends early: want a complete k6 summary object"},
		{"{\"metrics\": {\"x\": {\"count\": NaN}}}", "s.json:1:29: invalid JSON: invalid character 'N' looking for beginning of value"},
		{"{\"hello\": 1}", `s.json:1: not a k6 summary: want a "metrics" object (--summary-export, handleSummary data) or "version" and "results" (machine-readable summary); found keys "hello"`},
		{"[1]", "s.json:1:1: a JSON array where a k6 summary wants an object"},
		{"{\"version\":\"9.0\",\"results\":{}}", `s.json:1:18: machine-readable summary without results.metrics: want an array of {"name","type","contains","values"}`},
	} {
		_, err := Read(strings.NewReader(c.in), "s.json")
		if err == nil || err.Error() != c.want {
			t.Errorf("%q:\n got %v\nwant %s", c.in, err, c.want)
		}
	}
	// A statistic of the wrong type is a warning, not an error.
	s, err := Read(strings.NewReader(`{"metrics":{"x":{"avg":"many","p(95)":2}}}`), "s.json")
	if err != nil || len(s.Warnings) != 1 || s.Warnings[0] != `s.json: metric "x": "avg" is "many", not a number; ignored` {
		t.Errorf("err %v warnings %q", err, s.Warnings)
	}
}

// FuzzSummary: an error names the file; a read summary has its metrics
// sorted, each named and of a known type, and one of the three shapes. The seeds are
// small, one per shape (the corpus files are 4–7 KB, and the fuzzer's
// minimizer is quadratic in an input's length: seeded with them it ran 6
// inputs in 15 s); the table tests read the corpus files.
func FuzzSummary(f *testing.F) {
	for _, s := range []string{
		`{"metrics":{"a":{"passes":1,"fails":2,"value":0.3,"thresholds":{"rate<1":true}}},"root_group":{"groups":{"g":{"checks":{"c":{"name":"c","passes":1,"fails":0}}}}}}`,
		`{"metrics":{"http_req_duration":{"avg":1.5,"min":1,"med":1.2,"max":9,"p(90)":3,"p(95)":4},"http_reqs":{"count":10,"rate":2.5},"vus":{"value":1,"min":1,"max":2}}}`,
		`{"state":{"testRunDurationMs":1500},"metrics":{"checks":{"type":"rate","contains":"default","values":{"rate":0.5,"passes":1,"fails":1},"thresholds":{"rate>0.9":{"ok":false}}},"it":{"type":"counter","contains":"default","values":{"count":3,"rate":2}}}}`,
		`{"version":"1.0.0","metadata":{"k6_version":"2.2.0"},"config":{"duration":1.5},"results":{"checks":{"results":[{"name":"ok","passes":1,"fails":0}]},"metrics":[{"name":"d","type":"trend","contains":"time","values":{"avg":1,"p95":2}},{"name":"f","type":"rate","values":{"matches":1,"total":4}}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Read(strings.NewReader(string(data)), "f.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if s.Shape != ShapeExport && s.Shape != ShapeHandleSummary && s.Shape != ShapeMachineReadable {
			t.Fatalf("shape %q", s.Shape)
		}
		for i, m := range s.Metrics {
			if i > 0 && s.Metrics[i-1].Name > m.Name {
				t.Fatal("metrics not sorted")
			}
			switch m.Type {
			case "counter", "gauge", "rate", "trend":
				if m.Name != "" {
					break
				}
				fallthrough
			default:
				t.Fatalf("metric %q of type %q", m.Name, m.Type)
			}
		}
	})
}
