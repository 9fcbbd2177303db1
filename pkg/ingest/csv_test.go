package ingest

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const hdr = "metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata\n"

func readString(t *testing.T, in string) ([]Sample, Stats) {
	t.Helper()
	r, err := NewCSVReader(strings.NewReader(in), "t.csv")
	if err != nil {
		t.Fatalf("NewCSVReader: %v", err)
	}
	var out []Sample
	for r.Next() {
		s := *r.Sample()
		s.Tags = NewTags(s.Tags.Keys(), s.Tags.AppendValues(nil), s.Tags.Extra(), s.Tags.Metadata())
		out = append(out, s)
	}
	if err := r.Err(); err != nil {
		t.Fatalf("Err: %v", err)
	}
	return out, r.Stats()
}

func TestCSVDefaultHeader(t *testing.T) {
	in := hdr +
		"http_reqs,1796004429,1.000000,,,,true,,GET,search,HTTP/1.1,breakpoint,,200,,,search,,\n" +
		"http_req_duration,1796004429,6.653599,,,,true,,GET,search,HTTP/1.1,breakpoint,,200,,,search,flow=browse&testid=x,vu=1&iter=0&trace_id=t1-0\n"
	got, st := readString(t, in)
	if len(got) != 2 || st.Rows != 2 || st.Skipped != 0 {
		t.Fatalf("got %d samples, stats %+v", len(got), st)
	}
	s := got[1]
	if s.Metric != "http_req_duration" || s.Value != 6.653599 || s.TimeNS != 1796004429e9 {
		t.Errorf("sample = %+v", s)
	}
	for k, want := range map[string]string{"name": "search", "status": "200", "scenario": "breakpoint", "flow": "browse", "testid": "x", "trace_id": "t1-0", "vu": "1"} {
		if v, ok := s.Tags.Get(k); !ok || v != want {
			t.Errorf("Tags.Get(%q) = %q, %v; want %q", k, v, ok, want)
		}
	}
	if _, ok := s.Tags.Get("group"); ok {
		t.Error("empty group column must read as absent")
	}
	if st.ResolutionNS != 1e9 {
		t.Errorf("resolution = %d, want 1e9 (unix seconds)", st.ResolutionNS)
	}
}

// TestCSVHeaders checks every header k6 has shipped (research/k6-formats.md
// §1.2) and restricted/extended --system-tags: columns map by name.
func TestCSVHeaders(t *testing.T) {
	for _, h := range []string{
		"metric_name,timestamp,metric_value,check,error,error_code,group,method,name,proto,status,subproto,tls_version,url,extra_tags",                                    // v0.26
		"metric_name,timestamp,metric_value,check,error,error_code,group,method,name,proto,scenario,status,subproto,tls_version,url,extra_tags",                           // v0.27
		"metric_name,timestamp,metric_value,check,error,error_code,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags",                   // v0.30
		"metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags", // v0.31
		strings.TrimSuffix(hdr, "\n"),                                                       // v0.41 – v2.x
		"metric_name,timestamp,metric_value,name,status,extra_tags,metadata",                // --system-tags name,status
		"metric_name,timestamp,metric_value,ip,name,ocsp_status,status,extra_tags,metadata", // extended
		"timestamp,metric_value,metric_name,status,name",                                    // reordered, no extra_tags
	} {
		cols := strings.Split(h, ",")
		vals := make([]string, len(cols))
		for i, c := range cols {
			switch c {
			case "metric_name":
				vals[i] = "http_reqs"
			case "timestamp":
				vals[i] = "1619922931"
			case "metric_value":
				vals[i] = "1.000000"
			case "name":
				vals[i] = "menu"
			case "status":
				vals[i] = "503"
			case "extra_tags":
				vals[i] = "a=b"
			}
		}
		got, st := readString(t, h+"\n"+strings.Join(vals, ",")+"\n")
		if len(got) != 1 || st.Skipped != 0 {
			t.Errorf("%s: %d samples, %d skipped", h, len(got), st.Skipped)
			continue
		}
		s := got[0]
		n, _ := s.Tags.Get("name")
		stt, _ := s.Tags.Get("status")
		if s.Metric != "http_reqs" || s.TimeNS != 1619922931e9 || s.Value != 1 || n != "menu" || stt != "503" {
			t.Errorf("%s: sample %+v", h, s)
		}
	}
}

// TestCSVTimeFormats covers the six K6_CSV_TIME_FORMAT encodings
// (research/k6-formats.md §1.4); the expected instants are hand-converted.
func TestCSVTimeFormats(t *testing.T) {
	want := time.Date(2026, 11, 30, 2, 2, 31, 351736931, time.UTC)
	for _, c := range []struct {
		ts     string
		ns     int64
		res    int64
		format string
	}{
		{"1796004151", 1796004151e9, 1e9, "unix"},
		{"1796004151351", 1796004151351e6, 1e6, "unix_milli"},
		{"1796004151351736", 1796004151351736e3, 1e3, "unix_micro"},
		{"1796004151351736931", want.UnixNano(), 1, "unix_nano"},
		{"2026-11-30T02:02:31Z", 1796004151e9, 1e9, "rfc3339"},
		{"2026-11-30T04:02:31+02:00", 1796004151e9, 1e9, "rfc3339 with offset"},
		{"2026-11-30T02:02:31.351736931Z", want.UnixNano(), 1, "rfc3339_nano"},
		{"2026-11-30T02:02:31.35Z", 1796004151350e6, 1e7, "rfc3339_nano, trailing zeros trimmed"},
	} {
		got, st := readString(t, hdr+"vus,"+c.ts+",3.000000,,,,,,,,,,,,,,,,\n")
		if len(got) != 1 {
			t.Errorf("%s: %d samples, errors %v", c.format, len(got), st.Errors)
			continue
		}
		if got[0].TimeNS != c.ns || st.ResolutionNS != c.res {
			t.Errorf("%s %q: time %d res %d, want %d res %d", c.format, c.ts, got[0].TimeNS, st.ResolutionNS, c.ns, c.res)
		}
	}
}

