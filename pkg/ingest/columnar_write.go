package ingest

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// The columns of ldanalyze's columnar sample files (Parquet and Arrow IPC).
// They mirror k6's CSV header: the three fixed columns, one dictionary
// column per tag, extra_tags and metadata, plus the file each sample came
// from. Any other column of such a file is a tag column.
const (
	ColMetric   = "metric_name"  // dictionary<int32, utf8>, not null
	ColTime     = "timestamp"    // timestamp[s|ms|us|ns, UTC], not null
	ColValue    = "metric_value" // float64, not null
	ColExtra    = "extra_tags"   // dictionary<int32, utf8>, null = none
	ColMetadata = "metadata"     // utf8, null = none
	ColSource   = "source_file"  // dictionary<int32, utf8>
)

// The columnar formats WriteColumnar writes and Open reads.
const (
	// FormatParquet is Apache Parquet (zstd, dictionary-encoded strings,
	// the Arrow schema stored so that Arrow readers such as pyarrow get the
	// types back exactly).
	FormatParquet Format = "parquet"
	// FormatArrow is the Arrow IPC file format ("Feather v2").
	FormatArrow Format = "arrow"
)

// Metadata keys of the schema of a columnar sample file.
const (
	metaKind       = "ldanalyze.kind"
	metaKindValue  = "k6-samples/1"
	metaResolution = "ldanalyze.resolution_ns" // the input's Stats.ResolutionNS
)

// ColumnarOptions configure WriteColumnar. The zero value writes Parquet in
// batches of 65,536 rows with the time unit chosen from the data.
type ColumnarOptions struct {
	// Format is FormatParquet (default) or FormatArrow.
	Format Format
	// BatchRows is the number of rows per record batch (Parquet: per row
	// group); 0 means 65,536.
	BatchRows int
	// TimeUnit forces the timestamp unit: "s", "ms", "us" or "ns". ""
	// chooses the coarsest unit that holds every timestamp of the first
	// batch exactly and is no coarser than the input's resolution; a later
	// timestamp that the unit cannot hold exactly is an error (rerun with
	// "ns").
	TimeUnit string
	// TempDir holds the scratch file of the Arrow writer ("" = os.TempDir).
	TempDir string
}

// ColumnarResult is what WriteColumnar wrote.
type ColumnarResult struct {
	// RowsIn is the number of samples read; RowsOut the number of rows
	// written. They are equal unless the write failed.
	RowsIn, RowsOut int64
	// TagColumns are the tag columns of the file, in order.
	TagColumns []string
	// TimeUnit is the unit of the timestamp column: "s", "ms", "us", "ns".
	TimeUnit string
	// Stats are the input reader's final counts (skipped lines, warnings).
	Stats Stats
}

var dictString = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}

// timeUnits maps the unit names to arrow units and nanoseconds.
var timeUnits = []struct {
	name string
	unit arrow.TimeUnit
	ns   int64
}{{"s", arrow.Second, 1e9}, {"ms", arrow.Millisecond, 1e6}, {"us", arrow.Microsecond, 1e3}, {"ns", arrow.Nanosecond, 1}}

// WriteColumnar reads every sample of r and writes them to w as one row
// each, in Parquet or Arrow IPC file format (see the Col* constants for the
// columns). The tag columns are the tag keys of the first batch; a tag key
// first seen later (or one named like a fixed column) is kept in
// extra_tags as "k=v", so nothing is lost. Memory is bounded by one batch
// and the dictionaries (the Arrow writer keeps every distinct string of a
// column, since an Arrow file has one dictionary per column; it spools the
// batches to a scratch file in TempDir meanwhile).
//
// Parquet has no seconds unit: timestamps in "s" are stored in
// milliseconds, and the Arrow schema stored in the file (ARROW:schema, as
// Arrow's own Parquet writers do) and ldanalyze.resolution_ns record the
// seconds.
//
// It returns an error when r fails, when a timestamp does not fit the
// chosen unit, or when writing fails; RowsOut then counts what was written.
func WriteColumnar(w io.Writer, r Reader, opts ColumnarOptions) (ColumnarResult, error) {
	if opts.Format == "" {
		opts.Format = FormatParquet
	}
	if opts.Format != FormatParquet && opts.Format != FormatArrow {
		return ColumnarResult{}, fmt.Errorf("unknown columnar format %q: want parquet or arrow", opts.Format)
	}
	if opts.BatchRows <= 0 {
		opts.BatchRows = 1 << 16
	}
	cw := &columnarWriter{opts: opts, mem: memory.DefaultAllocator}
	res, err := cw.run(w, r)
	res.Stats = r.Stats()
	if err == nil && r.Err() != nil {
		err = r.Err()
	}
	return res, err
}

