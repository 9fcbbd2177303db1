package ingest

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
	flatbuffers "github.com/google/flatbuffers/go"
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
	// FormatParquet is Apache Parquet (snappy, dictionary-encoded strings,
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
// batches of 32,768 rows with the time unit chosen from the data.
type ColumnarOptions struct {
	// Format is FormatParquet (default) or FormatArrow.
	Format Format
	// BatchRows is the number of rows per record batch (Parquet: per row
	// group); 0 means 32,768 (a batch is what the writer holds in memory).
	BatchRows int
	// TimeUnit forces the timestamp unit: "s", "ms", "us" or "ns". ""
	// chooses the coarsest unit that holds every timestamp of the first
	// batch exactly and is no coarser than the input's resolution; a later
	// timestamp that the unit cannot hold exactly is an error (rerun with
	// "ns").
	TimeUnit string
	// TempDir is ignored: the Arrow writer no longer needs a scratch file
	// (it writes the dictionaries after the record batches, as the Arrow
	// IPC file format allows). Kept so that existing callers compile.
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
// each, in file order, in Parquet or Arrow IPC file format (see the Col*
// constants for the columns). The tag columns are the tag keys of the first
// batch (a JSON input's: k6's default tag columns, then its other keys in
// name order); a tag key first seen later (or one named like a fixed
// column) is kept in extra_tags as "k=v", so nothing is lost.
//
// It streams: when r comes from Open or OpenAll, the input is parsed on
// every core and each worker turns its chunk's rows into dictionary ids
// (with no string hashing per value: interned tag values are recognised
// by address); one goroutine puts the chunks back in file order, maps their
// ids to the batch's dictionaries and writes a row group (record batch)
// once it holds BatchRows rows; a Parquet row group is written on another
// goroutine while the next batch fills. Memory is bounded by a few chunks
// and one batch (Parquet: and the row group being written, its ids packed
// to mostly a byte a value). A Parquet file's dictionaries are per row group; an Arrow IPC file
// has one dictionary per column for the whole file (the format's rule), so
// there memory also grows with the distinct values of each column, and the
// dictionaries are written after the record batches, as the Arrow file
// format allows (no scratch file).
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
		opts.BatchRows = 1 << 15
	}
	if opts.TimeUnit != "" && unitNamed(opts.TimeUnit) == nil {
		return ColumnarResult{}, fmt.Errorf("unknown time unit %q: want s, ms, us or ns", opts.TimeUnit)
	}
	cw := &columnarWriter{opts: opts, out: &countWriter{w: w}, mem: &poolAllocator{}, colOf: map[string]int{}}
	var (
		st  Stats
		err error
	)
	if parts, ok := batchParts(r); ok {
		for _, p := range parts {
			err = cw.drainParallel(p)
			st.merge(p.(Reader).Stats())
			if err != nil {
				break
			}
		}
	} else {
		err = cw.drainSequential(r)
		st = r.Stats()
	}
	if err == nil {
		err = cw.err
	}
	if err == nil {
		err = cw.close(st.ResolutionNS)
	}
	if werr := cw.wait(); err == nil {
		err = werr // a row group still being written after a failure
	}
	return ColumnarResult{RowsIn: cw.rowsIn, RowsOut: cw.rowsOut, TagColumns: cw.tagCols, TimeUnit: cw.unitName(), Stats: st}, err
}

// batchParts returns the readers below r when every one can drain in
// batches and none has started.
func batchParts(r Reader) ([]batchDrainer, bool) {
	var parts []batchDrainer
	var walk func(Reader) bool
	walk = func(r Reader) bool {
		switch v := r.(type) {
		case *closingReader:
			return walk(v.Reader)
		case *MultiReader:
			if v.i != 0 {
				return false
			}
			for _, sub := range v.rs {
				if !walk(sub) {
					return false
				}
			}
			return true
		case *CSVReader:
			if v.started {
				return false
			}
		case *K6JSONReader:
			if v.started {
				return false
			}
		case *ColumnarReader:
			if v.started {
				return false
			}
		default:
			return false
		}
		parts = append(parts, r.(batchDrainer))
		return true
	}
	return parts, walk(r)
}

// ---- fragments: the rows of one batch as dictionary ids ------------------

// fragment holds the rows of one input batch: strings as ids into its
// builder's table (0 is ""), tags by the builder's slots.
type fragment struct {
	seq     int64
	builder int
	gen     uint32   // the table's generation
	tab     []string // the builder's table (a prefix that never changes)
	slots   []slotInfo
	n       int
	metric  []int32
	source  []int32
	extra   []int32
	times   []int64
	values  []float64
	meta    []string
	tags    [][]int32 // per slot: an id per row, or nil
	// Row-major tags of CSV rows: rowW ids per row, of slots rowSlots
	// (rowW 0: none; -1: given up, the tags are in tags).
	rowW     int
	rowSlots []int32
	rowIDs   []int32
	rowRep   []bool // per row of rowIDs: its ids are the row before's
	// rowMapGen is the builder's mapGen when rowSlots were last found
	// to be its mapping.
	rowMapGen uint32
	res       resolution
}

var fragPool = sync.Pool{New: func() any { return &fragment{} }}

func (f *fragment) release() {
	for i := range f.tags {
		f.tags[i] = f.tags[i][:0]
	}
	clear(f.meta)
	*f = fragment{metric: f.metric[:0], source: f.source[:0], extra: f.extra[:0], times: f.times[:0],
		values: f.values[:0], meta: f.meta[:0], tags: f.tags[:0], rowSlots: f.rowSlots[:0], rowIDs: f.rowIDs[:0], rowRep: f.rowRep[:0]}
	fragPool.Put(f)
}

// slotInfo is a tag key a builder has met; json marks a key met in a JSON
// input's tags, whose column order the writer sets (k6's defaults, then by
// name), since the workers meet them in no particular order.
type slotInfo struct {
	key  string
	json bool
}

// fragBuilder turns samples into fragments on one worker (a batchSink).
type fragBuilder struct {
	id       int
	q        *fragQueue
	tab      *strTable
	mc, sc   idCache
	ec       idCache
	slots    []slotInfo
	slotOf   map[string]int32
	caches   []idCache
	recent   [][]rawID // per slot: recent raw values (CSV fields) and their ids
	recGen   uint32
	lastKeys []string
	mapping  []int32
	f        *fragment

	lastExtra int32 // the id of the last CSV extra_tags field
	extraGen  uint32
	lastMeta  string
	lastSpan  []byte // the tag fields of the fragment's last CSV row
	// lastRow and lastRowN are the lazyRow that lastSpan came from and
	// its row number then: a record the lazyRow keeps under that number
	// has the same tail (lazyRow.sameTail compared it), and so the same
	// tag fields.
	lastRow  *lazyRow
	lastRowN uint64
	// mapGen counts the changes of mapping; tails are the tag ids of the
	// last few CSV tails parsed (tailNext is the one to replace next).
	mapGen   uint32
	tails    [8]tailIDs
	tailNext int
}

// rawID is a recent value of a slot, as bytes (the table's string), and
// its id.
type rawID struct {
	b  []byte
	id int32
}

func newFragBuilder(id int, q *fragQueue) *fragBuilder {
	return &fragBuilder{id: id, q: q, tab: newStrTable(), slotOf: map[string]int32{}}
}

// slot returns the slot of key, adding it.
func (fb *fragBuilder) slot(key string, json bool) int32 {
	if s, ok := fb.slotOf[key]; ok {
		return s
	}
	s := int32(len(fb.slots))
	fb.slotOf[key] = s
	fb.slots = append(fb.slots, slotInfo{key: key, json: json})
	fb.caches = append(fb.caches, idCache{})
	fb.recent = append(fb.recent, nil)
	return s
}

func (fb *fragBuilder) begin(seq int64) {
	fb.tab.maybeReset()
	f := fragPool.Get().(*fragment)
	f.seq, f.builder, f.gen = seq, fb.id, fb.tab.gen
	fb.f = f
	fb.lastSpan = fb.lastSpan[:0]
}

func (fb *fragBuilder) sample(s *Sample) { fb.add(s) }

func (fb *fragBuilder) end(seq int64, res resolution) {
	f := fb.finish(res)
	fb.q.put(f)
}

