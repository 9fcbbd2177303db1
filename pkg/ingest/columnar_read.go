package ingest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// ColumnarReader streams the rows of a Parquet or Arrow IPC file of samples
// as written by WriteColumnar (or by any tool that keeps its columns:
// metric_name and extra_tags/metadata/source_file as strings or dictionary
// strings, timestamp as a timestamp of any unit, metric_value as float64;
// every other string column is a tag column).
//
// It reads a batch of rows at a time: an Arrow record batch, or up to
// 8,192 rows of a Parquet row group, decoded column by column with
// Parquet's own readers (a Parquet string is a BYTE_ARRAY column with the
// String logical type or UTF8 converted type; a timestamp is an INT64
// Timestamp column of any unit, or INT96; nested and repeated columns are
// ignored). The fixed columns are decoded for every row; a tag column (and
// extra_tags, metadata) only when a sample of the batch asks for it
// (Tags.Get, Value), as the CSV reader decodes its tag fields, and a
// Parquet column chunk that no sample of its row group asks for is not
// read at all. Drain reads row groups (record batches) on every core.
//
// A row with a null metric_name, timestamp or metric_value is recorded as a
// SyntaxError whose Line is the 1-based row number and Column the 1-based
// column number, and skipped; so is an empty metric_name, a time outside
// 1970–2200, a value that is not finite, and a negative value of one of
// k6's built-in durations.
// Sample.Source is the source_file of the row when the file has one (the
// k6 file the sample was first read from), else the columnar file's name.
// Stats.ResolutionNS is the original input's resolution as WriteColumnar
// recorded it, else the timestamp column's unit. A corrupt file is an
// error (at open, or the Err that stops the read), never a panic; chunk
// sizes are checked against the file's size before anything is allocated.
type ColumnarReader struct {
	name    string
	closers []io.Closer
	// times follows the rows' times (Next) or the units' (Drain), for
	// the steps back in time.
	times timeOrder

	pq *parquetSource
	ar *arrowSource

	iMetric, iTime, iValue int // field positions, for SyntaxError.Column
	iExtra, iMeta, iSource int
	iTags                  []int
	unitNS                 int64 // the timestamp column's unit
	keys                   []string

	// Next: one cursor over every unit (row group, record batch) in order.
	started  bool
	cur      colCursor
	unit     int   // the current unit (-1 before the first)
	base     int64 // rows of the units before the current one
	unitRows int64 // rows of the current unit in batches so far
	b        *colBatch
	clean    bool // b.allPlain(): its rows skip rowCheck
	row      int
	done     bool

	s    Sample
	crow colRow
	st   Stats
	err  error
}

// colBatch is one batch of decoded rows. The fixed columns are decoded on
// creation; the string column j (a tag column j, then extra_tags, then
// metadata) when first asked, by dec. Strings are held as ids into the
// cursor's table (metadata, nearly always distinct, as strings), so the
// per-row arrays hold no pointers for the garbage collector to scan.
type colBatch struct {
	n      int
	start  int64   // rows of the unit before the batch
	null   []uint8 // per row: nullMetric|nullTime|nullValue
	bad    []bool  // per row: the time is outside 1970–2200 (times holds whole seconds)
	metric []int32
	times  []int64 // nanoseconds
	values []float64
	source []int32
	ids    [][]int32 // string columns but metadata
	meta   []string  // the metadata column
	metaJ  int       // the index of the metadata column
	have   []bool
	tagsIn bool // every tag column and extra_tags decoded (seriesHash)
	oneSrc bool // every row's Sample.Source is src (see sources)
	src    string
	tab    *strTable
	dec    colCursor
	err    error // the first failed lazy decode
}

// The null flags of colBatch.null.
const (
	nullMetric = 1 << iota
	nullTime
	nullValue
)

// reset sizes b for n rows of nstr string columns (the last is metadata),
// all empty and not null.
func (b *colBatch) reset(n, nstr int, start int64, tab *strTable) {
	b.n, b.start, b.err, b.tab, b.oneSrc, b.tagsIn = n, start, nil, tab, false, false
	if cap(b.null) < n {
		b.null, b.bad, b.times, b.values = make([]uint8, n), make([]bool, n), make([]int64, n), make([]float64, n)
		b.metric, b.source = make([]int32, n), make([]int32, n)
	}
	b.null, b.bad, b.times, b.values = b.null[:n], b.bad[:n], b.times[:n], b.values[:n]
	b.metric, b.source = b.metric[:n], b.source[:n]
	clear(b.null)
	clear(b.bad)
	clear(b.metric)
	clear(b.source)
	if len(b.have) != nstr {
		b.ids, b.have = make([][]int32, nstr-1), make([]bool, nstr)
		b.metaJ = nstr - 1
	}
	clear(b.have)
}

// str returns string column j at row i, decoding the column for the batch
// on first use.
func (b *colBatch) str(j, i int) string {
	b.need(j)
	if j == b.metaJ {
		return b.meta[i]
	}
	return b.tab.strs[b.ids[j][i]]
}

// need decodes string column j for the batch unless it is decoded.
func (b *colBatch) need(j int) {
	if !b.have[j] {
		b.have[j] = true
		if j == b.metaJ {
			if cap(b.meta) < b.n {
				b.meta = make([]string, b.n)
			}
			b.meta = b.meta[:b.n]
			clear(b.meta)
		} else {
			if cap(b.ids[j]) < b.n {
				b.ids[j] = make([]int32, b.n)
			}
			b.ids[j] = b.ids[j][:b.n]
			clear(b.ids[j])
		}
		if err := b.dec.decode(b, j); err != nil && b.err == nil {
			b.err = err
		}
	}
}

// colCursor reads the units of a columnar file one batch at a time. A
// cursor belongs to one goroutine.
type colCursor interface {
	// open moves to unit u (a row group, a record batch).
	open(u int) error
	// next decodes the unit's next batch into b; io.EOF at the unit's end.
	next(b *colBatch) error
	// decode fills string column j of b, the cursor's current batch.
	decode(b *colBatch, j int) error
	close()
}