type bufferedSample struct {
	metric, extra, meta, source string
	timeNS                      int64
	value                       float64
	keys, values                []string
}

// stringColumn collects the values of one string column for a batch; ""
// is null (except in the required metric_name column of Parquet).
type stringColumn interface {
	add(s string)
}

type columnarWriter struct {
	opts ColumnarOptions
	mem  memory.Allocator

	schema  *arrow.Schema
	tagCols []string
	colOf   map[string]int
	unit    arrow.TimeUnit
	unitNS  int64 // nanoseconds per unit
	storeNS int64 // nanoseconds per stored value (Parquet stores s as ms)

	metric, extra, meta, source stringColumn
	tags                        []stringColumn
	rowTags                     []string // the current row's tag column values
	times                       []int64  // in storeNS
	values                      []float64
	n                           int

	// key-slice cache: the mapping of the last Tags.Keys to columns
	lastKeys []string
	mapping  []int

	pw      *file.Writer                // Parquet
	rgw     file.BufferedRowGroupWriter // the batch's row group
	chunk   int                         // rows since the last writeChunk
	tmp     *os.File                    // Arrow: the scratch file, its writer and schema
	tmpW    *ipc.Writer
	tmpSch  *arrow.Schema
	rowsOut int64
	pairs   []byte
}

// dictColumn accumulates a dictionary-encoded string column of the Arrow
// file: the dictionary grows for the whole file (Arrow IPC files allow one
// dictionary per column), the indices are per batch.
type dictColumn struct {
	memo  map[string]int32
	dict  []string
	idx   []int32
	valid []bool
}

func newDictColumn() *dictColumn {
	return &dictColumn{memo: map[string]int32{}}
}

func (d *dictColumn) add(s string) {
	if s == "" {
		d.idx = append(d.idx, 0)
		d.valid = append(d.valid, false)
		return
	}
	i, ok := d.memo[s]
	if !ok {
		i = int32(len(d.dict))
		d.memo[s] = i
		d.dict = append(d.dict, s)
	}
	d.idx = append(d.idx, i)
	d.valid = append(d.valid, true)
}

// indices builds the batch's index array and resets the batch.
func (d *dictColumn) indices(mem memory.Allocator) arrow.Array {
	b := array.NewInt32Builder(mem)
	defer b.Release()
	b.AppendValues(d.idx, d.valid)
	d.idx, d.valid = d.idx[:0], d.valid[:0]
	return b.NewArray()
}

func (d *dictColumn) dictionary(mem memory.Allocator) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.AppendValues(d.dict, nil)
	return b.NewArray()
}

// plainColumn accumulates a plain string column of the Arrow file
// (metadata: nearly every value differs).
type plainColumn struct {
	vals  []string
	valid []bool
}

func (p *plainColumn) add(s string) {
	p.vals = append(p.vals, s)
	p.valid = append(p.valid, s != "")
}

// array builds the batch's array and resets the batch.
func (p *plainColumn) array(mem memory.Allocator) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.AppendValues(p.vals, p.valid)
	clear(p.vals)
	p.vals, p.valid = p.vals[:0], p.valid[:0]
	return b.NewArray()
}

// pqStrings accumulates a batch of one Parquet string column: the values,
// which alias the samples' strings (immutable, so they stay valid until
// the row group is written), and for an optional column the definition
// levels (0 = null). The column writer dictionary-encodes them.
type pqStrings struct {
	optional bool
	vals     []parquet.ByteArray
	defs     []int16
}

func (p *pqStrings) add(s string) {
	if p.optional {
		if s == "" {
			p.defs = append(p.defs, 0)
			return
		}
		p.defs = append(p.defs, 1)
	}
	p.vals = append(p.vals, parquet.ByteArray(unsafe.Slice(unsafe.StringData(s), len(s))))
}

