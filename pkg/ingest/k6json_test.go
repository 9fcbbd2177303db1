package ingest

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// corpusK6 and corpusPublic are the shared corpora, relative to this
// package's directory; tests that need them skip when they are absent.
var (
	corpusK6     = filepath.Join("..", "..", "..", "shared", "corpus", "k6")
	corpusPublic = filepath.Join("..", "..", "..", "shared", "corpus", "public")
)

func corpusFile(t testing.TB, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("corpus file %s not available: %v", p, err)
	}
	return p
}

// tagString renders a sample's non-empty tags as sorted "k=v" pairs, with
// metadata marked "@k=v", so that samples of CSV and JSON compare.
func tagString(s *Sample) string {
	var pairs []string
	s.Tags.Each(func(k, v string, meta bool) {
		if meta {
			k = "@" + k
		}
		pairs = append(pairs, k+"="+v)
	})
	slices.Sort(pairs)
	return strings.Join(pairs, "&")
}

type flatSample struct {
	Metric string
	TimeNS int64
	Value  float64
	Tags   string
}

func readAllJSON(t *testing.T, src string) ([]flatSample, *K6JSONReader) {
	t.Helper()
	r := NewK6JSONReader(strings.NewReader(src), "test.json")
	var out []flatSample
	for r.Next() {
		s := r.Sample()
		out = append(out, flatSample{s.Metric, s.TimeNS, s.Value, tagString(s)})
	}
	if err := r.Err(); err != nil {
		t.Fatalf("Err: %v", err)
	}
	return out, r
}

func TestK6JSONEnvelopes(t *testing.T) {
	// Lines in the shapes of the corpus files named in each case.
	src := strings.Join([]string{
		// old envelope (k6-jsonl-v0.32-trello-cypress.json)
		`{"type":"Metric","data":{"name":"vus","type":"gauge","contains":"default","tainted":null,"thresholds":[],"submetrics":null,"sub":{"name":"","parent":"","suffix":"","tags":null}},"metric":"vus"}`,
		`{"type":"Point","data":{"time":"2021-05-01T23:04:29.867322-04:00","value":1,"tags":null},"metric":"vus"}`,
		// new envelope (open_ramp.json.gz)
		`{"type":"Metric","data":{"name":"http_req_duration","type":"trend","contains":"time","thresholds":[{"threshold":"p(95)<500","abortOnFail":true,"delayAbortEval":""},"avg<100"],"submetrics":[{"name":"http_req_duration{expected_response:true}","suffix":"expected_response:true","tags":{"expected_response":"true"}}]},"metric":"http_req_duration"}`,
		`{"metric":"http_req_duration","type":"Point","data":{"time":"2026-11-30T02:04:18.444175485Z","value":16.786114,"tags":{"expected_response":"true","flow":"x","group":"","method":"POST","name":"order","status":"200"},"metadata":{"vu":"7","iter":"42"}}}`,
		// key order free, spaces, a +07:00 offset with 7 digits (ticket-reserve)
		` { "data" : { "value" : 3.5e2 , "time" : "2024-08-05T15:24:42.6728867+07:00" , "tags" : { } } , "type" : "Point" , "metric" : "http_req_duration" } `,
		// an escaped tag value takes the encoding/json path
		`{"metric":"checks","type":"Point","data":{"time":"2026-11-30T02:04:18Z","value":0,"tags":{"check":"say \"hi\" \u00e9"}}}`,
		"",
	}, "\n")
	got, r := readAllJSON(t, src)
	want := []flatSample{
		// 2021-05-01T23:04:29.867322-04:00 = 2021-05-02T03:04:29.867322Z = 1619924669.867322 s
		{"vus", 1619924669867322000, 1, ""},
		// 2026-11-30T02:04:18Z = 1796004258 s
		{"http_req_duration", 1796004258444175485, 16.786114, "@iter=42&@vu=7&expected_response=true&flow=x&method=POST&name=order&status=200"},
		// 2024-08-05T08:24:42.6728867Z = 1722846282.6728867 s
		{"http_req_duration", 1722846282672886700, 350, ""},
		{"checks", 1796004258000000000, 0, `check=say "hi" é`},
	}
	if !slices.Equal(got, want) {
		t.Errorf("samples:\n got %+v\nwant %+v", got, want)
	}
	st := r.Stats()
	if st.Rows != 4 || st.Skipped != 0 || st.ResolutionNS != 1 {
		t.Errorf("stats rows=%d skipped=%d resolution=%d, want 4, 0, 1 (9 fraction digits)", st.Rows, st.Skipped, st.ResolutionNS)
	}
	m := r.Metrics()
	if mi := m["http_req_duration"]; mi.Type != "trend" || mi.Contains != "time" || !slices.Equal(mi.Thresholds, []string{"p(95)<500", "avg<100"}) ||
		!slices.Equal(mi.Submetrics, []string{"http_req_duration{expected_response:true}"}) || mi.Line != 3 {
		t.Errorf("Metrics()[http_req_duration] = %+v", mi)
	}
	if mi := m["vus"]; mi.Type != "gauge" || mi.Contains != "default" || len(mi.Thresholds) != 0 {
		t.Errorf("Metrics()[vus] = %+v", mi)
	}
	// "checks" was never declared: kept, with one warning; and the
	// lines' times, from several files, step back once (line 5: from
	// 2026 to 2024), with one warning.
	if len(st.Warnings) != 2 || !strings.Contains(st.Warnings[0], `test.json:6: a Point of metric "checks" comes before any Metric line`) ||
		!strings.Contains(st.Warnings[1], "test.json:5: time steps back") || st.TimeSteps != 1 || st.Steps[0].ToNS != 1722846282672886700 {
		t.Errorf("warnings = %q, %d steps back (%+v)", st.Warnings, st.TimeSteps, st.Steps)
	}
}