// colRow is the tag view of one row of a batch.
type colRow struct {
	b *colBatch
	i int
	n int // tag columns; extra_tags is string column n, metadata n+1

	keys keyCache // get's cache of key lookups
}

// keyIndex returns the index of key among the tag columns keys, or -1.
func (r *colRow) keyIndex(keys []string, key string) int { return r.keys.index(keys, key) }

// get is Tags.Get of the row.
func (r *colRow) get(keys []string, key string) (string, bool) {
	i, ok := r.keys.hit(key)
	if !ok {
		i = r.keyIndex(keys, key)
	}
	if i >= 0 {
		b := r.b // a tag column: ids, not the metadata strings
		if !b.have[i] {
			b.need(i)
		}
		v := b.tab.strs[b.ids[i][r.i]]
		return v, v != ""
	}
	if v, ok := lookupPairs(r.extra(), key); ok {
		return v, true
	}
	return lookupPairs(r.metadata(), key)
}

func (r *colRow) value(j int) string { return r.b.str(j, r.i) }
func (r *colRow) extra() string      { return r.b.str(r.n, r.i) }
func (r *colRow) metadata() string   { return r.b.str(r.n+1, r.i) }

// seriesHash is Tags.SeriesHash of the row. It hashes the table ids of
// the row's tag columns through the table's per-string hashes (each string
// hashed once, when first asked): no string is read per row, and since the
// hash is of the string, not of a dictionary or table id, it is the same
// in every row group and every cursor. The extra tags add their pairs'
// hashes, in any order, as for the other readers.
func (r *colRow) seriesHash(seed maphash.Seed) uint64 {
	b, tab, i := r.b, r.b.tab, r.i
	tab.useSeed(seed)
	if !b.tagsIn {
		// Every tag column and extra_tags, once per batch, so that the
		// loop below checks no column's flag per row.
		for j := range r.n + 1 {
			b.need(j)
		}
		b.tagsIn = true
	}
	h := uint64(0x243F6A8885A308D3)
	hashes := tab.hashes
	for _, col := range b.ids[:r.n] {
		id := col[i]
		if int(id) >= len(hashes) {
			tab.hashTo(id)
			hashes = tab.hashes
		}
		h = mixSeries(h ^ hashes[id])
	}
	if x := b.ids[r.n][i]; x != 0 {
		h += tab.pairsHash(seed, x)
	}
	return h
}

