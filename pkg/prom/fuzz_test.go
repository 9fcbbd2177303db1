package prom

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"gopkg.in/yaml.v3"
)

// seedFiles adds the bytes of real files as seeds: the fixtures of
// testdata/prom and the first 64 KB of the k6-v2 corpus exports.
func seedFiles(f *testing.F, globs ...string) {
	for _, g := range globs {
		paths, _ := filepath.Glob(g)
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			if strings.HasSuffix(p, ".gz") {
				zr, err := gzip.NewReader(bytes.NewReader(b))
				if err != nil {
					continue
				}
				b, _ = io.ReadAll(io.LimitReader(zr, 64<<10))
			}
			f.Add(b)
		}
	}
}

// sameSeries compares two normalised series lists point by point, NaN
// equal to NaN, histograms included.
func sameSeries(a, b []Series) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d series vs %d", len(a), len(b))
	}
	eq := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	for i := range a {
		if a[i].Key() != b[i].Key() || len(a[i].Points) != len(b[i].Points) || len(a[i].Histograms) != len(b[i].Histograms) {
			return fmt.Errorf("series %d: %s (%d, %d) vs %s (%d, %d)", i, a[i].Key(), len(a[i].Points), len(a[i].Histograms), b[i].Key(), len(b[i].Points), len(b[i].Histograms))
		}
		for j := range a[i].Points {
			p, q := a[i].Points[j], b[i].Points[j]
			if p.TimeNS != q.TimeNS || !eq(p.Value, q.Value) {
				return fmt.Errorf("%s point %d: %+v vs %+v", a[i].Key(), j, p, q)
			}
		}
		for j := range a[i].Histograms {
			p, q := a[i].Histograms[j], b[i].Histograms[j]
			if p.TimeNS != q.TimeNS || !eq(p.Count, q.Count) || !eq(p.Sum, q.Sum) || len(p.Buckets) != len(q.Buckets) {
				return fmt.Errorf("%s histogram %d: %+v vs %+v", a[i].Key(), j, p, q)
			}
		}
	}
	return nil
}

// invariants of every reader's result: series sorted by key with distinct
// keys, points in strictly increasing time order.
func checkInvariants(t *testing.T, d *Data) {
	t.Helper()
	for i, s := range d.Series {
		if i > 0 && d.Series[i-1].Key() >= s.Key() {
			t.Fatalf("series %d: keys out of order or repeated: %s, %s", i, d.Series[i-1].Key(), s.Key())
		}
		for j := 1; j < len(s.Points); j++ {
			if s.Points[j].TimeNS <= s.Points[j-1].TimeNS {
				t.Fatalf("%s: points %d, %d out of order", s.Key(), j-1, j)
			}
		}
		for j := 1; j < len(s.Histograms); j++ {
			if s.Histograms[j].TimeNS <= s.Histograms[j-1].TimeNS {
				t.Fatalf("%s: histograms %d, %d out of order", s.Key(), j-1, j)
			}
		}
	}
}

// msTruncated is d's series with times cut to whole milliseconds, the
// API's resolution.
func msTruncated(ss []Series) []Series {
	out := make([]Series, len(ss))
	for i, s := range ss {
		out[i] = Series{Labels: s.Labels}
		for _, p := range s.Points {
			p.TimeNS -= p.TimeNS % 1e6
			out[i].Points = append(out[i].Points, p)
		}
		for _, h := range s.Histograms {
			h.TimeNS -= h.TimeNS % 1e6
			out[i].Histograms = append(out[i].Histograms, h)
		}
	}
	out, _ = Normalize(out)
	return out
}

// Round trip: what ParseAPI reads from a matrix, written back with
// MarshalMatrix and read again, is the same series.
func FuzzParseAPI(f *testing.F) {
	f.Add([]byte(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"a":"b"},"values":[[1,"NaN"]]}]}}`))
	f.Add([]byte(`{"status":"success","data":{"resultType":"scalar","result":[1,"1"]}}`))
	f.Add([]byte(`{"status":"error","errorType":"x","error":"y"}`))
	f.Add([]byte(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"h"},"histograms":[[1,{"count":"2","sum":"0.3","buckets":[[0,"0.1","0.2","2"]]}]]}]}}`))
	seedFiles(f, "../../testdata/prom/*/*.json", "../../../shared/corpus/k6-v2/*.prom_query_range.json.gz")
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ParseAPI(b, "f")
		if err != nil {
			return
		}
		checkInvariants(t, d)
		if d.ResultType != "matrix" {
			return
		}
		out, err := MarshalMatrix(d.Series, d.Warnings)
		if err != nil {
			t.Fatal(err)
		}
		d2, err := ParseAPI(out, "round trip")
		if err != nil {
			t.Fatalf("re-reading %s: %v", out, err)
		}
		if err := sameSeries(msTruncated(d.Series), d2.Series); err != nil {
			t.Fatalf("round trip: %v\n%s", err, out)
		}
	})
}