func TestK6JSONTagsAPI(t *testing.T) {
	src := `{"metric":"m","type":"Point","data":{"time":"2026-11-30T02:04:18Z","value":1,"tags":{"zeta":"1","status":"200","group":""},"metadata":{"vu":"3"}}}
{"metric":"m","type":"Point","data":{"time":"2026-11-30T02:04:18Z","value":2,"tags":{"name":"menu"}}}
`
	r := NewK6JSONReader(strings.NewReader(src), "t.json")
	if !r.Next() {
		t.Fatal("no first sample")
	}
	s := r.Sample()
	for _, c := range []struct {
		key, v string
		ok     bool
	}{{"status", "200", true}, {"zeta", "1", true}, {"group", "", false}, {"vu", "3", true}, {"name", "", false}, {"nope", "", false}} {
		if v, ok := s.Tags.Get(c.key); v != c.v || ok != c.ok {
			t.Errorf("first Get(%q) = %q, %v; want %q, %v", c.key, v, ok, c.v, c.ok)
		}
	}
	if s.Tags.Metadata() != "vu=3" {
		t.Errorf("Metadata = %q, want vu=3", s.Tags.Metadata())
	}
	zeta := slices.Index(s.Tags.Keys(), "zeta")
	if zeta < len(k6DefaultTagColumns) {
		t.Errorf("new key zeta at column %d, want after the %d default columns", zeta, len(k6DefaultTagColumns))
	}
	if !r.Next() {
		t.Fatal("no second sample")
	}
	s = r.Sample()
	if s.Tags.Key(zeta) != "zeta" || s.Tags.Value(zeta) != "" {
		t.Errorf("column %d on the second sample = %q=%q, want zeta= (stable index, value reset)", zeta, s.Tags.Key(zeta), s.Tags.Value(zeta))
	}
	if v, _ := s.Tags.Get("status"); v != "" {
		t.Errorf("status leaked from the previous sample: %q", v)
	}
	if s.Tags.Metadata() != "" {
		t.Errorf("Metadata leaked: %q", s.Tags.Metadata())
	}
}

func TestK6JSONErrors(t *testing.T) {
	good := `{"metric":"m","type":"Point","data":{"time":"2026-11-30T02:04:18Z","value":1,"tags":{}}}`
	tests := []struct {
		line, want string
	}{
		{`{"metric":"m","type":"Point","data":{"time":"2026-11-30T02:04:18Z","val`, "t.json:1:71: invalid JSON (line ends inside a JSON value): want one k6 JSON output object per line"},
		{`{"metric":"m","type":"Point","data":{"time":"2026-11-30T02:04:18Z","value":NaN}}`, "t.json:1:76: invalid JSON (invalid character 'N' looking for beginning of value): want one k6 JSON output object per line"},
		{`{"metric":"m","type":"Point","data":{"time":"2026-11-30T02:04:18Z","value":"1"}}`, "t.json:1:78: Point data: value is a JSON string, want a number"},
		{`{"metric":"m","type":"Point","data":{"time":"yesterday","value":1}}`, `t.json:1:45: time "yesterday": want RFC 3339, e.g. "2006-01-02T15:04:05.999999999Z07:00"`},
		{`{"metric":"m","type":"Point","data":{"time":"2026-11-30T02:04:18Z"}}`, "t.json:1:30: Point without data.value: want a number"},
		{`{"metric":"m","type":"Point","data":{"value":1}}`, "t.json:1:30: Point without data.time: want an RFC 3339 time"},
		{`{"type":"Point","data":{"time":"2026-11-30T02:04:18Z","value":1}}`, `t.json:1: Point without a "metric" name`},
		{`{"metric":"m","type":"Sample","data":{}}`, `t.json:1:15: unknown line type "Sample": want "Point" or "Metric"`},
		{`{"metric":"m"}`, `t.json:1: no "type": want a k6 JSON output line with "type":"Point" or "type":"Metric"`},
		{`[1,2]`, "t.json:1:1: invalid JSON (the value is a JSON array, want an object): want one k6 JSON output object per line"},
		{`{"metric":"m","type":"Point","data":{"time":"0001-01-01T00:00:00Z","value":1}}`, `t.json:1:45: time "0001-01-01T00:00:00Z": year 1 is outside 1970–2200`},
		{`{"metric":"m","type":"Point","data":{"time":"2026-11-30T02:04:18Z","value":1,"tags":{"a":1}}}`, "t.json:1:90: Point data: tags holds a JSON number, want string values"},
	}
	for _, tc := range tests {
		r := NewK6JSONReader(strings.NewReader(tc.line+"\n"+good+"\n"), "t.json")
		n := 0
		for r.Next() {
			n++
		}
		st := r.Stats()
		if n != 1 || st.Skipped != 1 || len(st.Errors) != 1 {
			t.Errorf("%s: read %d, skipped %d; want 1 read after the bad line, 1 skipped", tc.line, n, st.Skipped)
			continue
		}
		if got := st.Errors[0].Error(); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.line, got, tc.want)
		}
	}
}