// mixSeries is a bijective 64-bit mix (the finaliser of SplitMix64), so
// that seriesHash depends on the order of its columns.
func mixSeries(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 27
	x *= 0x94D049BB133111EB
	x ^= x >> 31
	return x
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
// decompressor: it is spooled to a scratch file, which is unlinked at once
// where the system allows (so a killed process leaves nothing behind) and
// removed by Close otherwise.
func openColumnarStream(r io.Reader, name string) (*ColumnarReader, error) {
	tmp, err := os.CreateTemp("", "ldanalyze-columnar-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("%s: scratch file for a columnar input: %w", name, err)
	}
	unlinked := os.Remove(tmp.Name()) == nil
	rm := closeFunc(func() error {
		tmp.Close()
		if unlinked {
			return nil
		}
		return os.Remove(tmp.Name())
	})
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
	c = &ColumnarReader{name: name}
	c.st.Bytes = info.Size()
	var cols []colInfo
	switch {
	case strings.HasPrefix(string(magic), "PAR1"):
		p, err := openParquet(f, info.Size(), c)
		if err != nil {
			return nil, prefixed(name, "parquet", err)
		}
		c.closers = append(c.closers, p)
		c.pq, cols = p, p.info
	case strings.HasPrefix(string(magic), "ARROW1"):
		a, err := openArrow(f, c)
		if err != nil {
			return nil, prefixed(name, "arrow", err)
		}
		c.closers = append(c.closers, a)
		c.ar, cols = a, a.info
	default:
		return nil, fmt.Errorf("%s: not a Parquet or Arrow IPC file (no PAR1/ARROW1 magic)", name)
	}
	if err := c.mapColumns(cols); err != nil {
		c.Close()
		return nil, err
	}
	if c.pq != nil {
		c.pq.bindColumns()
	}
	c.s.Source = name
	c.crow.n = len(c.keys)
	c.s.Tags = Tags{keys: c.keys, lazyC: &c.crow}
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
	return nil
}

// TagColumns returns the file's tag columns, in file order.
func (c *ColumnarReader) TagColumns() []string { return c.keys }

// units returns the number of row groups or record batches.
func (c *ColumnarReader) units() int {
	if c.pq != nil {
		return c.pq.pf.NumRowGroups()
	}
	return c.ar.fr.NumRecords()
}

// newCursor returns a cursor with its own column readers and interner.
func (c *ColumnarReader) newCursor() colCursor {
	if c.pq != nil {
		return c.pq.newCursor()
	}
	return c.ar.newCursor()
}

// unitResult is what reading one unit found; lines of errs count from the
// unit's first row until they are absorbed in order.
type unitResult struct {
	rows, skipped int64 // samples handed out, rows skipped
	n             int64 // rows of the unit
	times         timeOrder
	errs          []*SyntaxError
	err           error
}

// seeTimes is o.see of each time of times that differs from the one
// before (the rows of a batch whose first is row start+1 of its unit),
// with o.last kept in a register: a step back is a time more than
// BackStepNS behind the one before, and o.last the last time seen.
func seeTimes(o *timeOrder, times []int64, start int64) {
	if len(times) == 0 {
		return
	}
	if !o.set {
		o.see(times[0], start+1)
	}
	last := o.last
	for i, t := range times {
		if t < last-BackStepNS {
			o.add(TimeStep{Line: start + int64(i) + 1, FromNS: last, ToNS: t})
		}
		last = t
	}
	o.last = last
}

// allPlain reports whether rowCheck passes every row of b at a glance (no
// null, a metric, a time in range, a finite value ≥ 0), in a branch-free
// pass over each fixed column, so that the rows of such a batch skip
// rowCheck. A value is taken as plain when its bits are below +Inf's (so
// ≥ +0, finite, not NaN); -0 is not, and goes to rowCheck, which passes
// it.
func (b *colBatch) allPlain() bool {
	flags := orBytes(b.null) | orBytes(asBytes(b.bad))
	minMetric := int32(1)
	var maxBits uint64
	metric, values := b.metric[:b.n], b.values[:b.n]
	for i, m := range metric {
		minMetric = min(minMetric, m)
		maxBits = max(maxBits, math.Float64bits(values[i]))
	}
	return flags == 0 && minMetric > 0 && maxBits < 0x7FF0000000000000
}

// asBytes is the memory of s as bytes, in the machine's byte order (no
// copy): for a vectorised comparison or or of fixed-size elements, or a
// buffer handed to arrow.
func asBytes[T bool | uint8 | uint16 | uint32 | int32 | float64](s []T) []byte {
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// littleEndian is set when the machine's byte order is little-endian
// (amd64, arm64): Parquet's PLAIN values can then be copied as they are.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// orBytes returns the bitwise or of the bytes of p, 8 at a time.
func orBytes(p []byte) byte {
	var w uint64
	for len(p) >= 8 {
		w |= binary.LittleEndian.Uint64(p)
		p = p[8:]
	}
	for _, x := range p {
		w |= uint64(x)
	}
	w |= w >> 32
	w |= w >> 16
	w |= w >> 8
	return byte(w)
}

// rowCheck returns the syntax error of row i of b, or nil.
func (c *ColumnarReader) rowCheck(b *colBatch, i int) *SyntaxError {
	line := b.start + int64(i) + 1 // within the unit
	if nf := b.null[i]; nf != 0 {
		switch {
		case nf&nullMetric != 0:
			return &SyntaxError{File: c.name, Line: line, Column: c.iMetric + 1, Msg: "null metric_name"}
		case nf&nullTime != 0:
			return &SyntaxError{File: c.name, Line: line, Column: c.iTime + 1, Msg: "null timestamp"}
		default:
			return &SyntaxError{File: c.name, Line: line, Column: c.iValue + 1, Msg: "null metric_value"}
		}
	}
	if b.metric[i] == 0 {
		return &SyntaxError{File: c.name, Line: line, Column: c.iMetric + 1, Msg: "empty metric_name"}
	}
	if b.bad[i] {
		t := time.Unix(b.times[i], 0).UTC().Format(time.RFC3339)
		return &SyntaxError{File: c.name, Line: line, Column: c.iTime + 1, Msg: fmt.Sprintf("timestamp %s is outside %s", t, timeRange)}
	}
	if v := b.values[i]; !(v >= 0 && v <= 1.7976931348623157e308) {
		if msg := checkValue(b.tab.strs[b.metric[i]], v); msg != "" {
			return &SyntaxError{File: c.name, Line: line, Column: c.iValue + 1, Msg: fmt.Sprintf("metric_value %s: %s", strconv.FormatFloat(v, 'g', -1, 64), msg)}
		}
	}
	return nil
}

// record adds a row's syntax error to a unit's result.
func (r *unitResult) record(e *SyntaxError) {
	r.skipped++
	if len(r.errs) < MaxRecordedErrors {
		r.errs = append(r.errs, e)
	}
}

// absorb adds a unit's result to the stats, in file order; false when the
// unit's read failed (c.err is set).
func (c *ColumnarReader) absorb(r *unitResult, base int64) bool {
	c.times.absorb(&r.times, base, c.name)
	c.st.Rows += r.rows
	c.st.Skipped += r.skipped - int64(len(r.errs))
	for _, e := range r.errs {
		e.Line += base
		c.st.record(e)
	}
	if r.err != nil {
		c.err = fmt.Errorf("%s: after row %d: %w", c.name, base+r.n, r.err)
		return false
	}
	return true
}

// Next advances to the next row; rows with a null fixed column or a value
// out of range are recorded and skipped.
func (c *ColumnarReader) Next() bool {
	if c.done || c.err != nil {
		return false
	}
	if !c.started {
		c.started = true
		c.cur = c.newCursor()
		c.b = &colBatch{dec: c.cur}
		c.unit = -1
	}
	b := c.b
	for {
		for c.row >= b.n {
			if b.err != nil { // a tag column of the batch did not decode
				c.err = fmt.Errorf("%s: after row %d: %w", c.name, c.base+c.unitRows, b.err)
				return false
			}
			c.row = 0
			if c.unit >= 0 {
				err := c.cur.next(b)
				if err == nil {
					c.unitRows = b.start + int64(b.n)
					c.clean = b.allPlain()
					b.sources(c.name)
					continue
				}
				if err != io.EOF {
					c.err = fmt.Errorf("%s: after row %d: %w", c.name, c.base+c.unitRows, err)
					return false
				}
				c.base += c.unitRows
			}
			b.n, c.unitRows = 0, 0
			c.unit++
			if c.unit >= c.units() {
				c.done = true
				c.cur.close()
				c.times.finish(&c.st, c.name)
				return false
			}
			if err := c.cur.open(c.unit); err != nil {
				c.err = fmt.Errorf("%s: after row %d: %w", c.name, c.base, err)
				return false
			}
		}
		i := c.row
		c.row++
		if !c.clean {
			if e := c.rowCheck(b, i); e != nil {
				e.Line += c.base
				c.st.record(e)
				continue
			}
		}
		c.fill(&c.s, &c.crow, b, i)
		if o := &c.times; !o.set || c.s.TimeNS != o.last {
			o.see(c.s.TimeNS, c.base+b.start+int64(i)+1)
		}
		c.st.Rows++
		return true
	}
}

// fill makes s row i of b.
func (c *ColumnarReader) fill(s *Sample, r *colRow, b *colBatch, i int) {
	s.Metric = b.tab.strs[b.metric[i]]
	s.TimeNS = b.times[i]
	s.Value = b.values[i]
	r.b, r.i = b, i
	if b.oneSrc {
		s.Source = b.src
		return
	}
	s.Source = c.source(b, i)
}

// source is Sample.Source of row i of b: its source_file, else the
// columnar file's name.
func (c *ColumnarReader) source(b *colBatch, i int) string {
	if src := b.tab.strs[b.source[i]]; src != "" {
		return src
	}
	return c.name
}

// sources sets b.oneSrc and b.src when every row of b has the same
// Sample.Source (nearly always: one source_file, or none), name being the
// columnar file's.
func (b *colBatch) sources(name string) {
	b.oneSrc = false
	if b.n == 0 {
		return
	}
	first := b.source[0]
	// Two ids a word.
	pair := uint64(uint32(first)) | uint64(uint32(first))<<32
	var diff uint64
	src := asBytes(b.source[:b.n])
	for len(src) >= 8 {
		diff |= binary.NativeEndian.Uint64(src) ^ pair
		src = src[8:]
	}
	if len(src) > 0 {
		diff |= uint64(uint32(b.source[b.n-1]) ^ uint32(first))
	}
	if diff != 0 {
		return
	}
	b.oneSrc, b.src = true, name
	if src := b.tab.strs[first]; src != "" {
		b.src = src
	}
}

// Drain reads the whole file, handing its samples to sinks from parallel
// workers, a row group (record batch) at a time each: sinks[i] is called
// only from worker i's goroutine, with samples in no particular order,
// valid during the call. Drain must be called before any Next. It returns
// the error that stopped the read (a corrupt file), or nil.
func (c *ColumnarReader) Drain(sinks []func(*Sample)) error {
	return c.drain(sinks, nil, nil)
}

// drainBatches is Drain for batch sinks: a unit (row group, record batch)
// is a batch.
func (c *ColumnarReader) drainBatches(sinks []batchSink) error {
	fs := make([]func(*Sample), len(sinks))
	for i, s := range sinks {
		fs[i] = s.sample
	}
	return c.drain(fs, sinks, nil)
}

// drain is Drain, telling bsinks (when not nil) where each unit begins
// and ends, and handing each batch whose rows all pass rowCheck whole to
// rsinks (when not nil).
func (c *ColumnarReader) drain(sinks []func(*Sample), bsinks []batchSink, rsinks []func(*Batch)) error {
	if c.started {
		return errors.New("ingest: Drain after Next")
	}
	if len(sinks) == 0 {
		return errors.New("ingest: Drain with no sinks")
	}
	c.started, c.done = true, true
	units := c.units()
	results := make([]unitResult, units)
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for w := range min(len(sinks), max(units, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cur := c.newCursor()
			defer cur.close()
			b := &colBatch{dec: cur}
			r := colRow{n: len(c.keys), b: b}
			s := Sample{Source: c.name, Tags: Tags{keys: c.keys, lazyC: &r}}
			sink := sinks[w]
			var rsink func(*Batch)
			if rsinks != nil {
				rsink = rsinks[w]
			}
			bt := &Batch{c: c, b: b, r: &r, s: &s}
			for !failed.Load() {
				u := int(next.Add(1) - 1)
				if u >= units {
					return
				}
				res := &results[u]
				if bsinks != nil {
					bsinks[w].begin(int64(u))
				}
				res.err = cur.open(u)
				for res.err == nil {
					if res.err = cur.next(b); res.err != nil {
						break
					}
					clean := b.allPlain()
					b.sources(c.name)
					if rsink != nil && clean {
						times := b.times[:b.n]
						seeTimes(&res.times, times, b.start)
						bt.MetricIDs, bt.TimesNS, bt.Values, bt.Names = b.metric[:b.n], times, b.values[:b.n], b.tab.strs
						rsink(bt)
						res.rows += int64(b.n)
						res.n = b.start + int64(b.n)
						if b.err != nil {
							res.err = b.err
						}
						continue
					}
					if b.oneSrc {
						s.Source = b.src
					}
					// fill, but with r.b (always b) and a batch's one
					// Source set once: sinks do not change the sample.
					for i := range b.n {
						if !clean {
							if e := c.rowCheck(b, i); e != nil {
								res.record(e)
								continue
							}
						}
						s.Metric = b.tab.strs[b.metric[i]]
						s.TimeNS, s.Value, r.i = b.times[i], b.values[i], i
						if o := &res.times; !o.set || s.TimeNS != o.last {
							o.see(s.TimeNS, b.start+int64(i)+1)
						}
						if !b.oneSrc {
							s.Source = c.source(b, i)
						}
						sink(&s)
						res.rows++
					}
					res.n = b.start + int64(b.n)
					if b.err != nil {
						res.err = b.err
					}
				}
				if res.err == io.EOF {
					res.err = nil
				}
				if bsinks != nil {
					bsinks[w].end(int64(u), resolution{intNS: c.st.ResolutionNS})
				}
				if res.err != nil {
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	var base int64
	for u := range results {
		if !c.absorb(&results[u], base) {
			break
		}
		base += results[u].n
	}
	c.times.finish(&c.st, c.name)
	return c.err
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
	if c.cur != nil && !c.done {
		c.cur.close()
	}
	c.done = true
	for i := len(c.closers) - 1; i >= 0; i-- {
		if err := c.closers[i].Close(); err != nil && first == nil {
			first = err
		}
	}
	c.closers = nil
	return first
}

// recovered turns a panic of a decoder on a corrupt file into *err: the
// boundedAllocator's *BufferTooLargeError as it is, anything arrow-go
// raised on bytes it could not decode as "corrupt file".
func recovered(err *error) {
	if r := recover(); r != nil {
		if e, ok := r.(*BufferTooLargeError); ok {
			*err = e
			return
		}
		*err = fmt.Errorf("corrupt file: %v", r)
	}
}

// strTable is a cursor's table of the strings of its batches: batch
// columns hold ids into it (0 is ""). It is emptied at a batch start once
// it holds more than maxTable strings (a high-cardinality column), which
// keeps memory bounded.
type strTable struct {
	strs []string
	ids  map[string]int32
	gen  uint32 // counts the resets, for the caches

	// hashes[id] is maphash.String(seed, strs[id]) for the ids hashed so
	// far; pairs[id] the pairs hash of strs[id] as extra tags (see
	// pairsHash). Both are for one seed and emptied with the table.
	seed   maphash.Seed
	seeded bool
	hashes []uint64
	pairs  map[int32]uint64
}

const maxTable = 1 << 16

func newStrTable() *strTable {
	return &strTable{strs: []string{""}, ids: map[string]int32{"": 0}}
}

// id returns the id of the string of bs, adding it (copied).
func (t *strTable) id(bs []byte) int32 {
	if id, ok := t.ids[string(bs)]; ok {
		return id
	}
	return t.add(string(bs))
}

// idString is id for a string that may point into an Arrow buffer.
func (t *strTable) idString(s string) int32 {
	if id, ok := t.ids[s]; ok {
		return id
	}
	return t.add(strings.Clone(s))
}

func (t *strTable) add(s string) int32 {
	id := int32(len(t.strs))
	t.strs = append(t.strs, s)
	t.ids[s] = id
	return id
}

// maybeReset empties a full table between batches. The strings go to a
// new array: converter fragments may still refer to the old one.
func (t *strTable) maybeReset() {
	if len(t.strs) > maxTable {
		clear(t.ids)
		t.strs = []string{""}
		t.ids[""] = 0
		t.gen++
		t.hashes = t.hashes[:0]
		clear(t.pairs)
	}
}

// useSeed makes seed the seed of the table's hashes, forgetting those of
// another seed.
func (t *strTable) useSeed(seed maphash.Seed) {
	if !t.seeded || t.seed != seed {
		t.seed, t.seeded = seed, true
		t.hashes = t.hashes[:0]
		clear(t.pairs)
	}
}

// hashTo extends t.hashes to id: hashes[k] is maphash.String(t.seed,
// t.strs[k]), computed once per string (useSeed first).
func (t *strTable) hashTo(id int32) {
	for k := len(t.hashes); k <= int(id); k++ {
		t.hashes = append(t.hashes, maphash.String(t.seed, t.strs[k]))
	}
}

// pairsHash returns the hash of t.strs[id] as a k6 "k=v&k=v" field, pair
// order aside, as Tags.SeriesHash adds the extra tags; computed once per
// string.
func (t *strTable) pairsHash(seed maphash.Seed, id int32) uint64 {
	t.useSeed(seed)
	if h, ok := t.pairs[id]; ok {
		return h
	}
	h := pairsHash(seed, t.strs[id])
	if t.pairs == nil {
		t.pairs = map[int32]uint64{}
	}
	t.pairs[id] = h
	return h
}

// idCache finds the ids of one column's values: by the address of a
// value's bytes first (values decoded from a Parquet dictionary page share
// it), confirmed by content, and only then in the table's map.
type idCache struct {
	gen uint32
	ptr [256]uintptr
	id  [256]int32
}

func (c *idCache) get(bs []byte, t *strTable) int32 {
	if len(bs) == 0 {
		return 0
	}
	if c.gen != t.gen {
		*c = idCache{gen: t.gen}
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(bs)))
	h := (p>>3 ^ p>>11) & 255
	if c.ptr[h] == p {
		if id := c.id[h]; t.strs[id] == string(bs) {
			return id
		}
	}
	id := t.id(bs)
	c.ptr[h], c.id[h] = p, id
	return id
}

// --- Parquet ---------------------------------------------------------------

// pqBatchRows is the most rows a Parquet batch decodes at a time.
const pqBatchRows = 1 << 13

// parquetSource is an open Parquet file: its reader and the sample columns.
type parquetSource struct {
	mu   sync.Mutex // around RowGroup (the file reader's page cache is shared)
	pf   *file.Reader
	size int64 // of the file
	c    *ColumnarReader
	info []colInfo
	cols []*pqColumn

	f     *os.File
	props *parquet.ReaderProperties
	reuse bool // a cursor's page reader of a column may move from chunk to chunk
}

// pqRole is what a Parquet column is to the reader.
type pqRole uint8

const (
	roleNone pqRole = iota
	roleMetric
	roleTime
	roleValue
	roleSource
	roleStr // a tag column, extra_tags or metadata: decoded when asked
)

// pqColumn is a sample column of a Parquet file.
type pqColumn struct {
	name   string
	field  int   // the position among the file's top-level columns
	leaf   int   // the Parquet column index
	maxDef int16 // 0: required, 1: optional
	kind   colKind
	int96  bool
	unitNS int64
	role   pqRole
	str    int  // roleStr: the index among the batch's string columns
	copy   bool // metadata: copied, not interned (nearly every value differs)
}

// openParquet reads the footer of a Parquet file and maps its top-level
// columns; it records the file's resolution metadata in c.st.
func openParquet(f *os.File, size int64, c *ColumnarReader) (p *parquetSource, err error) {
	defer recovered(&err)
	props := parquet.NewReaderProperties(newBoundedAllocator(c.name, size))
	// Read column chunks through a buffer rather than whole: less memory,
	// and a corrupt chunk length cannot ask for a huge allocation.
	props.BufferedStreamEnabled = true
	props.BufferSize = 64 << 10
	pf, err := file.NewParquetReader(f, file.WithReadProps(props))
	if err != nil {
		return nil, err
	}
	p = &parquetSource{pf: pf, size: size, c: c, f: f, props: props}
	md := pf.MetaData()
	// arrow-go pads the chunks of old parquet-mr files (PARQUET-816),
	// and an encrypted file's page readers carry their chunk's keys: those
	// get a page reader per chunk, as arrow-go's column readers do.
	p.reuse = !md.WriterVersion().LessThan(metadata.Parquet816FixedVersion) && !md.IsSetEncryptionAlgorithm()
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

// bindColumns gives each sample column its role, once the sample columns
// are known, and drops the others.
func (p *parquetSource) bindColumns() {
	c := p.c
	var used []*pqColumn
	for _, col := range p.cols {
		i := col.field
		switch {
		case i == c.iMetric:
			col.role = roleMetric
		case i == c.iTime:
			col.role = roleTime
		case i == c.iValue:
			col.role = roleValue
		case i == c.iSource:
			col.role = roleSource
		case i == c.iExtra:
			col.role, col.str = roleStr, len(c.keys)
		case i == c.iMeta:
			col.role, col.str, col.copy = roleStr, len(c.keys)+1, true
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
			col.role, col.str = roleStr, j
		}
		used = append(used, col)
	}
	p.cols = used
}

// Close releases the file reader.
func (p *parquetSource) Close() error { return p.pf.Close() }

// pqCursor reads row groups of a Parquet file; it has its own column
// readers, opened per row group when first needed.
type pqCursor struct {
	p    *parquetSource
	tab  *strTable
	rg   *file.RowGroupReader
	rows int64 // of the row group
	pos  int64 // rows of the row group in batches so far
	cols []*pqReader
	strs []*pqReader // by string column index (nil: not in the file)
}

// pqReader is a cursor's reader of one column in the current row group.
type pqReader struct {
	col  *pqColumn
	rd   file.ColumnChunkReader // nil until needed in this row group
	done int64                  // rows of the row group read or skipped
	ic   idCache

	// fast: the row group's chunk is decoded by ch (chunkIsFast), which
	// is open when open is set.
	fast, open bool
	ch         pqChunk
	cc         *metadata.ColumnChunkMetaData
	start, n   int64 // the chunk's bytes in the file

	// pr and its stream br are reset from chunk to chunk (when the
	// source's reuse is set), so that the decompression buffers of a
	// column are allocated once per cursor, not once per row group.
	pr file.PageReader
	br parquet.BufferedReader

	defs  []int16
	bytes []parquet.ByteArray
	i64   []int64
	i96   []parquet.Int96
	f64   []float64
}

func (p *parquetSource) newCursor() colCursor {
	cur := &pqCursor{p: p, tab: newStrTable(), strs: make([]*pqReader, len(p.c.keys)+2)}
	for _, col := range p.cols {
		r := &pqReader{col: col}
		cur.cols = append(cur.cols, r)
		if col.role == roleStr {
			cur.strs[col.str] = r
		}
	}
	return cur
}

// open moves to row group u.
func (cur *pqCursor) open(u int) (err error) {
	defer recovered(&err)
	cur.closeReaders()
	p := cur.p
	p.mu.Lock()
	rg := p.pf.RowGroup(u)
	p.mu.Unlock()
	rows := rg.NumRows()
	if rows < 0 {
		return fmt.Errorf("row group %d: %d rows", u, rows)
	}
	md := rg.MetaData()
	for _, r := range cur.cols {
		cc, err := md.ColumnChunk(r.col.leaf)
		if err != nil {
			return fmt.Errorf("row group %d: column %s: %w", u, r.col.name, err)
		}
		start, n := cc.DataPageOffset(), cc.TotalCompressedSize()
		if d := cc.DictionaryPageOffset(); cc.HasDictionaryPage() && d > 0 && d < start {
			start = d
		}
		if start < 0 || n < 0 || start > p.size || n > p.size-start {
			return fmt.Errorf("row group %d: column %s: chunk of %d bytes at %d, past the end of the file (%d bytes)", u, r.col.name, n, start, p.size)
		}
		r.done, r.fast = 0, chunkIsFast(cc, r.col)
		r.cc, r.start, r.n = cc, start, n
	}
	cur.rg, cur.rows, cur.pos = rg, rows, 0
	return nil
}

func (cur *pqCursor) closeReaders() {
	for _, r := range cur.cols {
		if r.rd != nil {
			r.rd.Close()
			r.rd = nil
		}
		if r.open {
			if r.ch.pr != r.pr {
				r.ch.pr.Close() // not kept from chunk to chunk
			}
			r.ch.pr, r.open = nil, false
		}
	}
}

func (cur *pqCursor) close() {
	cur.closeReaders()
	for _, r := range cur.cols {
		if r.pr != nil {
			r.pr.Close()
			r.pr, r.br = nil, nil
		}
	}
}

// reader returns r's column reader in the current row group, opening it,
// and skips it to row at (rows of the row group).
func (cur *pqCursor) reader(r *pqReader, at int64) (file.ColumnChunkReader, error) {
	if r.rd == nil {
		rd, err := cur.rg.Column(r.col.leaf)
		if err != nil {
			return nil, err
		}
		r.rd, r.done = rd, 0
	}
	if at > r.done {
		var err error
		switch rd := r.rd.(type) {
		case *file.ByteArrayColumnChunkReader:
			_, err = rd.Skip(at - r.done)
		case *file.Int64ColumnChunkReader:
			_, err = rd.Skip(at - r.done)
		case *file.Int96ColumnChunkReader:
			_, err = rd.Skip(at - r.done)
		case *file.Float64ColumnChunkReader:
			_, err = rd.Skip(at - r.done)
		}
		if err != nil {
			return nil, err
		}
		r.done = at
	}
	return r.rd, nil
}

// pages opens r's chunk in the current row group for pqChunk, and skips
// it to row at (rows of the row group).
func (cur *pqCursor) pages(r *pqReader, at int64) error {
	if !r.open {
		pr, err := cur.pageReader(r)
		if err != nil {
			return err
		}
		width := 0
		if r.col.kind != kindString {
			width = 8
		}
		r.ch.reset(pr, r.col.maxDef, width)
		r.open, r.done = true, 0
	}
	if at > r.done {
		if err := r.ch.skip(at - r.done); err != nil {
			return err
		}
		r.done = at
	}
	return nil
}

// pageReader returns a page reader of r's chunk in the current row group:
// r.pr reset to the chunk when it can be, else a new one.
func (cur *pqCursor) pageReader(r *pqReader) (file.PageReader, error) {
	p := cur.p
	if !p.reuse || r.cc.CryptoMetadata() != nil {
		return cur.rg.GetColumnPageReader(r.col.leaf)
	}
	if r.pr == nil {
		pr, err := cur.rg.GetColumnPageReader(r.col.leaf)
		if err != nil {
			return nil, err
		}
		br, err := p.props.GetStream(p.f, 0, p.props.BufferSize)
		if err != nil {
			pr.Close()
			return nil, err
		}
		r.pr, r.br = pr, br
	}
	r.br.Reset(io.NewSectionReader(p.f, r.start, r.n))
	r.pr.Reset(r.br, r.cc.NumValues(), r.cc.Compression(), nil)
	if err := r.pr.Err(); err != nil {
		return nil, err
	}
	return r.pr, nil
}

// next decodes the fixed columns of the row group's next batch.
func (cur *pqCursor) next(b *colBatch) (err error) {
	defer recovered(&err)
	if cur.pos >= cur.rows {
		return io.EOF
	}
	n := int(min(cur.rows-cur.pos, pqBatchRows))
	cur.tab.maybeReset()
	b.reset(n, len(cur.strs), cur.pos, cur.tab)
	b.dec = cur
	for _, r := range cur.cols {
		if r.col.role == roleStr {
			continue
		}
		var dst []int32
		switch r.col.role {
		case roleMetric:
			dst = b.metric
		case roleSource:
			dst = b.source
		}
		if err := cur.read(r, b, n, dst, nil); err != nil {
			return fmt.Errorf("column %s: %w", r.col.name, err)
		}
	}
	cur.pos += int64(n)
	return nil
}

// decode reads string column j of the current batch b.
func (cur *pqCursor) decode(b *colBatch, j int) (err error) {
	defer recovered(&err)
	r := cur.strs[j]
	if r == nil {
		return nil // no such column in the file: empty
	}
	var ids []int32
	var strs []string
	if j == b.metaJ {
		strs = b.meta
	} else {
		ids = b.ids[j]
	}
	if err := cur.read(r, b, b.n, ids, strs); err != nil {
		return fmt.Errorf("column %s: %w", r.col.name, err)
	}
	return nil
}

// read decodes the batch's n rows of r's column into b: strings into ids
// (or, copied, into strs), the fixed columns into their slices.
func (cur *pqCursor) read(r *pqReader, b *colBatch, n int, ids []int32, strs []string) error {
	col := r.col
	var nullFlag uint8
	switch col.role {
	case roleMetric:
		nullFlag = nullMetric
	case roleTime:
		nullFlag = nullTime
	case roleValue:
		nullFlag = nullValue
	}
	if r.fast {
		if err := cur.pages(r, b.start); err != nil {
			return err
		}
		return cur.readPages(r, b, n, ids, strs, nullFlag)
	}
	rd, err := cur.reader(r, b.start)
	if err != nil {
		return err
	}
	if len(r.defs) < n {
		r.defs = make([]int16, n)
	}
	for got := 0; got < n; {
		want := n - got
		var defs []int16
		if col.maxDef > 0 {
			defs = r.defs[:want]
		}
		var (
			levels int64
			nv     int
			err    error
		)
		switch rd := rd.(type) {
		case *file.ByteArrayColumnChunkReader:
			if len(r.bytes) < want {
				r.bytes = make([]parquet.ByteArray, n)
			}
			// In-page values alias the page: they are copied (interned)
			// below, before the next read.
			levels, nv, err = rd.ReadBatchInPage(int64(want), r.bytes[:want], defs, nil)
		case *file.Int64ColumnChunkReader:
			if len(r.i64) < want {
				r.i64 = make([]int64, n)
			}
			levels, nv, err = rd.ReadBatch(int64(want), r.i64[:want], defs, nil)
		case *file.Int96ColumnChunkReader:
			if len(r.i96) < want {
				r.i96 = make([]parquet.Int96, n)
			}
			levels, nv, err = rd.ReadBatch(int64(want), r.i96[:want], defs, nil)
		case *file.Float64ColumnChunkReader:
			if len(r.f64) < want {
				r.f64 = make([]float64, n)
			}
			levels, nv, err = rd.ReadBatch(int64(want), r.f64[:want], defs, nil)
		default:
			return fmt.Errorf("unexpected column type %s", rd.Type())
		}
		if err != nil {
			return err
		}
		if levels <= 0 || levels > int64(want) {
			if err := rd.Err(); err != nil {
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
				b.null[row] |= nullFlag
				continue
			}
			if v >= nv {
				return fmt.Errorf("%d values for %d non-null rows", nv, v+1)
			}
			switch {
			case ids != nil:
				ids[row] = r.ic.get(r.bytes[v], cur.tab)
			case strs != nil:
				strs[row] = string(r.bytes[v])
			case col.kind == kindTime && col.int96:
				b.times[row], b.bad[row] = int96NS(r.i96[v])
			case col.kind == kindTime:
				b.times[row], b.bad[row] = unitTime(r.i64[v], col.unitNS)
			case col.kind == kindFloat64:
				b.values[row] = r.f64[v]
			}
			v++
		}
		got += int(levels)
	}
	r.done = b.start + int64(n)
	return nil
}

// unitTime converts a time of unitNS-nanosecond units since the epoch to
// nanoseconds; bad is set when it is outside 1970–2200, and then the time
// is returned in whole seconds, for the message.
func unitTime(t, unitNS int64) (ns int64, bad bool) {
	if t < 0 || t > MaxTimeNS/unitNS {
		return t / (1e9 / unitNS), true
	}
	return t * unitNS, false
}

// int96NS converts an INT96 timestamp (nanoseconds of the day, Julian day)
// to nanoseconds since the Unix epoch, as unitTime does.
func int96NS(v parquet.Int96) (int64, bool) {
	const julianUnixEpoch, nsPerDay = 2440588, 86400 * 1e9
	nanos := int64(binary.LittleEndian.Uint64(v[:8]))
	days := int64(binary.LittleEndian.Uint32(v[8:])) - julianUnixEpoch
	if nanos < 0 || nanos >= nsPerDay {
		nanos = 0 // a corrupt time of day: the day tells
	}
	// days up to 2³² would overflow days·nsPerDay: compare the days first.
	if days < 0 || days > MaxTimeNS/nsPerDay || days*nsPerDay+nanos > MaxTimeNS {
		return days*86400 + nanos/1e9, true
	}
	return days*nsPerDay + nanos, false
}

// --- Arrow IPC -------------------------------------------------------------

// arrowSource is an open Arrow IPC file.
type arrowSource struct {
	// mu serialises RecordBatchAt: arrow-go's file reader is not safe for
	// concurrent use (its dictionary mapper shares a hash). Loading a batch
	// is mostly the read; decoding its columns runs in parallel.
	mu   sync.Mutex
	fr   *ipc.FileReader
	c    *ColumnarReader
	info []colInfo
}

func openArrow(f *os.File, c *ColumnarReader) (a *arrowSource, err error) {
	defer recovered(&err)
	if err := verifyArrowFooter(f, c.st.Bytes); err != nil {
		return nil, err
	}
	fr, err := ipc.NewFileReader(f, ipc.WithAllocator(newBoundedAllocator(c.name, c.st.Bytes)))
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

// Close releases the file reader.
func (a *arrowSource) Close() error { return a.fr.Close() }

// arCursor reads record batches of an Arrow IPC file, a whole record batch
// being one batch.
type arCursor struct {
	a      *arrowSource
	tab    *strTable
	rec    arrow.RecordBatch
	served bool
	metric strColumn
	source strColumn
	strs   []strColumn // tag columns, extra_tags, metadata
	bound  []bool
}

func (a *arrowSource) newCursor() colCursor {
	n := len(a.c.keys) + 2
	return &arCursor{a: a, tab: newStrTable(), strs: make([]strColumn, n), bound: make([]bool, n)}
}

// open reads record batch u.
func (cur *arCursor) open(u int) (err error) {
	defer recovered(&err)
	cur.close()
	cur.a.mu.Lock()
	rec, err := cur.a.fr.RecordBatchAt(u)
	cur.a.mu.Unlock()
	if err != nil {
		return err
	}
	cur.rec, cur.served = rec, false
	clear(cur.bound)
	cur.tab.maybeReset()
	return nil
}

func (cur *arCursor) close() {
	if cur.rec != nil {
		cur.rec.Release()
		cur.rec = nil
	}
}

// column returns the record's column i, or nil for i < 0.
func (cur *arCursor) column(i int) arrow.Array {
	if i < 0 {
		return nil
	}
	return cur.rec.Column(i)
}

// next decodes the record batch's fixed columns, once.
func (cur *arCursor) next(b *colBatch) (err error) {
	defer recovered(&err)
	if cur.served || cur.rec == nil {
		return io.EOF
	}
	cur.served = true
	c := cur.a.c
	rec := cur.rec
	times, ok1 := rec.Column(c.iTime).(*array.Timestamp)
	values, ok2 := rec.Column(c.iValue).(*array.Float64)
	if !ok1 || !ok2 {
		return errors.New("record batch does not match the schema")
	}
	cur.metric.bind(rec.Column(c.iMetric), cur.tab)
	cur.source.bind(cur.column(c.iSource), cur.tab)
	n := int(rec.NumRows())
	b.reset(n, len(cur.strs), 0, cur.tab)
	b.dec = cur
	for i := range n {
		switch {
		case cur.metric.isNull(i):
			b.null[i] = nullMetric
			continue
		case times.IsNull(i):
			b.null[i] = nullTime
			continue
		case values.IsNull(i):
			b.null[i] = nullValue
			continue
		}
		b.metric[i] = cur.metric.get(i)
		b.times[i], b.bad[i] = unitTime(int64(times.Value(i)), c.unitNS)
		b.values[i] = values.Value(i)
		b.source[i] = cur.source.get(i)
	}
	return nil
}

// decode fills string column j of the record batch.
func (cur *arCursor) decode(b *colBatch, j int) (err error) {
	defer recovered(&err)
	c := cur.a.c
	i := -1
	switch {
	case j < len(c.keys):
		i = c.iTags[j]
	case j == len(c.keys):
		i = c.iExtra
	default:
		i = c.iMeta
	}
	if i < 0 {
		return nil
	}
	s := &cur.strs[j]
	if !cur.bound[j] {
		cur.bound[j] = true
		s.bind(cur.rec.Column(i), cur.tab)
	}
	if j == b.metaJ {
		for k := range b.n {
			b.meta[k] = s.getCopy(k)
		}
		return nil
	}
	ids := b.ids[j]
	for k := range b.n {
		ids[k] = s.get(k)
	}
	return nil
}

// strColumn reads strings from a string or dictionary-of-string array as
// ids of a cursor's table. A dictionary's strings are kept (cloned) while
// the dictionary stays the same from batch to batch.
type strColumn struct {
	arr      arrow.Array
	dict     *array.Dictionary
	dictData arrow.ArrayData
	dictStrs []string
	dictIDs  []int32
	str      *array.String
	lstr     *array.LargeString
	tab      *strTable
	ic       idCache
}

func (s *strColumn) bind(a arrow.Array, tab *strTable) {
	s.arr, s.dict, s.str, s.lstr, s.tab = a, nil, nil, nil, tab
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
						v = strings.Clone(d.Value(j))
					case *array.LargeString:
						v = strings.Clone(d.Value(j))
					}
				}
				s.dictStrs = append(s.dictStrs, v)
			}
		}
		s.dictIDs = s.dictIDs[:0]
		for _, v := range s.dictStrs {
			s.dictIDs = append(s.dictIDs, tab.idString(v))
		}
	case *array.String:
		s.str = a
	case *array.LargeString:
		s.lstr = a
	}
}

func (s *strColumn) isNull(i int) bool { return s.arr == nil || s.arr.IsNull(i) }

// get returns the id of row i's value, 0 ("") for null.
func (s *strColumn) get(i int) int32 {
	if s.arr == nil || s.arr.IsNull(i) {
		return 0
	}
	switch {
	case s.dict != nil:
		k := s.dict.GetValueIndex(i)
		if k < 0 || k >= len(s.dictIDs) {
			return 0 // a corrupt index
		}
		return s.dictIDs[k]
	case s.str != nil:
		return s.ic.get(unsafe.Slice(unsafe.StringData(s.str.Value(i)), len(s.str.Value(i))), s.tab)
	case s.lstr != nil:
		return s.ic.get(unsafe.Slice(unsafe.StringData(s.lstr.Value(i)), len(s.lstr.Value(i))), s.tab)
	}
	return 0
}

// getCopy returns row i's value as a string of its own (for
// high-cardinality columns such as metadata).
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
	return s.tab.strs[s.get(i)]
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