// Agreement: the streaming reader over a file of responses (ReadResponses)
// and ParseAPI of the same single response read the same series.
func FuzzReadResponses(f *testing.F) {
	f.Add([]byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":"b"},"value":[1,"2"]}]}}`))
	seedFiles(f, "../../testdata/prom/*/*.json")
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ParseAPI(b, "f")
		rs, err2 := ReadResponses(bytes.NewReader(b), "f")
		if (err == nil) != (err2 == nil) {
			t.Fatalf("ParseAPI: %v; ReadResponses: %v", err, err2)
		}
		if err != nil {
			return
		}
		if len(rs) != 1 {
			t.Fatalf("%d responses", len(rs))
		}
		if err := sameSeries(d.Series, rs[0].Data.Series); err != nil {
			t.Fatal(err)
		}
	})
}

// Invariants: Grafana CSV series are sorted, distinct, in time order.
func FuzzGrafanaCSV(f *testing.F) {
	f.Add([]byte("\"Time\",\"{pod=\"\"a\"\"}\"\r\n1700000000000,1\r\n\r\nTime;x\n2024-01-02 15:04:05;2\n"))
	f.Add([]byte("Series,Time,Value\na,1,2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ReadGrafanaCSV(bytes.NewReader(b), "f", GrafanaOptions{})
		if err == nil {
			checkInvariants(t, d)
		}
	})
}