// TestK6JSONTruncatedGzip cuts a gzip of a real file in half: the lines
// before the cut are read, the half line is a recorded error, and Stats says
// Truncated.
func TestK6JSONTruncatedGzip(t *testing.T) {
	data, err := os.ReadFile(corpusFile(t, corpusPublic, "k6-jsonl-2024-ticket-reserve.json"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	n, st, err := countFile(t, "cut.json.gz", buf.Bytes()[:buf.Len()/2])
	if err != nil || !st.Truncated || n == 0 || n >= 1408 || len(st.Warnings) == 0 {
		t.Errorf("err=%v truncated=%v read=%d warnings=%q; want nil, true, 0<n<1408, a warning", err, st.Truncated, n, st.Warnings)
	}
}

// TestK6JSONPublic reads every public JSON lines file and checks the counts
// and figures its README gives.
func TestK6JSONPublic(t *testing.T) {
	tests := []struct {
		file       string
		points     int64
		resolution int64
		metrics    int
	}{
		// README §2: 17 Metric + 3,510 Point lines, microsecond fractions.
		{"k6-jsonl-v0.32-trello-cypress.json", 3510, 1000, 17},
		// README §4: 16 Metric + 1,408 Point, 6 or 7 fraction digits.
		{"k6-jsonl-2024-ticket-reserve.json", 1408, 100, 16},
		// README §6: 16 Metric + 833 Point, nanoseconds.
		{"k6-jsonl-2024-load-template.json", 833, 1, 16},
		// README §8: 16 Metric + 802 Point, nanoseconds.
		{"k6-jsonl-v0.5x-finance.json", 802, 1, 16},
	}
	for _, tc := range tests {
		r, err := Open(corpusFile(t, corpusPublic, tc.file), nil)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
		}
		st := r.Stats()
		if r.Err() != nil || st.Rows != tc.points || st.Skipped != 0 || st.ResolutionNS != tc.resolution || len(st.Warnings) != 0 {
			t.Errorf("%s: err=%v rows=%d skipped=%d resolution=%d warnings=%q; want rows %d, resolution %d", tc.file, r.Err(), st.Rows, st.Skipped, st.ResolutionNS, st.Warnings, tc.points, tc.resolution)
		}
		r.Close()
		j := NewK6JSONReader(mustOpen(t, filepath.Join(corpusPublic, tc.file)), tc.file)
		for j.Next() {
		}
		if got := len(j.Metrics()); got != tc.metrics {
			t.Errorf("%s: %d metrics declared, want %d", tc.file, got, tc.metrics)
		}
	}
}

func mustOpen(t *testing.T, p string) *os.File {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// k6Quantile is k6's TrendSink.P: linear interpolation at i = p·(n−1) over
// the sorted values (metrics/sink.go).
func k6Quantile(sorted []float64, p float64) float64 {
	i := p * float64(len(sorted)-1)
	lo := int(math.Floor(i))
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (i-float64(lo))*(sorted[lo+1]-sorted[lo])
}

func trendOf(t *testing.T, path, metric string) []float64 {
	t.Helper()
	r, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var v []float64
	for r.Next() {
		if s := r.Sample(); s.Metric == metric {
			v = append(v, s.Value)
		}
	}
	slices.Sort(v)
	return v
}

// TestK6JSONPercentilesMatchSummary: the values read from the JSON give
// exactly the figures k6 printed in the paired summary export.
func TestK6JSONPercentilesMatchSummary(t *testing.T) {
	// k6-summary-export-2024-ticket-reserve.json, http_req_duration;
	// public README §5. Tolerance 1e-6 ms (the summary prints 6-9 digits).
	v := trendOf(t, corpusFile(t, corpusPublic, "k6-jsonl-2024-ticket-reserve.json"), "http_req_duration")
	if len(v) != 100 {
		t.Fatalf("ticket-reserve http_req_duration n = %d, want 100", len(v))
	}
	var sum float64
	for _, x := range v {
		sum += x
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"avg", sum / 100, 3264.992537},
		{"med", k6Quantile(v, 0.5), 3390.69845},
		{"p90", k6Quantile(v, 0.9), 4030.33387},
		{"p95", k6Quantile(v, 0.95), 4101.811365},
	} {
		if math.Abs(c.got-c.want) > 1e-6 {
			t.Errorf("ticket-reserve %s = %.9f, want %.9f (summary export)", c.name, c.got, c.want)
		}
	}
	// k6-jsonl-v0.32-trello-cypress.json: public README §2 gives n=300,
	// med=5.3260, p90=10.9087, p95=15.4324 (4 decimals, tolerance 5e-5).
	v = trendOf(t, corpusFile(t, corpusPublic, "k6-jsonl-v0.32-trello-cypress.json"), "http_req_duration")
	if len(v) != 300 {
		t.Fatalf("trello http_req_duration n = %d, want 300", len(v))
	}
	for _, c := range []struct {
		p, want float64
	}{{0.5, 5.3260}, {0.9, 10.9087}, {0.95, 15.4324}} {
		if got := k6Quantile(v, c.p); math.Abs(got-c.want) > 5e-5 {
			t.Errorf("trello p%g = %.5f, want %.4f", c.p*100, got, c.want)
		}
	}
}

// sampleMultiset counts the samples of a file by (metric, time truncated to
// the second, value rounded to the CSV's 6 decimals, tags); it keys by a
// 64-bit hash to keep 350k samples cheap.
func sampleMultiset(t *testing.T, path string) (map[uint64]int, int64) {
	t.Helper()
	r, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	m := map[uint64]int{}
	var h maphash.Hash
	h.SetSeed(fixedSeed)
	for r.Next() {
		s := r.Sample()
		h.Reset()
		fmt.Fprintf(&h, "%s|%d|%d|%s", s.Metric, s.TimeNS/1e9, int64(math.Round(s.Value*1e6)), tagString(s))
		m[h.Sum64()]++
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	return m, r.Stats().Rows
}

var fixedSeed = maphash.MakeSeed()

// TestOpenRampCSVEqualsJSON: open_ramp.csv.gz and open_ramp.json.gz are one
// k6 run written twice (corpus README (b)+(c)); both readers must return the
// same 350,776 samples.
func TestOpenRampCSVEqualsJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 350,776 samples twice")
	}
	csvSet, csvRows := sampleMultiset(t, corpusFile(t, corpusK6, "open_ramp.csv.gz"))
	jsonSet, jsonRows := sampleMultiset(t, corpusFile(t, corpusK6, "open_ramp.json.gz"))
	if csvRows != 350776 || jsonRows != 350776 {
		t.Fatalf("rows: csv %d, json %d; want 350,776 each (corpus README)", csvRows, jsonRows)
	}
	diff := 0
	for k, n := range csvSet {
		if jsonSet[k] != n {
			diff++
		}
	}
	if diff != 0 || len(csvSet) != len(jsonSet) {
		t.Errorf("%d of %d distinct CSV samples differ in count from the JSON (%d distinct)", diff, len(csvSet), len(jsonSet))
	}
}

// TestParseJSONTime checks the hand parser against time.Parse.
func TestParseJSONTime(t *testing.T) {
	for _, s := range []string{
		"2026-11-30T02:04:18.444175485Z", "2021-05-01T23:04:28.866972-04:00", "2024-08-05T15:24:42.6728867+07:00",
		"2024-02-29T23:59:59Z", "2000-03-01T00:00:00.1+00:00", "1970-01-01T00:00:00Z", "1970-01-01T01:00:00+01:00",
		"2200-12-31T23:59:59.999999999Z", "2024-08-05T15:24:42.6728867+23:59", "2100-02-28T12:00:00-00:30",
	} {
		ns, _, err := parseJSONTime([]byte(s))
		want, perr := time.Parse(time.RFC3339Nano, s)
		if err != nil || perr != nil || ns != want.UnixNano() {
			t.Errorf("%s: got %d, %v; time.Parse %d, %v", s, ns, err, want.UnixNano(), perr)
		}
	}
	// Malformed, and outside 1970–2200 (the fast parser's years and
	// time.Parse's alike).
	for _, s := range []string{"2023-02-29T00:00:00Z", "2026-11-30T24:00:00Z", "2026-11-30T02:04:18", "2026-11-30 02:04:18Z", "2026-11-30T02:04:18.Z",
		"1969-12-31T23:59:59.999999999Z", "1970-01-01T00:30:00+01:00", "1678-01-01T00:00:00Z", "2201-01-01T00:00:00Z", "2261-12-31T23:59:59.999999999Z", "9999-01-01T00:00:00Z"} {
		if _, _, err := parseJSONTime([]byte(s)); err == nil {
			t.Errorf("%s: no error", s)
		}
	}
}