// finish closes the current fragment.
func (fb *fragBuilder) finish(res resolution) *fragment {
	f := fb.f
	fb.f = nil
	f.res = res
	f.tab = fb.tab.strs
	f.slots = fb.slots
	if f.rowW > 0 {
		for len(f.rowIDs) < f.n*f.rowW {
			f.rowIDs = append(f.rowIDs, 0)
		}
		for len(f.rowRep) < f.n {
			f.rowRep = append(f.rowRep, false)
		}
	}
	for i, col := range f.tags {
		if col != nil {
			for len(col) < f.n {
				col = append(col, 0)
			}
			f.tags[i] = col
		}
	}
	return f
}

// strID returns s's id in the builder's table.
func (fb *fragBuilder) strID(c *idCache, s string) int32 {
	if s == "" {
		return 0
	}
	return c.get(unsafe.Slice(unsafe.StringData(s), len(s)), fb.tab)
}

// set puts value v of slot at row of the current fragment.
func (fb *fragBuilder) set(slot int32, row int, v string) {
	fb.setID(slot, row, fb.strID(&fb.caches[slot], v))
}

// rawValue returns the id of a slot's value given as the bytes of a CSV
// field: a comparison with the slot's recent values (a tag column takes a
// few values over and over), else the table.
func (fb *fragBuilder) rawValue(slot int32, b []byte) int32 {
	if fb.recGen != fb.tab.gen {
		fb.recGen = fb.tab.gen
		for i := range fb.recent {
			fb.recent[i] = fb.recent[i][:0]
		}
	}
	recent := fb.recent[slot]
	for k, r := range recent {
		if string(r.b) == string(b) {
			if k > 0 {
				copy(recent[1:k+1], recent[:k])
				recent[0] = r
			}
			return r.id
		}
	}
	id := fb.tab.id(b)
	s := fb.tab.strs[id]
	r := rawID{b: unsafe.Slice(unsafe.StringData(s), len(s)), id: id}
	if len(recent) < recentValues {
		recent = append(recent, rawID{})
	}
	copy(recent[1:], recent)
	recent[0] = r
	fb.recent[slot] = recent
	return id
}

// rawExtra returns the id of a CSV extra_tags field.
func (fb *fragBuilder) rawExtra(b []byte) int32 {
	if len(b) == 0 {
		return 0
	}
	if s := fb.tab.strs[fb.lastExtra]; fb.lastExtra != 0 && fb.extraGen == fb.tab.gen && s == string(b) {
		return fb.lastExtra
	}
	fb.lastExtra, fb.extraGen = fb.tab.id(b), fb.tab.gen
	return fb.lastExtra
}

// rawMeta returns a CSV metadata field as a string, the last one again
// when it repeats.
func (fb *fragBuilder) rawMeta(b []byte) string {
	if string(b) != fb.lastMeta {
		fb.lastMeta = string(b)
	}
	return fb.lastMeta
}

// setID puts id of slot at row of the current fragment.
func (fb *fragBuilder) setID(slot int32, row int, id int32) {
	f := fb.f
	for int(slot) >= len(f.tags) {
		f.tags = append(f.tags, nil)
	}
	col := f.tags[slot]
	for len(col) < row {
		col = append(col, 0)
	}
	f.tags[slot] = append(col, id)
}

// csvRow takes the tag fields of an unquoted CSV record of a k6 v0.41+
// header (tags, then extra_tags and metadata last) as raw bytes, into the
// fragment's row-major ids; a row whose tag fields are the previous row's
// (the samples of one request) copies its ids. It returns the extra_tags
// and metadata fields, and false when the record is not of that shape or
// the fragment keeps its tags by column.
func (fb *fragBuilder) csvRow(l *lazyRow, row int) (extra, meta []byte, ok bool) {
	f := fb.f
	w := len(fb.mapping)
	if !l.cols.contiguous || f.rowW < 0 {
		return nil, nil, false
	}
	if f.rowW == 0 {
		f.rowW = w
		f.rowSlots = append(f.rowSlots[:0], fb.mapping...)
		f.rowMapGen = fb.mapGen
	} else if f.rowMapGen != fb.mapGen {
		if !int32sEqual(f.rowSlots, fb.mapping) {
			fb.toColumns()
			return nil, nil, false
		}
		f.rowMapGen = fb.mapGen
	}
	line, pos := l.line, 0
	if len(l.starts) >= 4 {
		pos = l.starts[3] // the reader found the first three commas (set3)
	} else {
		for range 3 {
			for pos < len(line) && line[pos] != ',' {
				pos++
			}
			pos++
		}
	}
	c1, c2 := l.tail, l.tail2
	if c2 < 0 {
		if c2 = bytes.LastIndexByte(line, ','); c2 < 0 {
			return nil, nil, false
		}
		c1 = bytes.LastIndexByte(line[:c2], ',')
	}
	if c1 < pos-1 {
		return nil, nil, false
	}
	span := line[min(pos, c1):c1]
	for len(f.rowIDs) < row*w {
		f.rowIDs = append(f.rowIDs, 0) // rows of other readers
	}
	for len(f.rowRep) < row {
		f.rowRep = append(f.rowRep, false)
	}
	base := len(f.rowIDs)
	f.rowIDs = slices.Grow(f.rowIDs, w)[:base+w]
	ids := f.rowIDs[base:]
	same := row > 0 && len(fb.lastSpan) > 0 && base >= w
	if same && fb.lastRow == l && fb.lastRowN == l.row {
		copy(ids, f.rowIDs[base-w:base])
		f.rowRep = append(f.rowRep, true)
	} else if t := fb.tailHit(l); t != nil {
		// A tail met a few records ago (a k6 iteration's tag sets come
		// back in turn).
		fb.lastRow, fb.lastRowN = l, l.row
		copy(ids, t.ids)
		f.rowRep = append(f.rowRep, false)
		fb.lastSpan = append(fb.lastSpan[:0], span...)
		if len(fb.lastSpan) == 0 {
			fb.lastSpan = append(fb.lastSpan, 0)
		}
	} else if same && string(span) == string(fb.lastSpan) {
		copy(ids, f.rowIDs[base-w:base])
		f.rowRep = append(f.rowRep, true)
		fb.lastRow, fb.lastRowN = l, l.row
	} else {
		fb.lastRow, fb.lastRowN = l, l.row
		clear(ids)
		f.rowRep = append(f.rowRep, false)
		p := 0
		for i, slot := range fb.mapping {
			e := p
			for e < len(span) && span[e] != ',' {
				e++
			}
			if e > p {
				ids[i] = fb.rawValue(slot, span[p:e])
			}
			p = e + 1
		}
		fb.lastSpan = append(fb.lastSpan[:0], span...)
		if len(fb.lastSpan) == 0 {
			fb.lastSpan = append(fb.lastSpan, 0) // no tag field: nothing to compare
		}
		t := &fb.tails[fb.tailNext]
		fb.tailNext = (fb.tailNext + 1) % len(fb.tails)
		*t = tailIDs{l: l, row: l.row, gen: fb.tab.gen, mapGen: fb.mapGen, ids: append(t.ids[:0], ids...)}
	}
	return line[c1+1 : c2], line[c2+1:], true
}

// repeatRow appends the row-major tag ids of row, a CSV record of l, when
// its tail is the row before's (csvRow took that one: the same record
// number of the same lazyRow, in this fragment, with the same mapping),
// and reports whether it did; its extra_tags and metadata are then the row
// before's too.
func (fb *fragBuilder) repeatRow(l *lazyRow, row int) bool {
	f := fb.f
	w := f.rowW
	if row == 0 || w <= 0 || fb.lastRow != l || fb.lastRowN != l.row || len(fb.lastSpan) == 0 ||
		f.rowMapGen != fb.mapGen || len(f.rowIDs) != row*w || len(f.rowRep) != row || len(f.extra) != row || len(f.meta) != row {
		return false
	}
	f.rowIDs = append(f.rowIDs, f.rowIDs[(row-1)*w:]...)
	f.rowRep = append(f.rowRep, true)
	return true
}

// tailIDs are the ids of the tag fields of a CSV record, by its lazyRow
// and the row number the lazyRow keeps its tail under (records kept under
// one number have the same tail: lazyRow.sameTail compared them), for the
// builder's table generation and mapping.
type tailIDs struct {
	l      *lazyRow
	row    uint64
	gen    uint32
	mapGen uint32
	ids    []int32
}