// write writes the values so far to col and resets them.
func (p *pqStrings) write(col file.ColumnChunkWriter) error {
	w, ok := col.(*file.ByteArrayColumnChunkWriter)
	if !ok {
		return fmt.Errorf("column %s is not a byte array column", col.Descr().Name())
	}
	var defs []int16
	if p.optional {
		defs = p.defs
	}
	if _, err := w.WriteBatch(p.vals, defs, nil); err != nil {
		return fmt.Errorf("column %s: %w", col.Descr().Name(), err)
	}
	clear(p.vals) // let the strings go
	p.vals, p.defs = p.vals[:0], p.defs[:0]
	return nil
}

func (cw *columnarWriter) run(w io.Writer, r Reader) (ColumnarResult, error) {
	var res ColumnarResult
	// Buffer the first batch to learn the tag columns and the time unit.
	first := make([]bufferedSample, 0, min(cw.opts.BatchRows, 1<<17))
	var arena []string // the buffered tag values, one allocation per growth
	seen := map[string]bool{}
	var keyOrder []string
	for len(first) < cw.opts.BatchRows && r.Next() {
		s := r.Sample()
		start := len(arena)
		arena = s.Tags.AppendValues(arena)
		b := bufferedSample{metric: s.Metric, extra: s.Tags.Extra(), meta: s.Tags.Metadata(), source: s.Source, timeNS: s.TimeNS, value: s.Value,
			keys: s.Tags.Keys(), values: arena[start:len(arena):len(arena)]}
		for _, k := range s.Tags.Keys() {
			if !seen[k] {
				seen[k] = true
				keyOrder = append(keyOrder, k)
			}
		}
		first = append(first, b)
	}
	res.RowsIn = int64(len(first))
	if r.Err() != nil {
		return res, r.Err()
	}
	if err := cw.setup(w, keyOrder, first, r.Stats().ResolutionNS); err != nil {
		return res, err
	}
	res.TagColumns, res.TimeUnit = cw.tagCols, cw.unitName()
	for i := range first {
		b := &first[i]
		s := Sample{Metric: b.metric, TimeNS: b.timeNS, Value: b.value, Source: b.source,
			Tags: NewTags(b.keys, b.values, b.extra, b.meta)}
		if err := cw.add(&s); err != nil {
			return res, err
		}
	}
	first, arena = nil, nil
	for r.Next() {
		res.RowsIn++
		if err := cw.add(r.Sample()); err != nil {
			res.RowsOut = cw.rowsOut
			return res, err
		}
	}
	if r.Err() != nil {
		res.RowsOut = cw.rowsOut
		cw.abort()
		return res, r.Err()
	}
	err := cw.close(w, r.Stats().ResolutionNS)
	res.RowsOut = cw.rowsOut
	return res, err
}

func (cw *columnarWriter) unitName() string {
	for _, u := range timeUnits {
		if u.unit == cw.unit {
			return u.name
		}
	}
	return ""
}