// TestParseTimeMinuteCache: the worker's minute cache gives what
// parseJSONTime gives for every time of a sequence that stays in a minute,
// crosses minutes, hours, a leap day and a year, changes zone, and has
// seconds or fractions that are invalid after a valid minute (the cache
// must not accept them). Hand-checked: 2024-02-29T23:59:59.5-01:00 is
// 1709254799.5 s.
func TestParseTimeMinuteCache(t *testing.T) {
	w := &jsonWorker{}
	for _, s := range []string{
		"2024-02-29T23:59:58.25Z", "2024-02-29T23:59:59.5Z", "2024-02-29T23:59:59.5-01:00", "2024-02-29T23:59:60Z",
		"2024-02-29T23:59:5xZ", "2024-02-29T23:59:59.Z", "2024-02-29T23:59:59.1234567890Z", "2024-02-29T23:59:59",
		"2024-03-01T00:00:00Z", "2024-03-01T00:00:01+05:30", "2024-03-01T00:00:02.000000001Z", "2024-12-31T23:59:59.999Z",
		"2025-01-01T00:00:00Z", "2025-01-01T00:00:00Z", "2025-01-01T00:01:00.1Z", "2025-01-01T00:01:00.2+24:00", "1970-01-01T00:00:00.5+01:00",
	} {
		ns, d, err := w.parseTime([]byte(s))
		wns, wd, werr := parseJSONTime([]byte(s))
		if ns != wns || d != wd || (err == nil) != (werr == nil) {
			t.Errorf("%s: %d %d %v, want %d %d %v", s, ns, d, err, wns, wd, werr)
		}
	}
	if ns, _, err := w.parseTime([]byte("2024-02-29T23:59:59.5-01:00")); err != nil || ns != 1709254799_500000000 {
		t.Errorf("leap day −01:00: %d %v", ns, err)
	}
}

// refPoint decodes one line as the reference does: encoding/json for the
// shape, time.Parse for the time, and the rules every reader applies (a
// time in 1970–2200, k6's built-in durations not negative). ok is false for
// a line the reader must skip; isMetric for a Metric line.
func refPoint(line []byte) (s flatSample, meta string, ok, isMetric bool) {
	var env struct {
		Type   *string         `json:"type"`
		Metric string          `json:"metric"`
		Data   json.RawMessage `json:"data"`
	}
	if json.Unmarshal(line, &env) != nil || env.Type == nil {
		return s, "", false, false
	}
	if *env.Type == "Metric" {
		var d struct {
			Name       string            `json:"name"`
			Type       string            `json:"type"`
			Contains   string            `json:"contains"`
			Thresholds []json.RawMessage `json:"thresholds"`
			Submetrics []struct {
				Name string `json:"name"`
			} `json:"submetrics"`
		}
		good := len(env.Data) > 0 && string(env.Data) != "null" && json.Unmarshal(env.Data, &d) == nil && (env.Metric != "" || d.Name != "")
		return s, "", false, good
	}
	if *env.Type != "Point" || env.Metric == "" || len(env.Data) == 0 || string(env.Data) == "null" {
		return s, "", false, false
	}
	var d struct {
		Time     *string           `json:"time"`
		Value    *float64          `json:"value"`
		Tags     map[string]string `json:"tags"`
		Metadata map[string]string `json:"metadata"`
	}
	if json.Unmarshal(env.Data, &d) != nil || d.Time == nil || d.Value == nil {
		return s, "", false, false
	}
	t, err := time.Parse(time.RFC3339Nano, *d.Time)
	if err != nil || t.UTC().Year() < 1970 || t.UTC().Year() > 2200 {
		return s, "", false, false
	}
	if *d.Value < 0 && builtinTimeMetrics[env.Metric] {
		return s, "", false, false
	}
	var pairs, metas []string
	for k, v := range d.Tags {
		if v != "" {
			pairs = append(pairs, k+"="+v)
		}
	}
	ambiguous := false
	for k, v := range d.Metadata {
		metas = append(metas, k+"="+v)
		ambiguous = ambiguous || strings.ContainsAny(k, "&=") || strings.Contains(v, "&") || k == ""
	}
	slices.Sort(pairs)
	slices.Sort(metas)
	meta = strings.Join(metas, "&")
	if ambiguous {
		meta = "?" // k6's "k=v&k=v" cannot say it: not compared
	}
	return flatSample{env.Metric, t.UnixNano(), *d.Value, strings.Join(pairs, "&")}, meta, true, false
}

// columnTags renders a sample's non-empty tags (not its metadata) as sorted
// "k=v" pairs.
func columnTags(s *Sample) string {
	var pairs []string
	s.Tags.Each(func(k, v string, meta bool) {
		if !meta {
			pairs = append(pairs, k+"="+v)
		}
	})
	slices.Sort(pairs)
	return strings.Join(pairs, "&")
}