// TestCSVErrors checks the exact messages of malformed lines, and that the
// read goes on past them.
func TestCSVErrors(t *testing.T) {
	in := hdr +
		"http_reqs,1796004429,1.000000,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,,\n" +
		"http_reqs,17960x4429,1.000000,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,,\n" +
		"http_reqs,1796004429,abc,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,,\n" +
		"http_reqs,1796004429,1.0\n" +
		",1796004429,1.000000,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,,\n" +
		"http_reqs,1796004429,NaN,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,,\n" +
		"checks,1796004429,1.000000,\"a \"\"quoted\"\", check\",,,,,,,,s,,,,,,,\n" +
		"checks,1796004429,1.000000,\"bad\"x,,,,,,,,s,,,,,,,\n" +
		"http_reqs,1796004430,1.000000,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,,\n"
	got, st := readString(t, in)
	if len(got) != 3 {
		t.Fatalf("got %d samples, want 3 (errors %v)", len(got), st.Errors)
	}
	if c, _ := got[1].Tags.Get("check"); c != `a "quoted", check` {
		t.Errorf("quoted check = %q", c)
	}
	want := []string{
		`t.csv:3:11: timestamp "17960x4429": want unix seconds/ms/µs/ns digits or RFC 3339 (2006-01-02T15:04:05.999999999Z07:00)`,
		`t.csv:4:22: metric_value "abc": want a number`,
		`t.csv:5: want 19 fields as in the header, got 3`,
		`t.csv:6:1: empty metric_name`,
		`t.csv:7:22: metric_value "NaN": want a finite number`,
		`t.csv:9:33: extraneous character 'x' after a quoted field`,
	}
	if st.Skipped != int64(len(want)) {
		t.Errorf("skipped %d, want %d", st.Skipped, len(want))
	}
	for i, e := range st.Errors {
		if i < len(want) && e.Error() != want[i] {
			t.Errorf("error %d = %q\n want %q", i, e.Error(), want[i])
		}
	}
}

func TestCSVBadHeader(t *testing.T) {
	for in, want := range map[string]string{
		"":                  "t.csv: empty file: want a k6 CSV header (metric_name,timestamp,metric_value,...)",
		"time,value\n1,2\n": `t.csv:1: not a k6 CSV header: no metric_name, timestamp, metric_value column (first field "time"); want metric_name,timestamp,metric_value,<tags>,extra_tags[,metadata]`,
		"metric_name,timestamp,metric_value,name,name\n": `t.csv:1:41: duplicate column "name" in the header`,
	} {
		_, err := NewCSVReader(strings.NewReader(in), "t.csv")
		if err == nil || err.Error() != want {
			t.Errorf("%q: err = %v\n want %s", in, err, want)
		}
	}
}

// TestCSVQuotedMultiline: encoding/csv quotes a field with a newline; the
// record spans lines and the next record's line number counts them.
func TestCSVQuotedMultiline(t *testing.T) {
	in := hdr + "checks,1796004429,0.000000,\"two\nlines\",,,,,,,,s,,,,,,,\r\n" + "http_reqs,1796004429,1.000000,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,,\n" + "x,y\n"
	got, st := readString(t, in)
	if len(got) != 2 {
		t.Fatalf("%d samples", len(got))
	}
	if c, _ := got[0].Tags.Get("check"); c != "two\nlines" {
		t.Errorf("check = %q", c)
	}
	if len(st.Errors) != 1 || st.Errors[0].Line != 5 {
		t.Errorf("errors = %v, want one at line 5", st.Errors)
	}
}

// TestCSVSmallBuffer reads through a reader that returns one byte at a
// time, so every record crosses a buffer refill.
func TestCSVSmallBuffer(t *testing.T) {
	in := hdr + strings.Repeat("checks,1796004429,1.000000,\"a, b\",,,,,,,,s,,,,,,,\nhttp_reqs,1796004429,1.000000,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,,\n", 50)
	r, err := NewCSVReader(oneByte{strings.NewReader(in)}, "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r.Next() {
		n++
	}
	if n != 100 || r.Stats().Skipped != 0 {
		t.Errorf("read %d rows, %d skipped; want 100, 0", n, r.Stats().Skipped)
	}
}

type oneByte struct{ r *strings.Reader }

func (o oneByte) Read(p []byte) (int, error) { return o.r.Read(p[:min(1, len(p))]) }