// setup fixes the schema and opens the writer.
func (cw *columnarWriter) setup(w io.Writer, keys []string, first []bufferedSample, resNS int64) error {
	reserved := map[string]bool{ColMetric: true, ColTime: true, ColValue: true, ColExtra: true, ColMetadata: true, ColSource: true}
	cw.colOf = map[string]int{}
	for _, k := range keys {
		if k == "" || reserved[k] || len(cw.tagCols) >= maxJSONTagColumns {
			continue
		}
		cw.colOf[k] = len(cw.tagCols)
		cw.tagCols = append(cw.tagCols, k)
	}
	cw.rowTags = make([]string, len(cw.tagCols))
	// Time unit.
	if cw.opts.TimeUnit != "" {
		found := false
		for _, u := range timeUnits {
			if u.name == cw.opts.TimeUnit {
				cw.unit, cw.unitNS, found = u.unit, u.ns, true
			}
		}
		if !found {
			return fmt.Errorf("unknown time unit %q: want s, ms, us or ns", cw.opts.TimeUnit)
		}
	} else {
		if resNS <= 0 {
			resNS = 1
		}
		cw.unit, cw.unitNS = arrow.Nanosecond, 1
		for _, u := range timeUnits {
			if u.ns > resNS {
				continue
			}
			ok := true
			for i := range first {
				if first[i].timeNS%u.ns != 0 {
					ok = false
					break
				}
			}
			if ok {
				cw.unit, cw.unitNS = u.unit, u.ns
				break
			}
		}
	}
	cw.storeNS = cw.unitNS
	fields := []arrow.Field{
		{Name: ColMetric, Type: dictString},
		{Name: ColTime, Type: &arrow.TimestampType{Unit: cw.unit, TimeZone: "UTC"}},
		{Name: ColValue, Type: arrow.PrimitiveTypes.Float64},
	}
	for _, k := range cw.tagCols {
		fields = append(fields, arrow.Field{Name: k, Type: dictString, Nullable: true})
	}
	fields = append(fields,
		arrow.Field{Name: ColExtra, Type: dictString, Nullable: true},
		arrow.Field{Name: ColMetadata, Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: ColSource, Type: dictString, Nullable: true},
	)
	md := arrow.NewMetadata([]string{metaKind}, []string{metaKindValue})
	cw.schema = arrow.NewSchema(fields, &md)
	switch cw.opts.Format {
	case FormatParquet:
		return cw.setupParquet(w)
	case FormatArrow:
		cw.metric, cw.extra, cw.meta, cw.source = newDictColumn(), newDictColumn(), &plainColumn{}, newDictColumn()
		for range cw.tagCols {
			cw.tags = append(cw.tags, newDictColumn())
		}
		// Batches go to a scratch IPC stream with the dictionary columns as
		// plain int32 indices; close writes the final file with each
		// column's one dictionary.
		tmpFields := make([]arrow.Field, len(fields))
		for i, f := range fields {
			if f.Type == dictString {
				f.Type = arrow.PrimitiveTypes.Int32
			}
			tmpFields[i] = f
		}
		cw.tmpSch = arrow.NewSchema(tmpFields, nil)
		tmp, err := os.CreateTemp(cw.opts.TempDir, "ldanalyze-arrow-*.tmp")
		if err != nil {
			return fmt.Errorf("arrow writer scratch file: %w", err)
		}
		cw.tmp = tmp
		cw.tmpW = ipc.NewWriter(tmp, ipc.WithSchema(cw.tmpSch), ipc.WithAllocator(cw.mem))
	}
	return nil
}