// FuzzJSON: whatever the bytes, the reader returns exactly the points that
// encoding/json (with the readers' rules on times and values) finds, line
// by line, with the same metric, time, value, tags and metadata; every
// other non-blank line is a Metric line or a recorded skip; and Drain
// returns the same samples on parallel sinks. Seeds include lines of the
// real corpus files.
func FuzzJSON(f *testing.F) {
	f.Add([]byte(`{"metric":"http_reqs","type":"Point","data":{"time":"2026-11-30T02:04:18.444175485Z","value":1,"tags":{"expected_response":"true","group":"","method":"POST"}}}`))
	f.Add([]byte(`{"type":"Point","data":{"time":"2021-05-01T23:04:28.866972-04:00","value":3.763,"tags":null},"metric":"vus"}`))
	f.Add([]byte(`{"type":"Metric","data":{"name":"vus","type":"gauge","contains":"default","tainted":null,"thresholds":["value<3"],"submetrics":null,"sub":{"name":"","parent":"","suffix":"","tags":null}},"metric":"vus"}`))
	f.Add([]byte(`{"metric":"m","type":"Point","data":{"time":"2024-08-05T15:24:42.6728867+07:00","value":-0.5e-3,"tags":{"a":"é"},"metadata":{"vu":"1"}}}`))
	f.Add([]byte("{\"metric\":\"m\",\"type\":\"Point\",\"data\":{\"time\":\"2026-11-30T02:04:18Z\",\"value\":1}}\n{\"metric\""))
	f.Add([]byte(`{"metric":"http_req_duration","type":"Point","data":{"time":"9999-11-30T02:04:18Z","value":-1,"tags":{"a":"1","a":"2"}}}`))
	// A repeated tags object (scanTags' repeat path) around one with a
	// duplicate key (encoding/json decides), one with a value changed and
	// one with a line the fast scan rejects: each repeat keeps its values.
	{
		a := `{"metric":"http_reqs","type":"Point","data":{"time":"2026-11-30T02:04:18Z","value":1,"tags":{"name":"a","status":"200"}}}`
		dup := `{"metric":"http_reqs","type":"Point","data":{"time":"2026-11-30T02:04:18Z","value":1,"tags":{"name":"a","name":"b","status":"500"}}}`
		chg := `{"metric":"http_reqs","type":"Point","data":{"time":"2026-11-30T02:04:18Z","value":1,"tags":{"name":"a","status":"503"}}}`
		bad := `{"metric":"http_reqs","type":"Point","data":{"time":"2026-11-30T02:04:18Z","value":1,"tags":{"name":"a","status":"200"`
		f.Add([]byte(strings.Join([]string{a, a, dup, a, chg, chg, a, bad, a, a}, "\n")))
		// Another layout between two equal objects (a layout's
		// remembered object, wLayout.obj), then the other values.
		c := `{"metric":"checks","type":"Point","data":{"time":"2026-11-30T02:04:18Z","value":1,"tags":{"check":"ok"}}}`
		f.Add([]byte(strings.Join([]string{a, c, a, c, chg, c, a, c, dup, c, a}, "\n")))
	}
	for _, name := range []string{"k6-jsonl-v0.32-trello-cypress.json", "k6-jsonl-2024-ticket-reserve.json", "k6-jsonl-2024-load-template.json"} {
		if data, err := os.ReadFile(filepath.Join(corpusPublic, name)); err == nil {
			// A few lines from the middle of each file: Metric and Point
			// lines of the real shape, with their tags and metadata.
			lines := bytes.Split(data, []byte("\n"))
			for i := 0; i+8 < len(lines) && i < 64; i += 16 {
				f.Add(bytes.Join(lines[i:i+8], []byte("\n")))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want []flatSample
		var wantMeta []string
		nonBlank, metricLines := 0, 0
		for _, line := range bytes.Split(data, []byte("\n")) {
			line = bytes.TrimRight(line, " \t\r")
			if len(bytes.TrimLeft(line, " \t")) == 0 {
				continue
			}
			nonBlank++
			s, meta, ok, isMetric := refPoint(line)
			if isMetric {
				metricLines++
			}
			if ok {
				want, wantMeta = append(want, s), append(wantMeta, meta)
			}
		}
		r := NewK6JSONReader(bytes.NewReader(data), "f.json")
		var got []flatSample
		for r.Next() {
			s := r.Sample()
			if s.TimeNS < MinTimeNS || s.TimeNS > MaxTimeNS || math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
				t.Fatalf("sample out of range: %+v", *s)
			}
			if i := len(got); i < len(wantMeta) && wantMeta[i] != "?" && pairsCanon(s.Tags.Metadata()) != wantMeta[i] {
				t.Fatalf("sample %d metadata %q, want %q", i, s.Tags.Metadata(), wantMeta[i])
			}
			got = append(got, flatSample{s.Metric, s.TimeNS, s.Value, columnTags(s)})
		}
		if r.Err() != nil {
			t.Fatalf("Err on in-memory input: %v", r.Err())
		}
		if !slices.Equal(got, want) {
			t.Fatalf("samples\n got %+v\nwant %+v", got, want)
		}
		st := r.Stats()
		if int(st.Rows) != len(want) || int(st.Skipped) != nonBlank-len(want)-metricLines {
			t.Fatalf("rows %d skipped %d; want %d rows, %d skipped (%d non-blank lines, %d Metric)", st.Rows, st.Skipped, len(want), nonBlank-len(want)-metricLines, nonBlank, metricLines)
		}
		// Drain: the same samples, in any order.
		d := NewK6JSONReader(bytes.NewReader(data), "f.json")
		var mu sync.Mutex
		var drained []flatSample
		sinks := make([]func(*Sample), 3)
		for i := range sinks {
			sinks[i] = func(s *Sample) {
				fs := flatSample{s.Metric, s.TimeNS, s.Value, columnTags(s)}
				mu.Lock()
				drained = append(drained, fs)
				mu.Unlock()
			}
		}
		if err := d.Drain(sinks); err != nil {
			t.Fatal(err)
		}
		cmp := func(a, b flatSample) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) }
		slices.SortFunc(drained, cmp)
		slices.SortFunc(want, cmp)
		if !slices.Equal(drained, want) || d.Stats().Skipped != st.Skipped {
			t.Fatalf("Drain: %d samples %d skipped; Next: %d, %d", len(drained), d.Stats().Skipped, len(want), st.Skipped)
		}
	})
}

// pairsCanon is a canonical form of a "k=v&k=v" field for tests.
func pairsCanon(s string) string {
	m := ParsePairs(s)
	var pairs []string
	for k, v := range m {
		pairs = append(pairs, k+"="+v)
	}
	slices.Sort(pairs)
	return strings.Join(pairs, "&")
}

