package ingest

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

type fullSample struct {
	Metric, Tags, Meta, Source string
	TimeNS                     int64
	Value                      uint64
}

func snapshot(s *Sample) fullSample {
	return fullSample{s.Metric, tagString(s), s.Tags.Metadata(), s.Source, s.TimeNS, math.Float64bits(s.Value)}
}

// seriesID is a series as the cardinality counter tells them apart.
type seriesID struct {
	metric string
	hash   uint64
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
	// The series (metric and SeriesHash) of the input and of the output
	// must be as many: the readers hash differently, but each one hashes
	// equal tag sets alike and distinct ones apart.
	seed := maphash.MakeSeed()
	seriesIn, seriesOut := map[seriesID]bool{}, map[seriesID]bool{}
	for a.Next() {
		if !b.Next() {
			t.Fatalf("%s → %s: output ends after %d rows, input has more (err %v)", in, format, n, b.Err())
		}
		n++
		x, y := snapshot(a.Sample()), snapshot(b.Sample())
		if x != y {
			t.Fatalf("%s → %s: row %d differs:\n in  %+v\n out %+v", in, format, n, x, y)
		}
		seriesIn[seriesID{x.Metric, a.Sample().Tags.SeriesHash(seed)}] = true
		seriesOut[seriesID{y.Metric, b.Sample().Tags.SeriesHash(seed)}] = true
	}
	// (Several inputs may mix readers, whose hashes of one series differ.)
	if len(more) == 0 && len(seriesIn) != len(seriesOut) {
		t.Errorf("%s → %s: %d series read back, input has %d", in, format, len(seriesOut), len(seriesIn))
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

// TestColumnarParquetSchema: the Parquet file has the types other tools
// need (strings as String, the timestamp as a UTC Timestamp, seconds
// stored as milliseconds), the stored Arrow schema, the metadata and one
// row group per batch.
func TestColumnarParquetSchema(t *testing.T) {
	src := strings.Join([]string{
		`{"metric":"m","type":"Point","data":{"time":"2026-11-30T02:04:18Z","value":1,"tags":{"status":"200"}}}`,
		`{"metric":"m","type":"Point","data":{"time":"2026-11-30T02:04:19Z","value":2,"tags":{"status":""}}}`,
		`{"metric":"n","type":"Point","data":{"time":"2026-11-30T02:04:20Z","value":3}}`,
	}, "\n")
	for _, tc := range []struct {
		unit    string
		tsUnit  schema.TimeUnitType
		arrow   arrow.TimeUnit
		resNS   string
		firstTS int64
	}{
		{"s", schema.TimeUnitMillis, arrow.Second, "1000000000", 1796004258000},
		{"us", schema.TimeUnitMicros, arrow.Microsecond, "1000000000", 1796004258000000},
		{"ns", schema.TimeUnitNanos, arrow.Nanosecond, "1000000000", 1796004258000000000},
	} {
		var buf bytes.Buffer
		res, err := WriteColumnar(&buf, NewK6JSONReader(strings.NewReader(src), "s.json"), ColumnarOptions{TimeUnit: tc.unit, BatchRows: 2})
		if err != nil || res.RowsOut != 3 {
			t.Fatalf("%s: %v, %d rows", tc.unit, err, res.RowsOut)
		}
		pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		md := pf.MetaData()
		if pf.NumRowGroups() != 2 || pf.NumRows() != 3 {
			t.Errorf("%s: %d row groups, %d rows; want 2, 3", tc.unit, pf.NumRowGroups(), pf.NumRows())
		}
		var got []string
		for i := 0; i < md.Schema.NumColumns(); i++ {
			c := md.Schema.Column(i)
			lt := c.LogicalType().String()
			if ts, ok := c.LogicalType().(schema.TimestampLogicalType); ok {
				lt = fmt.Sprintf("Timestamp(utc=%v, %v)", ts.IsAdjustedToUTC(), ts.TimeUnit() == tc.tsUnit)
			}
			desc := fmt.Sprintf("%s %s %s def%d", c.Name(), c.PhysicalType(), lt, c.MaxDefinitionLevel())
			if i > 2 && !strings.HasPrefix(desc, "status ") && !strings.HasPrefix(desc, "extra_tags ") && !strings.HasPrefix(desc, "metadata ") && !strings.HasPrefix(desc, "source_file ") {
				if desc != c.Name()+" BYTE_ARRAY String def1" { // another tag column
					t.Errorf("%s: column %s", tc.unit, desc)
				}
				continue
			}
			got = append(got, desc)
		}
		want := []string{
			"metric_name BYTE_ARRAY String def0",
			"timestamp INT64 Timestamp(utc=true, true) def0",
			"metric_value DOUBLE None def0",
			"status BYTE_ARRAY String def1",
			"extra_tags BYTE_ARRAY String def1",
			"metadata BYTE_ARRAY String def1",
			"source_file BYTE_ARRAY String def1",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: columns\n%s\nwant\n%s", tc.unit, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		kv := md.KeyValueMetadata()
		if v := kv.FindValue(metaKind); v == nil || *v != metaKindValue {
			t.Errorf("%s: %s = %v", tc.unit, metaKind, v)
		}
		if v := kv.FindValue(metaResolution); v == nil || *v != tc.resNS {
			t.Errorf("%s: %s = %v, want %s", tc.unit, metaResolution, v, tc.resNS)
		}
		sc := storedArrowSchema(t, kv.FindValue(arrowSchemaKey))
		if typ, ok := sc.Field(1).Type.(*arrow.TimestampType); !ok || typ.Unit != tc.arrow || typ.TimeZone != "UTC" {
			t.Errorf("%s: stored timestamp type %s", tc.unit, sc.Field(1).Type)
		}
		if sc.Field(0).Type.ID() != arrow.DICTIONARY {
			t.Errorf("%s: stored metric_name type %s, want a dictionary", tc.unit, sc.Field(0).Type)
		}
		// The first timestamp as stored, and status "" written as null.
		rd, err := pf.RowGroup(0).Column(1)
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]int64, 2)
		if _, n, err := rd.(*file.Int64ColumnChunkReader).ReadBatch(2, vals, nil, nil); err != nil || n != 2 || vals[0] != tc.firstTS {
			t.Errorf("%s: stored timestamps %v (%v), want %d first", tc.unit, vals[:n], err, tc.firstTS)
		}
		rd, err = pf.RowGroup(0).Column(md.Schema.ColumnIndexByName("status"))
		if err != nil {
			t.Fatal(err)
		}
		strs, defs := make([]parquet.ByteArray, 2), make([]int16, 2)
		if lv, n, err := rd.(*file.ByteArrayColumnChunkReader).ReadBatch(2, strs, defs, nil); err != nil || lv != 2 || n != 1 || string(strs[0]) != "200" || defs[1] != 0 {
			t.Errorf("%s: status %q defs %v (%v), want 200 and a null", tc.unit, strs[:n], defs, err)
		}
		pf.Close()
	}
}

// storedArrowSchema decodes the ARROW:schema value v as Arrow's readers do.
func storedArrowSchema(t *testing.T, v *string) *arrow.Schema {
	t.Helper()
	if v == nil {
		t.Fatal("no ARROW:schema")
	}
	raw, err := base64.StdEncoding.DecodeString(*v)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := ipc.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	return rd.Schema()
}

// writeForeignParquet writes a Parquet file as other tools do: nullable
// fixed columns (with a null in each), plain (converted-type UTF8) strings,
// INT96 timestamps, and columns that are not sample columns (binary, int,
// repeated), in row groups of 2 rows.
func writeForeignParquet(t testing.TB, w *bytes.Buffer) {
	opt := parquet.Repetitions.Optional
	node := func(n schema.Node, err error) schema.Node {
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	fields := schema.FieldList{
		node(schema.NewPrimitiveNode("an_int", opt, parquet.Types.Int32, -1, -1)),
		node(schema.NewPrimitiveNodeConverted(ColMetric, opt, parquet.Types.ByteArray, schema.ConvertedTypes.UTF8, 0, 0, 0, -1)),
		node(schema.NewPrimitiveNode(ColTime, opt, parquet.Types.Int96, -1, -1)),
		node(schema.NewPrimitiveNode(ColValue, opt, parquet.Types.Double, -1, -1)),
		node(schema.NewPrimitiveNodeLogical("status", opt, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1)),
		node(schema.NewPrimitiveNode("blob", opt, parquet.Types.ByteArray, -1, -1)),
		node(schema.NewPrimitiveNodeLogical("ids", parquet.Repetitions.Repeated, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1)),
	}
	root := node(schema.NewGroupNode("duckdb_schema", parquet.Repetitions.Required, fields, -1)).(*schema.GroupNode)
	props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(false))
	pw := file.NewParquetWriter(w, root, file.WithWriterProps(props))
	int96 := func(ns int64) parquet.Int96 {
		var v parquet.Int96
		day := ns / (86400 * 1e9)
		binary.LittleEndian.PutUint64(v[:8], uint64(ns-day*86400*1e9))
		binary.LittleEndian.PutUint32(v[8:], uint32(day+2440588))
		return v
	}
	const t0 = 1796004258500000000
	type row struct {
		metric, status string
		hasMetric      bool
		time           int64 // 0: null
		value          float64
		hasValue       bool
	}
	rows := []row{
		{"http_reqs", "200", true, t0, 1, true},
		{"", "", false, t0, 2, true},          // null metric_name
		{"http_reqs", "", true, 0, 3, true},   // null timestamp
		{"vus", "", true, t0 + 1e9, 0, false}, // null metric_value
		{"vus", "", true, t0 + 2e9, 5, true},
		{"", "", true, t0 + 3e9, 6, true}, // an empty metric_name
	}
	for start := 0; start < len(rows); start += 2 {
		rs := rows[start:min(start+2, len(rows))]
		rgw, err := pw.AppendRowGroupChecked()
		if err != nil {
			t.Fatal(err)
		}
		defs := func(f func(r row) bool) []int16 {
			var d []int16
			for _, r := range rs {
				if f(r) {
					d = append(d, 1)
				} else {
					d = append(d, 0)
				}
			}
			return d
		}
		var ints []int32
		var metrics, statuses, blobs []parquet.ByteArray
		var times []parquet.Int96
		var values []float64
		for i, r := range rs {
			ints = append(ints, int32(i))
			if r.hasMetric {
				metrics = append(metrics, parquet.ByteArray(r.metric))
			}
			if r.time != 0 {
				times = append(times, int96(r.time))
			}
			if r.hasValue {
				values = append(values, r.value)
			}
			if r.status != "" {
				statuses = append(statuses, parquet.ByteArray(r.status))
			}
			blobs = append(blobs, parquet.ByteArray("x"))
		}
		all := defs(func(row) bool { return true })
		write := func(f func(c file.ColumnChunkWriter) error) {
			c, err := rgw.NextColumn()
			if err == nil {
				err = f(c)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		write(func(c file.ColumnChunkWriter) error {
			_, err := c.(*file.Int32ColumnChunkWriter).WriteBatch(ints, all, nil)
			return err
		})
		write(func(c file.ColumnChunkWriter) error {
			_, err := c.(*file.ByteArrayColumnChunkWriter).WriteBatch(metrics, defs(func(r row) bool { return r.hasMetric }), nil)
			return err
		})
		write(func(c file.ColumnChunkWriter) error {
			_, err := c.(*file.Int96ColumnChunkWriter).WriteBatch(times, defs(func(r row) bool { return r.time != 0 }), nil)
			return err
		})
		write(func(c file.ColumnChunkWriter) error {
			_, err := c.(*file.Float64ColumnChunkWriter).WriteBatch(values, defs(func(r row) bool { return r.hasValue }), nil)
			return err
		})
		write(func(c file.ColumnChunkWriter) error {
			_, err := c.(*file.ByteArrayColumnChunkWriter).WriteBatch(statuses, defs(func(r row) bool { return r.status != "" }), nil)
			return err
		})
		write(func(c file.ColumnChunkWriter) error {
			_, err := c.(*file.ByteArrayColumnChunkWriter).WriteBatch(blobs, all, nil)
			return err
		})
		write(func(c file.ColumnChunkWriter) error {
			reps := make([]int16, len(rs))
			_, err := c.(*file.ByteArrayColumnChunkWriter).WriteBatch(blobs, all, reps)
			return err
		})
		if err := rgw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestColumnarParquetForeign: a Parquet file from another tool reads with
// its string columns as tags, its other columns ignored, INT96 times, and
// the rows with a null fixed column or an empty metric name recorded and
// skipped.
func TestColumnarParquetForeign(t *testing.T) {
	var buf bytes.Buffer
	writeForeignParquet(t, &buf)
	c, p := openColumnarBytes(t, "foreign.parquet", buf.Bytes())
	if got := strings.Join(c.TagColumns(), ","); got != "status" {
		t.Errorf("tag columns %q, want status", got)
	}
	var got []string
	for c.Next() {
		s := c.Sample()
		got = append(got, fmt.Sprintf("%s %d %g %s %s", s.Metric, s.TimeNS, s.Value, tagString(s), s.Source))
	}
	want := []string{
		"http_reqs 1796004258500000000 1 status=200 " + p,
		"vus 1796004260500000000 5  " + p,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	st := c.Stats()
	if c.Err() != nil || st.Rows != 2 || st.Skipped != 4 || st.ResolutionNS != 1 {
		t.Errorf("err %v, rows %d, skipped %d, resolution %d; want 2, 4, 1 (INT96 is ns)", c.Err(), st.Rows, st.Skipped, st.ResolutionNS)
	}
	var errs []string
	for _, e := range st.Errors {
		errs = append(errs, e.Error())
	}
	wantErrs := []string{p + ":2:2: null metric_name", p + ":3:3: null timestamp", p + ":4:4: null metric_value", p + ":6:2: empty metric_name"}
	if strings.Join(errs, "\n") != strings.Join(wantErrs, "\n") {
		t.Errorf("errors\n%s\nwant\n%s", strings.Join(errs, "\n"), strings.Join(wantErrs, "\n"))
	}
}

// TestColumnarParquetCorrupt: a cut or damaged Parquet file is an error
// naming the file, at open or while reading, never a panic.
func TestColumnarParquetCorrupt(t *testing.T) {
	src := corpusFile(t, corpusPublic, "k6-csv-v0.5x-finance.csv")
	r, err := Open(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_, err = WriteColumnar(&buf, r, ColumnarOptions{BatchRows: 300})
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	dir := t.TempDir()
	try := func(what string, data []byte) {
		p := filepath.Join(dir, "x.parquet")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := OpenColumnar(p)
		if err == nil {
			for c.Next() {
			}
			err = c.Err()
			c.Close()
		}
		if err != nil && !strings.HasPrefix(err.Error(), p+": ") {
			t.Errorf("%s: error %q does not name the file", what, err)
		}
	}
	for _, cut := range []int{4, 8, 100, len(good) / 2, len(good) - 9, len(good) - 1} {
		try(fmt.Sprintf("cut at %d", cut), append(good[:cut:cut], "PAR1"...))
	}
	for off := 4; off < len(good)-8; off += len(good) / 97 {
		bad := bytes.Clone(good)
		bad[off] ^= 0x5a
		bad[off+1] ^= 0xff
		try(fmt.Sprintf("damaged at %d", off), bad)
	}
}

// columnarSeed converts the first lines of a corpus file to format, for
// fuzz seeds.
func columnarSeed(f *testing.F, path string, lines int, format Format) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	head := bytes.SplitAfterN(data, []byte("\n"), lines+1)
	in := bytes.Join(head[:min(lines, len(head))], nil)
	r, err := Open("-", bytes.NewReader(in))
	if err != nil {
		return nil
	}
	defer r.Close()
	var buf bytes.Buffer
	if _, err := WriteColumnar(&buf, r, ColumnarOptions{Format: format, BatchRows: 50}); err != nil {
		return nil
	}
	return buf.Bytes()
}

// FuzzColumnar feeds arbitrary bytes behind the two magics (seeds: files
// written from real corpus lines, and another tool's Parquet): opening and
// reading must fail cleanly, never panic, and what is read must be samples
// a reader may return (a metric, a time in 1970–2200, a finite value), the
// same through Drain as through Next.
func FuzzColumnar(f *testing.F) {
	for _, format := range []Format{FormatParquet, FormatArrow} {
		for _, src := range []string{filepath.Join(corpusPublic, "k6-csv-v0.5x-finance.csv"), filepath.Join(corpusPublic, "k6-jsonl-2024-ticket-reserve.json")} {
			if seed := columnarSeed(f, src, 120, format); seed != nil {
				f.Add(seed)
			}
		}
	}
	var buf bytes.Buffer
	writeForeignParquet(f, &buf)
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
		var next []string
		for c.Next() {
			s := c.Sample()
			if s.Metric == "" || s.TimeNS < MinTimeNS || s.TimeNS > MaxTimeNS || math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
				t.Fatalf("sample out of range: %+v", *s)
			}
			next = append(next, fmt.Sprint(snapshot(s)))
		}
		nerr, nst := c.Err(), c.Stats()
		c.Close()
		d, err := OpenColumnar(p)
		if err != nil {
			t.Fatalf("second open: %v", err)
		}
		defer d.Close()
		var drained []string
		ch := make(chan string, 1<<12)
		done := make(chan struct{})
		go func() {
			for k := range ch {
				drained = append(drained, k)
			}
			close(done)
		}()
		sink := func(s *Sample) { ch <- fmt.Sprint(snapshot(s)) }
		derr := d.Drain([]func(*Sample){sink, sink})
		close(ch)
		<-done
		if (nerr == nil) != (derr == nil) {
			t.Fatalf("Next error %v, Drain error %v", nerr, derr)
		}
		if nerr == nil {
			slices.Sort(next)
			slices.Sort(drained)
			if !slices.Equal(next, drained) || nst.Skipped != d.Stats().Skipped {
				t.Fatalf("Next %d samples %d skipped, Drain %d samples %d skipped", len(next), nst.Skipped, len(drained), d.Stats().Skipped)
			}
		}
		// DrainBatches, on one worker: the same samples, skips and steps
		// back in time, and each tag column's TagIDs name the row's values.
		e, err := OpenColumnar(p)
		if err != nil {
			t.Fatalf("third open: %v", err)
		}
		defer e.Close()
		var batched []string
		add := func(s *Sample) { batched = append(batched, fmt.Sprint(snapshot(s))) }
		berr := e.DrainBatches([]func(*Sample){add}, []func(*Batch){func(b *Batch) {
			for j, key := range e.TagColumns() {
				ids, ok := b.TagIDs(key)
				for i := range b.Len() {
					s := b.Sample(i)
					if ok && s.Tags.Value(j) != b.Names[ids[i]] {
						t.Fatalf("row %d of a batch: TagIDs(%s) %q, Value %q", i, key, b.Names[ids[i]], s.Tags.Value(j))
					}
					if j == 0 {
						add(s)
					}
				}
			}
			if len(e.TagColumns()) == 0 {
				for i := range b.Len() {
					add(b.Sample(i))
				}
			}
		}})
		if (nerr == nil) != (berr == nil) {
			t.Fatalf("Next error %v, DrainBatches error %v", nerr, berr)
		}
		if nerr == nil {
			slices.Sort(batched)
			if est := e.Stats(); !slices.Equal(next, batched) || nst.Skipped != est.Skipped || nst.TimeSteps != est.TimeSteps {
				t.Fatalf("Next %d samples %d skipped %d steps, DrainBatches %d samples %d skipped %d steps", len(next), nst.Skipped, nst.TimeSteps, len(batched), est.Skipped, est.TimeSteps)
			}
		}
	})
}

// FuzzColumnarRoundTrip: the samples of a k6 CSV (made from the fuzz bytes
// as in FuzzCSVJSONAgree, batches of 1–16 rows) written to Parquet and to
// Arrow read back equal to the CSV's, row for row and in order.
func FuzzColumnarRoundTrip(f *testing.F) {
	f.Add([]byte("\x01\x02\x03\x50\x14\x21\x00\x00\x00\x00\x00\x00"), uint8(3))
	if data, err := os.ReadFile(filepath.Join(corpusK6, "timefmt_rfc3339_nano.csv")); err == nil {
		f.Add(data[:min(len(data), 900)], uint8(7))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, batch uint8) {
		in := toCSV(samplesOf(data))
		want, _ := readFuzz(t, in)
		for _, format := range []Format{FormatParquet, FormatArrow} {
			r, err := Open("-", bytes.NewReader(in))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			res, err := WriteColumnar(&buf, r, ColumnarOptions{Format: format, BatchRows: 1 + int(batch%16)})
			r.Close()
			if err != nil || res.RowsOut != int64(len(want)) {
				t.Fatalf("%s: %v, %d rows out of %d", format, err, res.RowsOut, len(want))
			}
			p := filepath.Join(dir, "rt."+string(format))
			os.WriteFile(p, buf.Bytes(), 0o644)
			c, err := OpenColumnar(p)
			if err != nil {
				t.Fatal(err)
			}
			var got []fuzzSample
			for c.Next() {
				got = append(got, fuzzOf(c.Sample()))
			}
			c.Close()
			if c.Err() != nil || !slices.Equal(got, want) {
				t.Fatalf("%s (batch %d): err %v\n got %v\nwant %v", format, 1+int(batch%16), c.Err(), got, want)
			}
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

// TestColumnarDrain: Drain reads the row groups (record batches) of a file
// on parallel sinks and returns the samples Next returns, tags and all, and
// the same skipped rows with the same row numbers (the foreign file's 2-row
// row groups put its null rows in three row groups).
func TestColumnarDrain(t *testing.T) {
	src := corpusFile(t, corpusPublic, "k6-jsonl-2024-ticket-reserve.json")
	dir := t.TempDir()
	var files []string
	for _, format := range []Format{FormatParquet, FormatArrow} {
		r, err := Open(src, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "t."+string(format))
		f, _ := os.Create(p)
		if _, err := WriteColumnar(f, r, ColumnarOptions{Format: format, BatchRows: 100}); err != nil {
			t.Fatal(err)
		}
		f.Close()
		r.Close()
		files = append(files, p)
	}
	var buf bytes.Buffer
	writeForeignParquet(t, &buf)
	foreign := filepath.Join(dir, "foreign.parquet")
	os.WriteFile(foreign, buf.Bytes(), 0o644)
	files = append(files, foreign)
	for _, p := range files {
		c, err := OpenColumnar(p)
		if err != nil {
			t.Fatal(err)
		}
		// Series hashes are of tag values, not of a cursor's table ids:
		// Drain's workers (each its own table) give Next's hashes.
		seed := maphash.MakeSeed()
		var want []string
		wantSeries := map[seriesID]bool{}
		for c.Next() {
			want = append(want, fmt.Sprint(snapshot(c.Sample())))
			wantSeries[seriesID{c.Sample().Metric, c.Sample().Tags.SeriesHash(seed)}] = true
		}
		st := c.Stats()
		c.Close()
		if c.Err() != nil || len(want) == 0 {
			t.Fatalf("%s: Next: %v, %d rows", p, c.Err(), len(want))
		}
		d, err := OpenColumnar(p)
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var got []string
		gotSeries := map[seriesID]bool{}
		sinks := make([]func(*Sample), 3)
		for i := range sinks {
			sinks[i] = func(s *Sample) {
				k := fmt.Sprint(snapshot(s))
				id := seriesID{s.Metric, s.Tags.SeriesHash(seed)}
				mu.Lock()
				got = append(got, k)
				gotSeries[id] = true
				mu.Unlock()
			}
		}
		if err := d.Drain(sinks); err != nil {
			t.Fatal(err)
		}
		d.Close()
		slices.Sort(got)
		slices.Sort(want)
		ds := d.Stats()
		if !slices.Equal(got, want) || ds.Rows != st.Rows || ds.Skipped != st.Skipped || fmt.Sprint(ds.Errors) != fmt.Sprint(st.Errors) {
			t.Errorf("%s: Drain %d rows (%d), skipped %d %v; Next %d rows, skipped %d %v", p, len(got), ds.Rows, ds.Skipped, ds.Errors, len(want), st.Skipped, st.Errors)
		}
		if !maps.Equal(gotSeries, wantSeries) {
			t.Errorf("%s: Drain %d series, Next %d, or other hashes", p, len(gotSeries), len(wantSeries))
		}
	}
}

// TestColumnarReservedHeaderColumn: a CSV tag column named like a fixed
// column of the output (source_file) is kept in extra_tags as k=v, as a
// JSON tag of that name is (TestColumnarLateTagsAndMetadata).
func TestColumnarReservedHeaderColumn(t *testing.T) {
	in := "metric_name,timestamp,metric_value,name,source_file,extra_tags,metadata\n" +
		"http_reqs,1796004429,1.000000,menu,x.csv,flow=a,vu=1\n" +
		"http_reqs,1796004429,1.000000,menu,x.csv,flow=a,vu=1\n" +
		"vus,1796004430,3.000000,,,,\n"
	for _, format := range []Format{FormatParquet, FormatArrow} {
		r, err := Open("-", strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		res, err := WriteColumnar(&buf, r, ColumnarOptions{Format: format})
		if err != nil || res.RowsOut != 3 || strings.Join(res.TagColumns, ",") != "name" {
			t.Fatalf("%s: %v, %d rows, tag columns %q", format, err, res.RowsOut, res.TagColumns)
		}
		p := filepath.Join(t.TempDir(), "r")
		os.WriteFile(p, buf.Bytes(), 0o644)
		c, err := Open(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for c.Next() {
			got = append(got, c.Sample().Metric+" "+tagString(c.Sample())+" "+c.Sample().Tags.Extra())
		}
		c.Close()
		want := []string{"http_reqs @vu=1&flow=a&name=menu&source_file=x.csv flow=a&source_file=x.csv", "http_reqs @vu=1&flow=a&name=menu&source_file=x.csv flow=a&source_file=x.csv", "vus  "}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", format, got, want)
		}
	}
}

// TestColumnarParquetStatistics: every statistic the Parquet file carries is
// true (external readers answer count(col) and filters from them: a null
// count of 0 on a column with nulls made DuckDB count them). For each
// column chunk with a null count, the nulls read back must match it.
func TestColumnarParquetStatistics(t *testing.T) {
	r, err := Open(corpusFile(t, corpusK6, "timefmt_rfc3339_nano.csv"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := WriteColumnar(&buf, r, ColumnarOptions{BatchRows: 500}); err != nil {
		t.Fatal(err)
	}
	r.Close()
	pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	checked := 0
	for g := 0; g < pf.NumRowGroups(); g++ {
		rg := pf.RowGroup(g)
		for c := 0; c < pf.MetaData().Schema.NumColumns(); c++ {
			cc, err := rg.MetaData().ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			ok, err := cc.StatsSet()
			if err != nil || !ok {
				continue
			}
			st, err := cc.Statistics()
			if err != nil || st == nil || !st.HasNullCount() {
				continue
			}
			rd, err := rg.Column(c)
			if err != nil {
				t.Fatal(err)
			}
			n := int(rg.NumRows())
			defs := make([]int16, n)
			var levels int64
			switch rd := rd.(type) {
			case *file.ByteArrayColumnChunkReader:
				levels, _, err = rd.ReadBatch(int64(n), make([]parquet.ByteArray, n), defs, nil)
			case *file.Int64ColumnChunkReader:
				levels, _, err = rd.ReadBatch(int64(n), make([]int64, n), defs, nil)
			case *file.Float64ColumnChunkReader:
				levels, _, err = rd.ReadBatch(int64(n), make([]float64, n), defs, nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			nulls := int64(0)
			if rd.Descriptor().MaxDefinitionLevel() > 0 {
				for _, d := range defs[:levels] {
					if d == 0 {
						nulls++
					}
				}
			}
			if st.NullCount() != nulls {
				t.Errorf("row group %d column %s: null count %d in the statistics, %d in the data", g, rd.Descriptor().Name(), st.NullCount(), nulls)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Error("no statistics at all: the timestamp and value columns should have them")
	}
}

// TestColumnarArrowFooterBomb: an Arrow file whose footer claims a field
// with 2^31 children (a corrupt length arrow-go would allocate) is an error
// naming the file, at once, not an out-of-memory crash (found by
// FuzzColumnar).
func TestColumnarArrowFooterBomb(t *testing.T) {
	src := `{"metric":"m","type":"Point","data":{"time":"2026-11-30T02:04:18Z","value":1,"tags":{"a":"b"}}}`
	var buf bytes.Buffer
	if _, err := WriteColumnar(&buf, NewK6JSONReader(strings.NewReader(src), "s.json"), ColumnarOptions{Format: FormatArrow}); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	n := int(binary.LittleEndian.Uint32(data[len(data)-10:]))
	footer := data[len(data)-10-n : len(data)-10]
	// Footer.schema → Schema.fields[0] → Field.children: set its length.
	v := fbVerifier{buf: footer}
	root, _ := v.root()
	sch, ok := v.child(root, 1)
	start, nf := v.vector(sch, 1, 4)
	if !ok || nf == 0 {
		t.Fatal("no fields in the footer")
	}
	f0, _ := v.table(start + v.u32(start))
	p, ok := v.ref(f0, 5)
	if !ok {
		t.Fatal("no children vector in the first field")
	}
	binary.LittleEndian.PutUint32(footer[p:], 1<<31)
	path := filepath.Join(t.TempDir(), "bomb.arrow")
	os.WriteFile(path, data, 0o644)
	if _, err := OpenColumnar(path); err == nil || !strings.HasPrefix(err.Error(), path+": arrow: corrupt footer") {
		t.Errorf("err = %v, want %s: arrow: corrupt footer", err, path)
	}
}

// BenchmarkColumnarDrainFile drains the columnar file named by
// LDANALYZE_BENCH_FILE (e.g. `ldanalyze convert` of a shared/bench CSV) on
// every core, and reports MB/s of the file and rows/s: "fixed" touches
// the fixed columns only, "series" also hashes the tag set of every
// http_reqs sample as the series count of the checks does.
func BenchmarkColumnarDrainFile(b *testing.B) {
	path := os.Getenv("LDANALYZE_BENCH_FILE")
	if path == "" {
		b.Skip("set LDANALYZE_BENCH_FILE")
	}
	for _, series := range []bool{false, true} {
		name := "fixed"
		if series {
			name = "series"
		}
		b.Run(name, func(b *testing.B) {
			seed := maphash.MakeSeed()
			var rows int64
			for b.Loop() {
				c, err := OpenColumnar(path)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(c.Stats().Bytes)
				sums := make([]uint64, runtime.GOMAXPROCS(0))
				sinks := make([]func(*Sample), len(sums))
				for i := range sinks {
					sinks[i] = func(s *Sample) {
						sums[i] += uint64(s.TimeNS) + uint64(len(s.Metric))
						if series && s.Metric == "http_reqs" {
							sums[i] += s.Tags.SeriesHash(seed)
						}
					}
				}
				if err := c.Drain(sinks); err != nil {
					b.Fatal(err)
				}
				rows += c.Stats().Rows
				c.Close()
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// writeEncodedParquet writes samples to a Parquet file with the writer
// properties props (tag columns keys, an empty value as null), in row
// groups of rgRows rows.
func writeEncodedParquet(t *testing.T, path string, samples []*Sample, keys []string, rgRows int, props ...parquet.WriterProperty) {
	t.Helper()
	node := func(n schema.Node, err error) schema.Node {
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	opt, req := parquet.Repetitions.Optional, parquet.Repetitions.Required
	fields := schema.FieldList{
		node(schema.NewPrimitiveNodeLogical(ColMetric, req, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1)),
		node(schema.NewPrimitiveNodeLogical(ColTime, req, schema.NewTimestampLogicalTypeForce(true, schema.TimeUnitNanos), parquet.Types.Int64, -1, -1)),
		node(schema.NewPrimitiveNode(ColValue, opt, parquet.Types.Double, -1, -1)),
	}
	for _, k := range append(slices.Clone(keys), ColExtra, ColMetadata) {
		fields = append(fields, node(schema.NewPrimitiveNodeLogical(k, opt, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1)))
	}
	root := node(schema.NewGroupNode("schema", req, fields, -1)).(*schema.GroupNode)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	pw := file.NewParquetWriter(f, root, file.WithWriterProps(parquet.NewWriterProperties(props...)))
	for start := 0; start < len(samples); start += rgRows {
		rs := samples[start:min(start+rgRows, len(samples))]
		rgw, err := pw.AppendRowGroupChecked()
		if err != nil {
			t.Fatal(err)
		}
		next := func() file.ColumnChunkWriter {
			c, err := rgw.NextColumn()
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		var metrics []parquet.ByteArray
		var times []int64
		var values []float64
		for _, s := range rs {
			metrics = append(metrics, parquet.ByteArray(s.Metric))
			times = append(times, s.TimeNS)
			values = append(values, s.Value)
		}
		if _, err := next().(*file.ByteArrayColumnChunkWriter).WriteBatch(metrics, nil, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := next().(*file.Int64ColumnChunkWriter).WriteBatch(times, nil, nil); err != nil {
			t.Fatal(err)
		}
		ones := make([]int16, len(rs))
		for i := range ones {
			ones[i] = 1
		}
		if _, err := next().(*file.Float64ColumnChunkWriter).WriteBatch(values, ones, nil); err != nil {
			t.Fatal(err)
		}
		for j := range len(keys) + 2 {
			var vals []parquet.ByteArray
			defs := make([]int16, len(rs))
			for i, s := range rs {
				var v string
				switch {
				case j < len(keys):
					v = s.Tags.Value(j)
				case j == len(keys):
					v = s.Tags.Extra()
				default:
					v = s.Tags.Metadata()
				}
				if v != "" {
					defs[i] = 1
					vals = append(vals, parquet.ByteArray(v))
				}
			}
			if _, err := next().(*file.ByteArrayColumnChunkWriter).WriteBatch(vals, defs, nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := rgw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := pw.Close(); err != nil { // closes f
		t.Fatal(err)
	}
}

// TestColumnarParquetEncodings: Parquet files of one k6 CSV's samples
// written with the encodings other writers choose (dictionary pages for
// every column, a dictionary that overflows to PLAIN within a chunk, PLAIN
// strings, data pages V1 and V2, many small pages, several codecs) read
// back sample for sample as the CSV reads, through Next and through Drain.
func TestColumnarParquetEncodings(t *testing.T) {
	src := corpusFile(t, corpusPublic, "k6-csv-v0.5x-finance.csv")
	var want []fullSample
	samples, keys := copySamples(t, src, func(n int, s *Sample) (extra, meta string) { return s.Tags.Extra(), s.Tags.Metadata() })
	for _, c := range samples {
		w := snapshot(c)
		w.Source = ""
		want = append(want, w)
	}
	if len(samples) < 500 {
		t.Fatalf("%d samples in %s", len(samples), src)
	}
	if len(samples) < 500 {
		t.Fatalf("%d samples in %s", len(samples), src)
	}
	dir := t.TempDir()
	for _, v := range []struct {
		name   string
		rgRows int
		props  []parquet.WriterProperty
	}{
		{"dictionary, V2 pages of 512 bytes, zstd", 300, []parquet.WriterProperty{parquet.WithDictionaryDefault(true), parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithDataPageSize(512), parquet.WithBatchSize(37), parquet.WithCompression(compress.Codecs.Zstd)}},
		{"dictionary overflowing to plain, V1, snappy", 5000, []parquet.WriterProperty{parquet.WithDictionaryDefault(true), parquet.WithDictionaryPageSizeLimit(200), parquet.WithDataPageSize(2048), parquet.WithBatchSize(50), parquet.WithCompression(compress.Codecs.Snappy)}},
		{"plain, V1, uncompressed", 1 << 20, []parquet.WriterProperty{parquet.WithDictionaryDefault(false)}},
		{"plain, V2, gzip", 333, []parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Gzip)}},
	} {
		p := filepath.Join(dir, "enc.parquet")
		writeEncodedParquet(t, p, samples, keys, v.rgRows, v.props...)
		c, err := OpenColumnar(p)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		var got []fullSample
		for c.Next() {
			s := snapshot(c.Sample())
			s.Source = ""
			got = append(got, s)
		}
		if c.Err() != nil || len(got) != len(want) {
			t.Fatalf("%s: err %v, %d samples of %d", v.name, c.Err(), len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: sample %d\n got %+v\nwant %+v", v.name, i+1, got[i], want[i])
			}
		}
		c.Close()
		d, err := OpenColumnar(p)
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var drained []fullSample
		sink := func(s *Sample) {
			x := snapshot(s)
			x.Source = ""
			mu.Lock()
			drained = append(drained, x)
			mu.Unlock()
		}
		if err := d.Drain([]func(*Sample){sink, sink}); err != nil {
			t.Fatalf("%s: Drain: %v", v.name, err)
		}
		d.Close()
		key := func(a, b fullSample) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) }
		slices.SortFunc(drained, key)
		sorted := slices.Clone(want)
		slices.SortFunc(sorted, key)
		if !slices.Equal(drained, sorted) {
			t.Errorf("%s: Drain returned other samples than Next (%d of %d)", v.name, len(drained), len(want))
		}
	}
}

// copySamples reads the samples of the k6 file src into samples of their
// own, with the extra tags and metadata tags(n, s) gives the n-th (from 0),
// and returns them with the file's tag columns.
func copySamples(t *testing.T, src string, tags func(n int, s *Sample) (extra, meta string)) ([]*Sample, []string) {
	t.Helper()
	r, err := Open(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var samples []*Sample
	var keys []string
	for r.Next() {
		s := r.Sample()
		keys = s.Tags.Keys()
		extra, meta := tags(len(samples), s)
		samples = append(samples, &Sample{Metric: s.Metric, TimeNS: s.TimeNS, Value: s.Value, Tags: NewTags(keys, s.Tags.AppendValues(nil), extra, meta)})
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return samples, keys
}

// openColumnarBytes writes b to a file of that name in a temporary
// directory and opens it with OpenColumnar; it returns the reader, closed
// when the test ends, and the file's path.
func openColumnarBytes(t *testing.T, name string, b []byte) (*ColumnarReader, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := OpenColumnar(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, p
}
