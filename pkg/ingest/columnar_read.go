package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// ColumnarReader streams the rows of a Parquet or Arrow IPC file of samples
// as written by WriteColumnar (or by any tool that keeps its columns:
// metric_name and extra_tags/metadata/source_file as strings or dictionary
// strings, timestamp as a timestamp of any unit, metric_value as float64;
// every other string column is a tag column).
//
// It reads one record batch at a time. A row with a null metric_name,
// timestamp or metric_value is recorded as a SyntaxError whose Line is the
// 1-based row number and Column the 1-based column number, and skipped.
// Sample.Source is the source_file of the row when the file has one (the
// k6 file the sample was first read from), else the columnar file's name.
// Stats.ResolutionNS is the original input's resolution as WriteColumnar
// recorded it, else the timestamp column's unit.
type ColumnarReader struct {
	name    string
	closers []io.Closer

	next func() (arrow.RecordBatch, error)
	rec  arrow.RecordBatch
	row  int
	base int64 // rows before the current batch

	schema                      *arrow.Schema
	iMetric, iTime, iValue      int
	iExtra, iMeta, iSource      int
	iTags                       []int
	metric, extra, meta, source strColumn
	tags                        []strColumn
	times                       *array.Timestamp
	values                      *array.Float64
	unitNS                      int64

	keys, vals []string

	in  *interner
	s   Sample
	st  Stats
	err error
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

func newColumnarReader(f *os.File, name string) (*ColumnarReader, error) {
	magic := make([]byte, 6)
	n, _ := f.ReadAt(magic, 0)
	magic = magic[:n]
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	c := &ColumnarReader{name: name, in: newInterner()}
	c.st.Bytes = info.Size()
	mem := memory.DefaultAllocator
	switch {
	case strings.HasPrefix(string(magic), "PAR1"):
		pf, err := file.NewParquetReader(f)
		if err != nil {
			return nil, prefixed(name, "parquet", err)
		}
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, mem)
		if err != nil {
			pf.Close()
			return nil, prefixed(name, "parquet", err)
		}
		rr, err := fr.GetRecordReader(context.Background(), nil, nil)
		if err != nil {
			pf.Close()
			return nil, prefixed(name, "parquet", err)
		}
		c.schema = rr.Schema()
		if v := pf.MetaData().KeyValueMetadata().FindValue(metaResolution); v != nil {
			c.st.ResolutionNS, _ = strconv.ParseInt(*v, 10, 64)
		}
		c.closers = append(c.closers, closeFunc(func() error { rr.Release(); return pf.Close() }))
		c.next = func() (arrow.RecordBatch, error) {
			if rr.Next() {
				return rr.RecordBatch(), nil
			}
			if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return nil, io.EOF
		}
	case strings.HasPrefix(string(magic), "ARROW1"):
		fr, err := ipc.NewFileReader(f, ipc.WithAllocator(mem))
		if err != nil {
			return nil, prefixed(name, "arrow", err)
		}
		c.schema = fr.Schema()
		c.closers = append(c.closers, fr)
		i := 0
		c.next = func() (arrow.RecordBatch, error) {
			if i >= fr.NumRecords() {
				return nil, io.EOF
			}
			rec, err := fr.RecordBatch(i)
			i++
			return rec, err
		}
	default:
		return nil, fmt.Errorf("%s: not a Parquet or Arrow IPC file (no PAR1/ARROW1 magic)", name)
	}
	if err := c.mapColumns(); err != nil {
		c.Close()
		return nil, err
	}
	c.s.Source = name
	return c, nil
}