// BenchmarkK6JSON reads open_ramp.json.gz (350,776 points).
func BenchmarkK6JSON(b *testing.B) {
	p := corpusFile(b, corpusK6, "open_ramp.json.gz")
	var rows int64
	for b.Loop() {
		r, err := Open(p, nil)
		if err != nil {
			b.Fatal(err)
		}
		for r.Next() {
		}
		st := r.Stats()
		r.Close()
		rows += st.Rows
		b.SetBytes(st.Bytes)
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

// TestOpenRefusesSummary: a summary given where samples are wanted gets a
// message that says so, not thousands of skipped lines.
func TestOpenRefusesSummary(t *testing.T) {
	for _, name := range []string{"open_ramp.summary.json", "open_ramp.handle_summary.json", "breakpoint.summary.json"} {
		p := corpusFile(t, corpusK6, name)
		_, err := Open(p, nil)
		if err == nil || err.Error() != p+": a k6 end-of-test summary, not a sample stream (k6 --out json lines or csv); read it with `ldanalyze summary`" {
			t.Errorf("%s: %v", name, err)
		}
	}
	compact := `{"root_group":{},"metrics":{"vus":{"type":"gauge","values":{}}}}`
	if _, err := Open("-", strings.NewReader(compact)); err == nil {
		t.Error("compact summary: no error")
	}
	// A k6 JSON line whose first key is "metrics"-like text still reads.
	line := `{"metric":"metrics","type":"Point","data":{"time":"2026-11-30T02:04:18Z","value":1}}`
	r, err := Open("-", strings.NewReader(line))
	if err != nil || !r.Next() || r.Sample().Metric != "metrics" {
		t.Errorf("point named metrics: %v", err)
	}
}

// TestOpenRefusesPrometheusJSON: a saved Prometheus query_range answer
// (the corpus's wrapped form, and the bare API answer) given as a run gets
// an error that names --from-prom and --prom; a k6 point with a tag named
// resultType still reads.
func TestOpenRefusesPrometheusJSON(t *testing.T) {
	p := filepath.Join("..", "..", "testdata", "k6-v2", "prom_rw_stats.prom_query_range.json.gz")
	want := ": Prometheus query_range JSON, not a k6 sample stream (k6 --out json lines or csv): read it with `--from-prom FILE` (a k6 run streamed with -o experimental-prometheus-rw), or give it with `--prom FILE` beside the run (the system's metrics)"
	if _, err := Open(p, nil); err == nil || err.Error() != p+want {
		t.Errorf("corpus file: %v", err)
	}
	api := `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"k6_vus"},"values":[[1796156825,"3"]]}]}}`
	if _, err := Open("-", strings.NewReader(api)); err == nil || err.Error() != "-"+want {
		t.Errorf("API answer: %v", err)
	}
	line := `{"metric":"vus","type":"Point","data":{"time":"2026-11-30T02:04:18Z","value":1,"tags":{"resultType":"matrix"}}}`
	r, err := Open("-", strings.NewReader(line))
	if err != nil || !r.Next() || r.Sample().Metric != "vus" {
		t.Errorf("point with a resultType tag: %v", err)
	}
}

// TestDeclaredMetrics: the Metric lines of open_ramp.json.gz (17, corpus
// README) are reachable through Open; a CSV has none.
func TestDeclaredMetrics(t *testing.T) {
	r, err := OpenAll([]string{corpusFile(t, corpusK6, "open_ramp.json.gz"), corpusFile(t, corpusPublic, "k6-csv-v0.5x-finance.csv")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for r.Next() {
	}
	m, ok := DeclaredMetrics(r)
	// corpus README (c): "thresholds":["count<1"] on dropped_iterations.
	if d := m["dropped_iterations"]; !ok || len(m) != 17 || d.Type != "counter" || !slices.Equal(d.Thresholds, []string{"count<1"}) {
		t.Errorf("ok=%v, %d metrics, dropped_iterations %+v", ok, len(m), m["dropped_iterations"])
	}
	if m["http_req_duration"].Contains != "time" {
		t.Errorf("http_req_duration %+v", m["http_req_duration"])
	}
	c, err := Open(corpusFile(t, corpusPublic, "k6-csv-v0.5x-finance.csv"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := DeclaredMetrics(c); ok {
		t.Error("a CSV reports declared metrics")
	}
}

// TestK6JSONQuietWrongValues: as TestCSVQuietWrongValues, for JSON lines.
func TestK6JSONQuietWrongValues(t *testing.T) {
	point := func(metric, ts, value string) string {
		return `{"metric":"` + metric + `","type":"Point","data":{"time":"` + ts + `","value":` + value + `,"tags":{"name":"menu"}}}`
	}
	for _, c := range []struct {
		line, want string
	}{
		{point("http_reqs", "9999-01-01T00:00:00Z", "1"), `test.json:1:53: time "9999-01-01T00:00:00Z": year 9999 is outside 1970–2200`},
		{point("http_reqs", "2201-01-01T00:00:00.5Z", "1"), `test.json:1:53: time "2201-01-01T00:00:00.5Z": year 2201 is outside 1970–2200`},
		{point("http_reqs", "1969-12-31T23:59:59.999Z", "1"), `test.json:1:53: time "1969-12-31T23:59:59.999Z": year 1969 is outside 1970–2200`},
		{point("http_reqs", "2026-11-30T02:04:18Z", "1e999"), `test.json:1:84: Point data: value 1e999: want a finite number`},
		{point("http_req_duration", "2026-11-30T02:04:18Z", "-12.5"), `test.json:1:92: value -12.5: http_req_duration is a k6 duration (ms) and cannot be negative`},
		{point("ws_session_duration", "2026-11-30T02:04:18Z", "-1e2"), `test.json:1:94: value -1e2: ws_session_duration is a k6 duration (ms) and cannot be negative`},
		// The same through encoding/json (an escaped tag value).
		{`{"metric":"group_duration","type":"Point","data":{"time":"2026-11-30T02:04:18Z","value":-3,"tags":{"group":"::a\u00e9"}}}`, `test.json:1:89: value -3: group_duration is a k6 duration (ms) and cannot be negative`},
		{`{"metric":"m","type":"Point","data":{"time":"9999-11-30T02:04:18Z","value":1,"tags":{"group":"::a\u00e9"}}}`, `test.json:1:45: time "9999-11-30T02:04:18Z": year 9999 is outside 1970–2200`},
	} {
		got, r := readAllJSON(t, c.line+"\n")
		st := r.Stats()
		if len(got) != 0 || len(st.Errors) != 1 {
			t.Errorf("%s: %d samples, errors %v; want one error", c.line, len(got), st.Errors)
			continue
		}
		if e := st.Errors[0].Error(); e != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.line, e, c.want)
		}
	}
	got, r := readAllJSON(t, point("clock_skew_ms", "2026-11-30T02:04:18Z", "-3.25")+"\n"+point("http_req_duration", "2200-12-31T23:59:59.999999999Z", "-0")+"\n")
	if len(got) != 2 || r.Stats().Skipped != 0 || got[0].Value != -3.25 {
		t.Errorf("custom negative Trend and -0: %+v, errors %v", got, r.Stats().Errors)
	}
}

// TestSpecialBytes checks the word test of scanString against the byte
// rule, for every byte value at every position of a word of otherwise
// plain letters, and for random words.
func TestSpecialBytes(t *testing.T) {
	special := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80 }
	word := func(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }
	for pos := range 8 {
		for c := range 256 {
			b := []byte("abcdefgh")
			b[pos] = byte(c)
			if got := specialBytes(word(b)) != 0; got != special(byte(c)) {
				t.Fatalf("byte %#x at %d: specialBytes says %v", c, pos, got)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		var b [8]byte
		want := false
		for i := range b {
			// Mostly printable ASCII, so that clean words are common.
			b[i] = byte(0x20 + rng.IntN(0x5f))
			if rng.IntN(16) == 0 {
				b[i] = byte(rng.IntN(256))
			}
			want = want || special(b[i])
		}
		if got := specialBytes(word(b[:])) != 0; got != want {
			t.Fatalf("%q: specialBytes says %v", b, got)
		}
	}
}

// TestScanNumber checks scanNumber against strconv.ParseFloat (which
// encoding/json uses) on numbers of every length up to 24 digits, with
// and without a fraction, sign and exponent, each followed by a '}' that
// ends the scan: alone, and followed by enough bytes (a k6 line's tags)
// for the word-at-a-time path, whose byte after the number is any of the
// ones around the digits.
func TestScanNumber(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	digits := func(n int, lead bool) string {
		var sb strings.Builder
		for i := range n {
			d := rng.IntN(10)
			if i == 0 && lead && d == 0 {
				d = 1 + rng.IntN(9)
			}
			sb.WriteByte(byte('0' + d))
		}
		return sb.String()
	}
	var cases []string
	for range 20000 {
		s := digits(1+rng.IntN(12), true)
		if rng.IntN(8) == 0 {
			s = "0"
		}
		if rng.IntN(2) == 0 {
			s += "." + digits(1+rng.IntN(12), false)
		}
		if rng.IntN(8) == 0 {
			s = "-" + s
		}
		if rng.IntN(16) == 0 {
			s += "e" + []string{"", "+", "-"}[rng.IntN(3)] + digits(1+rng.IntN(2), false)
		}
		cases = append(cases, s)
	}
	cases = append(cases, "12345678", "123456789012345678901234", "0.12345678", "0.1234567812345678", "99999999.99999999")
	cases = append(cases, "0", "1", "0.5", "1234567", "1234567.1234567", "12345678.5", "1.12345678", "9999999.9999999", "0.0000001")
	// After the number: what ends it in a line, or a byte next to the
	// digits' (one of them ends a digit run, '/' and ':'), or a high one.
	afters := []string{"}", ",", "/", ":", " ", "\xff", "\xfa0"}
	for _, s := range cases {
		want, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		got, end, ok := scanNumber([]byte(s+"}"), 0)
		if !ok || end != len(s) || got != want {
			t.Fatalf("scanNumber(%q) = %v, %d, %v; want %v, %d, true", s, got, end, ok, want, len(s))
		}
		for _, a := range afters {
			a, _ = strconv.Unquote(`"` + a + `"`)
			in := []byte(`"value":` + s + a + `,"tags":{"name":"x"}}}`)
			got, end, ok := scanNumber(in, 8)
			if !ok || end != 8+len(s) || got != want {
				t.Fatalf("scanNumber(%q, 8) = %v, %d, %v; want %v, %d, true", in, got, end, ok, want, 8+len(s))
			}
		}
	}
	for _, bad := range []string{"", "-", "01", "00", "00.5", "0123.4", ".5", "1.", "1.e5", "1e", "1e+", "+1", "-.5", "1234567.", "1.x"} {
		if _, end, ok := scanNumber([]byte(bad+"}"), 0); ok && end == len(bad) {
			t.Errorf("scanNumber(%q) accepted", bad)
		}
		if _, end, ok := scanNumber([]byte(bad+`},"tags":{"name":"x"}}}`), 0); ok && end == len(bad) {
			t.Errorf("scanNumber(%q…) accepted", bad)
		}
	}
}

// TestK6JSONRepeatedTails: lines whose tags repeat the line before's or a
// layout's last (scanTags' shortcuts), mixed with lines of another shape
// between two equal tags objects (scanPoint, encoding/json, no tags, null
// tags, a tags object too long to remember), read the same through Next
// and through Drain as through encoding/json's reading of each line alone.
func TestK6JSONRepeatedTails(t *testing.T) {
	long := strings.Repeat("x", 5000)
	pt := func(metric string, v int, tail string) string {
		return fmt.Sprintf(`{"metric":%q,"type":"Point","data":{"time":"2026-11-30T02:04:18.5Z","value":%d%s}}`, metric, v, tail)
	}
	a := `,"tags":{"name":"a","status":"200"}`
	b := `,"tags":{"name":"b","status":"500"}`
	lines := []string{
		pt("m1", 1, a), pt("m2", 2, a), pt("m3", 3, a),
		// another shape with other tags between two equal tails
		` {"metric":"m4","type":"Point","data":{"time":"2026-11-30T02:04:18.5Z","value":4,"tags":{"name":"b","status":"500"}}}`,
		pt("m5", 5, a),
		pt("m6", 6, b), pt("m7", 7, a+`,"metadata":{"vu":"1"}`), pt("m8", 8, a+`,"metadata":{"vu":"1"}`),
		pt("m9", 9, ""), pt("m10", 10, ""), pt("m11", 11, a),
		pt("m12", 12, `,"tags":null`), pt("m13", 13, `,"tags":null`), pt("m14", 14, a),
		pt("m15", 15, `,"tags":{"name":"`+long+`"}`), pt("m16", 16, `,"tags":{"name":"`+long+`"}`), pt("m17", 17, a),
		pt("m18", 18, `,"tags":{"name":"say \"hi\""}`), pt("m19", 19, a), pt("m20", 20, a),
		// another layout between two equal objects: the metric's layout's
		// last object (wLayout.obj), then the same with the other values
		pt("m1", 21, a), pt("c", 22, `,"tags":{"check":"ok"}`), pt("m1", 23, a), pt("c", 24, `,"tags":{"check":"ok"}`), pt("m1", 25, b),
		pt("c", 26, `,"tags":{"check":"ok"}`), pt("m1", 27, a),
	}
	src := strings.Join(lines, "\n") + "\n"
	var want []string
	for _, ln := range lines {
		var e struct {
			Metric string
			Data   struct {
				Value    float64
				Tags     map[string]string
				Metadata map[string]string
			}
		}
		if err := json.Unmarshal([]byte(ln), &e); err != nil {
			t.Fatal(err)
		}
		var pairs []string
		for k, v := range e.Data.Tags {
			if v != "" {
				pairs = append(pairs, k+"="+v)
			}
		}
		for k, v := range e.Data.Metadata {
			pairs = append(pairs, "@"+k+"="+v)
		}
		slices.Sort(pairs)
		want = append(want, fmt.Sprintf("%s %g %s", e.Metric, e.Data.Value, strings.Join(pairs, "&")))
	}
	flat := func(s *Sample) string { return fmt.Sprintf("%s %g %s", s.Metric, s.Value, tagString(s)) }
	var next []string
	r := NewK6JSONReader(strings.NewReader(src), "t.json")
	for r.Next() {
		next = append(next, flat(r.Sample()))
	}
	var drained []string
	d := NewK6JSONReader(strings.NewReader(src), "t.json")
	if err := d.Drain([]func(*Sample){func(s *Sample) { drained = append(drained, flat(s)) }}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(next, want) {
		t.Errorf("Next:\n got %q\nwant %q", next, want)
	}
	if !slices.Equal(drained, want) {
		t.Errorf("Drain:\n got %q\nwant %q", drained, want)
	}
}

// TestK6JSONQuickLines: the lines of one request (the last line's time
// and tail, quickRun's one-pass read) read as any other line, in Next and
// Drain: and not taken as such when the time, the tail or what follows it
// differs (CRLF, trailing spaces, more bytes, no newline at the end);
// their errors name their own line and column.
func TestK6JSONQuickLines(t *testing.T) {
	pt := func(metric, time, value, tail string) string {
		return fmt.Sprintf(`{"metric":%q,"type":"Point","data":{"time":%q,"value":%s%s}}`, metric, time, value, tail)
	}
	t0, t1 := "2026-11-30T02:04:18.5Z", "2026-11-30T02:04:19.25Z"
	a := `,"tags":{"name":"a","status":"200"}`
	lines := []string{
		pt("http_reqs", t0, "1", a),
		pt("http_req_duration", t0, "12.5", a),
		pt("http_req_waiting", t0, "1.5e1", a),
		pt("http_req_sending", t0, "0", a) + "\r",
		pt("http_req_receiving", t0, "0.25", a) + "  ",
		pt("http_req_blocked", t0, "3", a),
		pt("http_req_blocked", t1, "4", a),                                 // another time
		pt("http_req_failed", t1, "0", a[:len(a)-1]+`,"x":"y"}`),           // another tail
		pt("http_req_failed", t1, "1", a[:len(a)-1]+`,"x":"y"}`),           // quick again
		pt("http_req_duration", t1, "-1", a[:len(a)-1]+`,"x":"y"}`),        // a quick line in error
		pt("http_req_connecting", t1, "2", a[:len(a)-1]+`,"x":"y"}`) + `x`, // more after the tail
		pt("http_req_connecting", t1, "5", a[:len(a)-1]+`,"x":"y"}`),
		pt("http_req_tls_handshaking", t1, "6", a[:len(a)-1]+`,"x":"y"}`), // the last line, no newline
	}
	src := strings.Join(lines, "\n")
	var want []string
	for i, ln := range lines {
		if i == 9 || i == 10 {
			continue // the lines in error
		}
		var e struct {
			Metric string
			Data   struct {
				Time  time.Time
				Value float64
				Tags  map[string]string
			}
		}
		if err := json.Unmarshal([]byte(ln), &e); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		var pairs []string
		for k, v := range e.Data.Tags {
			pairs = append(pairs, k+"="+v)
		}
		slices.Sort(pairs)
		want = append(want, fmt.Sprintf("%s %d %g %s", e.Metric, e.Data.Time.UnixNano(), e.Data.Value, strings.Join(pairs, "&")))
	}
	flat := func(s *Sample) string { return fmt.Sprintf("%s %d %g %s", s.Metric, s.TimeNS, s.Value, tagString(s)) }
	wantErrs := []string{
		`t.json:10:95: value -1: http_req_duration is a k6 duration (ms) and cannot be negative`,
		`t.json:11:`,
	}
	check := func(how string, got []string, st Stats) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", how, got, want)
		}
		if len(st.Errors) != len(wantErrs) || st.Skipped != 2 {
			t.Fatalf("%s: %d skipped, errors %v; want 2", how, st.Skipped, st.Errors)
		}
		for i, e := range st.Errors {
			if !strings.HasPrefix(e.Error(), wantErrs[i]) {
				t.Errorf("%s: error %d %q, want %q…", how, i, e.Error(), wantErrs[i])
			}
		}
	}
	r := NewK6JSONReader(strings.NewReader(src), "t.json")
	var next []string
	for r.Next() {
		next = append(next, flat(r.Sample()))
	}
	check("Next", next, r.Stats())
	d := NewK6JSONReader(strings.NewReader(src), "t.json")
	var drained []string
	if err := d.Drain([]func(*Sample){func(s *Sample) { drained = append(drained, flat(s)) }}); err != nil {
		t.Fatal(err)
	}
	check("Drain", drained, d.Stats())
}
