package sim

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
)

// kept is a sample copied out of a reader.
type kept struct {
	metric string
	t      int64
	v      float64
	tags   map[string]string // non-empty tags
}

func keep(s *ingest.Sample) kept {
	k := kept{metric: s.Metric, t: s.TimeNS, v: s.Value, tags: map[string]string{}}
	s.Tags.Each(func(key, value string, metadata bool) {
		if !metadata {
			k.tags[key] = value
		}
	})
	return k
}

func readAll(t *testing.T, r ingest.Reader) []kept {
	t.Helper()
	defer r.Close()
	var out []kept
	for r.Next() {
		out = append(out, keep(r.Sample()))
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if st := r.Stats(); st.Skipped != 0 {
		t.Fatalf("%d lines skipped: %v", st.Skipped, st.Errors)
	}
	return out
}

// writeFile writes a run with write into a temporary file and returns its
// path.
func writeFile(t *testing.T, name string, write func(io.Writer) error) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := write(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// sameSamples compares what a file gave back with the stream, sample by
// sample: metric, tags, the value to the CSV's 6 decimals and the time to
// the file's resolution.
func sameSamples(t *testing.T, file, want []kept, resNS int64) {
	t.Helper()
	if len(file) != len(want) {
		t.Fatalf("file has %d samples, the stream %d", len(file), len(want))
	}
	for i := range want {
		f, w := file[i], want[i]
		if f.metric != w.metric || f.t != w.t/resNS*resNS || math.Abs(f.v-w.v) > 5e-7 || !maps.Equal(f.tags, w.tags) {
			t.Fatalf("sample %d:\nfile   %+v\nstream %+v", i, f, w)
		}
	}
}

func streamed(t *testing.T, c Config) []kept {
	t.Helper()
	s, err := NewStream(c)
	if err != nil {
		t.Fatal(err)
	}
	return readAll(t, s)
}

func TestCSVReadsBackWithIngest(t *testing.T) {
	// Every CSV shape reads back through ingest.Open sample for sample: the
	// default unix seconds, unix_milli, rfc3339_nano, gzip, restricted
	// system tags, the full HTTP timings, gRPC and WebSocket runs.
	short := OpenRamp30s()
	restricted := OpenRamp30s()
	restricted.Output.NoExpectedResponse, restricted.Output.NoStatus = true, true
	timings := OpenRamp30s()
	timings.Output.HTTPTimings = true
	timings.RunTags = map[string]string{"testid": "sim-1", "flow": "x,y"} // a comma: the field is quoted
	for _, tc := range []struct {
		name string
		cfg  Config
		opt  CSVOptions
		res  int64
	}{
		{"unix", short, CSVOptions{}, 1e9},
		{"unix_milli", short, CSVOptions{TimeFormat: "UNIX_MILLI"}, 1e6},
		{"rfc3339_nano.gz", short, CSVOptions{TimeFormat: TimeRFC3339Nano, Gzip: true}, 1},
		{"restricted", restricted, CSVOptions{}, 1e9},
		{"timings", timings, CSVOptions{TimeFormat: TimeUnixNano}, 1},
		{"grpc", GRPCRamp(), CSVOptions{}, 1e9},
		{"ws", WSLadder(), CSVOptions{TimeFormat: TimeUnixMicro}, 1e3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, tc.name+".csv", func(w io.Writer) error { _, err := WriteCSV(w, tc.cfg, tc.opt); return err })
			r, err := ingest.Open(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			sameSamples(t, readAll(t, r), streamed(t, tc.cfg), tc.res)
		})
	}
}

func TestJSONReadsBackWithIngest(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		gz   bool
	}{{"http", OpenRamp30s(), false}, {"grpc.gz", GRPCRamp(), true}, {"ws", WSLadder(), false}} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, tc.name+".json", func(w io.Writer) error {
				_, err := WriteJSON(w, tc.cfg, JSONOptions{Gzip: tc.gz})
				return err
			})
			r, err := ingest.Open(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			sameSamples(t, readAll(t, r), streamed(t, tc.cfg), 1)
		})
	}
}