// Round trip: VictoriaMetrics lines written back from what ReadVM read
// are read to the same series.
func FuzzVM(f *testing.F) {
	f.Add([]byte(`{"metric":{"__name__":"up"},"values":[1,"NaN"],"timestamps":[1,2]}` + "\n"))
	f.Add([]byte(`{"metric":{"a":"b"},"values":[1.5,2],"timestamps":[1700000000000,1700000015000]}` + "\n" + `{"metric":{"a":"b"},"values":[3],"timestamps":[1700000030000]}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ReadVM(bytes.NewReader(b), "f")
		if err != nil {
			return
		}
		checkInvariants(t, d)
		var out bytes.Buffer
		for _, s := range d.Series {
			var vals, ts []string
			for _, p := range s.Points {
				ts = append(ts, strconv.FormatInt(p.TimeNS/1e6, 10))
				v := strconv.FormatFloat(p.Value, 'g', -1, 64)
				if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
					v = strconv.Quote(v)
				}
				vals = append(vals, v)
			}
			lb, _ := jsonMarshal(s.Labels)
			fmt.Fprintf(&out, `{"metric":%s,"values":[%s],"timestamps":[%s]}`+"\n", lb, strings.Join(vals, ","), strings.Join(ts, ","))
		}
		d2, err := ReadVM(&out, "round trip")
		if err != nil || len(d2.Skipped) > 0 {
			t.Fatalf("re-reading: %v %v\n%s", err, d2.Skipped, out.String())
		}
		if err := sameSeries(d.Series, d2.Series); err != nil {
			t.Fatal(err)
		}
	})
}

// Round trip: text written back from what ReadText read (one line per
// point, `name{labels} value ms`) is read to the same series.
func FuzzText(f *testing.F) {
	f.Add([]byte("# TYPE c counter\nc_total{a=\"b\"} 1 1700000000\n# EOF\n"))
	f.Add([]byte("x{a=\"b\"} NaN 1700000000000\n"))
	f.Add(openMetricsSeries(3))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ReadText(bytes.NewReader(b), "f")
		if err != nil {
			return
		}
		checkInvariants(t, d)
		var out bytes.Buffer
		for _, s := range d.Series {
			name := s.Labels["__name__"]
			var ls []string
			for _, k := range sortedKeys(s.Labels) {
				if k != "__name__" {
					ls = append(ls, k+"="+strconv.Quote(s.Labels[k]))
				}
			}
			for _, p := range s.Points {
				fmt.Fprintf(&out, "%s{%s} %s %d\n", name, strings.Join(ls, ","), strconv.FormatFloat(p.Value, 'g', -1, 64), p.TimeNS/1e6)
			}
		}
		if bytes.ContainsAny(out.Bytes(), "\x00") || !isPromText(out.Bytes()) {
			return
		}
		d2, err := ReadText(&out, "round trip")
		if err != nil {
			// Go quoting (\u escapes, \x) is not the text format's; such
			// label values do not round trip through this writer.
			return
		}
		if err := sameSeries(d.Series, d2.Series); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
	})
}

// isPromText reports whether b has no byte that strconv.Quote would
// escape beyond the text format's \\, \" and \n.
func isPromText(b []byte) bool {
	return !bytes.Contains(b, []byte(`\x`)) && !bytes.Contains(b, []byte(`\u`)) && !bytes.Contains(b, []byte(`\U`)) &&
		!bytes.Contains(b, []byte(`\t`)) && !bytes.Contains(b, []byte(`\r`)) && !bytes.Contains(b, []byte(`\a`)) &&
		!bytes.Contains(b, []byte(`\b`)) && !bytes.Contains(b, []byte(`\f`)) && !bytes.Contains(b, []byte(`\v`))
}

// Invariants and round trip of query files: a file that reads has
// distinct, valid names, keeps the presets unless "presets: false", and
// written back as YAML (presets: false, every query) reads to the same
// list.
func FuzzReadQueries(f *testing.F) {
	f.Add([]byte("queries:\n  - name: db_cpu\n    expr: x\n    role: utilisation_ratio\n"))
	f.Add([]byte("presets: false\nqueries:\n  - name: a\n    expr: up\n    counter: true\n    unit: count\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		qs, err := ReadQueries(bytes.NewReader(b), "q.yaml")
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, q := range qs {
			if err := q.check(); err != nil {
				t.Fatalf("query %+v: %v", q, err)
			}
			if seen[q.Name] {
				t.Fatalf("name %q twice", q.Name)
			}
			seen[q.Name] = true
		}
		no := false
		out, err := yaml.Marshal(QueryFile{Presets: &no, Queries: qs})
		if err != nil {
			t.Fatal(err)
		}
		qs2, err := ReadQueries(bytes.NewReader(out), "round trip")
		if err != nil {
			t.Fatalf("re-reading %s: %v", out, err)
		}
		if fmt.Sprint(qs) != fmt.Sprint(qs2) {
			t.Fatalf("round trip:\n%+v\n%+v", qs, qs2)
		}
	})
}

// Invariants and round trip of export directories: with the fuzzed bytes
// as manifest.json beside a real query file, a directory that reads has
// one Data per query, each a matrix; written back with WriteDir and read
// again, it is the same export.
func FuzzReadDir(f *testing.F) {
	seedFiles(f, "../../testdata/prom/*/manifest.json")
	query, err := os.ReadFile("../../testdata/prom/two_pods/pod_cpu_cores.json")
	if err != nil {
		f.Skip(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"pod_cpu_cores.json", "pod_cpu_limit_cores.json", "restarts.json", "oom_killed.json", "x.json"} {
			if err := os.WriteFile(filepath.Join(dir, n), query, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		e, err := ReadDir(dir)
		if err != nil {
			return
		}
		if len(e.Data) != len(e.Manifest.Queries) {
			t.Fatalf("%d data for %d queries", len(e.Data), len(e.Manifest.Queries))
		}
		for _, d := range e.Data {
			if d.ResultType != "matrix" {
				t.Fatalf("result type %q", d.ResultType)
			}
			checkInvariants(t, d)
		}
		out := t.TempDir()
		if err := WriteDir(out, e); err != nil {
			return // a file name that the fuzzer made unwritable
		}
		e2, err := ReadDir(out)
		if err != nil {
			t.Fatalf("re-reading: %v", err)
		}
		if len(e2.Data) != len(e.Data) {
			t.Fatalf("%d vs %d queries", len(e2.Data), len(e.Data))
		}
		for i := range e.Data {
			if err := sameSeries(e.Data[i].Series, e2.Data[i].Series); err != nil {
				t.Fatalf("query %d: %v", i, err)
			}
		}
	})
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}

// Agreement: the reflection-free values parser and prometheus/common's
// model.SamplePair decoding read the same points wherever the fast one
// accepts its input.
func FuzzParsePairs(f *testing.F) {
	f.Add([]byte(`[[1700000000.123,"1.5"],[1700000015,"NaN"], [ 1700000030.5 , "+Inf" ]]`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`[[-1.0009,"-2e3"]]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := parsePairs(b, nil)
		if !ok {
			return
		}
		var sps []model.SamplePair
		if err := json.Unmarshal(b, &sps); err != nil {
			t.Fatalf("fast parser accepted %q, model rejects it: %v", b, err)
		}
		if len(sps) != len(got) {
			t.Fatalf("%d points vs %d", len(got), len(sps))
		}
		for i, sp := range sps {
			w := Point{TimeNS: int64(sp.Timestamp) * 1e6, Value: float64(sp.Value)}
			if got[i].TimeNS != w.TimeNS || !(got[i].Value == w.Value || math.IsNaN(got[i].Value) && math.IsNaN(w.Value)) {
				t.Fatalf("point %d: %+v, model %+v (input %q)", i, got[i], w, b)
			}
		}
	})
}

// TestReadResponsesCutBundle: an object of responses cut before its
// closing '}' is an error naming the file and where it ends, not the
// responses read so far (FuzzReadResponses found it accepted).
func TestReadResponsesCutBundle(t *testing.T) {
	_, err := ReadResponses(strings.NewReader(`{"a":{"status":"success","data":{"resultType":"vector","result":[]}}`), "cut.json")
	if err == nil || !strings.Contains(err.Error(), "cut.json:1:") || !strings.Contains(err.Error(), "'}' closing the object of responses") {
		t.Errorf("got %v, want an error at cut.json:1 naming the missing '}'", err)
	}
}