// tailHit returns the ids of the current record of l when a recent record
// had its tail, or nil.
func (fb *fragBuilder) tailHit(l *lazyRow) *tailIDs {
	for i := range fb.tails {
		if t := &fb.tails[i]; t.l == l && t.row == l.row && t.gen == fb.tab.gen && t.mapGen == fb.mapGen {
			return t
		}
	}
	return nil
}

// int32sEqual is slices.Equal for int32s, as one comparison of their
// bytes (a vectorised memequal rather than a loop over the elements).
func int32sEqual(a, b []int32) bool {
	return len(a) == len(b) && string(asBytes(a)) == string(asBytes(b))
}

// toColumns moves the fragment's row-major tags into its columns, for the
// rest of the fragment.
func (fb *fragBuilder) toColumns() {
	f := fb.f
	if f.rowW > 0 {
		for r := 0; r*f.rowW < len(f.rowIDs); r++ {
			for j, slot := range f.rowSlots {
				if id := f.rowIDs[r*f.rowW+j]; id != 0 {
					fb.setID(slot, r, id)
				}
			}
		}
	}
	f.rowW, f.rowIDs, f.rowRep = -1, f.rowIDs[:0], f.rowRep[:0]
}

// add appends one sample to the current fragment.
func (fb *fragBuilder) add(s *Sample) {
	f := fb.f
	row := f.n
	f.n++
	f.metric = append(f.metric, fb.strID(&fb.mc, s.Metric))
	f.source = append(f.source, fb.strID(&fb.sc, s.Source))
	f.times = append(f.times, s.TimeNS)
	f.values = append(f.values, s.Value)
	t := &s.Tags
	if r := t.lazyJ; r != nil {
		fb.lastSpan = fb.lastSpan[:0]
		l := r.layout
		if l.fbOwner != fb {
			if len(fb.slots) == 0 {
				for _, k := range k6DefaultTagColumns {
					fb.slot(k, true)
				}
			}
			l.fbOwner, l.fbSlots = fb, make([]int32, len(l.keys))
			for p, k := range l.keys {
				l.fbSlots[p] = fb.slot(k, true)
			}
		}
		for p, slot := range l.fbSlots {
			if v := r.value(p); v != "" {
				fb.set(slot, row, v)
			}
		}
	} else {
		keys := t.Keys()
		if len(keys) != len(fb.lastKeys) || len(keys) > 0 && &keys[0] != &fb.lastKeys[0] {
			fb.lastKeys = keys
			fb.mapping = fb.mapping[:0]
			fb.mapGen++
			for _, k := range keys {
				fb.mapping = append(fb.mapping, fb.slot(k, false))
			}
		}
		if l := t.lazy; l != nil && l.fields == nil {
			if fb.repeatRow(l, row) {
				f.extra = append(f.extra, f.extra[row-1])
				f.meta = append(f.meta, f.meta[row-1])
				return
			}
			if extra, meta, ok := fb.csvRow(l, row); ok {
				f.extra = append(f.extra, fb.rawExtra(extra))
				f.meta = append(f.meta, fb.rawMeta(meta))
				return
			}
		}
		fb.lastSpan = fb.lastSpan[:0]
		for i, slot := range fb.mapping {
			if v := t.Value(i); v != "" {
				fb.set(slot, row, v)
			}
		}
	}
	f.extra = append(f.extra, fb.strID(&fb.ec, t.Extra()))
	f.meta = append(f.meta, t.Metadata())
}

// fragQueue hands fragments from the builders to the writer in seq order.
// A builder more than window fragments ahead of the writer waits, which
// bounds the fragments in memory.
type fragQueue struct {
	mu      sync.Mutex
	cond    sync.Cond
	pending map[int64]*fragment
	next    int64
	window  int64
	done    bool
	aborted bool
}

func newFragQueue(window int) *fragQueue {
	q := &fragQueue{pending: map[int64]*fragment{}, window: int64(window)}
	q.cond.L = &q.mu
	return q
}

func (q *fragQueue) put(f *fragment) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.aborted && f.seq >= q.next+q.window {
		q.cond.Wait()
	}
	if q.aborted {
		f.release()
		return
	}
	q.pending[f.seq] = f
	q.cond.Broadcast()
}

// take returns the next fragment in seq order; false once the input is
// done and none is left (or a seq never came: a reader that failed).
func (q *fragQueue) take() (*fragment, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		if f, ok := q.pending[q.next]; ok {
			delete(q.pending, q.next)
			q.next++
			q.cond.Broadcast()
			return f, true
		}
		if q.done {
			return nil, false
		}
		q.cond.Wait()
	}
}

func (q *fragQueue) finish() {
	q.mu.Lock()
	q.done = true
	for _, f := range q.pending {
		if f.seq < q.next {
			f.release()
		}
	}
	q.cond.Broadcast()
	q.mu.Unlock()
}

func (q *fragQueue) abort() {
	q.mu.Lock()
	q.aborted = true
	for _, f := range q.pending {
		f.release()
	}
	clear(q.pending)
	q.cond.Broadcast()
	q.mu.Unlock()
}

// ---- the writer -----------------------------------------------------------

// columnarWriter puts fragments in order into row groups (record batches)
// and writes them. Until the first batch is written, a tag key met gets a
// column and times are kept in nanoseconds; the first write fixes the
// schema (the columns' order, the time unit), after which a new key goes to
// extra_tags.
type columnarWriter struct {
	opts ColumnarOptions
	out  *countWriter
	mem  memory.Allocator
	err  error

	started bool // the schema is fixed
	res     resolution

	schema  *arrow.Schema
	tagCols []string       // in schema order
	tagPos  []int          // per schema tag column: its string column
	colOf   map[string]int // tag key → string column
	colJSON []bool         // per string column: a JSON key (ordered by the writer)
	unit    arrow.TimeUnit
	unitNS  int64 // nanoseconds per unit (1 before the schema is fixed)
	storeNS int64 // nanoseconds per stored value (Parquet stores s as ms)

	// The batch being filled.
	batch
	stamp  uint32 // counts batches (Parquet dictionaries are per row group)
	remaps map[remapKey][]remapCol
	late   []byte

	// Parquet row groups are written on another goroutine while the next
	// batch fills: spare is the batch not being filled (being written
	// while writing is set; its result comes on written), its ids packed
	// in packed (the ids columns stay with the batch being filled).
	spare   *batch
	packed  []packedCol
	starts  []int32 // flush's rows that start runs of repeated tags
	writing bool
	written chan error
	scratch []colScratch // per string column, for the batch being written

	rowsIn   int64
	rowsOut  int64     // rows written (by the writing goroutine while writing)
	rowsSent int64     // rows of the batches before the one being filled
	builders int       // fragment builders made so far (their ids)
	rowDst   [][]int32 // rowFill's destination columns, reused

	pw *pwFile   // Parquet
	ar *arrowOut // Arrow
}

// batch is the rows of one record batch (row group). String columns:
// metric_name (0), source_file (1), extra_tags (2), then the tags in the
// order met.
type batch struct {
	first  int64 // the rows of the file before the batch
	n      int
	ids    [][]int32 // per string column: dictionary index+1, 0 = null
	dicts  []*colDict
	times  []int64 // in storeNS
	values []float64
	// The rows with metadata (nearly none: k6 writes it rarely) and their
	// metadata, in row order.
	metaRows []int32
	metaStrs []string
	// rep is set, in a Parquet batch, for the rows whose tag columns have
	// the ids of the row before, which rowFill leaves 0 there (pack puts
	// them in).
	rep []bool
}

// packedCol is a string column of the row group being written: its ids
// (dictionary index+1, 0 = null) in w bytes each, in the machine's byte
// order, w the fewest of 1, 2 or 4 that hold its dictionary's indices. A
// batch's ids are packed when it is handed to the writing goroutine, so
// that the next batch fills the same int32 columns while a row group of
// mostly one byte per value waits to be written (most tag columns take a
// few values); the writer takes the packed ids as they are (Parquet's
// dictionary encoder takes indices of any integer type).
type packedCol struct {
	w int
	b []byte
}