// mapColumns finds the sample columns in the schema.
func (c *ColumnarReader) mapColumns() error {
	c.iMetric, c.iTime, c.iValue, c.iExtra, c.iMeta, c.iSource = -1, -1, -1, -1, -1, -1
	for i, f := range c.schema.Fields() {
		switch f.Name {
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
			if isStringType(f.Type) {
				c.iTags = append(c.iTags, i)
				c.keys = append(c.keys, f.Name)
			}
		}
	}
	var missing []string
	if c.iMetric < 0 || !isStringType(c.schema.Field(max(c.iMetric, 0)).Type) {
		missing = append(missing, ColMetric+" (string)")
	}
	if c.iTime < 0 || c.schema.Field(max(c.iTime, 0)).Type.ID() != arrow.TIMESTAMP {
		missing = append(missing, ColTime+" (timestamp)")
	}
	if c.iValue < 0 || c.schema.Field(max(c.iValue, 0)).Type.ID() != arrow.FLOAT64 {
		missing = append(missing, ColValue+" (float64)")
	}
	for _, i := range []int{c.iExtra, c.iMeta, c.iSource} {
		if i >= 0 && !isStringType(c.schema.Field(i).Type) {
			missing = append(missing, c.schema.Field(i).Name+" (string)")
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: not an ldanalyze sample file: no column %s (ldanalyze convert writes them)", c.name, strings.Join(missing, ", "))
	}
	unit := c.schema.Field(c.iTime).Type.(*arrow.TimestampType).Unit
	for _, u := range timeUnits {
		if u.unit == unit {
			c.unitNS = u.ns
		}
	}
	if md := c.schema.Metadata(); c.st.ResolutionNS <= 0 {
		if i := md.FindKey(metaResolution); i >= 0 {
			c.st.ResolutionNS, _ = strconv.ParseInt(md.Values()[i], 10, 64)
		}
	}
	if c.st.ResolutionNS < c.unitNS {
		c.st.ResolutionNS = c.unitNS // a file from elsewhere: the unit is all we know
	}
	c.vals = make([]string, len(c.iTags))
	c.tags = make([]strColumn, len(c.iTags))
	return nil
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

// TagColumns returns the file's tag columns, in file order.
func (c *ColumnarReader) TagColumns() []string { return c.keys }

// Next advances to the next row; rows with a null fixed column are
// recorded and skipped.
func (c *ColumnarReader) Next() bool {
	if c.err != nil {
		return false
	}
	for {
		for c.rec == nil || c.row >= int(c.rec.NumRows()) {
			if c.rec != nil {
				c.base += c.rec.NumRows()
			}
			rec, err := c.next()
			if err == io.EOF {
				c.rec = nil
				return false
			}
			if err != nil {
				c.err = fmt.Errorf("%s: after row %d: %w", c.name, c.base, err)
				c.rec = nil
				return false
			}
			c.bind(rec)
		}
		i := c.row
		c.row++
		line := c.base + int64(i) + 1
		switch {
		case c.metric.isNull(i):
			c.st.record(&SyntaxError{File: c.name, Line: line, Column: c.iMetric + 1, Msg: "null metric_name"})
			continue
		case c.times.IsNull(i):
			c.st.record(&SyntaxError{File: c.name, Line: line, Column: c.iTime + 1, Msg: "null timestamp"})
			continue
		case c.values.IsNull(i):
			c.st.record(&SyntaxError{File: c.name, Line: line, Column: c.iValue + 1, Msg: "null metric_value"})
			continue
		}
		c.s.Metric = c.metric.get(i)
		c.s.TimeNS = int64(c.times.Value(i)) * c.unitNS
		c.s.Value = c.values.Value(i)
		for j := range c.tags {
			c.vals[j] = c.tags[j].get(i)
		}
		c.s.Tags = NewTags(c.keys, c.vals, c.extra.get(i), c.meta.getCopy(i))
		c.s.Source = c.name
		if src := c.source.get(i); src != "" {
			c.s.Source = src
		}
		c.st.Rows++
		return true
	}
}

// bind points the column accessors at a new batch.
func (c *ColumnarReader) bind(rec arrow.RecordBatch) {
	c.rec, c.row = rec, 0
	c.metric.bind(rec.Column(c.iMetric), c.in)
	c.times = rec.Column(c.iTime).(*array.Timestamp)
	c.values = rec.Column(c.iValue).(*array.Float64)
	for j, i := range c.iTags {
		c.tags[j].bind(rec.Column(i), c.in)
	}
	c.extra.bind(colOrNil(rec, c.iExtra), c.in)
	c.meta.bind(colOrNil(rec, c.iMeta), c.in)
	c.source.bind(colOrNil(rec, c.iSource), c.in)
}

func colOrNil(rec arrow.RecordBatch, i int) arrow.Array {
	if i < 0 {
		return nil
	}
	return rec.Column(i)
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
	return first
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
	if v, ok := in.m[s]; ok {
		return v
	}
	s = strings.Clone(s)
	if len(in.m) < maxInterned {
		in.m[s] = s
	}
	return s
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