func TestJSONMetricLineBeforeFirstPoint(t *testing.T) {
	var buf bytes.Buffer
	if _, err := WriteJSON(&buf, OpenRamp30s(), JSONOptions{}); err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, `{"type":"Metric","data":{"name":"`):
			name := strings.SplitN(l[len(`{"type":"Metric","data":{"name":"`):], `"`, 2)[0]
			if declared[name] {
				t.Fatalf("metric %s declared twice", name)
			}
			declared[name] = true
		case strings.HasPrefix(l, `{"metric":"`):
			name := strings.SplitN(l[len(`{"metric":"`):], `"`, 2)[0]
			if !declared[name] {
				t.Fatalf("point of %s before its Metric line: %s", name, l)
			}
		default:
			t.Fatalf("unexpected line %s", l)
		}
	}
	if len(declared) != 11 { // http_reqs, _duration, _waiting, _failed, checks, data_sent, data_received, iteration_duration, iterations, vus, vus_max
		t.Errorf("%d metrics declared, want 11: %v", len(declared), declared)
	}
}

// corpusLines returns the first n lines of a shared corpus file, or skips.
func corpusLines(t *testing.T, name string, n int) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("../../../shared/corpus", name))
	if err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	for len(out) < n && sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func TestFormatMatchesCorpus(t *testing.T) {
	// The CSV header is k6's 19-column default (shared/corpus/k6/open_ramp.csv.gz),
	// a 200 and a 429 row have the corpus rows' shape field for field, and
	// the JSON Metric and Point lines of http_reqs are shaped as in
	// open_ramp.json.gz.
	corpus := corpusLines(t, "k6/open_ramp.csv.gz", 2)
	var buf bytes.Buffer
	c := OpenRamp30s()
	c.Server.Classes[3].Timeout = 30 * time.Millisecond // slow takes 20–60 ms: some time out
	if _, err := WriteCSV(&buf, c, CSVOptions{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	if lines[0] != corpus[0] {
		t.Fatalf("header\n%s\nwant\n%s", lines[0], corpus[0])
	}
	// corpus: http_reqs,1796004258,1.000000,,,,true,,POST,order,HTTP/1.1,open_ramp,,200,,,order,,
	want := map[string]string{
		"200": "http_reqs,T,1.000000,,,,true,,GET,menu,HTTP/1.1,open_ramp,,200,,,menu,,",
		"429": "http_reqs,T,1.000000,,,1429,false,,GET,search,HTTP/1.1,open_ramp,,429,,,search,,",
		"0":   "http_reqs,T,1.000000,,request timeout,1050,false,,GET,slow,,open_ramp,,0,,,slow,,",
	}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if len(f) != 19 || f[0] != "http_reqs" {
			continue
		}
		if w, ok := want[f[13]]; ok {
			f[1] = "T"
			if got := strings.Join(f, ","); got != w {
				t.Errorf("status %s row\n%s\nwant\n%s", f[13], got, w)
			}
			delete(want, f[13])
		}
	}
	if len(want) > 0 {
		t.Errorf("no row for %v", want)
	}

	cj := corpusLines(t, "k6/open_ramp.json.gz", 2)
	buf.Reset()
	if _, err := WriteJSON(&buf, OpenRamp30s(), JSONOptions{}); err != nil {
		t.Fatal(err)
	}
	var metric, point string
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.Contains(l, `"name":"http_reqs"`) {
			metric = l
		}
		if point == "" && strings.HasPrefix(l, `{"metric":"http_reqs"`) {
			point = l
		}
	}
	if metric != cj[0] {
		t.Errorf("Metric line\n%s\nwant\n%s", metric, cj[0])
	}
	// http_req_duration's Metric line, with no threshold, as in
	// shared/corpus/public/k6-jsonl-2024-load-template.json (k6's summary
	// submetric).
	wantDur := `{"type":"Metric","data":{"name":"http_req_duration","type":"trend","contains":"time","thresholds":[],"submetrics":[{"name":"http_req_duration{expected_response:true}","suffix":"expected_response:true","tags":{"expected_response":"true"}}]},"metric":"http_req_duration"}`
	if !strings.Contains(buf.String(), "\n"+wantDur+"\n") {
		t.Errorf("no Metric line %s", wantDur)
	}
	shape := func(l string) string { // the time and the tag values differ
		i, j := strings.Index(l, `"time":"`), strings.Index(l, `","value"`)
		return l[:i] + l[j:]
	}
	wantPoint := strings.Replace(strings.Replace(shape(cj[1]), `"POST","name":"order"`, `"GET","name":"menu"`, 1), `"url":"order"`, `"url":"menu"`, 1)
	if shape(point) != wantPoint {
		t.Errorf("Point line\n%s\nwant\n%s", shape(point), wantPoint)
	}
}