// setupParquet opens the Parquet writer: the schema Arrow's Parquet writer
// makes of cw.schema (strings with the String logical type, the timestamp
// as INT64 Timestamp(isAdjustedToUTC, unit), seconds as milliseconds) and
// the Arrow schema itself in the ARROW:schema metadata, so that Arrow
// readers (pyarrow, pandas) see the dictionary columns and the seconds.
func (cw *columnarWriter) setupParquet(w io.Writer) error {
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithDictionaryDefault(true),
		parquet.WithMaxRowGroupLength(int64(max(cw.opts.BatchRows, 1<<16))),
		parquet.WithAllocator(cw.mem),
	)
	var tsUnit schema.TimeUnitType
	switch cw.unit {
	case arrow.Second:
		tsUnit, cw.storeNS = schema.TimeUnitMillis, 1e6
	case arrow.Millisecond:
		tsUnit = schema.TimeUnitMillis
	case arrow.Microsecond:
		tsUnit = schema.TimeUnitMicros
	default:
		tsUnit = schema.TimeUnitNanos
	}
	var nodes schema.FieldList
	// strCol adds a string column to the schema.
	strCol := func(name string, optional bool) (*pqStrings, error) {
		rep := parquet.Repetitions.Required
		if optional {
			rep = parquet.Repetitions.Optional
		}
		n, err := schema.NewPrimitiveNodeLogical(name, rep, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1)
		if err != nil {
			return nil, fmt.Errorf("parquet schema: column %q: %w", name, err)
		}
		nodes = append(nodes, n)
		return &pqStrings{optional: optional}, nil
	}
	metric, err := strCol(ColMetric, false)
	if err != nil {
		return err
	}
	ts, err := schema.NewPrimitiveNodeLogical(ColTime, parquet.Repetitions.Required, schema.NewTimestampLogicalTypeForce(true, tsUnit), parquet.Types.Int64, -1, -1)
	if err != nil {
		return fmt.Errorf("parquet schema: %w", err)
	}
	val, err := schema.NewPrimitiveNode(ColValue, parquet.Repetitions.Required, parquet.Types.Double, -1, -1)
	if err != nil {
		return fmt.Errorf("parquet schema: %w", err)
	}
	nodes = append(nodes, ts, val)
	cw.metric = metric
	for _, k := range cw.tagCols {
		t, err := strCol(k, true)
		if err != nil {
			return err
		}
		cw.tags = append(cw.tags, t)
	}
	var extra, meta, source *pqStrings
	if extra, err = strCol(ColExtra, true); err != nil {
		return err
	}
	if meta, err = strCol(ColMetadata, true); err != nil {
		return err
	}
	if source, err = strCol(ColSource, true); err != nil {
		return err
	}
	cw.extra, cw.meta, cw.source = extra, meta, source
	root, err := schema.NewGroupNode(props.RootName(), props.RootRepetition(), nodes, -1)
	if err != nil {
		return fmt.Errorf("parquet schema: %w", err)
	}
	// The Arrow schema as Arrow's writers store it: an IPC stream holding
	// just the schema, base64.
	var buf bytes.Buffer
	sw := ipc.NewWriter(&buf, ipc.WithSchema(cw.schema), ipc.WithAllocator(cw.mem))
	if err := sw.Close(); err != nil {
		return fmt.Errorf("parquet writer: arrow schema: %w", err)
	}
	kv := metadata.KeyValueMetadata{}
	kv.Append(metaKind, metaKindValue)
	kv.Append(arrowSchemaKey, base64.StdEncoding.EncodeToString(buf.Bytes()))
	// file.Writer closes a writer that is an io.Closer; the caller owns w.
	pw, err := file.NewParquetWriterWithError(struct{ io.Writer }{w}, root, file.WithWriterProps(props), file.WithWriteMetadata(kv))
	if err != nil {
		return fmt.Errorf("parquet writer: %w", err)
	}
	cw.pw = pw
	return nil
}

// arrowSchemaKey is the Parquet metadata key of the Arrow schema.
const arrowSchemaKey = "ARROW:schema"

// add appends one sample to the batch, flushing a full batch.
func (cw *columnarWriter) add(s *Sample) error {
	if s.TimeNS%cw.unitNS != 0 {
		return fmt.Errorf("%s: sample %d has time %d ns, finer than the %s unit chosen from the first %d rows; convert again with the time unit ns", s.Source, cw.rowsOut+int64(cw.n)+1, s.TimeNS, cw.unitName(), cw.opts.BatchRows)
	}
	cw.metric.add(s.Metric)
	cw.times = append(cw.times, s.TimeNS/cw.storeNS)
	cw.values = append(cw.values, s.Value)
	// Map the sample's keys to columns, cached per Keys slice.
	keys := s.Tags.Keys()
	if len(keys) != len(cw.lastKeys) || (len(keys) > 0 && &keys[0] != &cw.lastKeys[0]) {
		cw.lastKeys = keys
		cw.mapping = cw.mapping[:0]
		for _, k := range keys {
			j, ok := cw.colOf[k]
			if !ok {
				j = -1
			}
			cw.mapping = append(cw.mapping, j)
		}
	}
	clear(cw.rowTags)
	extra := s.Tags.Extra()
	cw.pairs = cw.pairs[:0]
	for i, j := range cw.mapping {
		v := s.Tags.Value(i)
		if v == "" {
			continue
		}
		if j < 0 {
			cw.pairs = appendPair(cw.pairs, []byte(keys[i]), []byte(v))
			continue
		}
		cw.rowTags[j] = v
	}
	for j, t := range cw.tags {
		t.add(cw.rowTags[j])
	}
	if len(cw.pairs) > 0 {
		if extra != "" {
			extra += "&"
		}
		extra += string(cw.pairs)
	}
	cw.extra.add(extra)
	cw.meta.add(s.Tags.Metadata())
	cw.source.add(s.Source)
	cw.n++
	cw.chunk++
	if cw.n >= cw.opts.BatchRows {
		return cw.flush()
	}
	if cw.pw != nil && cw.chunk >= pqChunkRows {
		if err := cw.writeChunk(); err != nil {
			return fmt.Errorf("writing rows %d–%d: %w", cw.rowsOut+1, cw.rowsOut+int64(cw.n), err)
		}
	}
	return nil
}

