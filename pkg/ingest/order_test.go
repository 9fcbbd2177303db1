package ingest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTimeOrderChunked: the steps back found chunk by chunk and at the
// joins (see, then absorb in file order) are those of the whole sequence
// seen at once, whatever the cuts: the count, and the first step's line
// and times.
func TestTimeOrderChunked(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n := 1 + rng.IntN(200)
		ts := make([]int64, n)
		now := int64(1_700_000_000) * 1e9
		for i := range ts {
			switch r := rng.IntN(100); {
			case r < 6: // a second run: back by 11–200 s
				now -= int64(11+rng.IntN(190)) * 1e9
			case r < 20: // k6's jitter: back by up to 10 s, which is no step
				now -= rng.Int64N(BackStepNS + 1)
			default:
				now += rng.Int64N(2e9)
			}
			ts[i] = now
		}
		var whole timeOrder
		for i, v := range ts {
			whole.see(v, int64(i+1))
		}
		var file timeOrder
		for lo := 0; lo < n; {
			hi := min(n, lo+1+rng.IntN(20))
			var c timeOrder
			for i := lo; i < hi; i++ {
				c.see(ts[i], int64(i-lo+1))
			}
			file.absorb(&c, int64(lo), "f")
			lo = hi
		}
		if file.steps != whole.steps {
			t.Fatalf("trial %d: %d steps chunked, %d whole", trial, file.steps, whole.steps)
		}
		want := slices.Clone(whole.kept)
		for i := range want {
			want[i].File = "f"
		}
		if !slices.Equal(file.kept, want) {
			t.Fatalf("trial %d: steps kept %+v chunked, %+v whole", trial, file.kept, want)
		}
	}
}

// stepRun writes a k6 CSV body of secs seconds from t0 (unix s), rows
// per second of one request's samples, and returns it with its line
// count.
func stepRun(b *strings.Builder, t0, secs, rows int) int {
	n := 0
	for s := range secs {
		for r := range rows {
			fmt.Fprintf(b, "http_req_duration,%d,%d.000000,,,,true,,GET,/a,HTTP/1.1,default,,200,,,http://x/a,,\n", t0+s, 10+r)
			n++
		}
	}
	return n
}

// TestTimeStepsCSVAndJSON: the same run written twice into one file is
// one step back, at the first line of the second copy (hand-counted from
// the rows written), in CSV and JSON lines, read by Next and by Drain,
// with the copies long enough to span several chunks; a run whose time
// steps back by 10 s at most (k6's jitter) has none.
func TestTimeStepsCSVAndJSON(t *testing.T) {
	var b strings.Builder
	b.WriteString(hdr)
	n := stepRun(&b, 1_700_000_000, 40, 100) // 40 s: ~400 KiB, two chunks
	n += stepRun(&b, 1_700_000_000, 40, 100)
	twice := b.String()
	wantLine := int64(1 + 4000 + 1) // header, the first copy, then the second's first
	check := func(name string, st Stats) {
		t.Helper()
		if st.TimeSteps != 1 {
			t.Fatalf("%s: %d steps back, want 1", name, st.TimeSteps)
		}
		if len(st.Steps) != 1 {
			t.Fatalf("%s: steps kept %+v", name, st.Steps)
		}
		s := st.Steps[0]
		if s.Line != wantLine || s.FromNS != 1_700_000_039e9 || s.ToNS != 1_700_000_000e9 {
			t.Fatalf("%s: step %+v, want line %d from +39 s to +0 s", name, s, wantLine)
		}
		found := false
		for _, w := range st.Warnings {
			found = found || strings.Contains(w, fmt.Sprintf(":%d: time steps back 39s, from 2023-11-14T22:13:59Z to 2023-11-14T22:13:20Z:", wantLine))
		}
		if !found {
			t.Fatalf("%s: no warning of the step in %q", name, st.Warnings)
		}
	}
	_, st := readString(t, twice)
	if st.Rows != int64(n) {
		t.Fatalf("rows %d, want %d", st.Rows, n)
	}
	check("CSV Next", st)
	r, err := NewCSVReader(strings.NewReader(twice), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Drain([]func(*Sample){func(*Sample) {}, func(*Sample) {}}); err != nil {
		t.Fatal(err)
	}
	check("CSV Drain", r.Stats())

	// The same samples as k6 JSON lines (no header line).
	var j strings.Builder
	for _, ln := range strings.Split(strings.TrimSuffix(twice, "\n"), "\n")[1:] {
		f := strings.Split(ln, ",")
		var sec int64
		fmt.Sscan(f[1], &sec)
		fmt.Fprintf(&j, `{"metric":"http_req_duration","type":"Point","data":{"time":%q,"value":%s,"tags":{"name":"/a"}}}`+"\n",
			time.Unix(sec, 0).UTC().Format(time.RFC3339), strings.TrimSuffix(f[2], ".000000"))
	}
	wantLine = 4001 // no header line
	_, jr := readAllJSON(t, j.String())
	check("JSON Next", jr.Stats())
	jr2 := NewK6JSONReader(strings.NewReader(j.String()), "test.json")
	if err := jr2.Drain([]func(*Sample){func(*Sample) {}, func(*Sample) {}}); err != nil {
		t.Fatal(err)
	}
	check("JSON Drain", jr2.Stats())

	// Parquet and Arrow, in row groups of 1000 rows: the step is at row
	// 4001, within the fifth group.
	dir := t.TempDir()
	src := filepath.Join(dir, "twice.csv")
	if err := os.WriteFile(src, []byte(twice), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []Format{FormatParquet, FormatArrow} {
		r, err := Open(src, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "twice."+string(format))
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := WriteColumnar(f, r, ColumnarOptions{Format: format, BatchRows: 1000}); err != nil {
			t.Fatal(err)
		}
		f.Close()
		r.Close()
		c, err := OpenColumnar(p)
		if err != nil {
			t.Fatal(err)
		}
		for c.Next() {
		}
		check(string(format)+" Next", c.Stats())
		c.Close()
		c, err = OpenColumnar(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Drain([]func(*Sample){func(*Sample) {}, func(*Sample) {}}); err != nil {
			t.Fatal(err)
		}
		check(string(format)+" Drain", c.Stats())
		c.Close()
	}

	// Jitter: every tenth second steps back by 10 s, the most that is
	// not a step.
	b.Reset()
	b.WriteString(hdr)
	for s := range 200 {
		sec := 1_700_000_000 + s
		if s%10 == 9 {
			sec -= 11 // 10 s behind the second before
		}
		fmt.Fprintf(&b, "http_reqs,%d,1,,,,true,,GET,/a,HTTP/1.1,default,,200,,,http://x/a,,\n", sec)
	}
	if _, st := readString(t, b.String()); st.TimeSteps != 0 || len(st.Warnings) != 0 {
		t.Fatalf("jitter of 10 s: %d steps, warnings %q", st.TimeSteps, st.Warnings)
	}
}