func TestDeterministicBytes(t *testing.T) {
	// Same seed, same bytes; another seed, other bytes.
	sum := func(c Config) [32]byte {
		h := sha256.New()
		if _, err := WriteCSV(h, c, CSVOptions{TimeFormat: TimeUnixNano}); err != nil {
			t.Fatal(err)
		}
		if _, err := WriteJSON(h, c, JSONOptions{}); err != nil {
			t.Fatal(err)
		}
		return [32]byte(h.Sum(nil))
	}
	a, b := sum(TwoAtOnce()), sum(TwoAtOnce())
	if a != b {
		t.Fatal("two runs of one config differ")
	}
	c := TwoAtOnce()
	c.Seed = 2
	if sum(c) == a {
		t.Fatal("seeds 1 and 2 give the same bytes")
	}
}

func TestRowOrder(t *testing.T) {
	// With PushJitter rows come in k6's buffer order: small time inversions
	// between VUs (under 1 ms here), never within one VU's request →
	// check → iteration sequence. Without it they are in time order.
	for _, jitter := range []time.Duration{0, 20 * time.Microsecond} {
		c := OpenRamp3m()
		c.Output.PushJitter = jitter
		s, err := NewStream(c)
		if err != nil {
			t.Fatal(err)
		}
		var last, worst int64
		inversions := 0
		for s.Next() {
			sm := s.Sample()
			if d := last - sm.TimeNS; d > 0 {
				inversions++
				worst = max(worst, d)
			}
			last = max(last, sm.TimeNS)
		}
		switch {
		case jitter == 0 && inversions > 0:
			t.Errorf("no jitter: %d inversions", inversions)
		case jitter > 0 && (inversions == 0 || worst > 1e6):
			t.Errorf("jitter %v: %d inversions, worst %d ns; want some, under 1 ms", jitter, inversions, worst)
		}
	}
}

func TestRestrictedSystemTagsHeader(t *testing.T) {
	// --system-tags without expected_response and status drops both
	// columns; http_req_failed is still emitted (k6 emits it from the
	// response callback, not from the tag).
	c := OpenRamp30s()
	c.Output.NoExpectedResponse, c.Output.NoStatus = true, true
	var buf bytes.Buffer
	if _, err := WriteCSV(&buf, c, CSVOptions{}); err != nil {
		t.Fatal(err)
	}
	header, rest, _ := strings.Cut(buf.String(), "\n")
	want := "metric_name,timestamp,metric_value,check,error,error_code,group,method,name,proto,scenario,service,subproto,tls_version,url,extra_tags,metadata"
	if header != want {
		t.Fatalf("header\n%s\nwant\n%s", header, want)
	}
	if !strings.Contains(rest, "\nhttp_req_failed,") {
		t.Error("no http_req_failed rows")
	}
}

func TestBadTimeFormat(t *testing.T) {
	_, err := WriteCSV(io.Discard, OpenRamp30s(), CSVOptions{TimeFormat: "iso"})
	want := `sim: unknown CSV time format "iso" (unix, unix_milli, unix_micro, unix_nano, rfc3339 or rfc3339_nano)`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
}
