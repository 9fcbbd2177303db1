package ingest

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fuzzSample is a sample as the fuzz targets compare them.
type fuzzSample struct {
	Metric string
	TimeNS int64
	Value  uint64 // bits
	Tags   string // sorted k=v of the non-empty tags, metadata as @k=v
}

func (f fuzzSample) String() string {
	return fmt.Sprintf("%s|%d|%v|%s", f.Metric, f.TimeNS, math.Float64frombits(f.Value), f.Tags)
}

func fuzzOf(s *Sample) fuzzSample {
	return fuzzSample{s.Metric, s.TimeNS, math.Float64bits(s.Value), tagString(s)}
}

// samplesOf decodes fuzz bytes into samples a k6 run could write: a metric
// from a list (built-in durations among them), a time in 1970–2200, a
// finite value (negative only where k6 allows it), and tags whose values
// may hold anything CSV must quote or JSON must escape (commas, quotes,
// newlines, backslashes, non-ASCII) but no '&' or '=' in user tags (k6's
// "k=v&k=v" fields cannot say those).
func samplesOf(data []byte) []fuzzRec {
	metrics := []string{"http_reqs", "http_req_duration", "checks", "vus", "iteration_duration", "my_trend", "data_sent"}
	colVals := []string{"", "menu", "GET", "200", "a,b", `say "hi"`, "two\nlines", `back\slash`, "é ü", " lead", "tab\tx"}
	userVals := []string{"", "x", "checkout", "a b", "ünï", `q"q`}
	var out []fuzzRec
	for len(data) >= 6 {
		b := data[:6]
		data = data[6:]
		r := fuzzRec{metric: metrics[int(b[0])%len(metrics)]}
		r.ns = int64(b[1])*37_000_000_000 + int64(b[2])*1_000_003 + 1_700_000_000_000_000_000
		v := float64(int(b[3])-64) * 1.25
		if v < 0 && builtinTimeMetrics[r.metric] {
			v = -v
		}
		r.value = strconv.FormatFloat(v, 'f', -1, 64)
		r.name = colVals[int(b[4])%len(colVals)]
		r.check = colVals[int(b[4]>>4)%len(colVals)]
		r.flow = userVals[int(b[5])%len(userVals)]
		r.vu = userVals[int(b[5]>>4)%len(userVals)]
		out = append(out, r)
	}
	return out
}

type fuzzRec struct {
	metric, value, name, check, flow, vu string
	ns                                   int64
}

// want is what a reader must return for r.
func (r fuzzRec) want() fuzzSample {
	v, _ := strconv.ParseFloat(r.value, 64)
	var tags []string
	for _, kv := range [][2]string{{"name", r.name}, {"check", r.check}, {"flow", r.flow}} {
		if kv[1] != "" {
			tags = append(tags, kv[0]+"="+kv[1])
		}
	}
	if r.vu != "" {
		tags = append(tags, "@vu="+r.vu)
	}
	slices.Sort(tags)
	return fuzzSample{r.metric, r.ns, math.Float64bits(v), strings.Join(tags, "&")}
}

// toCSV writes recs as k6 writes its CSV: encoding/csv quoting, the user tag
// in extra_tags, vu in metadata, unix_nano timestamps.
func toCSV(recs []fuzzRec) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"metric_name", "timestamp", "metric_value", "check", "name", "extra_tags", "metadata"})
	for _, r := range recs {
		extra, meta := "", ""
		if r.flow != "" {
			extra = "flow=" + r.flow
		}
		if r.vu != "" {
			meta = "vu=" + r.vu
		}
		w.Write([]string{r.metric, strconv.FormatInt(r.ns, 10), r.value, r.check, r.name, extra, meta})
	}
	w.Flush()
	return buf.Bytes()
}

// toJSON writes recs as k6 writes JSON lines (a Metric line before each
// metric's first Point, tags sorted, RFC 3339 nanosecond times).
func toJSON(recs []fuzzRec) []byte {
	var buf bytes.Buffer
	seen := map[string]bool{}
	for _, r := range recs {
		if !seen[r.metric] {
			seen[r.metric] = true
			fmt.Fprintf(&buf, `{"type":"Metric","data":{"name":%q,"type":"trend","contains":"time","thresholds":[],"submetrics":null},"metric":%q}`+"\n", r.metric, r.metric)
		}
		tags := map[string]string{}
		for _, kv := range [][2]string{{"name", r.name}, {"check", r.check}, {"flow", r.flow}} {
			if kv[1] != "" {
				tags[kv[0]] = kv[1]
			}
		}
		data := map[string]any{"time": time.Unix(0, r.ns).UTC().Format(time.RFC3339Nano), "value": json.RawMessage(r.value), "tags": tags}
		if r.vu != "" {
			data["metadata"] = map[string]string{"vu": r.vu}
		}
		line, _ := json.Marshal(map[string]any{"metric": r.metric, "type": "Point", "data": data})
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// readFuzz reads every sample of a CSV or JSON input through Open.
func readFuzz(t *testing.T, in []byte) ([]fuzzSample, Stats) {
	t.Helper()
	r, err := Open("-", bytes.NewReader(in))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer r.Close()
	var out []fuzzSample
	for r.Next() {
		out = append(out, fuzzOf(r.Sample()))
	}
	if r.Err() != nil {
		t.Fatalf("read: %v", r.Err())
	}
	return out, r.Stats()
}

// FuzzCSVJSONAgree: the same samples written as k6 CSV and as k6 JSON
// lines read back, through both readers, as exactly those samples, in
// order, with no line skipped; Drain returns them too. Seeds: the metric,
// time, value and tag choices of rows of the real corpus files (their bytes
// drive the choices).
func FuzzCSVJSONAgree(f *testing.F) {
	f.Add([]byte("\x01\x02\x03\x50\x14\x21\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte("\x02\xff\xff\x00\x66\x55"))
	for _, name := range []string{"timefmt_rfc3339_nano.csv", "custom_metrics_unix_milli.csv"} {
		if data, err := os.ReadFile(filepath.Join(corpusK6, name)); err == nil {
			f.Add(data[:min(len(data), 600)])
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		recs := samplesOf(data)
		var want []fuzzSample
		for _, r := range recs {
			want = append(want, r.want())
		}
		for _, in := range [][]byte{toCSV(recs), toJSON(recs)} {
			if len(in) == 0 {
				continue
			}
			got, st := readFuzz(t, in)
			if !slices.Equal(got, want) || st.Skipped != 0 {
				t.Fatalf("input\n%s\ngot  %v\nwant %v\nerrors %v", in, got, want, st.Errors)
			}
			r, _ := Open("-", bytes.NewReader(in))
			var drained []string
			var mu = make(chan struct{}, 1)
			sinks := []func(*Sample){func(s *Sample) { mu <- struct{}{}; drained = append(drained, fuzzOf(s).String()); <-mu },
				func(s *Sample) { mu <- struct{}{}; drained = append(drained, fuzzOf(s).String()); <-mu }}
			if err := r.(*closingReader).Drain(sinks); err != nil {
				t.Fatal(err)
			}
			var ws []string
			for _, w := range want {
				ws = append(ws, w.String())
			}
			slices.Sort(drained)
			slices.Sort(ws)
			if !slices.Equal(drained, ws) {
				t.Fatalf("Drain: %v, want %v", drained, ws)
			}
		}
	})
}
