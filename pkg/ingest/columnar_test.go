package ingest

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type fullSample struct {
	Metric, Tags, Meta, Source string
	TimeNS                     int64
	Value                      uint64
}

func snapshot(s *Sample) fullSample {
	return fullSample{s.Metric, tagString(s), s.Tags.Metadata(), s.Source, s.TimeNS, math.Float64bits(s.Value)}
}

// roundTrip converts in to format and compares what Open reads back from
// the result with what Open reads from in, sample for sample and in order.
func roundTrip(t *testing.T, in string, format Format, opts ColumnarOptions, more ...string) ColumnarResult {
	t.Helper()
	paths := append([]string{in}, more...)
	r, err := OpenAll(paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out."+string(format))
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	opts.Format = format
	res, err := WriteColumnar(f, r, opts)
	r.Close()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("%s → %s: %v", in, format, err)
	}
	if res.RowsIn != res.RowsOut || res.RowsIn != res.Stats.Rows {
		t.Fatalf("%s → %s: rows in %d, out %d, reader %d", in, format, res.RowsIn, res.RowsOut, res.Stats.Rows)
	}
	a, err := OpenAll(paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var n int64
	for a.Next() {
		if !b.Next() {
			t.Fatalf("%s → %s: output ends after %d rows, input has more (err %v)", in, format, n, b.Err())
		}
		n++
		x, y := snapshot(a.Sample()), snapshot(b.Sample())
		if x != y {
			t.Fatalf("%s → %s: row %d differs:\n in  %+v\n out %+v", in, format, n, x, y)
		}
	}
	if b.Next() {
		t.Fatalf("%s → %s: output has more than the %d input rows", in, format, n)
	}
	if ra, rb := a.Stats().ResolutionNS, b.Stats().ResolutionNS; ra != rb {
		t.Errorf("%s → %s: resolution %d ns read back, input %d ns", in, format, rb, ra)
	}
	if b.Err() != nil || b.Stats().Rows != n || b.Stats().Skipped != 0 {
		t.Fatalf("%s → %s: read back err %v, rows %d skipped %d, want %d", in, format, b.Err(), b.Stats().Rows, b.Stats().Skipped, n)
	}
	return res
}

// TestColumnarRoundTrip: every corpus sample file converts to Parquet and
// Arrow and reads back identical, row for row (the issue's "row counts in =
// out, always").
func TestColumnarRoundTrip(t *testing.T) {
	files := []struct {
		dir, name string
		big       bool
		unit      string
	}{
		{corpusK6, "breakpoint.csv.gz", true, "s"},
		{corpusK6, "open_ramp.json.gz", true, "ns"},
		{corpusK6, "timefmt_rfc3339_nano.csv", false, "ns"},
		{corpusPublic, "k6-csv-v0.32-trello-cypress.csv", false, "s"},
		{corpusPublic, "k6-csv-v0.5x-finance.csv", false, "s"},
		{corpusPublic, "k6-jsonl-v0.32-trello-cypress.json", false, "us"},
		{corpusPublic, "k6-jsonl-2024-ticket-reserve.json", false, "ns"},
		{corpusPublic, "k6-jsonl-2024-load-template.json", false, "ns"},
		{corpusPublic, "k6-jsonl-v0.5x-finance.json", false, "ns"},
	}
	for _, f := range files {
		if f.big && testing.Short() {
			continue
		}
		p := corpusFile(t, f.dir, f.name)
		for _, format := range []Format{FormatParquet, FormatArrow} {
			t.Run(f.name+"/"+string(format), func(t *testing.T) {
				// Small batches on small files exercise the batch seams and the
				// per-batch dictionaries.
				opts := ColumnarOptions{}
				if !f.big {
					opts.BatchRows = 100
				}
				res := roundTrip(t, p, format, opts)
				if res.TimeUnit != f.unit {
					t.Errorf("time unit %s, want %s", res.TimeUnit, f.unit)
				}
			})
		}
	}
}

// TestColumnarDistributed: several files, CSV and JSON mixed, are one
// stream; the output keeps every row and each row's source file. The
// finance CSV and JSON are one run (public README §7–8: 802 rows each).
func TestColumnarDistributed(t *testing.T) {
	csv := corpusFile(t, corpusPublic, "k6-csv-v0.5x-finance.csv")
	js := corpusFile(t, corpusPublic, "k6-jsonl-v0.5x-finance.json")
	for _, format := range []Format{FormatParquet, FormatArrow} {
		res := roundTrip(t, js, format, ColumnarOptions{BatchRows: 500}, csv)
		if res.RowsOut != 1604 || res.TimeUnit != "ns" {
			t.Errorf("%s: %d rows, unit %s; want 1,604 (802 + 802) in ns", format, res.RowsOut, res.TimeUnit)
		}
	}
}

// TestColumnarLateTagsAndMetadata: a tag key first seen after the first
// batch, a tag named like a fixed column and metadata all survive.
func TestColumnarLateTagsAndMetadata(t *testing.T) {
	src := strings.Join([]string{
		`{"metric":"m","type":"Point","data":{"time":"2026-11-30T02:04:18.5Z","value":1,"tags":{"status":"200","source_file":"x"},"metadata":{"vu":"1","iter":"2"}}}`,
		`{"metric":"m","type":"Point","data":{"time":"2026-11-30T02:04:19Z","value":2.5,"tags":{"late":"yes","group":"::g"}}}`,
		`{"metric":"n","type":"Point","data":{"time":"2026-11-30T02:04:20Z","value":-3,"tags":null}}`,
	}, "\n")
	for _, format := range []Format{FormatParquet, FormatArrow} {
		in := NewK6JSONReader(strings.NewReader(src), "late.json")
		var buf bytes.Buffer
		res, err := WriteColumnar(&buf, in, ColumnarOptions{Format: format, BatchRows: 1})
		if err != nil || res.RowsOut != 3 || res.TimeUnit != "ms" {
			t.Fatalf("%s: %v rows %d unit %s (want 3 rows, ms from .5 s)", format, err, res.RowsOut, res.TimeUnit)
		}
		p := filepath.Join(t.TempDir(), "late")
		os.WriteFile(p, buf.Bytes(), 0o644)
		r, err := Open(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for r.Next() {
			s := r.Sample()
			got = append(got, s.Metric+" "+tagString(s)+" "+s.Source)
		}
		r.Close()
		want := []string{"m @iter=2&@vu=1&source_file=x&status=200 late.json", "m group=::g&late=yes late.json", "n  late.json"}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", format, got, want)
		}
	}
}

// TestColumnarTimeUnitTooCoarse: a forced unit that loses precision is an
// error, not a silent rounding.
func TestColumnarTimeUnitTooCoarse(t *testing.T) {
	src := `{"metric":"m","type":"Point","data":{"time":"2026-11-30T02:04:18.5Z","value":1}}`
	var buf bytes.Buffer
	_, err := WriteColumnar(&buf, NewK6JSONReader(strings.NewReader(src), "c.json"), ColumnarOptions{TimeUnit: "s"})
	if err == nil || !strings.Contains(err.Error(), "c.json: sample 1 has time 1796004258500000000 ns, finer than the s unit") {
		t.Errorf("err = %v", err)
	}
}

func TestColumnarNotSamples(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.arrow")
	os.WriteFile(p, []byte("ARROW1\x00\x00garbage"), 0o644)
	if _, err := Open(p, nil); err == nil || !strings.HasPrefix(err.Error(), p+": arrow") {
		t.Errorf("err = %v, want one naming the file", err)
	}
}

// FuzzColumnar feeds arbitrary bytes behind the two magics: opening and
// reading must fail cleanly, never panic.
func FuzzColumnar(f *testing.F) {
	var buf bytes.Buffer
	src := `{"metric":"m","type":"Point","data":{"time":"2026-11-30T02:04:18Z","value":1,"tags":{"a":"b"}}}`
	WriteColumnar(&buf, NewK6JSONReader(strings.NewReader(src), "s.json"), ColumnarOptions{})
	f.Add(buf.Bytes())
	buf.Reset()
	WriteColumnar(&buf, NewK6JSONReader(strings.NewReader(src), "s.json"), ColumnarOptions{Format: FormatArrow})
	f.Add(buf.Bytes())
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Skip()
		}
		c, err := OpenColumnar(p)
		if err != nil {
			return
		}
		defer c.Close()
		for c.Next() {
			_ = tagString(c.Sample())
		}
	})
}

// BenchmarkColumnarParquet converts breakpoint.csv.gz (325,555 rows).
func BenchmarkColumnarParquet(b *testing.B) {
	p := corpusFile(b, corpusK6, "breakpoint.csv.gz")
	var rows int64
	for b.Loop() {
		r, err := Open(p, nil)
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		res, err := WriteColumnar(&buf, r, ColumnarOptions{})
		r.Close()
		if err != nil {
			b.Fatal(err)
		}
		rows += res.RowsOut
		b.SetBytes(res.Stats.Bytes)
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