// pack packs ids, of a column whose dictionary has d strings, into p.
// With starts (ascending rows, the first 0), a row takes the id of the
// last of starts at or before it (the other ids are not read).
func (p *packedCol) pack(ids []int32, d int, starts []int32) {
	p.w = 4
	if d < 1<<8 {
		p.w = 1
	} else if d < 1<<16 {
		p.w = 2
	}
	n := len(ids)
	if cap(p.b) < p.w*n+8 {
		// A capacity of whole words: the allocation is 8-byte aligned,
		// as views of any width want; and a word to spare (fillRuns8).
		p.b = make([]byte, p.w*n, (p.w*n+15)&^7)
	}
	p.b = p.b[:p.w*n]
	switch {
	case starts != nil && p.w == 1:
		fillRuns8(p.b[:cap(p.b)], ids, starts)
	case starts != nil && p.w == 2:
		fillRuns(viewAs[uint16](p.b, n), ids, starts)
	case starts != nil:
		fillRuns(viewAs[uint32](p.b, n), ids, starts)
	case p.w == 1:
		narrow(p.b, ids)
	case p.w == 2:
		narrow(viewAs[uint16](p.b, n), ids)
	default:
		narrow(viewAs[uint32](p.b, n), ids)
	}
}

// fillRuns sets dst[s:e], for each s of starts and e the next one (the
// last: len(ids)), to ids[s].
func fillRuns[T uint16 | uint32](dst []T, ids []int32, starts []int32) {
	dst = dst[:len(ids)]
	for k, s := range starts {
		e := len(ids)
		if k+1 < len(starts) {
			e = int(starts[k+1])
		}
		run, v := dst[s:e], T(ids[s])
		for i := range run {
			run[i] = v
		}
	}
}

// fillRuns8 is fillRuns for bytes, eight at a time: dst has a word to
// spare past len(ids), and each run's last word may spill into the next
// run, which is filled after it.
func fillRuns8(dst []byte, ids []int32, starts []int32) {
	const lsb = 0x0101010101010101
	n := len(ids)
	if len(starts) == 0 || int(starts[0]) < 0 || int(starts[len(starts)-1]) >= n || len(dst) < n+8 {
		return // not as the callers make them
	}
	p := unsafe.Pointer(unsafe.SliceData(dst))
	last := len(starts) - 1
	for k := range last {
		s, e := starts[k], starts[k+1] // ascending: within [0, n)
		x := uint64(uint8(ids[s])) * lsb
		for i := s; i < e; i += 8 {
			*(*uint64)(unsafe.Add(p, i)) = x // (unaligned stores are fine on amd64 and arm64)
		}
	}
	x := uint64(uint8(ids[starts[last]])) * lsb
	for i := int(starts[last]); i < n; i += 8 {
		*(*uint64)(unsafe.Add(p, i)) = x
	}
}

// narrow copies src into dst (as long), each value converted to T.
func narrow[T uint8 | uint16 | uint32](dst []T, src []int32) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = T(v)
	}
}

