package ingest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// mappedJSON is k6 JSON lines of about n bytes: Metric declarations,
// points with varied tags, a malformed line now and then, and a last line
// without its newline.
func mappedJSON(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"type":"Metric","data":{"name":"http_req_duration","type":"trend","contains":"time","thresholds":[],"submetrics":null},"metric":"http_req_duration"}` + "\n")
	for i := 0; b.Len() < n; i++ {
		if i%5003 == 7 {
			b.WriteString(`{"type":"Point","data":{"time":"bad"},"metric":"http_req_duration"}` + "\n")
			continue
		}
		fmt.Fprintf(&b, `{"metric":"http_req_duration","type":"Point","data":{"time":"2024-01-02T03:%02d:%02d.%06d+01:00","value":%d.%03d,"tags":{"method":"GET","name":"https://x/%d","status":"200"}}}`+"\n",
			(i/60000)%60, (i/1000)%60, i%1000000, i%700, i%1000, i%17)
	}
	b.WriteString(`{"metric":"vus","type":"Point","data":{"time":"2024-01-02T04:00:00Z","value":3,"tags":null}}`)
	return []byte(b.String())
}

// openWatched opens path as ReadAll does, with a progress feed that adds
// up into *read, and returns its reader and its mapTarget (nil when Open
// set none).
func openWatched(t *testing.T, path string, read *int64) (*closingReader, *mapTarget) {
	t.Helper()
	r, err := openCounted(path, nil, func(n int) { *read += int64(n) })
	if err != nil {
		t.Fatal(err)
	}
	cr := r.(*closingReader)
	if j, ok := cr.Reader.(*K6JSONReader); ok {
		return cr, j.mapAt
	}
	return cr, nil
}

// sampleLine is a sample as one comparable string.
func sampleLine(s *Sample) string {
	return fmt.Sprintf("%s|%d|%v|%s", s.Metric, s.TimeNS, s.Value, tagString(s))
}

// drainAll drains r on two sinks and returns every sample, sorted.
func drainAll(r *closingReader) ([]string, error) {
	var got [2][]string
	err := r.Drain([]func(*Sample){
		func(s *Sample) { got[0] = append(got[0], sampleLine(s)) },
		func(s *Sample) { got[1] = append(got[1], sampleLine(s)) },
	})
	all := append(got[0], got[1]...)
	slices.Sort(all)
	return all, err
}

// TestMappedDrainReadsAsNext: Drain on a plain JSON file of several MiB cuts
// its chunks from a mapping (the mapped hook fires), Next reads it; both
// must give the same samples, the same skipped lines with the same line
// numbers and messages, the same Stats.Bytes, and feed the progress
// callback the file's size.
func TestMappedDrainReadsAsNext(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"big.json", mappedJSON(3 << 20)},
		{"bom.json", append([]byte("\xef\xbb\xbf"), mappedJSON(2<<20)...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.name)
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			var readN, readD int64
			rn, tn := openWatched(t, path, &readN)
			mappedN := false
			tn.mapped = func() { mappedN = true }
			var next []string
			for rn.Next() {
				next = append(next, sampleLine(rn.Sample()))
			}
			slices.Sort(next)
			if err := rn.Err(); err != nil {
				t.Fatal(err)
			}
			rn.Close()

			rd, td := openWatched(t, path, &readD)
			mappedD := false
			td.mapped = func() { mappedD = true }
			drain, err := drainAll(rd)
			if err != nil {
				t.Fatal(err)
			}
			rd.Close()
			if mappedN || !mappedD {
				t.Fatalf("mapped: Next %v (want false), Drain %v (want true)", mappedN, mappedD)
			}
			if len(next) < 10000 || !slices.Equal(next, drain) {
				t.Fatalf("samples: Next %d, Drain %d, equal %v", len(next), len(drain), slices.Equal(next, drain))
			}
			sn, sd := rn.Stats(), rd.Stats()
			if sn.Rows != sd.Rows || sn.Skipped != sd.Skipped || sn.Skipped == 0 || sn.Bytes != sd.Bytes || sn.ResolutionNS != sd.ResolutionNS {
				t.Errorf("stats: Next rows %d skipped %d bytes %d res %d; Drain rows %d skipped %d bytes %d res %d",
					sn.Rows, sn.Skipped, sn.Bytes, sn.ResolutionNS, sd.Rows, sd.Skipped, sd.Bytes, sd.ResolutionNS)
			}
			if en, ed := fmt.Sprint(sn.Errors), fmt.Sprint(sd.Errors); en != ed {
				t.Errorf("errors:\nNext  %s\nDrain %s", en, ed)
			}
			if size := int64(len(c.data)); readN != size || readD != size {
				t.Errorf("progress: Next %d bytes, Drain %d, want the file's %d", readN, readD, size)
			}
		})
	}
}

// TestMappedFileCut: a file cut (truncated) after it was mapped, before a
// byte of it was read, makes the reads of its lost pages fault; Drain must
// return an error that names the file and says what happened, not crash.
func TestMappedFileCut(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"cut.json", mappedJSON(4 << 20)},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.name)
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			var read int64
			r, target := openWatched(t, path, &read)
			defer r.Close()
			const cut = 1<<20 + 100
			target.mapped = func() {
				if err := os.Truncate(path, cut); err != nil {
					t.Error(err)
				}
			}
			_, err := drainAll(r)
			want := fmt.Sprintf("%s: changed size while being read (%d bytes when opened, %d now): a file that is still being written or was cut; analyse a finished copy", path, len(c.data), cut)
			if err == nil || err.Error() != want {
				t.Fatalf("Drain: %v\nwant %s", err, want)
			}
		})
	}
}

// TestNotMapped: a JSON file under minMapped is read, not mapped; a CSV
// is not mapped at all (Open sets no mapTarget), nor is a compressed file.
func TestNotMapped(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	data := mappedJSON(minMapped / 2)
	if err := os.WriteFile(small, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var read int64
	r, target := openWatched(t, small, &read)
	defer r.Close()
	mapped := false
	target.mapped = func() { mapped = true }
	got, err := drainAll(r)
	if err != nil || mapped || len(got) < 1000 || read != int64(len(data)) {
		t.Fatalf("Drain: %d samples, err %v, mapped %v, progress %d of %d", len(got), err, mapped, read, len(data))
	}

	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(mappedJSON(2 * minMapped))
	zw.Close()
	csv := []byte(hdr + strings.Repeat("vus,1700000000,3,,,,,,,,,,,,,,,,\n", 2*minMapped/34))
	for name, b := range map[string][]byte{"big.json.gz": gz.Bytes(), "big.csv": csv} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, target := openWatched(t, p, &read)
		r.Close()
		if target != nil {
			t.Errorf("%s: a mapTarget, want none", name)
		}
	}
}

// TestMappedFileGrows: what a file gains after it was mapped (k6 still
// writing it) is read after the mapping, as read() would read it: Drain
// gives the samples that Next gives of the file grown, and the progress
// callback is fed its new size.
func TestMappedFileGrows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grows.json")
	data := mappedJSON(2 << 20)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	more := []byte("\n" + `{"metric":"vus","type":"Point","data":{"time":"2024-01-02T04:00:01Z","value":4,"tags":null}}` + "\n" +
		`{"metric":"vus","type":"Point","data":{"time":"2024-01-02T04:00:02Z","value":5,"tags":null}}`)
	last := fmt.Sprintf("vus|%d|5|", time.Date(2024, 1, 2, 4, 0, 2, 0, time.UTC).UnixNano())
	var read int64
	r, target := openWatched(t, path, &read)
	defer r.Close()
	target.mapped = func() {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, err = f.Write(more)
			f.Close()
		}
		if err != nil {
			t.Error(err)
		}
	}
	drain, err := drainAll(r)
	if err != nil {
		t.Fatal(err)
	}
	var ignored int64
	rn, _ := openWatched(t, path, &ignored)
	defer rn.Close()
	var next []string
	for rn.Next() {
		next = append(next, sampleLine(rn.Sample()))
	}
	slices.Sort(next)
	if !slices.Equal(next, drain) || !slices.Contains(drain, last) {
		t.Fatalf("samples: Next %d, Drain %d, equal %v, last %q found %v", len(next), len(drain), slices.Equal(next, drain), last, slices.Contains(drain, last))
	}
	if size := int64(len(data) + len(more)); read != size || r.Stats().Bytes != rn.Stats().Bytes {
		t.Errorf("progress %d bytes, want %d; Stats.Bytes Drain %d, Next %d", read, size, r.Stats().Bytes, rn.Stats().Bytes)
	}
}

// TestMappedParsePanicIsError: a panic in a parser reading a mapped chunk
// that is not a fault on the mapping (a bug) ends the read with an
// internal error naming the panic, not a crash; an index out of range
// (a runtime error at no mapped address) is one too.
func TestMappedParsePanicIsError(t *testing.T) {
	m := &fileMap{data: make([]byte, 8)}
	err := m.guard(func() { panic("boom") })
	if err == nil || !strings.Contains(err.Error(), "internal error while reading the mapped file (boom)") {
		t.Errorf("string panic: %v", err)
	}
	var xs []int
	err = m.guard(func() { _ = xs[len(m.data)] })
	if err == nil || !strings.Contains(err.Error(), "index out of range") || m.faulted.Load() {
		t.Errorf("index panic: %v (faulted %v)", err, m.faulted.Load())
	}
	if err := m.guard(func() {}); err != nil {
		t.Errorf("no panic: %v", err)
	}
}