// TestTruncatedGzip: a .gz cut short (a killed k6) is read up to the cut;
// the partial last line is dropped, not parsed as a shorter number.
func TestTruncatedGzip(t *testing.T) {
	var plain bytes.Buffer
	plain.WriteString(hdr)
	for i := range 5000 {
		fmt.Fprintf(&plain, "http_req_duration,%d,%d.123456,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,,\n", 1796004429+i/100, 100+i%7)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain.Bytes())
	zw.Close()
	cut := gz.Bytes()[:gz.Len()*2/3]
	path := filepath.Join(t.TempDir(), "cut.csv") // the name does not say gzip
	if err := os.WriteFile(path, cut, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for r.Next() {
		if v := r.Sample().Value; v < 100 || v > 107 {
			t.Fatalf("row %d value %v: a cut number was parsed", n, v)
		}
		n++
	}
	st := r.Stats()
	if r.Err() != nil || !st.Truncated || len(st.Warnings) != 1 {
		t.Fatalf("err %v truncated %v warnings %v", r.Err(), st.Truncated, st.Warnings)
	}
	if n < 1000 || n >= 5000 {
		t.Errorf("read %d rows of a two-thirds file", n)
	}
	if !strings.Contains(st.Warnings[0], "compressed stream cut short") {
		t.Errorf("warning = %q", st.Warnings[0])
	}
}

// TestGzipChecksumFailed: a .gz whose bytes were damaged so that it still
// inflates to its end but fails its checksum is read whole and marked
// Corrupt (and Truncated, so every check of the input still warns), with a
// warning that says the data is damaged, not that the file was cut.
func TestGzipChecksumFailed(t *testing.T) {
	var plain bytes.Buffer
	plain.WriteString(hdr)
	for i := range 200 {
		fmt.Fprintf(&plain, "http_req_duration,%d,%d.123456,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,,\n", 1796004429+i/10, 100+i%7)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.NoCompression) // stored blocks: a changed byte still inflates
	zw.Write(plain.Bytes())
	zw.Close()
	b := gz.Bytes()
	i := bytes.Index(b, []byte("100.123456"))
	b[i] = '9' // 900.123456: a damaged number that still parses
	n, st, err := countFile(t, "damaged.csv.gz", b)
	if err != nil || n != 200 || !st.Corrupt || !st.Truncated || len(st.Warnings) != 1 {
		t.Fatalf("err %v, %d rows, corrupt %v truncated %v, warnings %q; want 200 rows, corrupt, one warning", err, n, st.Corrupt, st.Truncated, st.Warnings)
	}
	if w := st.Warnings[0]; !strings.Contains(w, "checksum") || strings.Contains(w, "cut short") || strings.Contains(w, "before the cut") {
		t.Errorf("warning = %q; want one saying the data is damaged, not cut", w)
	}
}

// TestOpenDirectory: a directory given as a run is an error that names it
// once and says what to give instead (before: "DIR: read DIR: is a
// directory").
func TestOpenDirectory(t *testing.T) {
	dir := t.TempDir()
	r, err := Open(dir, nil)
	if err == nil {
		r.Close()
		t.Fatal("opened a directory")
	}
	if msg := err.Error(); strings.Count(msg, dir) != 1 || !strings.Contains(msg, "a directory") || !strings.Contains(msg, "suite") {
		t.Errorf("%q; want the directory named once, and `suite` for a directory of runs", msg)
	}
}

// TestCSVRepeatedHeader: a header line in the middle of the data (two k6
// CSV outputs concatenated with cat) is skipped and said to be a header,
// not reported as a bad timestamp "timestamp".
func TestCSVRepeatedHeader(t *testing.T) {
	row := "http_reqs,1796004429,1.000000,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,,\n"
	samples, st := readString(t, hdr+row+hdr+row)
	if len(samples) != 2 || st.Skipped != 1 || len(st.Errors) != 1 {
		t.Fatalf("%d samples, %d skipped, errors %v; want 2, 1, one error", len(samples), st.Skipped, st.Errors)
	}
	if e := st.Errors[0]; e.Line != 3 || !strings.Contains(e.Msg, "header") || strings.Contains(e.Msg, "want unix seconds") {
		t.Errorf("error %v; want line 3 said to be a repeated header", e)
	}
}

// TestGzipWithoutData: a .gz cut (or damaged) before its first byte of data
// is reported as a damaged compressed file, not as an empty one.
func TestGzipWithoutData(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(hdr + "http_reqs,1796004429,1.000000,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,,\n"))
	zw.Close()
	dir := t.TempDir()
	for name, b := range map[string][]byte{
		"cut.csv.gz":     gz.Bytes()[:12],                   // the header and two bytes of data
		"garbage.csv.gz": []byte("\x1f\x8b\x08\x00garbage"), // a gzip header, then no deflate stream
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(path, nil)
		if err == nil {
			r.Close()
			t.Errorf("%s: opened; want an error", name)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "empty file") || !strings.Contains(msg, path) || !strings.Contains(msg, "compressed") {
			t.Errorf("%s: %q; want an error naming the file and its damaged compressed stream", name, msg)
		}
	}
}

// TestOpenAllStdin: several inputs are one stream and - is stdin; each
// sample knows its source.
func TestOpenAllStdin(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.csv")
	os.WriteFile(a, []byte(hdr+"http_reqs,1796004429,1.000000,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,,\n"), 0o644)
	stdin := strings.NewReader(hdr + "http_reqs,1796004430,1.000000,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,,\nbad\n")
	r, err := OpenAll([]string{a, "-"}, stdin)
	if err != nil {
		t.Fatal(err)
	}
	var srcs []string
	for r.Next() {
		srcs = append(srcs, r.Sample().Source)
	}
	if strings.Join(srcs, " ") != a+" -" || r.Stats().Rows != 2 || r.Stats().Skipped != 1 {
		t.Errorf("sources %v stats %+v", srcs, r.Stats())
	}
	if _, err := OpenAll([]string{filepath.Join(dir, "missing.csv")}, nil); err == nil || !strings.Contains(err.Error(), "missing.csv") {
		t.Errorf("missing file: %v", err)
	}
	bin := filepath.Join(dir, "bin")
	os.WriteFile(bin, []byte{0, 1, 2, 3, 4, 5}, 0o644)
	if _, err := Open(bin, nil); err == nil || !strings.Contains(err.Error(), "unknown binary format") {
		t.Errorf("binary file: %v", err)
	}
}

// TestCorpusCSV reads every CSV of the shared corpus: no skipped line and
// the row counts its README gives.
func TestCorpusCSV(t *testing.T) {
	rows := map[string]int64{ // from shared/corpus/k6/README.md
		"closed_ramp.csv": 160112, "open_ramp.csv.gz": 350776, "breakpoint.csv.gz": 325555,
		"custom_metrics_unix_milli.csv": 96982, "timefmt_rfc3339_nano.csv": 1424,
	}
	files, _ := filepath.Glob("../../../shared/corpus/*/*.csv*")
	if len(files) == 0 {
		t.Skip("shared corpus not found")
	}
	for _, f := range files {
		r, err := Open(f, nil)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		for r.Next() {
		}
		st := r.Stats()
		r.Close()
		if r.Err() != nil || st.Skipped != 0 || st.Truncated {
			t.Errorf("%s: err %v skipped %d %v", f, r.Err(), st.Skipped, st.Errors)
		}
		if want, ok := rows[filepath.Base(f)]; ok && st.Rows != want {
			t.Errorf("%s: %d rows, want %d", f, st.Rows, want)
		}
	}
}

