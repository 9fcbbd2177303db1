package ingest

import (
	"encoding/binary"
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
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// ColumnarReader streams the rows of a Parquet or Arrow IPC file of samples
// as written by WriteColumnar (or by any tool that keeps its columns:
// metric_name and extra_tags/metadata/source_file as strings or dictionary
// strings, timestamp as a timestamp of any unit, metric_value as float64;
// every other string column is a tag column).
//
// It reads one batch at a time: an Arrow record batch, or up to 8,192 rows
// of a Parquet row group, decoded column by column with Parquet's own
// readers (a Parquet string is a BYTE_ARRAY column with the String logical
// type or UTF8 converted type; a timestamp is an INT64 Timestamp column of
// any unit, or INT96; nested and repeated columns are ignored). A row with
// a null metric_name, timestamp or metric_value is recorded as a
// SyntaxError whose Line is the 1-based row number and Column the 1-based
// column number, and skipped.
// Sample.Source is the source_file of the row when the file has one (the
// k6 file the sample was first read from), else the columnar file's name.
// Stats.ResolutionNS is the original input's resolution as WriteColumnar
// recorded it, else the timestamp column's unit.
type ColumnarReader struct {
	name    string
	closers []io.Closer

	next func(b *colBatch) error // reads the next batch into b; io.EOF at the end
	b    colBatch
	row  int
	base int64 // rows before the current batch

	iMetric, iTime, iValue int // field positions, for SyntaxError.Column
	iExtra, iMeta, iSource int
	iTags                  []int
	unitNS                 int64 // the timestamp column's unit

	keys, vals []string

	in  *interner
	s   Sample
	st  Stats
	err error
}

// colBatch is one batch of decoded rows. Strings are interned (metadata:
// copied), so they stay valid after the batch.
type colBatch struct {
	n                   int
	null                []uint8 // per row: nullMetric|nullTime|nullValue
	metric              []string
	times               []int64 // nanoseconds
	values              []float64
	tags                [][]string
	extra, meta, source []string
}

// The null flags of colBatch.null.
const (
	nullMetric = 1 << iota
	nullTime
	nullValue
)

// reset sizes b for n rows, all empty and not null.
func (b *colBatch) reset(n, tags int) {
	b.n = n
	grow := func(s []string) []string {
		if cap(s) < n {
			return make([]string, n)
		}
		s = s[:n]
		clear(s)
		return s
	}
	if cap(b.null) < n {
		b.null, b.times, b.values = make([]uint8, n), make([]int64, n), make([]float64, n)
	}
	b.null, b.times, b.values = b.null[:n], b.times[:n], b.values[:n]
	clear(b.null)
	b.metric, b.extra, b.meta, b.source = grow(b.metric), grow(b.extra), grow(b.meta), grow(b.source)
	if len(b.tags) != tags {
		b.tags = make([][]string, tags)
	}
	for j := range b.tags {
		b.tags[j] = grow(b.tags[j])
	}
}

// colKind is what a column of a file is to the reader.
type colKind uint8

const (
	kindOther colKind = iota
	kindString
	kindTime
	kindFloat64
)

// colInfo describes a top-level column of a file.
type colInfo struct {
	name   string
	kind   colKind
	unitNS int64 // kindTime: nanoseconds per unit
}

// OpenColumnar opens a Parquet or Arrow IPC file of samples; the format is
// told by its magic bytes ("PAR1", "ARROW1"). It returns an error naming
// the file when it is neither or lacks the sample columns.
func OpenColumnar(path string) (*ColumnarReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	c, err := newColumnarReader(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	c.closers = append(c.closers, f)
	return c, nil
}

// openColumnarStream reads a columnar file that came through a pipe or a
// decompressor: it is spooled to a scratch file, which Close removes.
func openColumnarStream(r io.Reader, name string) (*ColumnarReader, error) {
	tmp, err := os.CreateTemp("", "ldanalyze-columnar-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("%s: scratch file for a columnar input: %w", name, err)
	}
	rm := closeFunc(func() error { tmp.Close(); return os.Remove(tmp.Name()) })
	if _, err := io.Copy(tmp, r); err != nil {
		rm()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c, err := newColumnarReader(tmp, name)
	if err != nil {
		rm()
		return nil, err
	}
	c.closers = append(c.closers, rm)
	return c, nil
}

func newColumnarReader(f *os.File, name string) (c *ColumnarReader, err error) {
	magic := make([]byte, 6)
	n, _ := f.ReadAt(magic, 0)
	magic = magic[:n]
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	c = &ColumnarReader{name: name, in: newInterner()}
	c.st.Bytes = info.Size()
	var (
		cols []colInfo
		pq   *parquetSource
	)
	switch {
	case strings.HasPrefix(string(magic), "PAR1"):
		p, err := openParquet(f, info.Size(), c)
		if err != nil {
			return nil, prefixed(name, "parquet", err)
		}
		c.closers = append(c.closers, p)
		c.next, cols, pq = p.next, p.info, p
	case strings.HasPrefix(string(magic), "ARROW1"):
		a, err := openArrow(f, c)
		if err != nil {
			return nil, prefixed(name, "arrow", err)
		}
		c.closers = append(c.closers, a)
		c.next, cols = a.next, a.info
	default:
		return nil, fmt.Errorf("%s: not a Parquet or Arrow IPC file (no PAR1/ARROW1 magic)", name)
	}
	if err := c.mapColumns(cols); err != nil {
		c.Close()
		return nil, err
	}
	if pq != nil {
		pq.bindColumns()
	}
	c.s.Source = name
	return c, nil
}

// mapColumns finds the sample columns among the file's columns.
func (c *ColumnarReader) mapColumns(cols []colInfo) error {
	c.iMetric, c.iTime, c.iValue, c.iExtra, c.iMeta, c.iSource = -1, -1, -1, -1, -1, -1
	for i, f := range cols {
		switch f.name {
		case ColMetric:
			c.iMetric = i
		case ColTime:
			c.iTime = i
		case ColValue:
			c.iValue = i
		case ColExtra:
			c.iExtra = i
		case ColMetadata:
			c.iMeta = i
		case ColSource:
			c.iSource = i
		default:
			if f.kind == kindString {
				c.iTags = append(c.iTags, i)
				c.keys = append(c.keys, f.name)
			}
		}
	}
	kind := func(i int) colKind {
		if i < 0 {
			return kindOther
		}
		return cols[i].kind
	}
	var missing []string
	if kind(c.iMetric) != kindString {
		missing = append(missing, ColMetric+" (string)")
	}
	if kind(c.iTime) != kindTime {
		missing = append(missing, ColTime+" (timestamp)")
	}
	if kind(c.iValue) != kindFloat64 {
		missing = append(missing, ColValue+" (float64)")
	}
	for _, i := range []int{c.iExtra, c.iMeta, c.iSource} {
		if i >= 0 && cols[i].kind != kindString {
			missing = append(missing, cols[i].name+" (string)")
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: not an ldanalyze sample file: no column %s (ldanalyze convert writes them)", c.name, strings.Join(missing, ", "))
	}
	c.unitNS = max(cols[c.iTime].unitNS, 1)
	if c.st.ResolutionNS < c.unitNS {
		c.st.ResolutionNS = c.unitNS // a file from elsewhere: the unit is all we know
	}
	c.vals = make([]string, len(c.iTags))
	return nil
}

// TagColumns returns the file's tag columns, in file order.
func (c *ColumnarReader) TagColumns() []string { return c.keys }

// Next advances to the next row; rows with a null fixed column are
// recorded and skipped.
func (c *ColumnarReader) Next() bool {
	if c.err != nil || c.next == nil {
		return false
	}
	b := &c.b
	for {
		for c.row >= b.n {
			c.base += int64(b.n)
			c.row, b.n = 0, 0
			err := c.next(b)
			if err == io.EOF {
				c.next = nil
				return false
			}
			if err != nil {
				c.err = fmt.Errorf("%s: after row %d: %w", c.name, c.base, err)
				return false
			}
		}
		i := c.row
		c.row++
		if nf := b.null[i]; nf != 0 {
			line := c.base + int64(i) + 1
			switch {
			case nf&nullMetric != 0:
				c.st.record(&SyntaxError{File: c.name, Line: line, Column: c.iMetric + 1, Msg: "null metric_name"})
			case nf&nullTime != 0:
				c.st.record(&SyntaxError{File: c.name, Line: line, Column: c.iTime + 1, Msg: "null timestamp"})
			default:
				c.st.record(&SyntaxError{File: c.name, Line: line, Column: c.iValue + 1, Msg: "null metric_value"})
			}
			continue
		}
		c.s.Metric = b.metric[i]
		c.s.TimeNS = b.times[i]
		c.s.Value = b.values[i]
		for j := range c.vals {
			c.vals[j] = b.tags[j][i]
		}
		c.s.Tags = NewTags(c.keys, c.vals, b.extra[i], b.meta[i])
		c.s.Source = c.name
		if src := b.source[i]; src != "" {
			c.s.Source = src
		}
		c.st.Rows++
		return true
	}
}

// Sample returns the current sample; it is valid until the next call to Next.
func (c *ColumnarReader) Sample() *Sample { return &c.s }

// Err returns the error that stopped the read, or nil.
func (c *ColumnarReader) Err() error { return c.err }

// Stats returns the counts so far.
func (c *ColumnarReader) Stats() Stats { return c.st }

// Close releases the file (and removes a scratch copy).
func (c *ColumnarReader) Close() error {
	var first error
	for i := len(c.closers) - 1; i >= 0; i-- {
		if err := c.closers[i].Close(); err != nil && first == nil {
			first = err
		}
	}
	c.closers = nil
	c.next = nil
	return first
}

// recovered turns a panic of a decoder on a corrupt file into *err.
func recovered(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("corrupt file: %v", r)
	}
}

// --- Parquet ---------------------------------------------------------------

// pqBatchRows is the most rows a Parquet batch decodes at a time.
const pqBatchRows = 1 << 13

// parquetSource reads a Parquet file row group by row group, a batch of
// rows at a time, with one column chunk reader per sample column.
type parquetSource struct {
	pf   *file.Reader
	size int64 // of the file
	c    *ColumnarReader
	info []colInfo
	cols []*pqColumn
	rg   int   // the next row group
	left int64 // rows of the current row group not yet read
}

// pqColumn is a sample column of a Parquet file and its reader in the
// current row group.
type pqColumn struct {
	name   string
	field  int   // the position among the file's top-level columns
	leaf   int   // the Parquet column index
	maxDef int16 // 0: required, 1: optional
	kind   colKind
	int96  bool
	unitNS int64
	rd     file.ColumnChunkReader

	// where the values go: a string column of the batch (copy: not
	// interned), or the fixed columns; nullFlag marks a null fixed value
	str      func(b *colBatch) []string
	copy     bool
	nullFlag uint8
	last     string // the last string read, to skip the interner on runs

	defs  []int16
	bytes []parquet.ByteArray
	i64   []int64
	i96   []parquet.Int96
	f64   []float64
}

// openParquet reads the footer of a Parquet file and maps its top-level
// columns; it records the file's resolution metadata in c.st.
func openParquet(f *os.File, size int64, c *ColumnarReader) (p *parquetSource, err error) {
	defer recovered(&err)
	props := parquet.NewReaderProperties(memory.DefaultAllocator)
	// Read column chunks through a buffer rather than whole: less memory,
	// and a corrupt chunk length cannot ask for a huge allocation.
	props.BufferedStreamEnabled = true
	props.BufferSize = 64 << 10
	pf, err := file.NewParquetReader(f, file.WithReadProps(props))
	if err != nil {
		return nil, err
	}
	p = &parquetSource{pf: pf, size: size, c: c}
	md := pf.MetaData()
	kv := md.KeyValueMetadata()
	if v := kv.FindValue(metaResolution); v != nil {
		c.st.ResolutionNS, _ = strconv.ParseInt(*v, 10, 64)
	}
	sc := md.Schema
	root := sc.Root()
	for i := 0; i < root.NumFields(); i++ {
		node := root.Field(i)
		info := colInfo{name: node.Name()}
		leaf := -1
		if prim, ok := node.(*schema.PrimitiveNode); ok && node.RepetitionType() != parquet.Repetitions.Repeated {
			leaf = sc.ColumnIndexByNode(prim)
		}
		var col *pqColumn
		if leaf >= 0 {
			col = &pqColumn{name: info.name, field: i, leaf: leaf, maxDef: sc.Column(leaf).MaxDefinitionLevel()}
			info.kind, info.unitNS, col.int96 = parquetKind(sc.Column(leaf))
			col.kind, col.unitNS = info.kind, info.unitNS
			if col.int96 {
				col.unitNS = 1
			}
		}
		p.info = append(p.info, info)
		if col != nil {
			p.cols = append(p.cols, col)
		}
	}
	return p, nil
}

// parquetKind tells what a Parquet leaf column is: a string (BYTE_ARRAY
// with the String logical type, or the UTF8 converted type), a timestamp
// (INT64 Timestamp of any unit, or INT96, which is nanoseconds), a float64
// (DOUBLE), or something else. The Arrow schema that Arrow's writers store
// (ARROW:schema) is not consulted: it changes nothing for these columns
// but the seconds unit, which Parquet keeps as milliseconds, and a corrupt
// one can ask the decoder for any amount of memory.
func parquetKind(col *schema.Column) (kind colKind, unitNS int64, int96 bool) {
	switch col.PhysicalType() {
	case parquet.Types.ByteArray:
		if _, ok := col.LogicalType().(schema.StringLogicalType); ok {
			return kindString, 0, false
		}
	case parquet.Types.Int64:
		if ts, ok := col.LogicalType().(schema.TimestampLogicalType); ok {
			switch ts.TimeUnit() {
			case schema.TimeUnitMillis:
				return kindTime, 1e6, false
			case schema.TimeUnitMicros:
				return kindTime, 1e3, false
			case schema.TimeUnitNanos:
				return kindTime, 1, false
			}
		}
	case parquet.Types.Int96:
		return kindTime, 1, true
	case parquet.Types.Double:
		return kindFloat64, 0, false
	}
	return kindOther, 0, false
}

// bindColumns tells each sample column where its values go, once the
// sample columns are known.
func (p *parquetSource) bindColumns() {
	c := p.c
	var used []*pqColumn
	for _, col := range p.cols {
		i := col.field
		switch {
		case i == c.iMetric:
			col.str, col.nullFlag = func(b *colBatch) []string { return b.metric }, nullMetric
		case i == c.iTime:
			col.nullFlag = nullTime
		case i == c.iValue:
			col.nullFlag = nullValue
		case i == c.iExtra:
			col.str = func(b *colBatch) []string { return b.extra }
		case i == c.iMeta:
			col.str, col.copy = func(b *colBatch) []string { return b.meta }, true
		case i == c.iSource:
			col.str = func(b *colBatch) []string { return b.source }
		default:
			j := -1
			for k, t := range c.iTags {
				if t == i {
					j = k
				}
			}
			if j < 0 {
				continue // not a sample column
			}
			col.str = func(b *colBatch) []string { return b.tags[j] }
		}
		used = append(used, col)
	}
	p.cols = used
}

// next decodes the next batch of rows.
func (p *parquetSource) next(b *colBatch) (err error) {
	defer recovered(&err)
	for p.left == 0 {
		if p.rg >= p.pf.NumRowGroups() {
			return io.EOF
		}
		if err := p.openRowGroup(p.rg); err != nil {
			return fmt.Errorf("row group %d: %w", p.rg, err)
		}
		p.rg++
	}
	n := int(min(p.left, pqBatchRows))
	b.reset(n, len(p.c.iTags))
	for _, col := range p.cols {
		if err := col.read(b, n, p.c.in); err != nil {
			return fmt.Errorf("row group %d: column %s: %w", p.rg-1, col.name, err)
		}
	}
	p.left -= int64(n)
	return nil
}

// openRowGroup opens the column chunk readers of row group i.
func (p *parquetSource) openRowGroup(i int) error {
	rg := p.pf.RowGroup(i)
	rows := rg.NumRows()
	if rows < 0 {
		return fmt.Errorf("%d rows", rows)
	}
	if rows == 0 {
		return nil
	}
	for _, col := range p.cols {
		if col.rd != nil {
			col.rd.Close()
			col.rd = nil
		}
		cc, err := rg.MetaData().ColumnChunk(col.leaf)
		if err != nil {
			return fmt.Errorf("column %s: %w", col.name, err)
		}
		start, n := cc.DataPageOffset(), cc.TotalCompressedSize()
		if d := cc.DictionaryPageOffset(); cc.HasDictionaryPage() && d > 0 && d < start {
			start = d
		}
		if start < 0 || n < 0 || start > p.size || n > p.size-start {
			return fmt.Errorf("column %s: chunk of %d bytes at %d, past the end of the file (%d bytes)", col.name, n, start, p.size)
		}
		rd, err := rg.Column(col.leaf)
		if err != nil {
			return fmt.Errorf("column %s: %w", col.name, err)
		}
		col.rd = rd
	}
	p.left = rows
	return nil
}

// Close releases the column readers and the file reader.
func (p *parquetSource) Close() error {
	for _, col := range p.cols {
		if col.rd != nil {
			col.rd.Close()
			col.rd = nil
		}
	}
	return p.pf.Close()
}

// read decodes the column's next n rows into b.
func (col *pqColumn) read(b *colBatch, n int, in *interner) error {
	if len(col.defs) < n {
		col.defs = make([]int16, n)
	}
	var strs []string
	if col.str != nil {
		strs = col.str(b)
	}
	for got := 0; got < n; {
		want := n - got
		var defs []int16
		if col.maxDef > 0 {
			defs = col.defs[:want]
		}
		var (
			levels int64
			nv     int
			err    error
		)
		switch rd := col.rd.(type) {
		case *file.ByteArrayColumnChunkReader:
			if len(col.bytes) < want {
				col.bytes = make([]parquet.ByteArray, n)
			}
			// In-page values alias the page: they are copied (interned)
			// below, before the next read.
			levels, nv, err = rd.ReadBatchInPage(int64(want), col.bytes[:want], defs, nil)
		case *file.Int64ColumnChunkReader:
			if len(col.i64) < want {
				col.i64 = make([]int64, n)
			}
			levels, nv, err = rd.ReadBatch(int64(want), col.i64[:want], defs, nil)
		case *file.Int96ColumnChunkReader:
			if len(col.i96) < want {
				col.i96 = make([]parquet.Int96, n)
			}
			levels, nv, err = rd.ReadBatch(int64(want), col.i96[:want], defs, nil)
		case *file.Float64ColumnChunkReader:
			if len(col.f64) < want {
				col.f64 = make([]float64, n)
			}
			levels, nv, err = rd.ReadBatch(int64(want), col.f64[:want], defs, nil)
		default:
			return fmt.Errorf("unexpected column type %s", col.rd.Type())
		}
		if err != nil {
			return err
		}
		if levels <= 0 || levels > int64(want) {
			if err := col.rd.Err(); err != nil {
				return err
			}
			return fmt.Errorf("ends after %d of the batch's %d rows", got, n)
		}
		if col.maxDef == 0 {
			defs = nil
		} else {
			defs = defs[:levels]
		}
		v := 0 // the next value
		for k := range int(levels) {
			row := got + k
			if defs != nil && defs[k] != col.maxDef {
				b.null[row] |= col.nullFlag
				continue
			}
			if v >= nv {
				return fmt.Errorf("%d values for %d non-null rows", nv, v+1)
			}
			switch {
			case strs != nil:
				bs := col.bytes[v]
				switch {
				case col.copy:
					strs[row] = string(bs)
				case string(bs) == col.last:
					strs[row] = col.last
				default:
					col.last = in.intern(bs)
					strs[row] = col.last
				}
			case col.kind == kindTime && col.int96:
				b.times[row] = int96NS(col.i96[v])
			case col.kind == kindTime:
				b.times[row] = col.i64[v] * col.unitNS
			case col.kind == kindFloat64:
				b.values[row] = col.f64[v]
			}
			v++
		}
		got += int(levels)
	}
	return nil
}

// int96NS converts an INT96 timestamp (nanoseconds of the day, Julian day)
// to nanoseconds since the Unix epoch.
func int96NS(v parquet.Int96) int64 {
	const julianUnixEpoch, nsPerDay = 2440588, 86400 * 1e9
	nanos := int64(binary.LittleEndian.Uint64(v[:8]))
	days := int64(binary.LittleEndian.Uint32(v[8:])) - julianUnixEpoch
	return days*nsPerDay + nanos
}

// --- Arrow IPC -------------------------------------------------------------

// arrowSource reads the record batches of an Arrow IPC file.
type arrowSource struct {
	fr   *ipc.FileReader
	c    *ColumnarReader
	info []colInfo
	i    int // the next record batch

	metric, extra, meta, source strColumn
	tags                        []strColumn
}

func openArrow(f *os.File, c *ColumnarReader) (a *arrowSource, err error) {
	defer recovered(&err)
	fr, err := ipc.NewFileReader(f, ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, err
	}
	a = &arrowSource{fr: fr, c: c}
	sc := fr.Schema()
	for _, f := range sc.Fields() {
		info := colInfo{name: f.Name}
		switch {
		case isStringType(f.Type):
			info.kind = kindString
		case f.Type.ID() == arrow.FLOAT64:
			info.kind = kindFloat64
		case f.Type.ID() == arrow.TIMESTAMP:
			info.kind = kindTime
			for _, u := range timeUnits {
				if u.unit == f.Type.(*arrow.TimestampType).Unit {
					info.unitNS = u.ns
				}
			}
		}
		a.info = append(a.info, info)
	}
	if md := sc.Metadata(); md.FindKey(metaResolution) >= 0 {
		c.st.ResolutionNS, _ = strconv.ParseInt(md.Values()[md.FindKey(metaResolution)], 10, 64)
	}
	return a, nil
}

func isStringType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING:
		return true
	case arrow.DICTIONARY:
		return isStringType(t.(*arrow.DictionaryType).ValueType)
	}
	return false
}

// next decodes the next record batch.
func (a *arrowSource) next(b *colBatch) (err error) {
	defer recovered(&err)
	if a.i >= a.fr.NumRecords() {
		return io.EOF
	}
	rec, err := a.fr.RecordBatch(a.i)
	a.i++
	if err != nil {
		return err
	}
	c := a.c
	times, ok1 := rec.Column(c.iTime).(*array.Timestamp)
	values, ok2 := rec.Column(c.iValue).(*array.Float64)
	if !ok1 || !ok2 {
		return errors.New("record batch does not match the schema")
	}
	if len(a.tags) != len(c.iTags) {
		a.tags = make([]strColumn, len(c.iTags))
	}
	a.metric.bind(rec.Column(c.iMetric), c.in)
	for j, i := range c.iTags {
		a.tags[j].bind(rec.Column(i), c.in)
	}
	a.extra.bind(colOrNil(rec, c.iExtra), c.in)
	a.meta.bind(colOrNil(rec, c.iMeta), c.in)
	a.source.bind(colOrNil(rec, c.iSource), c.in)
	n := int(rec.NumRows())
	b.reset(n, len(c.iTags))
	for i := range n {
		switch {
		case a.metric.isNull(i):
			b.null[i] = nullMetric
			continue
		case times.IsNull(i):
			b.null[i] = nullTime
			continue
		case values.IsNull(i):
			b.null[i] = nullValue
			continue
		}
		b.metric[i] = a.metric.get(i)
		b.times[i] = int64(times.Value(i)) * c.unitNS
		b.values[i] = values.Value(i)
		for j := range a.tags {
			b.tags[j][i] = a.tags[j].get(i)
		}
		b.extra[i] = a.extra.get(i)
		b.meta[i] = a.meta.getCopy(i)
		b.source[i] = a.source.get(i)
	}
	return nil
}

// Close releases the file reader.
func (a *arrowSource) Close() error { return a.fr.Close() }

func colOrNil(rec arrow.RecordBatch, i int) arrow.Array {
	if i < 0 {
		return nil
	}
	return rec.Column(i)
}

// strColumn reads strings from a string or dictionary-of-string array.
// Dictionary values are interned once per dictionary.
type strColumn struct {
	arr      arrow.Array
	dict     *array.Dictionary
	dictData arrow.ArrayData
	dictStrs []string
	str      *array.String
	lstr     *array.LargeString
	in       *interner
}

func (s *strColumn) bind(a arrow.Array, in *interner) {
	s.arr, s.dict, s.str, s.lstr, s.in = a, nil, nil, nil, in
	switch a := a.(type) {
	case *array.Dictionary:
		s.dict = a
		d := a.Dictionary()
		if d.Data() != s.dictData {
			s.dictData = d.Data()
			s.dictStrs = s.dictStrs[:0]
			for j := 0; j < d.Len(); j++ {
				v := ""
				if !d.IsNull(j) {
					switch d := d.(type) {
					case *array.String:
						v = internString(in, d.Value(j))
					case *array.LargeString:
						v = internString(in, d.Value(j))
					}
				}
				s.dictStrs = append(s.dictStrs, v)
			}
		}
	case *array.String:
		s.str = a
	case *array.LargeString:
		s.lstr = a
	}
}

func (s *strColumn) isNull(i int) bool { return s.arr == nil || s.arr.IsNull(i) }

// get returns row i's value, "" for null; interned.
func (s *strColumn) get(i int) string {
	if s.arr == nil || s.arr.IsNull(i) {
		return ""
	}
	switch {
	case s.dict != nil:
		return s.dictStrs[s.dict.GetValueIndex(i)]
	case s.str != nil:
		return internString(s.in, s.str.Value(i))
	case s.lstr != nil:
		return internString(s.in, s.lstr.Value(i))
	}
	return ""
}

// getCopy returns row i's value without interning (for high-cardinality
// columns such as metadata).
func (s *strColumn) getCopy(i int) string {
	if s.arr == nil || s.arr.IsNull(i) {
		return ""
	}
	switch {
	case s.str != nil:
		return strings.Clone(s.str.Value(i))
	case s.lstr != nil:
		return strings.Clone(s.lstr.Value(i))
	}
	return s.get(i)
}

// internString is interner.intern for a string that may point into an
// Arrow buffer: a new value is cloned before it is kept.
func internString(in *interner, s string) string {
	if s == "" {
		return ""
	}
	return in.intern(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// CountColumnarRows returns the number of rows in the Parquet or Arrow IPC
// file at path: from the footer for Parquet, from the record batches'
// lengths for Arrow. It is how `convert` checks rows out = rows in.
func CountColumnarRows(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	magic := make([]byte, 6)
	n, _ := f.ReadAt(magic, 0)
	switch s := string(magic[:n]); {
	case strings.HasPrefix(s, "PAR1"):
		pf, err := file.NewParquetReader(f)
		if err != nil {
			return 0, fmt.Errorf("%s: parquet: %w", path, err)
		}
		defer pf.Close()
		return pf.NumRows(), nil
	case strings.HasPrefix(s, "ARROW1"):
		fr, err := ipc.NewFileReader(f)
		if err != nil {
			return 0, fmt.Errorf("%s: arrow: %w", path, err)
		}
		defer fr.Close()
		var rows int64
		for i := 0; i < fr.NumRecords(); i++ {
			rec, err := fr.RecordBatch(i)
			if err != nil {
				return rows, fmt.Errorf("%s: arrow batch %d: %w", path, i, err)
			}
			rows += rec.NumRows()
		}
		return rows, nil
	}
	return 0, fmt.Errorf("%s: not a Parquet or Arrow IPC file", path)
}

// prefixed names the file and the format in err, once.
func prefixed(name, format string, err error) error {
	if strings.HasPrefix(err.Error(), format) {
		return fmt.Errorf("%s: %w", name, err)
	}
	return fmt.Errorf("%s: %s: %w", name, format, err)
}