// pqChunkRows is how many rows the Parquet writer collects before handing
// them to the row group's column writers, which encode and compress them
// into pages in memory; a row group is written out when its batch is full.
// Collecting a whole batch of values instead would hold 24 bytes per
// string value until then.
const pqChunkRows = 4096

// flush writes the batch: a row group of the Parquet file, a record batch
// of the Arrow scratch stream.
func (cw *columnarWriter) flush() error {
	if cw.n == 0 {
		return nil
	}
	var err error
	if cw.pw != nil {
		err = cw.flushParquet()
	} else {
		err = cw.flushArrow()
	}
	if err != nil {
		return fmt.Errorf("writing rows %d–%d: %w", cw.rowsOut+1, cw.rowsOut+int64(cw.n), err)
	}
	cw.rowsOut += int64(cw.n)
	cw.n, cw.chunk = 0, 0
	cw.times, cw.values = cw.times[:0], cw.values[:0]
	return nil
}

// flushParquet writes the last chunk of the batch and the row group.
func (cw *columnarWriter) flushParquet() error {
	if err := cw.writeChunk(); err != nil {
		return err
	}
	err := cw.rgw.Close()
	cw.rgw = nil
	return err
}

// writeChunk hands the rows collected since the last call to the column
// writers of the batch's row group, opening it first if needed.
func (cw *columnarWriter) writeChunk() error {
	cw.chunk = 0
	if cw.rgw == nil {
		rgw, err := cw.pw.AppendBufferedRowGroupChecked()
		if err != nil {
			return err
		}
		cw.rgw = rgw
	}
	ci := 0
	next := func() (file.ColumnChunkWriter, error) {
		col, err := cw.rgw.Column(ci)
		ci++
		return col, err
	}
	col, err := next()
	if err != nil {
		return err
	}
	if err := cw.metric.(*pqStrings).write(col); err != nil {
		return err
	}
	if col, err = next(); err != nil {
		return err
	}
	if _, err := col.(*file.Int64ColumnChunkWriter).WriteBatch(cw.times, nil, nil); err != nil {
		return fmt.Errorf("column %s: %w", ColTime, err)
	}
	if col, err = next(); err != nil {
		return err
	}
	if _, err := col.(*file.Float64ColumnChunkWriter).WriteBatch(cw.values, nil, nil); err != nil {
		return fmt.Errorf("column %s: %w", ColValue, err)
	}
	cw.times, cw.values = cw.times[:0], cw.values[:0]
	for _, t := range cw.tags {
		if col, err = next(); err != nil {
			return err
		}
		if err := t.(*pqStrings).write(col); err != nil {
			return err
		}
	}
	for _, c := range []stringColumn{cw.extra, cw.meta, cw.source} {
		if col, err = next(); err != nil {
			return err
		}
		if err := c.(*pqStrings).write(col); err != nil {
			return err
		}
	}
	return nil
}

func (cw *columnarWriter) flushArrow() error {
	cols := make([]arrow.Array, 0, len(cw.schema.Fields()))
	cols = append(cols, cw.metric.(*dictColumn).indices(cw.mem))
	tb := array.NewTimestampBuilder(cw.mem, cw.schema.Field(1).Type.(*arrow.TimestampType))
	tb.Reserve(len(cw.times))
	for _, t := range cw.times {
		tb.UnsafeAppend(arrow.Timestamp(t))
	}
	cols = append(cols, tb.NewArray())
	tb.Release()
	fb := array.NewFloat64Builder(cw.mem)
	fb.AppendValues(cw.values, nil)
	cols = append(cols, fb.NewArray())
	fb.Release()
	for _, t := range cw.tags {
		cols = append(cols, t.(*dictColumn).indices(cw.mem))
	}
	cols = append(cols, cw.extra.(*dictColumn).indices(cw.mem))
	cols = append(cols, cw.meta.(*plainColumn).array(cw.mem))
	cols = append(cols, cw.source.(*dictColumn).indices(cw.mem))
	rec := array.NewRecordBatch(cw.tmpSch, cols, int64(cw.n))
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	return cw.tmpW.Write(rec)
}