func TestParsePairs(t *testing.T) {
	m := ParsePairs("testid=a&flow=b=c&&novalue")
	if len(m) != 3 || m["testid"] != "a" || m["flow"] != "b=c" || m["novalue"] != "" {
		t.Errorf("ParsePairs = %v", m)
	}
}

// FuzzCSV: whatever the bytes, no panic; every sample read is one a k6
// run can write (a metric name, a time in 1970–2200, a finite value, not a
// negative built-in duration); and rows read plus rows skipped never exceed
// the lines. Seeds include the first lines of every real corpus CSV.
func FuzzCSV(f *testing.F) {
	f.Add([]byte(hdr + "http_reqs,1796004429,1.000000,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,a=b,vu=1\n"))
	f.Add([]byte("metric_name,timestamp,metric_value\nx,2026-11-30T02:02:31.5+01:00,-1e3\n\"q\"\"\",1,2\n"))
	f.Add([]byte("metric_name,timestamp,metric_value,check\nchecks,1,1,\"multi\nline\"\n"))
	f.Add([]byte(hdr + "http_req_duration,9999-01-01T00:00:00Z,-1_0,,,,,,,,,,,,,,,,\n"))
	files, _ := filepath.Glob("../../../shared/corpus/*/*.csv")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data[:min(len(data), 2000)])
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewCSVReader(bytes.NewReader(data), "f.csv")
		if err != nil {
			return
		}
		lines := int64(bytes.Count(data, []byte{'\n'})) + 1
		for r.Next() {
			s := r.Sample()
			if s.Metric == "" || s.TimeNS < MinTimeNS || s.TimeNS > MaxTimeNS || math.IsNaN(s.Value) || math.IsInf(s.Value, 0) ||
				s.Value < 0 && builtinTimeMetrics[s.Metric] {
				t.Fatalf("a sample no k6 run writes: %+v", *s)
			}
		}
		st := r.Stats()
		if st.Rows+st.Skipped > lines {
			t.Fatalf("rows %d + skipped %d > %d lines", st.Rows, st.Skipped, lines)
		}
	})
}

// TestRFC3339Resolution: k6's rfc3339_nano trims trailing zeros, so a row
// can show fewer digits than the file has; the finest fraction seen is the
// resolution, not the coarsest.
func TestRFC3339Resolution(t *testing.T) {
	_, st := readString(t, hdr+
		"vus,2026-11-30T02:02:31Z,1.000000,,,,,,,,,,,,,,,,\n"+
		"vus,2026-11-30T02:02:31.5Z,1.000000,,,,,,,,,,,,,,,,\n"+
		"vus,2026-11-30T02:02:31.351736931Z,1.000000,,,,,,,,,,,,,,,,\n")
	if st.ResolutionNS != 1 {
		t.Errorf("resolution %d ns, want 1", st.ResolutionNS)
	}
}

// TestLongRecord: a record longer than a chunk (256 KiB) is read whole, and
// the records around it too.
func TestLongRecord(t *testing.T) {
	long := strings.Repeat("a", 3*chunkSize/2)
	in := hdr + "http_reqs,1796004429,1.000000,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,,\n" +
		"checks,1796004429,1.000000," + long + ",,,,,,,,s,,,,,,,\n" +
		"http_reqs,1796004430,1.000000,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,,\n"
	got, st := readString(t, in)
	if len(got) != 3 || st.Skipped != 0 {
		t.Fatalf("%d samples, %d skipped", len(got), st.Skipped)
	}
	if c, _ := got[1].Tags.Get("check"); c != long {
		t.Errorf("check column of %d bytes, want %d", len(c), len(long))
	}
}

// TestTooLongRecordAfterOthers: a record over the 16 MiB bound after
// other records is skipped with a message and the read goes on, through
// Next and through Drain on several workers (it hung: the skip handed the
// next chunk a tail channel an earlier batch had already drained).
func TestTooLongRecordAfterOthers(t *testing.T) {
	var b strings.Builder
	b.WriteString(hdr)
	row := "http_reqs,1796004429,1.000000,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,,\n"
	for range 99 {
		b.WriteString(row)
	}
	b.WriteString("http_reqs,1796004430,1.000000,,,,true,,GET," + strings.Repeat("n", 17<<20) + ",HTTP/1.1,s,,200,,,menu,,\n")
	for range 50 {
		b.WriteString(row)
	}
	data := b.String()
	done := make(chan struct{})
	go func() {
		defer close(done)
		got, st := readString(t, data)
		if len(got) != 149 || st.Skipped != 1 {
			t.Errorf("Next: %d samples, %d skipped; want 149 and 1", len(got), st.Skipped)
		}
		r, err := NewCSVReader(strings.NewReader(data), "long.csv")
		if err != nil {
			t.Error(err)
			return
		}
		var n [2]int
		if err := r.Drain([]func(*Sample){func(*Sample) { n[0]++ }, func(*Sample) { n[1]++ }}); err != nil {
			t.Error(err)
		}
		if n[0]+n[1] != 149 || r.Stats().Skipped != 1 {
			t.Errorf("Drain: %d samples, %d skipped; want 149 and 1", n[0]+n[1], r.Stats().Skipped)
		}
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the read hung")
	}
}