// viewAs returns the first n Ts of b, which holds at least n Ts and is
// aligned for them (make's byte slices are).
func viewAs[T uint16 | uint32](b []byte, n int) []T {
	var z T
	_ = b[n*int(unsafe.Sizeof(z))-1:]
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// The string columns before the tags.
const (
	colMetric = iota
	colSource
	colExtra
	colTags
)

// colDict is one column's dictionary: per row group for Parquet, for the
// whole file for Arrow.
type colDict struct {
	strs []string
	idx  map[string]int32 // string → index+1
}

func (d *colDict) id(s string) int32 {
	if i, ok := d.idx[s]; ok {
		return i
	}
	d.strs = append(d.strs, s)
	i := int32(len(d.strs))
	d.idx[s] = i
	return i
}

func (d *colDict) reset() {
	d.strs = d.strs[:0]
	clear(d.idx)
}

// remapKey names a builder's table generation; remapCol maps its ids to a
// column's dictionary: stamp<<32 | index+1, valid for the stamp's batch.
type (
	remapKey struct {
		builder int
		gen     uint32
	}
	remapCol []uint64
)

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func unitNamed(name string) *struct {
	name string
	unit arrow.TimeUnit
	ns   int64
} {
	for i := range timeUnits {
		if timeUnits[i].name == name {
			return &timeUnits[i]
		}
	}
	return nil
}

func (cw *columnarWriter) unitName() string {
	if !cw.started {
		return ""
	}
	for _, u := range timeUnits {
		if u.unit == cw.unit {
			return u.name
		}
	}
	return ""
}

// init makes the fixed string columns.
func (cw *columnarWriter) init() {
	if cw.ids != nil {
		return
	}
	cw.unitNS, cw.storeNS, cw.stamp = 1, 1, 1
	cw.remaps = map[remapKey][]remapCol{}
	for range colTags {
		cw.addColumn(false)
	}
}

// addColumn adds a string column, empty for the rows so far.
func (cw *columnarWriter) addColumn(json bool) int {
	cw.ids = append(cw.ids, make([]int32, cw.n, max(cw.n, cw.opts.BatchRows)))
	cw.dicts = append(cw.dicts, &colDict{idx: map[string]int32{}})
	cw.colJSON = append(cw.colJSON, json)
	return len(cw.ids) - 1
}

// column returns the string column of tag key, adding one while the schema
// is open; false when the key goes to extra_tags.
func (cw *columnarWriter) column(sl slotInfo) (int, bool) {
	if c, ok := cw.colOf[sl.key]; ok {
		return c, c >= 0
	}
	c := -1
	switch sl.key {
	case "", ColMetric, ColTime, ColValue, ColExtra, ColMetadata, ColSource:
	default:
		if !cw.started && len(cw.ids)-colTags < maxJSONTagColumns {
			c = cw.addColumn(sl.json)
		}
	}
	cw.colOf[sl.key] = c
	return c, c >= 0
}

// drainParallel converts one reader on every core.
func (cw *columnarWriter) drainParallel(rd batchDrainer) error {
	nw := max(1, runtime.GOMAXPROCS(0))
	q := newFragQueue(nw)
	sinks := make([]batchSink, nw)
	for i := range sinks {
		sinks[i] = newFragBuilder(cw.builders, q)
		cw.builders++
	}
	errc := make(chan error, 1)
	go func() {
		err := rd.drainBatches(sinks)
		q.finish()
		errc <- err
	}()
	for {
		f, ok := q.take()
		if !ok {
			break
		}
		if cw.err == nil {
			if cw.err = cw.put(f); cw.err != nil {
				q.abort()
			}
		} else {
			f.release()
		}
	}
	return <-errc
}

// drainSequential converts a reader that cannot drain in batches, through
// Next.
func (cw *columnarWriter) drainSequential(r Reader) error {
	fb := newFragBuilder(cw.builders, nil)
	cw.builders++
	var seq int64
	fb.begin(seq)
	for r.Next() {
		fb.add(r.Sample())
		if fb.f.n >= 4096 {
			if cw.err = cw.put(fb.finish(resolution{intNS: r.Stats().ResolutionNS})); cw.err != nil {
				return nil
			}
			seq++
			fb.begin(seq)
		}
	}
	if err := r.Err(); err != nil {
		fb.finish(resolution{}).release()
		return err
	}
	cw.err = cw.put(fb.finish(resolution{intNS: r.Stats().ResolutionNS}))
	return nil
}

// setup fixes the schema at the first write: the tag columns' order (a
// header's in its order, a JSON input's keys as k6's defaults, then by
// name), the time unit (from the batch's times), and opens the output.
func (cw *columnarWriter) setup() error {
	cw.init()
	cw.started = true
	type tagCol struct {
		key string
		c   int
	}
	var fixed, fromJSON []tagCol
	for k, c := range cw.colOf {
		if c < 0 {
			continue
		}
		if cw.colJSON[c] {
			fromJSON = append(fromJSON, tagCol{k, c})
		} else {
			fixed = append(fixed, tagCol{k, c})
		}
	}
	slices.SortFunc(fixed, func(a, b tagCol) int { return a.c - b.c }) // the order met
	rank := map[string]int{}
	for i, k := range k6DefaultTagColumns {
		rank[k] = i
	}
	slices.SortFunc(fromJSON, func(a, b tagCol) int {
		ra, oka := rank[a.key]
		rb, okb := rank[b.key]
		switch {
		case oka && okb:
			return ra - rb
		case oka:
			return -1
		case okb:
			return 1
		}
		return strings.Compare(a.key, b.key)
	})
	for _, t := range append(fixed, fromJSON...) {
		cw.tagCols = append(cw.tagCols, t.key)
		cw.tagPos = append(cw.tagPos, t.c)
	}
	// The time unit.
	if cw.opts.TimeUnit != "" {
		u := unitNamed(cw.opts.TimeUnit)
		cw.unit, cw.unitNS = u.unit, u.ns
	} else {
		resNS := cw.res.ns()
		if resNS <= 0 {
			resNS = 1
		}
		cw.unit, cw.unitNS = arrow.Nanosecond, 1
	units:
		for _, u := range timeUnits {
			if u.ns > resNS {
				continue
			}
			for _, t := range cw.times {
				if t%u.ns != 0 {
					continue units
				}
			}
			cw.unit, cw.unitNS = u.unit, u.ns
			break
		}
	}
	cw.storeNS = cw.unitNS
	cw.scratch = make([]colScratch, len(cw.ids))
	if cw.opts.Format != FormatArrow {
		sp := &batch{}
		for range cw.ids {
			sp.dicts = append(sp.dicts, &colDict{idx: map[string]int32{}})
		}
		cw.spare, cw.written = sp, make(chan error, 1)
		cw.packed = make([]packedCol, len(cw.ids))
	}
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
	var err error
	if cw.opts.Format == FormatArrow {
		cw.ar, err = newArrowOut(cw)
	} else {
		err = cw.setupParquet()
	}
	if err != nil {
		return err
	}
	// The batch's times, kept in ns so far: every one is a multiple of the
	// unit chosen from them, unless the unit was forced.
	for i, t := range cw.times {
		if t%cw.unitNS != 0 {
			return cw.coarse(t, int64(i))
		}
		cw.times[i] = t / cw.storeNS
	}
	return nil
}

// coarse is the error of a time that the unit cannot hold; i is the row
// in the batch.
func (cw *columnarWriter) coarse(t, i int64) error {
	src := cw.batchSource(int(i))
	return fmt.Errorf("%s: sample %d has time %d ns, finer than the %s unit chosen from the first %d rows; convert again with the time unit ns", src, cw.rowsSent+i+1, t, cw.unitName(), cw.opts.BatchRows)
}

// batchSource returns the source of row i of the batch.
func (cw *columnarWriter) batchSource(i int) string {
	if id := cw.ids[colSource][i]; id > 0 {
		return cw.dicts[colSource].strs[id-1]
	}
	return ""
}

// remap returns the maps from f's ids to the columns' dictionaries.
func (cw *columnarWriter) remap(f *fragment) []remapCol {
	k := remapKey{f.builder, f.gen}
	rm, ok := cw.remaps[k]
	if !ok {
		for old := range cw.remaps {
			if old.builder == f.builder {
				delete(cw.remaps, old) // an older generation of the table
			}
		}
	}
	for len(rm) < len(cw.dicts) {
		rm = append(rm, nil)
	}
	cw.remaps[k] = rm
	return rm
}

// mapID returns the dictionary index+1 in column c of id of f's table.
func (cw *columnarWriter) mapID(rm []remapCol, c int, f *fragment, id int32) int32 {
	if id == 0 {
		return 0
	}
	col := rm[c]
	if int(id) >= len(col) {
		col = append(col, make([]uint64, max(int(id)+1, len(f.tab))-len(col))...)
		rm[c] = col
	}
	if e := col[id]; uint32(e>>32) == cw.stamp {
		return int32(uint32(e))
	}
	i := cw.dicts[c].id(f.tab[id])
	col[id] = uint64(cw.stamp)<<32 | uint64(uint32(i))
	return i
}

// put appends f's rows to the batch in file order, writing each full
// batch.
func (cw *columnarWriter) put(f *fragment) error {
	defer f.release()
	cw.init()
	cw.rowsIn += int64(f.n)
	cw.res.merge(f.res)
	for at := 0; at < f.n; {
		k := min(f.n-at, cw.opts.BatchRows-cw.n)
		if err := cw.putRows(f, at, k); err != nil {
			return err
		}
		at += k
		if cw.n >= cw.opts.BatchRows {
			if err := cw.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// putRows appends rows [at, at+k) of f to the batch.
func (cw *columnarWriter) putRows(f *fragment, at, k int) error {
	start := cw.n
	// Times repeat (the samples of one second, of one request): a time
	// like the row before's is not divided again.
	times := slices.Grow(cw.times, k)
	lastT, lastV := int64(0), int64(0)
	for i, t := range f.times[at : at+k] {
		if t != lastT || i == 0 {
			if t%cw.unitNS != 0 {
				src := f.tab[f.source[at+i]]
				return fmt.Errorf("%s: sample %d has time %d ns, finer than the %s unit chosen from the first %d rows; convert again with the time unit ns", src, cw.rowsSent+int64(cw.n)+int64(i)+1, t, cw.unitName(), cw.opts.BatchRows)
			}
			lastT, lastV = t, t/cw.storeNS
		}
		times = append(times, lastV)
	}
	cw.times = times
	cw.values = append(cw.values, f.values[at:at+k]...)
	for i, m := range f.meta[at : at+k] {
		if m != "" {
			cw.metaRows = append(cw.metaRows, int32(start+i))
			cw.metaStrs = append(cw.metaStrs, m)
		}
	}
	// Columns of the fragment's tags (new ones are made now, so that the
	// column slices below include them).
	var lateRow, late []int
	var rowCols, cols []int
	if f.rowW > 0 {
		for j, slot := range f.rowSlots {
			c, ok := cw.column(f.slots[slot])
			if !ok {
				lateRow = append(lateRow, j)
			}
			rowCols = append(rowCols, c)
		}
	}
	for s, ids := range f.tags {
		c := -1
		if ids != nil {
			var ok bool
			if c, ok = cw.column(f.slots[s]); !ok {
				late = append(late, s)
			}
		}
		cols = append(cols, c)
	}
	for c := range cw.ids {
		col := slices.Grow(cw.ids[c], k)[:start+k]
		clear(col[start:])
		cw.ids[c] = col
	}
	if cw.opts.Format != FormatArrow {
		cw.rep = slices.Grow(cw.rep, k)[:start+k]
		clear(cw.rep[start:])
	}
	rm := cw.remap(f)
	fill := func(c int, src []int32) {
		dst := cw.ids[c][start : start+k]
		for i, id := range src[at : at+k] {
			if id == 0 {
				continue
			}
			if col := rm[c]; int(id) < len(col) && uint32(col[id]>>32) == cw.stamp {
				dst[i] = int32(uint32(col[id]))
			} else {
				dst[i] = cw.mapID(rm, c, f, id)
			}
		}
	}
	fill(colMetric, f.metric)
	fill(colSource, f.source)
	if len(rowCols) > 0 {
		cw.rowFill(rm, f, rowCols, at, start, k)
	}
	for s, c := range cols {
		if c >= 0 {
			fill(c, f.tags[s])
		}
	}
	if len(late) == 0 && len(lateRow) == 0 {
		fill(colExtra, f.extra)
	} else {
		ext := cw.ids[colExtra][start : start+k]
		for i := at; i < at+k; i++ {
			cw.late = append(cw.late[:0], f.tab[f.extra[i]]...)
			for _, s := range late {
				if id := f.tags[s][i]; id != 0 {
					cw.late = appendPair(cw.late, []byte(f.slots[s].key), []byte(f.tab[id]))
				}
			}
			for _, j := range lateRow {
				if id := f.rowIDs[i*f.rowW+j]; id != 0 {
					cw.late = appendPair(cw.late, []byte(f.slots[f.rowSlots[j]].key), []byte(f.tab[id]))
				}
			}
			if len(cw.late) > 0 {
				ext[i-at] = cw.dicts[colExtra].id(string(cw.late))
			}
		}
	}
	cw.n += k
	return nil
}

// rowFill maps the row-major tag ids of rows [at, at+k) of f into the
// batch from row start: slot j of a row goes to string column rowCols[j]
// (none when negative). It walks the ids in memory order, and rows whose
// ids repeat the row before them (the samples of one request, marked in
// rowRep by csvRow) get its dictionary indices, a run at a time.
func (cw *columnarWriter) rowFill(rm []remapCol, f *fragment, rowCols []int, at, start, k int) {
	w := f.rowW
	dsts := cw.rowDst[:0]
	for _, c := range rowCols {
		var dst []int32
		if c >= 0 {
			dst = cw.ids[c][start : start+k]
		}
		dsts = append(dsts, dst)
	}
	cw.rowDst = dsts
	ids := f.rowIDs[at*w : (at+k)*w]
	rep := f.rowRep[at : at+k]
	for i := 0; i < k; {
		row := ids[i*w : (i+1)*w]
		for j, id := range row {
			if id == 0 || dsts[j] == nil {
				continue
			}
			c := rowCols[j]
			if col := rm[c]; int(id) < len(col) && uint32(col[id]>>32) == cw.stamp {
				dsts[j][i] = int32(uint32(col[id]))
			} else {
				dsts[j][i] = cw.mapID(rm, c, f, id)
			}
		}
		// Rows i+1 to e-1 repeat row i: in a Parquet batch they are
		// marked (pack fills them in); otherwise each column's run is
		// filled in one go.
		e := i + 1
		for e < k && rep[e] {
			e++
		}
		if e > i+1 && cw.rep != nil {
			for r := i + 1; r < e; r++ {
				cw.rep[start+r] = true
			}
		} else if e > i+1 {
			for _, dst := range dsts {
				if dst != nil {
					v, run := dst[i], dst[i+1:e]
					for r := range run {
						run[r] = v
					}
				}
			}
		}
		i = e
	}
}

// flush writes the batch (fixing the schema at the first): an Arrow
// record batch at once; a Parquet row group on another goroutine, once
// the one before it is written, while the next batch fills (the parsing
// goes on during the write, at the cost of a second batch in memory).
func (cw *columnarWriter) flush() error {
	if !cw.started {
		if err := cw.setup(); err != nil {
			return err
		}
	}
	if cw.n == 0 {
		return nil
	}
	cw.first = cw.rowsSent
	cw.rowsSent += int64(cw.n)
	if cw.pw == nil {
		if err := cw.ar.flush(); err != nil {
			return fmt.Errorf("writing rows %d–%d: %w", cw.first+1, cw.first+int64(cw.n), err)
		}
		cw.rowsOut += int64(cw.n)
		cw.reset()
		return nil
	}
	if err := cw.wait(); err != nil {
		return err
	}
	b := cw.spare
	*b, cw.batch = cw.batch, *b
	// The rows that do not repeat the row before's tags start the runs
	// the tag columns are filled in with.
	starts := cw.starts[:0]
	if len(b.rep) == b.n && slices.Contains(b.rep, true) {
		for i, r := range b.rep {
			if !r {
				starts = append(starts, int32(i))
			}
		}
	}
	cw.starts = starts
	for c, ids := range b.ids {
		var st []int32
		if c >= colTags && len(starts) > 0 {
			st = starts
		}
		cw.packed[c].pack(ids, len(b.dicts[c].strs), st)
	}
	cw.ids, b.ids = b.ids, nil
	cw.writing = true
	go func() { cw.written <- cw.writeRowGroup(b) }()
	cw.stamp++ // a new row group: new dictionaries
	cw.reset()
	for _, d := range cw.dicts {
		d.reset()
	}
	return nil
}

// reset empties the batch for the next rows, keeping its buffers.
func (b *batch) reset() {
	b.n = 0
	b.times, b.values = b.times[:0], b.values[:0]
	clear(b.metaStrs)
	b.metaRows, b.metaStrs = b.metaRows[:0], b.metaStrs[:0]
	b.rep = b.rep[:0]
	for c := range b.ids {
		b.ids[c] = b.ids[c][:0]
	}
}

// writeRowGroup writes b as a Parquet row group (on the writing
// goroutine).
func (cw *columnarWriter) writeRowGroup(b *batch) error {
	if err := cw.flushParquet(b); err != nil {
		return fmt.Errorf("writing rows %d–%d: %w", b.first+1, b.first+int64(b.n), err)
	}
	cw.rowsOut += int64(b.n)
	return nil
}

// wait waits for the row group being written, if any, and returns its
// error.
func (cw *columnarWriter) wait() error {
	if !cw.writing {
		return nil
	}
	cw.writing = false
	return <-cw.written
}

// close writes what is left and the file's footer, recording the input's
// timestamp resolution (known only at the end: JSON trims trailing zeros).
func (cw *columnarWriter) close(resNS int64) error {
	cw.init()
	if err := cw.flush(); err != nil {
		return err
	}
	if err := cw.wait(); err != nil {
		return err
	}
	if resNS < cw.unitNS {
		resNS = cw.unitNS
	}
	res := strconv.FormatInt(resNS, 10)
	if cw.pw != nil {
		if err := cw.pw.finish(cw.out, metaResolution, res); err != nil {
			return fmt.Errorf("parquet footer: %w", err)
		}
		return nil
	}
	return cw.ar.close(res)
}

// ---- Parquet --------------------------------------------------------------

// setupParquet starts the Parquet file: the schema Arrow's Parquet writer
// makes of cw.schema (strings with the String logical type, the timestamp
// as INT64 Timestamp(isAdjustedToUTC, unit), seconds as milliseconds) and
// the Arrow schema itself in the ARROW:schema metadata, so that Arrow
// readers (pyarrow, pandas) see the dictionary columns and the seconds.
// The pages are encoded by parquet_write.go's functions: string columns
// dictionary-encoded from the batch's own dictionaries (metadata, nearly
// always null, plain), with their null counts as statistics.
func (cw *columnarWriter) setupParquet() error {
	props := parquet.NewWriterProperties(
		// Snappy, as pyarrow and pandas write by default: on the 3M-row
		// bench file it decodes several times faster than zstd at level 1
		// (knee reads it in ~5 % fewer instructions), and convert is no
		// slower, for a file ~22 % larger (15.5 MB against 12.7 MB). The
		// pages are compressed by pwChunk.page with s2's snappy encoder
		// (its fast one: 16.1 MB); this names the codec in the metadata.
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithDictionaryDefault(false),
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
	strCol := func(name string, optional bool) error {
		rep := parquet.Repetitions.Required
		if optional {
			rep = parquet.Repetitions.Optional
		}
		n, err := schema.NewPrimitiveNodeLogical(name, rep, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1)
		if err != nil {
			return fmt.Errorf("parquet schema: column %q: %w", name, err)
		}
		nodes = append(nodes, n)
		return nil
	}
	if err := strCol(ColMetric, false); err != nil {
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
	for _, k := range append(slices.Clone(cw.tagCols), ColExtra, ColMetadata, ColSource) {
		if err := strCol(k, true); err != nil {
			return err
		}
	}
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
	sch := schema.NewSchema(root)
	if _, err := cw.out.Write([]byte("PAR1")); err != nil {
		return fmt.Errorf("parquet writer: %w", err)
	}
	cw.pw = &pwFile{sch: sch, fmb: metadata.NewFileMetadataBuilder(sch, props, kv), chunks: make([]pwChunk, sch.NumColumns())}
	return nil
}

// arrowSchemaKey is the Parquet metadata key of the Arrow schema.
const arrowSchemaKey = "ARROW:schema"

// flushParquet writes the batch as one row group: the columns are encoded
// and compressed in parallel, each into its own buffer, then written out
// in order.
func (cw *columnarWriter) flushParquet(b *batch) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("parquet writer: %v", r)
		}
	}()
	pf := cw.pw
	t := len(cw.tagCols)
	ncols := len(pf.chunks)
	encode := func(i int) error {
		c := &pf.chunks[i]
		switch {
		case i == 1:
			return pwPlainChunk(c, b.times)
		case i == 2:
			return pwPlainChunk(c, b.values)
		case i == 4+t:
			return pwMetaChunk(c, b.n, b.metaRows, b.metaStrs)
		}
		col, optional := colSource, true
		switch {
		case i == 0:
			col, optional = colMetric, false
		case i < 3+t:
			col = cw.tagPos[i-3]
		case i == 3+t:
			col = colExtra
		}
		name := pf.sch.Column(i).Name()
		dict := b.dicts[col].strs
		switch p := &cw.packed[col]; p.w {
		case 1:
			return pwDictChunk(c, dict, p.b[:b.n], optional, b.first, name)
		case 2:
			return pwDictChunk(c, dict, viewAs[uint16](p.b, b.n), optional, b.first, name)
		default:
			return pwDictChunk(c, dict, viewAs[uint32](p.b, b.n), optional, b.first, name)
		}
	}
	errs := make([]error, ncols)
	var next atomic.Int32
	var wg sync.WaitGroup
	for range min(ncols, max(1, runtime.GOMAXPROCS(0))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					errs[0] = fmt.Errorf("parquet writer: %v", r)
				}
			}()
			for {
				i := int(next.Add(1) - 1)
				if i >= ncols {
					return
				}
				errs[i] = encode(i)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return pf.rowGroup(cw.out, b.n)
}

// colScratch is one string column's validity bitmap, reused.
type colScratch struct {
	valid []byte
}

// defLevels8 holds, for each validity byte, the definition levels of its
// eight rows (0 or 1, as int16s) in the machine's byte order.
var defLevels8 = func() (t [256][2]uint64) {
	var d [8]int16
	for m := range t {
		for j := range d {
			d[j] = int16(m >> j & 1)
		}
		t[m] = *(*[2]uint64)(unsafe.Pointer(&d))
	}
	return t
}()

// b2i is 1 for true, 0 for false (compiled without a branch).
func b2i[T uint8 | uint16 | uint32 | int32](b bool) T {
	if b {
		return 1
	}
	return 0
}

// indices turns idx, the ids of a string column (its scratch sc) of a
// batch whose first row is row first+1 of the file, in place, into an
// array of type typ (T's) of dictionary indices (nulls marked invalid),
// and for an optional column fills defs (at least as long as idx) with
// the definition levels.
func indices[T uint8 | uint16 | uint32 | int32](sc *colScratch, idx []T, typ arrow.DataType, first int64, optional bool, name string, defs []int16) (arrow.Array, []int16, error) {
	n := len(idx)
	if cap(sc.valid) < (n+7)/8 {
		sc.valid = make([]byte, (n+7)/8)
	}
	valid := sc.valid[:(n+7)/8]
	if optional && defs != nil {
		defs = defs[:n]
	} else {
		defs = nil
	}
	// Eight rows at a time, without branches: a row's bit is 1 when it
	// has a value (its id is positive); that is also its definition level
	// and what its id drops by.
	set, b := 0, 0
	if b8, ok := any(idx).([]uint8); ok {
		set, b = indices8(b8, valid, defs)
	}
	for ; b+8 <= n; b += 8 {
		x := (*[8]T)(idx[b : b+8])
		v0, v1, v2, v3 := b2i[T](x[0] > 0), b2i[T](x[1] > 0), b2i[T](x[2] > 0), b2i[T](x[3] > 0)
		v4, v5, v6, v7 := b2i[T](x[4] > 0), b2i[T](x[5] > 0), b2i[T](x[6] > 0), b2i[T](x[7] > 0)
		x[0] -= v0
		x[1] -= v1
		x[2] -= v2
		x[3] -= v3
		x[4] -= v4
		x[5] -= v5
		x[6] -= v6
		x[7] -= v7
		m := byte(v0 | v1<<1 | v2<<2 | v3<<3 | v4<<4 | v5<<5 | v6<<6 | v7<<7)
		valid[b>>3] = m
		set += bits.OnesCount8(m)
		if defs != nil {
			*(*[2]uint64)(unsafe.Pointer(&defs[b])) = defLevels8[m]
		}
	}
	if b < n {
		var m byte
		for j := b; j < n; j++ {
			v := b2i[T](idx[j] > 0)
			idx[j] -= v
			m |= byte(v) << (j - b)
			if defs != nil {
				defs[j] = int16(v)
			}
		}
		valid[b>>3] = m
		set += bits.OnesCount8(m)
	}
	nulls := n - set
	if nulls > 0 && !optional {
		for i := range n {
			if valid[i>>3]&(1<<(i&7)) == 0 {
				return nil, nil, fmt.Errorf("column %s: row %d is null", name, first+int64(i)+1)
			}
		}
	}
	data := array.NewData(typ, n,
		[]*memory.Buffer{memory.NewBufferBytes(valid), memory.NewBufferBytes(asBytes(idx[:n]))},
		nil, nulls, 0)
	arr := array.MakeFromData(data)
	data.Release()
	return arr, defs, nil
}

// indices8 is indices' loop for one-byte ids, a word of eight rows at a
// time: the nonzero bytes of the word (each byte's low seven bits plus
// 0x7f carry into its high bit, or the high bit is set already), one bit
// per row gathered into the validity byte by a multiplication, and the
// word less one in each of those bytes. It returns the rows it set and
// the rows it did (a multiple of eight).
func indices8(idx []uint8, valid []byte, defs []int16) (set, b int) {
	const lo7, lsb = 0x7f7f7f7f7f7f7f7f, 0x0101010101010101
	n := len(idx)
	for ; b+8 <= n; b += 8 {
		x := binary.LittleEndian.Uint64(idx[b:])
		ones := (x | (x&lo7 + lo7)) >> 7 & lsb
		binary.LittleEndian.PutUint64(idx[b:], x-ones)
		m := byte(ones * 0x0102040810204080 >> 56) // byte k's low bit → bit k
		valid[b>>3] = m
		set += bits.OnesCount8(m)
		if defs != nil {
			*(*[2]uint64)(unsafe.Pointer(&defs[b])) = defLevels8[m]
		}
	}
	return set, b
}

// ---- Arrow IPC ------------------------------------------------------------

// arrowOut writes an Arrow IPC file as it goes: the magic, the schema, each
// record batch (dictionary columns as their int32 indices, which is all an
// IPC record batch holds of them), and at the end each column's dictionary
// and the footer. The file format allows dictionaries after the record
// batches that use them ("as long as the keys are defined somewhere in the
// file"; readers take them from the footer); a footer is made by arrow-go's
// own file writer on a stand-in file with the same schema, dictionaries and
// number of record batches, and its blocks are set to where the messages
// really are.
type arrowOut struct {
	cw     *columnarWriter
	tmpSch *arrow.Schema // the dictionary columns as int32
	schLen int           // bytes of a stream's schema message for tmpSch
	recs   []ipcBlock
}

// ipcBlock is where a message is in the file.
type ipcBlock struct {
	offset, body int64
	meta         int32
}

func newArrowOut(cw *columnarWriter) (*arrowOut, error) {
	a := &arrowOut{cw: cw}
	fields := make([]arrow.Field, len(cw.schema.Fields()))
	for i, f := range cw.schema.Fields() {
		if f.Type == dictString {
			f.Type = arrow.PrimitiveTypes.Int32
		}
		fields[i] = f
	}
	a.tmpSch = arrow.NewSchema(fields, nil)
	var buf bytes.Buffer
	if err := ipc.NewWriter(&buf, ipc.WithSchema(a.tmpSch), ipc.WithAllocator(cw.mem)).Close(); err != nil {
		return nil, fmt.Errorf("arrow writer: %w", err)
	}
	a.schLen = buf.Len() - 8 // less the end-of-stream marker
	// The file's start: the magic, padded to 8, and the schema message.
	buf.Reset()
	if err := ipc.NewWriter(&buf, ipc.WithSchema(cw.schema), ipc.WithAllocator(cw.mem)).Close(); err != nil {
		return nil, fmt.Errorf("arrow writer: %w", err)
	}
	head := append([]byte("ARROW1\x00\x00"), buf.Bytes()[:buf.Len()-8]...)
	if _, err := cw.out.Write(head); err != nil {
		return nil, err
	}
	return a, nil
}

// skipWriter passes on what is written after the first skip bytes, until
// drop is set, and keeps the first 8 bytes it passes on.
type skipWriter struct {
	w    io.Writer
	skip int
	drop bool
	head []byte
	n    int64
}

func (s *skipWriter) Write(p []byte) (int, error) {
	n := len(p)
	if s.drop {
		return n, nil
	}
	if s.skip > 0 {
		k := min(s.skip, len(p))
		s.skip -= k
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	if len(s.head) < 8 {
		s.head = append(s.head, p[:min(8-len(s.head), len(p))]...)
	}
	m, err := s.w.Write(p)
	s.n += int64(m)
	if err != nil {
		return n - len(p) + m, err
	}
	return n, nil
}

// le32 reads a little-endian int32.
func le32(b []byte) int32 { return int32(binary.LittleEndian.Uint32(b)) }

// flush writes the batch as one record batch message.
func (a *arrowOut) flush() error {
	cw := a.cw
	n := cw.n
	var cols []arrow.Array
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	ids := func(c int) arrow.Array {
		arr, _, _ := indices(&cw.scratch[c], cw.ids[c], arrow.PrimitiveTypes.Int32, cw.first, true, "", nil)
		return arr
	}
	cols = append(cols, ids(colMetric))
	tb := array.NewTimestampBuilder(cw.mem, cw.schema.Field(1).Type.(*arrow.TimestampType))
	tb.Reserve(n)
	for _, t := range cw.times {
		tb.UnsafeAppend(arrow.Timestamp(t))
	}
	cols = append(cols, tb.NewArray())
	tb.Release()
	fb := array.NewFloat64Builder(cw.mem)
	fb.AppendValues(cw.values, nil)
	cols = append(cols, fb.NewArray())
	fb.Release()
	for _, c := range cw.tagPos {
		cols = append(cols, ids(c))
	}
	cols = append(cols, ids(colExtra))
	sb := array.NewStringBuilder(cw.mem)
	for r, k := 0, 0; r < n; r++ {
		if k < len(cw.metaRows) && int(cw.metaRows[k]) == r {
			sb.Append(cw.metaStrs[k])
			k++
		} else {
			sb.AppendNull()
		}
	}
	cols = append(cols, sb.NewArray())
	sb.Release()
	cols = append(cols, ids(colSource))
	rec := array.NewRecordBatch(a.tmpSch, cols, int64(n))
	defer rec.Release()
	// A stream of the one batch, less its schema message and its end
	// marker, is the record batch message.
	at := cw.out.n
	sw := &skipWriter{w: cw.out, skip: a.schLen}
	w := ipc.NewWriter(sw, ipc.WithSchema(a.tmpSch), ipc.WithAllocator(cw.mem))
	if err := w.Write(rec); err != nil {
		return err
	}
	sw.drop = true
	if err := w.Close(); err != nil {
		return err
	}
	if len(sw.head) < 8 || le32(sw.head) != -1 {
		return errors.New("arrow writer: unexpected record batch message")
	}
	meta := 8 + le32(sw.head[4:])
	a.recs = append(a.recs, ipcBlock{offset: at, meta: meta, body: sw.n - int64(meta)})
	return nil
}

// close writes each column's dictionary and the footer.
func (a *arrowOut) close(res string) error {
	cw := a.cw
	md := arrow.NewMetadata([]string{metaKind, metaResolution}, []string{metaKindValue, res})
	sch := arrow.NewSchema(cw.schema.Fields(), &md)
	// A record batch of no rows with the full dictionaries: the stream
	// writer writes them as dictionary messages before it.
	var cols []arrow.Array
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	di := 0
	dictCols := append(append([]int{colMetric}, cw.tagPos...), colExtra, colSource)
	empty := array.NewInt32Builder(cw.mem).NewArray()
	defer empty.Release()
	for _, f := range sch.Fields() {
		switch f.Type.ID() {
		case arrow.DICTIONARY:
			b := array.NewStringBuilder(cw.mem)
			b.AppendValues(cw.dicts[dictCols[di]].strs, nil)
			d := b.NewArray()
			b.Release()
			cols = append(cols, array.NewDictionaryArray(dictString, empty, d))
			d.Release()
			di++
		default:
			b := array.NewBuilder(cw.mem, f.Type)
			cols = append(cols, b.NewArray())
			b.Release()
		}
	}
	rec := array.NewRecordBatch(sch, cols, 0)
	defer rec.Release()
	var buf bytes.Buffer
	sw := ipc.NewWriter(&buf, ipc.WithSchema(sch), ipc.WithAllocator(cw.mem))
	if err := sw.Write(rec); err != nil {
		return fmt.Errorf("arrow dictionaries: %w", err)
	}
	if err := sw.Close(); err != nil {
		return fmt.Errorf("arrow dictionaries: %w", err)
	}
	var dicts []ipcBlock
	if len(a.recs) > 0 {
		for b := buf.Bytes(); len(b) >= 8; {
			size := le32(b[4:])
			if le32(b) != -1 || size <= 0 || int(size)+8 > len(b) {
				break // the end marker
			}
			hdr, body, ok := ipcMessage(b[8 : 8+size])
			total := 8 + int64(size) + body
			if !ok || body < 0 || total > int64(len(b)) {
				return errors.New("arrow writer: unexpected dictionary message")
			}
			if hdr == 2 { // a DictionaryBatch
				dicts = append(dicts, ipcBlock{offset: cw.out.n, meta: 8 + size, body: body})
				if _, err := cw.out.Write(b[:total]); err != nil {
					return err
				}
			}
			b = b[total:]
		}
	}
	// The footer: arrow-go's own, for a stand-in file with the same
	// schema, these dictionaries and as many (empty) record batches,
	// with its blocks set to where the messages are in this file.
	tail := &tailWriter{}
	fw, err := ipc.NewFileWriter(tail, ipc.WithSchema(sch), ipc.WithAllocator(cw.mem))
	if err != nil {
		return fmt.Errorf("arrow footer: %w", err)
	}
	for range a.recs {
		if err := fw.Write(rec); err != nil {
			return fmt.Errorf("arrow footer: %w", err)
		}
	}
	tail.keep = true
	if err := fw.Close(); err != nil {
		return fmt.Errorf("arrow footer: %w", err)
	}
	t := tail.buf
	if len(t) < 10 || string(t[len(t)-6:]) != "ARROW1" {
		return errors.New("arrow footer: unexpected file end")
	}
	flen := int(le32(t[len(t)-10:]))
	if flen <= 0 || flen+10 > len(t) {
		return errors.New("arrow footer: unexpected footer size")
	}
	footer := t[len(t)-10-flen:]
	if err := patchFooter(footer[:flen], dicts, a.recs); err != nil {
		return err
	}
	_, err = cw.out.Write(footer)
	return err
}

// tailWriter drops what is written until keep is set.
type tailWriter struct {
	keep bool
	buf  []byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	if t.keep {
		t.buf = append(t.buf, p...)
	}
	return len(p), nil
}

// ipcMessage reads the header type and body length of an IPC Message
// flatbuffer (format/Message.fbs: version, header_type, header,
// bodyLength, custom_metadata).
func ipcMessage(meta []byte) (hdr byte, body int64, ok bool) {
	if len(meta) < 8 {
		return 0, 0, false
	}
	t := flatbuffers.Table{Bytes: meta, Pos: flatbuffers.GetUOffsetT(meta)}
	if int(t.Pos) >= len(meta) {
		return 0, 0, false
	}
	if o := flatbuffers.UOffsetT(t.Offset(6)); o != 0 {
		hdr = t.GetByte(o + t.Pos)
	}
	if o := flatbuffers.UOffsetT(t.Offset(10)); o != 0 {
		body = t.GetInt64(o + t.Pos)
	}
	return hdr, body, true
}

// patchFooter sets the dictionary and record batch blocks of an IPC Footer
// flatbuffer (format/File.fbs: version, schema, dictionaries,
// recordBatches; a Block is offset int64, metaDataLength int32, padding,
// bodyLength int64).
func patchFooter(fb []byte, dicts, recs []ipcBlock) error {
	t := flatbuffers.Table{Bytes: fb, Pos: flatbuffers.GetUOffsetT(fb)}
	for _, v := range []struct {
		slot   flatbuffers.VOffsetT
		blocks []ipcBlock
	}{{8, dicts}, {10, recs}} {
		o := flatbuffers.UOffsetT(t.Offset(v.slot))
		n := 0
		if o != 0 {
			n = t.VectorLen(o)
		}
		if n != len(v.blocks) {
			return fmt.Errorf("arrow footer: %d blocks, want %d", n, len(v.blocks))
		}
		if n == 0 {
			continue
		}
		x := t.Vector(o)
		for i, b := range v.blocks {
			p := int(x) + 24*i
			binary.LittleEndian.PutUint64(fb[p:], uint64(b.offset))
			binary.LittleEndian.PutUint32(fb[p+8:], uint32(b.meta))
			binary.LittleEndian.PutUint64(fb[p+16:], uint64(b.body))
		}
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