func (cw *columnarWriter) abort() {
	if cw.tmp != nil {
		cw.tmp.Close()
		os.Remove(cw.tmp.Name())
	}
}

// close flushes the last batch and finishes the file, recording the
// input's timestamp resolution (resNS, known only at the end: JSON trims
// trailing zeros) in the file's metadata.
func (cw *columnarWriter) close(w io.Writer, resNS int64) error {
	if err := cw.flush(); err != nil {
		cw.abort()
		return err
	}
	if resNS < cw.unitNS {
		resNS = cw.unitNS
	}
	res := strconv.FormatInt(resNS, 10)
	if cw.pw != nil {
		if err := cw.pw.AppendKeyValueMetadata(metaResolution, res); err != nil {
			return fmt.Errorf("parquet metadata: %w", err)
		}
		if err := cw.pw.Close(); err != nil {
			return fmt.Errorf("parquet footer: %w", err)
		}
		return nil
	}
	defer cw.abort()
	if err := cw.tmpW.Close(); err != nil {
		return fmt.Errorf("arrow scratch file: %w", err)
	}
	if _, err := cw.tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	// One dictionary per column for the whole file.
	dictCols := []stringColumn{cw.metric}
	dictCols = append(dictCols, cw.tags...)
	dictCols = append(dictCols, cw.extra, cw.source)
	dicts := map[int]arrow.Array{}
	di := 0
	for i, f := range cw.schema.Fields() {
		if f.Type == dictString {
			dicts[i] = dictCols[di].(*dictColumn).dictionary(cw.mem)
			di++
		}
	}
	defer func() {
		for _, d := range dicts {
			d.Release()
		}
	}()
	md := arrow.NewMetadata([]string{metaKind, metaResolution}, []string{metaKindValue, res})
	cw.schema = arrow.NewSchema(cw.schema.Fields(), &md)
	fw, err := ipc.NewFileWriter(w, ipc.WithSchema(cw.schema), ipc.WithAllocator(cw.mem))
	if err != nil {
		return fmt.Errorf("arrow writer: %w", err)
	}
	rd, err := ipc.NewReader(cw.tmp, ipc.WithAllocator(cw.mem))
	if err != nil {
		return fmt.Errorf("arrow scratch file: %w", err)
	}
	defer rd.Release()
	var written int64
	for rd.Next() {
		rec := rd.RecordBatch()
		cols := make([]arrow.Array, rec.NumCols())
		for i := range cols {
			if d, ok := dicts[i]; ok {
				cols[i] = array.NewDictionaryArray(dictString, rec.Column(i), d)
			} else {
				cols[i] = rec.Column(i)
				cols[i].Retain()
			}
		}
		out := array.NewRecordBatch(cw.schema, cols, rec.NumRows())
		for _, c := range cols {
			c.Release()
		}
		err := fw.Write(out)
		out.Release()
		if err != nil {
			return fmt.Errorf("writing arrow rows %d–%d: %w", written+1, written+rec.NumRows(), err)
		}
		written += rec.NumRows()
	}
	if err := rd.Err(); err != nil {
		return fmt.Errorf("arrow scratch file: %w", err)
	}
	if written != cw.rowsOut {
		return fmt.Errorf("arrow writer: %d rows spooled but %d written", cw.rowsOut, written)
	}
	if err := fw.Close(); err != nil {
		return fmt.Errorf("arrow footer: %w", err)
	}
	return nil
}

// ColumnarFormatFor returns the columnar format for an output file name:
// ".parquet"/".pq" → Parquet, ".arrow"/".feather"/".ipc" → Arrow IPC file.
func ColumnarFormatFor(path string) (Format, error) {
	p := strings.ToLower(path)
	switch {
	case strings.HasSuffix(p, ".parquet"), strings.HasSuffix(p, ".pq"):
		return FormatParquet, nil
	case strings.HasSuffix(p, ".arrow"), strings.HasSuffix(p, ".feather"), strings.HasSuffix(p, ".ipc"):
		return FormatArrow, nil
	}
	return "", errors.New(path + ": unknown output format: want a name ending in .parquet or .arrow")
}