// FuzzCSVDrain: the parallel Drain path and the ordered Next path read the
// same samples and skip the same lines, whatever the input.
func FuzzCSVDrain(f *testing.F) {
	f.Add([]byte(hdr + "http_reqs,1796004429,1.000000,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,a=b,vu=1\nbad\n"))
	f.Add([]byte("metric_name,timestamp,metric_value,check\nchecks,1,1,\"multi\nline\"\nx,2,3,\"a,b\"\n"))
	// Repeated metric orders, times and tails (quickRun), with CR LF,
	// CR CR LF, a one-byte change and no final newline.
	f.Add([]byte("metric_name,timestamp,metric_value,check,name\na,1,1.000000,,n\nb,1,2.000000,,n\r\na,1,1.000000,,n\r\r\nb,1,2.000000,,n\r\na,1,3.000000,,m\nb,1,2.000000,,n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		key := func(s *Sample) string {
			v, _ := s.Tags.Get("check")
			return fmt.Sprintf("%s|%d|%v|%s|%s|%q|%s", s.Metric, s.TimeNS, s.Value, v, s.Tags.Extra(), s.Tags.AppendValues(nil), s.Tags.Metadata())
		}
		r, err := NewCSVReader(bytes.NewReader(data), "f.csv")
		if err != nil {
			return
		}
		want := map[string]int{}
		for r.Next() {
			want[key(r.Sample())]++
		}
		st1 := r.Stats()
		r2, err := NewCSVReader(bytes.NewReader(data), "f.csv")
		if err != nil {
			t.Fatalf("second open: %v", err)
		}
		got := make([]map[string]int, 3)
		sinks := make([]func(*Sample), 3)
		for i := range sinks {
			got[i] = map[string]int{}
			sinks[i] = func(s *Sample) { got[i][key(s)]++ }
		}
		if err := r2.Drain(sinks); err != nil {
			t.Fatalf("drain: %v", err)
		}
		for _, g := range got[1:] {
			for k, n := range g {
				got[0][k] += n
			}
		}
		st2 := r2.Stats()
		if st1.TimeSteps != st2.TimeSteps || !slices.Equal(st1.Steps, st2.Steps) || st1.TimeSteps > st1.Rows+st1.Skipped || int64(len(st1.Steps)) != min(st1.TimeSteps, MaxTimeSteps) {
			t.Fatalf("steps back in time: Next %d %+v, Drain %d %+v, of %d lines", st1.TimeSteps, st1.Steps, st2.TimeSteps, st2.Steps, st1.Rows+st1.Skipped)
		}
		if st1.Rows != st2.Rows || st1.Skipped != st2.Skipped || len(want) != len(got[0]) {
			t.Fatalf("Next: %d rows %d skipped %d keys; Drain: %d rows %d skipped %d keys", st1.Rows, st1.Skipped, len(want), st2.Rows, st2.Skipped, len(got[0]))
		}
		for k, n := range want {
			if got[0][k] != n {
				t.Fatalf("sample %q: Next %d, Drain %d", k, n, got[0][k])
			}
		}
	})
}

// TestCSVQuietWrongValues: values that strconv or time.Parse would take but
// that no k6 run can write are syntax errors naming file:line:column, not
// samples (the reliability issue: year 9999 wrapped to 1816, "1_000" read
// as 1000). The instants in the messages are hand-converted: 9999999999 s
// is 2286-11-20T17:46:39Z; 2201-01-01T00:00:00Z is 7,289,654,400 s.
func TestCSVQuietWrongValues(t *testing.T) {
	row := func(metric, ts, value string) string {
		return metric + "," + ts + "," + value + ",,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,,\n"
	}
	for _, c := range []struct {
		line, want string
	}{
		{row("http_reqs", "9999-01-01T00:00:00Z", "1.000000"), `t.csv:2:11: timestamp "9999-01-01T00:00:00Z": year 9999 is outside 1970–2200`},
		{row("http_reqs", "1969-12-31T23:59:59Z", "1.000000"), `t.csv:2:11: timestamp "1969-12-31T23:59:59Z": year 1969 is outside 1970–2200`},
		{row("http_reqs", "1970-01-01T00:30:00+01:00", "1.000000"), `t.csv:2:11: timestamp "1970-01-01T00:30:00+01:00": year 1969 is outside 1970–2200`},
		{row("http_reqs", "9999999999", "1.000000"), `t.csv:2:11: timestamp "9999999999": 2286-11-20T17:46:39Z is outside 1970–2200`},
		{row("http_reqs", "7289654400", "1.000000"), `t.csv:2:11: timestamp "7289654400": 2201-01-01T00:00:00Z is outside 1970–2200`},
		{row("http_reqs", "9999999999999999999", "1.000000"), `t.csv:2:11: timestamp "9999999999999999999": 2286-11-20T17:46:39.999999999Z is outside 1970–2200`},
		{row("http_reqs", "1796004429", "1_000"), `t.csv:2:22: metric_value "1_000": want a number (digits without '_' separators)`},
		{row("http_reqs", "1796004429", "0x1p3"), `t.csv:2:22: metric_value "0x1p3": want a number`},
		{row("http_reqs", "1796004429", "+Inf"), `t.csv:2:22: metric_value "+Inf": want a finite number`},
		{row("http_reqs", "1796004429", "-infinity"), `t.csv:2:22: metric_value "-infinity": want a finite number`},
		{row("http_reqs", "1796004429", "nan"), `t.csv:2:22: metric_value "nan": want a finite number`},
		{row("http_reqs", "1796004429", "1e999"), `t.csv:2:22: metric_value "1e999": want a finite number`},
		{row("http_req_duration", "1796004429", "-12.500000"), `t.csv:2:30: metric_value "-12.500000": http_req_duration is a k6 duration (ms) and cannot be negative`},
		{row("iteration_duration", "1796004429", "-0.000001"), `t.csv:2:31: metric_value "-0.000001": iteration_duration is a k6 duration (ms) and cannot be negative`},
		{row("grpc_req_duration", "1796004429", "-1e-3"), `t.csv:2:30: metric_value "-1e-3": grpc_req_duration is a k6 duration (ms) and cannot be negative`},
		{row("browser_web_vital_lcp", "1796004429", "-5.000000"), `t.csv:2:34: metric_value "-5.000000": browser_web_vital_lcp is a k6 duration (ms) and cannot be negative`},
	} {
		got, st := readString(t, hdr+c.line)
		if len(got) != 0 || len(st.Errors) != 1 {
			t.Errorf("%q: %d samples, errors %v; want one error", c.line, len(got), st.Errors)
			continue
		}
		if e := st.Errors[0].Error(); e != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.line, e, c.want)
		}
	}
	// The edges of the range, a custom Trend below zero, -0, an exponent
	// and a leading '+' are values.
	in := hdr + row("vus", "0", "1.000000") + row("vus", "7289654399", "1.000000") +
		row("vus", "2200-12-31T23:59:59.999999999Z", "2.000000") + row("clock_skew_ms", "1796004429", "-3.250000") +
		row("http_req_waiting", "1796004429", "-0.000000") + row("data_sent", "1796004429", "1.5e3") + row("vus", "1796004429", "+4")
	got, st := readString(t, in)
	if len(got) != 7 || st.Skipped != 0 {
		t.Fatalf("%d samples, errors %v; want 7, none", len(got), st.Errors)
	}
	if got[1].TimeNS != 7289654399e9 || got[3].Value != -3.25 || got[5].Value != 1500 || got[6].Value != 4 {
		t.Errorf("samples %+v", got)
	}
}

// TestCSVQuotesAcrossChunks: quoted fields with newlines, commas and
// doubled quotes land on every chunk cut (the 256 KiB chunks are cut at the
// last newline, quotes or not; the workers hand a record that goes on into
// the next chunk to its worker), one of them spanning several chunks; the
// records read are encoding/csv's, and the line numbers of bad lines after
// them are exact, in Next and in Drain.
func TestCSVQuotesAcrossChunks(t *testing.T) {
	var in strings.Builder
	in.WriteString("metric_name,timestamp,metric_value,check,name\n")
	line := 2
	var badLines []int
	for i := 0; in.Len() < 5*chunkSize; i++ {
		switch {
		case i == 9000:
			// A quoted field of 1.5 chunks, over many lines.
			in.WriteString("checks,1796004429,1,\"" + strings.Repeat("x,\"\"y\"\"\n", 3*chunkSize/16) + "end\",big\n")
			line += 3*chunkSize/16 + 1
		case i%7 == 3:
			fmt.Fprintf(&in, "checks,1796004429,%d,\"line one,\n\"\"two\"\"\nthree\",n%d\n", i, i)
			line += 3
		case i%997 == 5:
			in.WriteString("bad,line\n")
			badLines = append(badLines, line)
			line++
		default:
			fmt.Fprintf(&in, "http_reqs,1796004429,%d,,n%d\n", i, i)
			line++
		}
	}
	data := in.String()
	// The reference: encoding/csv, skipping the bad lines.
	cr := csv.NewReader(strings.NewReader(data))
	cr.FieldsPerRecord = -1
	var want []string
	if _, err := cr.Read(); err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(rec) == 5 {
			want = append(want, rec[0]+"|"+rec[2]+"|"+rec[3]+"|"+rec[4])
		}
	}
	key := func(s *Sample) string {
		c, _ := s.Tags.Get("check")
		n, _ := s.Tags.Get("name")
		return fmt.Sprintf("%s|%g|%s|%s", s.Metric, s.Value, c, n)
	}
	r, err := NewCSVReader(strings.NewReader(data), "q.csv")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for r.Next() {
		got = append(got, key(r.Sample()))
	}
	if !slices.Equal(got, want) {
		n := 0
		for n < min(len(got), len(want)) && got[n] == want[n] {
			n++
		}
		t.Fatalf("%d samples, want %d; first difference at %d", len(got), len(want), n)
	}
	lines := func(st Stats) []int {
		var l []int
		for _, e := range st.Errors {
			l = append(l, int(e.Line))
		}
		return l
	}
	st := r.Stats()
	if int(st.Skipped) != len(badLines) || !slices.Equal(lines(st), badLines[:min(len(badLines), MaxRecordedErrors)]) {
		t.Errorf("errors at lines %v, want %v", lines(st), badLines)
	}
	d, _ := NewCSVReader(strings.NewReader(data), "q.csv")
	var mu sync.Mutex
	var drained []string
	sinks := []func(*Sample){func(s *Sample) { k := key(s); mu.Lock(); drained = append(drained, k); mu.Unlock() },
		func(s *Sample) { k := key(s); mu.Lock(); drained = append(drained, k); mu.Unlock() }}
	if err := d.Drain(sinks); err != nil {
		t.Fatal(err)
	}
	slices.Sort(drained)
	slices.Sort(want)
	if !slices.Equal(drained, want) || !slices.Equal(lines(d.Stats()), lines(st)) {
		t.Errorf("Drain: %d samples, errors at %v; want %d, %v", len(drained), lines(d.Stats()), len(want), lines(st))
	}
}

// TestCSVDrainRepeatedTails: Drain keeps the decoded tag values of a few
// recent tails (the fields after metric_value) and reuses them for a record
// with the same tail bytes. Records whose tails cycle through more tails
// than it keeps, repeat, differ only in a late column or in extra_tags or
// metadata, follow quoted and malformed records, and run over many chunks,
// give every tag value Next gives, record for record.
func TestCSVDrainRepeatedTails(t *testing.T) {
	tails := []string{
		",,,true,,GET,/menu,HTTP/1.1,default,,200,,,http://h/menu,,",
		",,,true,,GET,/menu,HTTP/1.1,default,,200,,,http://h/menu,,vu=1",
		",,,true,,GET,/menu,HTTP/1.1,default,,503,,,http://h/menu,,",
		"status is 200,,,,,,,,default,,,,,,,",
		",,,,,,,,default,,,,,,,",
		",,,true,,GET,/items/{id},HTTP/1.1,default,,200,,,http://h/items/1,a=b,",
		",,,true,,GET,/items/{id},HTTP/1.1,default,,200,,,http://h/items/2,a=b,",
		",,,,,,,,other,,,,,,,",
	}
	var in strings.Builder
	in.WriteString(hdr)
	for i := 0; in.Len() < 3*chunkSize; i++ {
		k := (i / 3 * 7) % len(tails) // runs of three, in a shifting cycle
		switch {
		case i%101 == 50:
			in.WriteString("bad,1796004429,1\n")
		case i%89 == 7:
			fmt.Fprintf(&in, "checks,1796004429,1,\"quoted, %d\",,,,,,,,default,,,,,,,\n", i)
		default:
			fmt.Fprintf(&in, "m%d,%d,%d.5,%s\n", i%5, 1796004429+i/1000, i, tails[k])
		}
	}
	data := in.String()
	key := func(s *Sample) string {
		return fmt.Sprintf("%s|%d|%v|%q|%s|%s", s.Metric, s.TimeNS, s.Value, s.Tags.AppendValues(nil), s.Tags.Extra(), s.Tags.Metadata())
	}
	r, d := drainAgainstNext(t, data, key, 1000, func(s *Sample) {
		if _, ok := s.Tags.Get("status"); ok && s.Value < 0 {
			t.Error("unreachable") // asks one column first, as the accumulators do
		}
	})
	if d.Stats().Skipped != r.Stats().Skipped || r.Stats().Skipped == 0 {
		t.Errorf("skipped: Drain %d, Next %d", d.Stats().Skipped, r.Stats().Skipped)
	}
}

// countFile writes b to a file of that name in a temporary directory, reads
// it through Open and returns its samples' count, the Stats and the read
// error.
func countFile(t *testing.T, name string, b []byte) (int, Stats, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for r.Next() {
		n++
	}
	return n, r.Stats(), r.Err()
}

// TestCSVDrainQuickRecords: Drain reads a record that repeats the last
// one's metric order, timestamp and tail in one pass (quickRun), and
// must read it as Next does. Records here repeat tails that differ from
// each other by one byte (a late column, a trailing CR, an empty last
// field), end in LF, CRLF, CR CR LF or nothing (the last), have empty
// values, negative values, values of other shapes, blank lines, bad field
// counts and quoted fields among them, over many chunks; every sample
// (metric, time, value bits, every tag) and every skipped line must be
// Next's.
func TestCSVDrainQuickRecords(t *testing.T) {
	tails := []string{
		",,,true,,GET,/menu,HTTP/1.1,default,,200,,,http://h/menu,,",
		",,,true,,GET,/menu,HTTP/1.1,default,,200,,,http://h/menu,,\r",
		",,,true,,GET,/menu,HTTP/1.1,default,,200,,,http://h/menu,,x",
		",,,true,,GET,/menu,HTTP/1.1,default,,201,,,http://h/menu,,",
		",,,true,,GET,/menu,HTTP/1.1,default,,200,,,http://h/menu,",   // a field short
		",,,true,,GET,/menu,HTTP/1.1,default,,200,,,http://h/menu,,,", // a field over
		"status is 200,,,,,,,,default,,,,,,,",
		",,,,,,,,default,,,,,,,",
	}
	ends := []string{"\n", "\n", "\n", "\r\n", "\r\r\n"}
	metrics := []string{"http_reqs", "http_req_duration", "http_req_blocked", "http_req_waiting", "checks", "data_sent"}
	values := []string{"1.000000", "6.712662", "0.000000", "123456789.123456", "-1.500000", "", "7", "1e3", "2.5", "x", "9.999999", "1.00a000", "1.0,0000", "-0.000000", "1.0000000"}
	var in strings.Builder
	in.WriteString(hdr)
	seed := uint64(1)
	rnd := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed>>33) % n
	}
	m, ts, tail := 0, 1796004429, 0
	for in.Len() < 4*chunkSize {
		// Mostly the k6 shape: the metric after the last in a fixed
		// order, the same second and the same tail, with k6's values.
		if rnd(4) == 0 {
			m = rnd(len(metrics))
		} else {
			m = (m + 1) % len(metrics)
		}
		if rnd(50) == 0 {
			ts++
		}
		if rnd(6) == 0 {
			tail = rnd(len(tails))
		}
		v := values[rnd(3)]
		if rnd(10) == 0 {
			v = values[rnd(len(values))]
		}
		switch rnd(200) {
		case 0:
			in.WriteString("\n")
		case 1:
			in.WriteString("checks,1796004429,1,\"quoted, tag\",,,,,,,,default,,,,,,,\n")
		case 2:
			in.WriteString("bad,1796004429\n")
		}
		fmt.Fprintf(&in, "%s,%d,%s,%s%s", metrics[m], ts, v, tails[tail], ends[rnd(len(ends))])
	}
	in.WriteString("http_reqs,1796004429,1.000000" + tails[0]) // no newline at the end
	data := in.String()
	key := func(s *Sample) string {
		return fmt.Sprintf("%s|%d|%x|%q|%q|%q", s.Metric, s.TimeNS, math.Float64bits(s.Value), s.Tags.AppendValues(nil), s.Tags.Extra(), s.Tags.Metadata())
	}
	r, d := drainAgainstNext(t, data, key, 8000, func(s *Sample) {
		s.Tags.Get("status") // one column first, as the accumulators ask
	})
	rs, ds := r.Stats(), d.Stats()
	if rs.Skipped == 0 || ds.Skipped != rs.Skipped || ds.Rows != rs.Rows || fmt.Sprint(ds.Errors) != fmt.Sprint(rs.Errors) {
		t.Errorf("Drain: %d rows, %d skipped, errors %v\nNext: %d rows, %d skipped, errors %v", ds.Rows, ds.Skipped, ds.Errors, rs.Rows, rs.Skipped, rs.Errors)
	}
}

// drainAgainstNext reads data (a CSV) with Next and with Drain on two
// sinks (each sample first given to ask, as an accumulator asks its
// columns) and fails unless both give the same samples, by key, and at
// least minSamples of them; it returns the two readers for their Stats.
func drainAgainstNext(t *testing.T, data string, key func(*Sample) string, minSamples int, ask func(*Sample)) (next, drain *CSVReader) {
	t.Helper()
	r, err := NewCSVReader(strings.NewReader(data), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for r.Next() {
		want = append(want, key(r.Sample()))
	}
	d, err := NewCSVReader(strings.NewReader(data), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	sink := func(s *Sample) {
		ask(s)
		k := key(s)
		mu.Lock()
		got = append(got, k)
		mu.Unlock()
	}
	if err := d.Drain([]func(*Sample){sink, sink}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if len(want) < minSamples || !slices.Equal(got, want) {
		n := 0
		for n < min(len(got), len(want)) && got[n] == want[n] {
			n++
		}
		t.Fatalf("Drain %d samples, Next %d; first difference at %d", len(got), len(want), n)
	}
	return r, d
}

// TestCutInsideHeader: a gzip cut anywhere before its header line is whole
// says the stream was cut (before any data, or inside the header line),
// never that the header is wrong; once the header is whole, it opens.
func TestCutInsideHeader(t *testing.T) {
	var plain bytes.Buffer
	plain.WriteString(hdr)
	for i := range 200 {
		fmt.Fprintf(&plain, "http_reqs,%d,1,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,,\n", 1796004429+i)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain.Bytes())
	zw.Close()
	inside, opened := 0, 0
	for n := 10; n < gz.Len(); n++ {
		r, err := Open("-", bytes.NewReader(gz.Bytes()[:n]))
		switch {
		case err == nil:
			opened++
			r.Close()
		case strings.Contains(err.Error(), "inside the header line"):
			inside++
		case !strings.Contains(err.Error(), "before any data"):
			t.Fatalf("cut at %d bytes: %v", n, err)
		}
	}
	if inside == 0 || opened == 0 {
		t.Fatalf("%d cuts inside the header, %d opened: the test misses a case", inside, opened)
	}
}

// TestCSVDrainQuickTimestamps: records whose timestamp changes every few
// records (a day's run writes ~35 a second, so a second's first record,
// which quickRun leaves to fastRecord, is common) read through Drain as
// through Next: the times, the resolution in Stats (a lone 10-digit
// second among nanosecond ones makes the file's resolution 1 s), the
// steps back in time with their lines, and the records no quick path
// takes (a timestamp out of range, of 20 digits, RFC 3339, a bad value
// after a new timestamp), reported as Next reports them.
func TestCSVDrainQuickTimestamps(t *testing.T) {
	tail := ",,,true,,GET,/menu,HTTP/1.1,default,,200,,,http://h/menu,,"
	metrics := []string{"http_reqs", "http_req_duration", "http_req_blocked", "data_sent"}
	for _, tc := range []struct {
		name string
		// ts is the timestamp of second i (a Unix second) in the file's
		// format.
		ts func(i int) string
	}{
		{"seconds", func(i int) string { return fmt.Sprint(1796004429 + i) }},
		{"nanoseconds, one second in seconds", func(i int) string {
			if i == 1234 {
				return fmt.Sprint(1796004429 + i)
			}
			return fmt.Sprint(1796004429+i) + "000000000"
		}},
		{"mixed", func(i int) string {
			switch i % 97 {
			case 5:
				return fmt.Sprint(1796004429+i) + "000" // ms
			case 6:
				return fmt.Sprint(1796004429+i) + "000000" // µs
			case 7:
				return time.Unix(int64(1796004429+i), 0).UTC().Format(time.RFC3339)
			case 8:
				return "99999999999999999999" // 20 digits
			case 9:
				return "9999999999" // 2286: out of range
			case 10:
				return fmt.Sprint(1796004429 + i - 600) // 10 minutes back
			case 11:
				return "0"
			}
			return fmt.Sprint(1796004429 + i)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in strings.Builder
			in.WriteString(hdr)
			seed := uint64(7)
			rnd := func(n int) int {
				seed = seed*6364136223846793005 + 1442695040888963407
				return int(seed>>33) % n
			}
			m, sec := 0, 0
			for in.Len() < 4*chunkSize {
				if rnd(3) == 0 {
					sec++
				}
				m = (m + 1) % len(metrics)
				if rnd(40) == 0 {
					m = rnd(len(metrics))
				}
				v := "1.000000"
				switch rnd(60) {
				case 0:
					v = "x"
				case 1:
					v = "-2.000000"
				case 2:
					v = "12.500000"
				}
				fmt.Fprintf(&in, "%s,%s,%s,%s\n", metrics[m], tc.ts(sec), v, tail)
			}
			key := func(s *Sample) string {
				return fmt.Sprintf("%s|%d|%x|%q", s.Metric, s.TimeNS, math.Float64bits(s.Value), s.Tags.AppendValues(nil))
			}
			r, d := drainAgainstNext(t, in.String(), key, 8000, func(*Sample) {})
			rs, ds := r.Stats(), d.Stats()
			if ds.Rows != rs.Rows || ds.Skipped != rs.Skipped || fmt.Sprint(ds.Errors) != fmt.Sprint(rs.Errors) ||
				ds.ResolutionNS != rs.ResolutionNS || ds.TimeSteps != rs.TimeSteps || !slices.Equal(ds.Steps, rs.Steps) {
				t.Errorf("Drain: %d rows, %d skipped, resolution %d, steps %d %v, errors %v\nNext: %d rows, %d skipped, resolution %d, steps %d %v, errors %v",
					ds.Rows, ds.Skipped, ds.ResolutionNS, ds.TimeSteps, ds.Steps, ds.Errors, rs.Rows, rs.Skipped, rs.ResolutionNS, rs.TimeSteps, rs.Steps, rs.Errors)
			}
			if tc.name == "nanoseconds, one second in seconds" && rs.ResolutionNS != 1e9 {
				t.Errorf("resolution %d, want 1e9 (one 10-digit second)", rs.ResolutionNS)
			}
		})
	}
}
