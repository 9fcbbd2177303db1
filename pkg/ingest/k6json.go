package ingest

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"
)

// MetricInfo is what a k6 JSON "Metric" line declares about a metric.
type MetricInfo struct {
	// Type is the k6 metric type: "counter", "gauge", "trend" or "rate".
	Type string
	// Contains is the value type: "default" (a count or ratio), "time"
	// (milliseconds) or "data" (bytes).
	Contains string
	// Thresholds are the threshold sources set on the metric itself, e.g.
	// "count<1" (k6 does not list thresholds of submetrics here).
	Thresholds []string
	// Submetrics are the names of the metric's submetrics, e.g.
	// "http_req_duration{expected_response:true}".
	Submetrics []string
	// Line is the 1-based line that declared the metric.
	Line int64
}

// K6JSONReader streams the samples of one k6 JSON lines file (`k6 run --out
// json=FILE`), already decompressed.
//
// Both envelopes k6 has written are read: the old one (k6 up to v0.39,
// "tainted" and "sub" in Metric lines, key order type,data,metric,
// "tags":null on gauges) and the current one (Point lines in the order
// metric,type,data); the key order is free in any case. Timestamps are RFC
// 3339 with any zone offset and 0–9 fraction digits. "Metric" lines are
// remembered (see Metrics) and are not samples.
//
// Parsing runs on every core, as the CSV reader's does: one goroutine reads
// (and, under Open, decompresses) the input and cuts it at newlines into
// chunks of 256 KiB, a worker per core parses chunks, and Next hands out
// their samples in file order (Drain hands them to parallel sinks). The
// workers' scanner for the Point shape neither allocates nor reflects: it
// compares each line with the previous line of the same metric (k6 writes
// tags sorted, and the same keys line after line), so a tag key costs a
// byte comparison, not a map lookup, and a repeated value likewise. A line
// it does not recognise (escapes in strings, other keys, odd numbers) is
// decoded with encoding/json, which also words the error of a malformed
// line.
//
// Tags: a JSON point carries all its tags, system and user, in one object.
// They are decoded only when asked for (Tags.Get and friends). As tag
// columns (Tags.Key/Value), a file's columns start with k6's default system
// tags in the order of the default CSV header (check … url) and grow, at
// the end, with each new key whose sample's columns are asked for; an index
// into Keys therefore stays valid for the whole file. A tag a point lacks
// has an empty value, as in the CSV. Past maxJSONTagColumns distinct keys,
// further keys go to the extra tags as "k=v&k=v". The point's metadata
// object (k6 v0.41+: vu, iter, …) goes to the metadata as "k=v&k=v".
//
// A malformed line is recorded as a SyntaxError with its line and column
// and skipped; so is a time outside 1970–2200, a value that does not fit a
// float64, and a negative value of one of k6's built-in durations. A
// truncated gzip ends the input with a warning. Memory is bounded by the
// chunks in flight (about (2·cores+3) × 256 KiB), the longest line (at most
// 16 MiB) and the interned tag values.
type K6JSONReader struct {
	name string
	src  io.Reader

	order chan *jsonBatch
	readAhead
	// sinks, in Drain mode, take the samples on the workers; bsinks, when
	// set (drainBatches), are told where each batch begins and ends.
	sinks  []func(*Sample)
	bsinks []batchSink
	keys   *jsonKeys

	cur *jsonBatch
	idx int
	s   Sample
	row jsonRow
	in  *interner

	metrics    map[string]MetricInfo
	undeclared map[string]bool
	lines      int64     // lines of the batches absorbed so far
	times      timeOrder // the times of the batches absorbed so far
	maxDigits  int       // most fraction digits seen; -1 before the first sample

	st  Stats
	err error
	// mapAt, set by Open on a plain file, is the file Drain maps.
	mapAt *mapTarget
	// full, set by tests, reads every line the general way (scanPoint,
	// encoding/json), without the shortcuts for k6's exact form and for
	// repeats of earlier lines (quickRun, scanK6, scanTags' repeats).
	full bool
}

// jsonMaxLine is the longest line read; a longer one is skipped.
const jsonMaxLine = maxRecord

// maxJSONTagColumns caps the tag columns of one JSON file; keys past it go
// to Tags.Extra so that a file with unbounded tag keys keeps bounded memory.
const maxJSONTagColumns = 256

// k6DefaultTagColumns are the tag columns of k6's default CSV header, in its
// order; JSON files start with these columns so that samples of both formats
// look alike.
var k6DefaultTagColumns = []string{"check", "error", "error_code", "expected_response", "group", "method", "name", "proto", "scenario", "service", "status", "subproto", "tls_version", "url"}

// NewK6JSONReader returns a reader of the k6 JSON lines in r. name is used in
// errors and in Sample.Source. Nothing is read until the first Next or
// Drain; Close stops the reading goroutines early.
func NewK6JSONReader(r io.Reader, name string) *K6JSONReader {
	j := &K6JSONReader{
		name: name, src: r,
		order: make(chan *jsonBatch, runtime.GOMAXPROCS(0)),
		keys:  newJSONKeys(), in: newInterner(),
		metrics: map[string]MetricInfo{}, undeclared: map[string]bool{},
		maxDigits: -1,
	}
	j.readAhead.init()
	j.s.Source = name
	j.row.reg, j.row.in = j.keys, j.in
	j.s.Tags.lazyJ = &j.row
	return j
}

// Metrics returns the metrics declared by the Metric lines read so far,
// keyed by metric name. The map is a copy.
func (j *K6JSONReader) Metrics() map[string]MetricInfo {
	m := make(map[string]MetricInfo, len(j.metrics))
	for k, v := range j.metrics {
		m[k] = v
	}
	return m
}

// Sample returns the current sample; it is valid until the next call to Next.
func (j *K6JSONReader) Sample() *Sample { return &j.s }

// Err returns the I/O error that stopped the read, or nil.
func (j *K6JSONReader) Err() error { return j.err }

// Stats returns the counts so far. ResolutionNS is 10^(9−d) ns where d is
// the largest number of fraction digits seen: k6 (Go) trims trailing zeros
// from JSON timestamps, so the finest timestamp shows the clock's resolution
// (1 ns on Linux, 100 ns on Windows, 1 µs in old k6 files).
func (j *K6JSONReader) Stats() Stats {
	st := j.st
	if j.maxDigits >= 0 {
		st.ResolutionNS = digitsResolution(j.maxDigits)
	}
	return st
}

// digitsResolution is the resolution of a time with d fraction digits, in
// nanoseconds.
func digitsResolution(d int) int64 {
	res := int64(1)
	for ; d < 9; d++ {
		res *= 10
	}
	return res
}

// Close stops the reading goroutines; the caller owns the underlying reader.
func (j *K6JSONReader) Close() error {
	j.halt()
	return nil
}

// jsonBatch is one chunk of lines and what its worker made of it. Line
// numbers in it (errors, declarations) count from the chunk's first line
// (1) until absorb adds the lines of the chunks before.
type jsonBatch struct {
	raw     rawChunk
	lines   int64 // lines parsed (the final chunk's last line need not end in a newline)
	recs    []jsonRec
	layouts []*jsonLayout
	slow    []jsonSlow
	errs    []*SyntaxError
	// cutLast: as csvBatch's, the input's last line is cut.
	cutLast  bool
	declared []jsonDeclared
	firsts   []jsonFirst
	// maxDigits is the most fraction digits of the batch's times, -1 for
	// none.
	maxDigits int
	times     timeOrder
	n         int64 // samples handed to a sink (Drain mode)
	seq       int64 // the batch's number among those the workers parse
	ready     chan struct{}
	// fault is the error of a fault on the mapped chunk (the file was
	// cut under its mapping); begun is set once a batch sink began it.
	fault error
	begun bool
}

// jsonRec is one Point of a batch, for Next; its tags are the bytes
// chunk[tags:tagsEnd] (a JSON object, or empty), its metadata
// chunk[meta:metaEnd].
type jsonRec struct {
	metric        string
	ts            int64
	val           float64
	tags, tagsEnd int32
	meta, metaEnd int32
	layout        int32 // index into jsonBatch.layouts
	slow          int32 // index into jsonBatch.slow, or -1
}

// jsonSlow is the decoded tags of a Point read by encoding/json.
type jsonSlow struct {
	vals [][]byte
	meta string
}

// jsonDeclared is a Metric line of a batch.
type jsonDeclared struct {
	name string
	info MetricInfo
}

// jsonFirst is the first Point of a metric in a batch.
type jsonFirst struct {
	metric   string
	line     int64
	declared bool // a Metric line of the same batch declared it before
}

var jsonBatchPool = sync.Pool{New: func() any { return &jsonBatch{} }}

func newJSONBatch(raw rawChunk) *jsonBatch {
	b := jsonBatchPool.Get().(*jsonBatch)
	*b = jsonBatch{raw: raw, recs: b.recs[:0], layouts: b.layouts[:0], firsts: b.firsts[:0],
		maxDigits: -1, ready: make(chan struct{})}
	return b
}

// release returns the batch and its chunk to their pools once its samples
// are no longer referenced.
func (b *jsonBatch) release() {
	b.dropChunk()
	clear(b.layouts)
	b.raw, b.slow, b.errs, b.declared = rawChunk{}, nil, nil, nil
	jsonBatchPool.Put(b)
}

// dropChunk returns the batch's chunk buffer to its pool, keeping what
// absorb reads of the batch.
func (b *jsonBatch) dropChunk() {
	b.raw.free()
	b.raw.data = nil
}

// start launches the reading goroutines.
func (j *K6JSONReader) start() {
	j.started = true
	go j.produce()
}

// produce cuts the input into chunks and hands them to the workers, in
// order, through j.order.
func (j *K6JSONReader) produce() {
	defer close(j.done)
	workers := runtime.GOMAXPROCS(0)
	if len(j.sinks) > 0 {
		workers = len(j.sinks)
	}
	cs := newChunkSource(j.src, nil, nil, jsonMaxLine)
	defer cs.dropMap()
	// Drain maps a plain file (see mapTarget); Next reads it.
	mapped := j.sinks != nil && j.mapAt != nil && cs.mapFrom(j.mapAt)
	if mapped {
		debug.SetPanicOnFault(true)
	}
	jobs := make(chan *jsonBatch, workers)
	for i := range workers {
		go func() {
			if mapped {
				debug.SetPanicOnFault(true)
			}
			w := newJSONWorker(j)
			if j.sinks != nil {
				w.sink = j.sinks[i]
			}
			if j.bsinks != nil {
				w.bsink = j.bsinks[i]
			}
			for b := range jobs {
				if b.fault = b.raw.m.guard(func() { w.parse(b) }); b.fault != nil && !b.begun && w.bsink != nil {
					// Not parsed, as another batch faulted: the batch
					// sink gets it, empty.
					w.bsink.begin(b.seq)
					w.bsink.end(b.seq, resolution{})
				}
				if j.sinks != nil {
					// As the CSV reader's Drain: the chunk is free once
					// the sinks have the samples.
					b.dropChunk()
				}
				close(b.ready)
			}
		}()
	}
	defer close(jobs)
	defer close(j.order)
	var seq int64 // of the batches the workers parse
	for {
		raw, ok := cs.next()
		if !ok {
			return
		}
		b := newJSONBatch(raw)
		if raw.data != nil {
			b.seq, seq = seq, seq+1
		}
		select {
		case j.order <- b:
		case <-j.stop:
			b.raw.free()
			return
		}
		if raw.data == nil {
			close(b.ready)
		} else {
			select {
			case jobs <- b:
			case <-j.stop:
				return
			}
		}
		if raw.final {
			return
		}
	}
}

// Next reads the next Point line. Metric lines are remembered, malformed
// lines recorded in Stats and skipped.
func (j *K6JSONReader) Next() bool {
	if !j.started {
		j.start()
	}
	for {
		if b := j.cur; b != nil && j.idx < len(b.recs) {
			r := &b.recs[j.idx]
			j.idx++
			j.s.Metric, j.s.TimeNS, j.s.Value = r.metric, r.ts, r.val
			l := b.layouts[r.layout]
			if r.slow >= 0 {
				sl := &b.slow[r.slow]
				j.row.resetSlow(l, sl.vals, sl.meta)
			} else {
				var meta []byte
				if r.meta < r.metaEnd {
					meta = b.raw.data[r.meta:r.metaEnd]
				}
				j.row.reset(l, nil, b.raw.data[r.tags:r.tagsEnd], meta)
			}
			j.st.Rows++
			return true
		}
		if j.cur != nil {
			j.cur.release()
			j.cur = nil
		}
		if j.err != nil {
			return false
		}
		b, ok := <-j.order
		if !ok {
			return false
		}
		<-b.ready
		j.absorb(b)
		j.cur, j.idx = b, 0
	}
}

// Drain reads the whole file, handing its samples to sinks from parallel
// workers: sinks[i] is called only from worker i's goroutine, with samples
// in no particular order, valid during the call. Drain must be called
// before any Next; the stats count every sample as usual, and Metrics
// holds the declarations once it returns. It returns the I/O error that
// stopped the read, or nil.
func (j *K6JSONReader) Drain(sinks []func(*Sample)) error {
	if j.started {
		return errors.New("ingest: Drain after Next")
	}
	if len(sinks) == 0 {
		return errors.New("ingest: Drain with no sinks")
	}
	j.sinks = sinks
	j.order = make(chan *jsonBatch, drainWindow())
	j.start()
	for {
		b, ok := <-j.order
		if !ok {
			return j.err
		}
		<-b.ready
		j.st.Rows += b.n
		j.absorb(b)
		b.release()
	}
}

// drainBatches is Drain for batch sinks.
func (j *K6JSONReader) drainBatches(sinks []batchSink) error {
	j.bsinks = sinks
	fs := make([]func(*Sample), len(sinks))
	for i, s := range sinks {
		fs[i] = s.sample
	}
	return j.Drain(fs)
}

// absorb takes a finished batch's errors, declarations and end-of-input
// facts into the reader, in file order.
func (j *K6JSONReader) absorb(b *jsonBatch) {
	if f := cmp.Or(b.fault, b.raw.fault); f != nil && j.err == nil {
		j.err = fmt.Errorf("%s: %w", j.name, f)
	}
	base := j.lines
	if b.raw.longLine > 0 {
		j.st.record(&SyntaxError{File: j.name, Line: base + 1, Msg: fmt.Sprintf("line longer than %d bytes", jsonMaxLine)})
		j.lines++
		return
	}
	for _, e := range b.errs {
		e.Line += base
		j.st.record(e)
	}
	for _, f := range b.firsts {
		if f.declared || j.undeclared[f.metric] {
			continue
		}
		if _, ok := j.metrics[f.metric]; ok {
			continue
		}
		if len(j.undeclared) < maxInterned {
			j.undeclared[f.metric] = true
		}
		if len(j.undeclared) <= MaxRecordedErrors {
			j.st.Warnings = append(j.st.Warnings, fmt.Sprintf("%s:%d: a Point of metric %q comes before any Metric line declaring it; its type is unknown (the sample is kept)", j.name, base+f.line, f.metric))
		}
	}
	for _, d := range b.declared {
		d.info.Line += base
		j.metrics[j.in.intern([]byte(d.name))] = d.info
	}
	j.times.absorb(&b.times, base, j.name)
	j.lines += b.lines
	j.maxDigits = max(j.maxDigits, b.maxDigits)
	if !b.raw.final {
		return
	}
	j.st.Bytes = b.raw.bytes
	j.times.finish(&j.st, j.name)
	if b.cutLast && b.raw.trunc == nil {
		j.st.Truncated = true
		j.st.Warnings = append(j.st.Warnings, cutWarning(j.name, j.lines))
	}
	if te := b.raw.trunc; te != nil {
		j.st.Truncated = true
		if te.Corrupt() {
			j.st.Corrupt = true
			j.st.Warnings = append(j.st.Warnings, te.Error()+"; every line is analysed, and a damaged one is skipped only where it is malformed: get an intact copy")
		} else {
			j.st.Warnings = append(j.st.Warnings, te.Error()+"; the lines before the cut are analysed")
		}
		if b.raw.dropped > 0 {
			j.st.record(&SyntaxError{File: j.name, Line: j.lines + 1, Msg: fmt.Sprintf("last line cut short by the truncated stream (%d bytes dropped)", b.raw.dropped)})
		}
	}
	if b.raw.readErr != nil {
		j.err = fmt.Errorf("%s: line %d: %w", j.name, j.lines+1, b.raw.readErr)
	}
}

// jsonWorker parses chunks; each worker has its own caches.
type jsonWorker struct {
	j     *K6JSONReader
	names *interner // metric names and tag keys
	stamp int64     // the batch being parsed

	// Metric names by id, and for each the id that followed it last time
	// (k6 writes the points of a request in a fixed metric order), the
	// layout of its last tags, and the batch of its last point.
	lastID  int32
	mNames  []string
	mIDs    map[string]int32
	mNext   []int32
	mLayout []*wLayout
	mStamp  []int64

	layouts map[string]*wLayout // by layoutKey
	prev    *wLayout            // the last line's layout
	// prevTags is the last tags object scanned in this chunk (up to 4 KiB),
	// prevVals its values (slices of it), prevTagsL its layout. A tags
	// object byte-identical to it has the same values: prevVals, which
	// point into an earlier line of the same chunk, serve it unchanged.
	prevTags  []byte
	prevVals  [][]byte
	prevTagsL *wLayout
	prevMemo  *tagsMemo // of the object the layout remembers as prevTags, or nil
	// prevTail is the end of the last line when scanK6 read it and its
	// tags were prevTags, with no metadata: `,"tags":{…}}}`, in the chunk
	// being parsed (quickRun).
	prevTail []byte
	empty    *wLayout // no tags
	lkey     []byte

	lastTS     []byte
	lastNS     int64
	lastDigits int
	// tsGen counts the changes of lastTS; qmid, made at qmidGen, is what
	// a Point line of k6's exact form holds between its metric name and
	// its value at time lastTS (`","type":…"time":"T","value":`).
	tsGen   int64
	qmid    []byte
	qmidGen int64
	// minute is the first 17 bytes ("YYYY-MM-DDTHH:MM:") of the last time
	// parsed, minuteBase their rfc3339Minute: the times of a run share
	// them for a minute at a time.
	minute     [17]byte
	minuteBase int64
	minuteOK   bool

	pf             pointFields
	tk, tv, mk, mv [][]byte
	tvBuf          [][]byte // w.tv's own buffer (w.tv may be prevVals)
	sortKeys       []string

	full bool // K6JSONReader.full

	// Drain mode: the sink, the worker's own sample and tag view.
	sink  func(*Sample)
	bsink batchSink
	s     Sample
	row   jsonRow
}

// wLayout is a worker's handle on a layout: the last value seen at each key
// position (a repeated value is then a byte comparison), and where the
// layout sits in the current batch's table.
type wLayout struct {
	l     *jsonLayout
	last  [][]byte
	stamp int64
	bidx  int32
	// objs are copies of the last tags objects of this layout that
	// scanTags took apart: an object byte-identical to one of them has
	// its values, in any chunk. tick counts their uses.
	objs [layoutObjs]layoutObj
	tick uint64
}

// layoutObj is a tags object a layout remembers.
type layoutObj struct {
	obj  []byte   // the object (up to maxObj bytes), or empty
	vals [][]byte // its values, slices of obj
	used uint64   // the layout's tick when last matched or remembered
	// memo is what the worker's tag view (Drain) worked out of the
	// object's values, for the next sample with this object.
	memo tagsMemo
}

// layoutObjs is how many tags objects a layout remembers: the endpoints
// of a script, whose requests come in turn, and a few more.
const layoutObjs = 8

// maxObj is the longest tags object that scanTags remembers whole
// (jsonWorker.prevTags, wLayout.objs).
const maxObj = 4096

func newJSONWorker(j *K6JSONReader) *jsonWorker {
	w := &jsonWorker{j: j, names: newInterner(), mIDs: map[string]int32{}, layouts: map[string]*wLayout{}, lastID: -1, full: j.full}
	w.empty = &wLayout{l: &jsonLayout{}}
	w.layouts[""] = w.empty
	w.s.Source = j.name
	w.row.reg, w.row.in = j.keys, newInterner()
	w.s.Tags.lazyJ = &w.row
	return w
}

// pointFields are the parts of a Point line found by scanPoint; byte slices
// point into the line, offsets count from its start.
type pointFields struct {
	metric            []byte
	name              string // interned metric, once scanPoint succeeds
	mid               int32  // metric id, -1 when unknown
	time              []byte
	timeCol, valueCol int
	valueEnd          int
	value             float64
	tags, tagsEnd     int // span of the tags value; tags < 0: none
	meta, metaEnd     int // span of the metadata object; meta < 0: none
	wl                *wLayout
	memo              *tagsMemo // of the tags, when the layout remembers them
	// sameTS: the time string is the last one checked (w.lastTS), whose
	// ns and digits w.lastNS and w.lastDigits hold.
	sameTS bool
}

// The parts of a Point line as k6 writes it (json.go's sampleEnvelope):
// {"metric":M,"type":"Point","data":{"time":T,"value":V[,"tags":{…}][,"metadata":{…}]}}
const (
	k6PointHead  = `{"metric":`
	k6PointType  = k6PointType1 + k6PointType2
	k6PointValue = `,"value":`
	k6PointTags  = `,"tags":`
	k6PointMeta  = `,"metadata":`

	k6PointType1 = `,"type":"Point",`
	k6PointType2 = `"data":{"time":`
)

// The literals are compared as constants at their call sites, which the
// compiler writes as a few loads (a comparison with a string it cannot
// see, or one longer than 16 bytes, calls memequal: on every line, the
// scan's largest cost); k6PointType is compared in two halves.

// atHead reports whether b starts with k6PointHead.
func atHead(b []byte) bool {
	return len(b) >= len(k6PointHead) && string(b[:len(k6PointHead)]) == k6PointHead
}

// atType reports whether b holds k6PointType at i.
func atType(b []byte, i int) bool {
	return i+len(k6PointType) <= len(b) && string(b[i:i+len(k6PointType1)]) == k6PointType1 &&
		string(b[i+len(k6PointType1):i+len(k6PointType)]) == k6PointType2
}

// atValue reports whether b holds k6PointValue at i.
func atValue(b []byte, i int) bool {
	return i+len(k6PointValue) <= len(b) && string(b[i:i+len(k6PointValue)]) == k6PointValue
}

// atTags reports whether b holds k6PointTags at i.
func atTags(b []byte, i int) bool {
	return i+len(k6PointTags) <= len(b) && string(b[i:i+len(k6PointTags)]) == k6PointTags
}

// atMeta reports whether b holds k6PointMeta at i.
func atMeta(b []byte, i int) bool {
	return i+len(k6PointMeta) <= len(b) && string(b[i:i+len(k6PointMeta)]) == k6PointMeta
}

// scanK6 scans a Point line in exactly k6's key order and spacing with
// literal comparisons; false sends the line to scanPoint, which takes any
// key order and spacing.
func (w *jsonWorker) scanK6(b []byte) bool {
	i, ok := w.scanFront(b)
	if !ok {
		return false
	}
	pf := &w.pf
	if atTags(b, i) {
		i += len(k6PointTags)
		pf.tags = i
		if i, ok = w.scanTags(b, i); !ok {
			return false
		}
		pf.tagsEnd = i
	}
	if atMeta(b, i) {
		i += len(k6PointMeta)
		pf.meta = i
		if w.mk, w.mv, i, ok = scanStringMap(b, i, w.mk[:0], w.mv[:0]); !ok {
			return false
		}
		pf.metaEnd = i
	}
	if i+2 != len(b) || b[i] != '}' || b[i+1] != '}' {
		return false
	}
	if pf.tags >= 0 && pf.meta < 0 && w.prevTags != nil && pf.tagsEnd-pf.tags == len(w.prevTags) {
		w.prevTail = b[pf.tags-len(k6PointTags):]
	}
	w.pointDone()
	return true
}

// k6QuickHead is how a Point line of k6's exact form starts, up to its
// metric name; k6QuickMid1 and k6QuickMid2 go around the time in
// jsonWorker.qmid.
const (
	k6QuickHead = `{"metric":"`
	k6QuickMid1 = `","type":"Point","data":{"time":"`
	k6QuickMid2 = `","value":`
)

// quickRun reads, from data[pos:], the Point lines that follow one
// another in a k6 run most often: in k6's exact form, of the metric that
// followed the last line's last time, with a time that is the last line's
// or that parseTime reads, a number scanNumber reads that is not
// negative, and ending with a known tail and a newline or the chunk's
// end. A known tail is the last line's (prevTail: the points of one
// request share their time and tags) or, `,"tags":` and `}}` around it,
// a tags object remembered of the metric's layout (wLayout.objs: a
// metric's points repeat their tags iteration after iteration). Matching
// the tail in place finds the line's end, so such a line is read once,
// with no newline search and no second look at its tags. It returns the
// position after the lines it read and line advanced by their number; it
// stops, having done nothing with it, at the first line of another kind
// (the usual way decides).
//
// It does what line, point and check do with such a line: a new time is
// checked and seen as check does, the value needs no check, and the tags'
// values are those of the tail's line (prevVals) or object.
func (w *jsonWorker) quickRun(b *jsonBatch, data []byte, pos int, line int64) (int, int64) {
	id := w.lastID
	if id < 0 {
		return pos, line
	}
	n0 := line
	for pos < len(data) {
		g := w.mNext[id]
		if g < 0 {
			break
		}
		name, rest := w.mNames[g], data[pos:]
		i := len(k6QuickHead) + len(name)
		if i+len(k6QuickMid1)+len(k6QuickMid2) > len(rest) || string(rest[:len(k6QuickHead)]) != k6QuickHead || string(rest[len(k6QuickHead):i]) != name {
			break
		}
		// The time: the last one, or a new one (newTime).
		k := -1
		if len(w.lastTS) > 0 {
			if w.qmidGen != w.tsGen {
				w.makeQmid()
			}
			if j := i + len(w.qmid); j <= len(rest) && string(rest[i:j]) == string(w.qmid) {
				k = j
			}
		}
		var ts []byte
		var ns int64
		var digits int
		if k < 0 {
			if ts, ns, digits, k = w.newTime(rest, i); k < 0 {
				break
			}
		}
		v, k, ok := scanNumber(rest, k)
		if !ok || v < 0 {
			break
		}
		// The tail: the last line's, or an object of the metric's
		// layout (objTail).
		end := k + len(w.prevTail)
		if t := w.prevTail; len(t) == 0 || end > len(rest) || string(rest[k:end]) != string(t) || end < len(rest) && rest[end] != '\n' {
			if end = w.objTail(rest, k, g); end < 0 {
				break
			}
		}
		line++
		if ts != nil {
			w.lastTS = append(w.lastTS[:0], ts...)
			w.lastNS, w.lastDigits = ns, digits
			w.tsGen++
			b.times.see(ns, line)
		}
		id = g
		wl := w.prevTagsL
		if w.mLayout[g] != wl {
			w.mLayout[g] = wl
		}
		if w.mStamp[g] != w.stamp {
			w.first(b, g, name, line)
		}
		if w.lastDigits > b.maxDigits {
			b.maxDigits = w.lastDigits
		}
		if w.sink != nil {
			w.s.Metric, w.s.TimeNS, w.s.Value = name, w.lastNS, v
			w.row.reset(wl.l, w.prevVals, nil, nil)
			w.row.memo = w.prevMemo
			w.sink(&w.s)
			b.n++
		} else {
			b.recs = append(b.recs, jsonRec{metric: name, ts: w.lastNS, val: v, layout: w.batchLayout(b, wl), slow: -1,
				tags: int32(pos + k + len(k6PointTags)), tagsEnd: int32(pos + end - 2), meta: -1, metaEnd: -1})
		}
		pos += end + 1
	}
	if line > n0 {
		w.lastID = id
		w.prev = w.prevTagsL
	}
	return min(pos, len(data)), line
}

// makeQmid makes w.qmid of the last time.
func (w *jsonWorker) makeQmid() {
	w.qmid = append(append(append(w.qmid[:0], k6QuickMid1...), w.lastTS...), k6QuickMid2...)
	w.qmidGen = w.tsGen
}

// newTime reads, for quickRun, the time of a line in k6's exact form
// whose metric name ends at rest[i:]: the time string, its nanoseconds
// and fraction digits (parseTime), and the offset of the value; k < 0
// when the line is not of that form or parseTime refuses the time.
func (w *jsonWorker) newTime(rest []byte, i int) (ts []byte, ns int64, digits, k int) {
	if string(rest[i:i+len(k6QuickMid1)]) != k6QuickMid1 {
		return nil, 0, 0, -1
	}
	t := i + len(k6QuickMid1)
	q := bytes.IndexByte(rest[t:min(len(rest), t+40)], '"')
	if q < 0 {
		return nil, 0, 0, -1
	}
	ts, q = rest[t:t+q], t+q
	if q+len(k6QuickMid2) > len(rest) || string(rest[q:q+len(k6QuickMid2)]) != k6QuickMid2 {
		return nil, 0, 0, -1
	}
	ns, digits, err := w.parseTime(ts)
	if err != nil {
		return nil, 0, 0, -1
	}
	return ts, ns, digits, q + len(k6QuickMid2)
}

// objTail finds, for quickRun, the tail of a line of metric g at rest[k:]
// among the tags objects of the metric's layout: `,"tags":`, the object
// and "}}", then a newline or the end of the chunk. It makes the tail the
// last line's (prevTail and the rest) and returns where it ends, or -1.
func (w *jsonWorker) objTail(rest []byte, k int, g int32) int {
	l := w.mLayout[g]
	o := k + len(k6PointTags)
	if l == nil || o > len(rest) || string(rest[k:o]) != k6PointTags {
		return -1
	}
	for s := range l.objs {
		// An object ends in '}', then the line in "}}".
		lo := &l.objs[s]
		n := len(lo.obj)
		if e := o + n + 2; n > 0 && e <= len(rest) && rest[e-1] == '}' && rest[e-2] == '}' && rest[e-3] == '}' && (e == len(rest) || rest[e] == '\n') && string(rest[o:o+n]) == string(lo.obj) {
			l.tick++
			lo.used = l.tick
			w.prevTail, w.prevTags, w.prevTagsL, w.prevMemo = rest[k:e], rest[o:o+n], l, &lo.memo
			w.prevVals = append(w.prevVals[:0], lo.vals...)
			return e
		}
	}
	return -1
}

// scanFront scans, into w.pf, the fixed front of a Point line in k6's
// exact form: its metric, time and value, up to the end of the value,
// whose offset it returns.
func (w *jsonWorker) scanFront(b []byte) (int, bool) {
	pf := &w.pf
	*pf = pointFields{mid: -1, tags: -1, meta: -1}
	if !atHead(b) {
		return 0, false
	}
	var ok bool
	i := len(k6PointHead)
	if pf.metric, i, ok = w.scanMetric(b, i); !ok || len(pf.metric) == 0 || !atType(b, i) {
		return i, false
	}
	i += len(k6PointType)
	pf.timeCol = i
	if i, ok = w.scanTime(b, i); !ok || !atValue(b, i) {
		return i, false
	}
	i += len(k6PointValue)
	pf.valueCol = i
	if pf.value, i, ok = scanNumber(b, i); !ok {
		return i, false
	}
	pf.valueEnd = i
	return i, true
}

// pointDone finishes a scanned point: its metric and layout.
func (w *jsonWorker) pointDone() {
	pf := &w.pf
	if pf.wl == nil {
		pf.wl = w.empty
	}
	pf.name = w.metricName(pf)
	if pf.mid >= 0 {
		w.mLayout[pf.mid] = pf.wl
	}
	w.prev = pf.wl
}

// scanTime scans the time string; the points of a request share their
// time, so the previous one is compared first.
func (w *jsonWorker) scanTime(b []byte, i int) (int, bool) {
	if t := w.lastTS; len(t) > 0 && i+len(t)+2 <= len(b) && b[i] == '"' && b[i+1+len(t)] == '"' && string(b[i+1:i+1+len(t)]) == string(t) {
		w.pf.time, w.pf.sameTS = b[i+1:i+1+len(t)], true
		return i + len(t) + 2, true
	}
	var ok bool
	w.pf.time, i, ok = scanString(b, i)
	return i, ok
}

// parse parses the lines of a batch.
func (w *jsonWorker) parse(b *jsonBatch) {
	w.stamp++
	w.prevTags = nil // it points into the last chunk
	// The time of the worker's last point is of another chunk: the
	// chunk's first time is parsed, and so seen by b.times.
	w.lastTS = w.lastTS[:0]
	if w.bsink != nil {
		w.bsink.begin(b.seq)
		b.begun = true
		defer func() {
			var res resolution
			if b.maxDigits >= 0 {
				res.fracNS = digitsResolution(b.maxDigits)
			}
			w.bsink.end(b.seq, res)
		}()
	}
	data := b.raw.data
	var line int64
	w.prevTail = nil
	for pos := 0; pos < len(data); {
		if !w.full {
			if pos, line = w.quickRun(b, data, pos, line); pos >= len(data) {
				break
			}
		}
		rest := data[pos:]
		var ln []byte
		if nl := bytes.IndexByte(rest, '\n'); nl < 0 {
			ln, pos = rest, len(data)
		} else {
			ln, pos = rest[:nl], pos+nl+1
		}
		line++
		off := len(data) - len(rest)
		n := len(ln)
		for n > 0 && (ln[n-1] == ' ' || ln[n-1] == '\t' || ln[n-1] == '\r') {
			n--
		}
		ln = ln[:n]
		if n == 0 || ln[0] != '{' && len(bytes.TrimLeft(ln, " \t")) == 0 {
			continue
		}
		w.line(b, ln, off, line)
	}
	b.lines = line
	b.cutLast = b.raw.final && cutLast(data, b.errs, line)
}

// line handles one non-blank line at byte off of the chunk.
func (w *jsonWorker) line(b *jsonBatch, ln []byte, off int, lineNo int64) {
	w.prevTail = nil // scanK6 sets it again
	if !w.full && w.scanK6(ln) || w.scanPoint(ln) {
		w.point(b, ln, off, lineNo)
		return
	}
	w.slowLine(b, ln, lineNo)
}

// point handles the point just scanned (w.pf) of line ln at byte off of
// the chunk.
func (w *jsonWorker) point(b *jsonBatch, ln []byte, off int, lineNo int64) {
	pf := &w.pf
	name := pf.name
	if serr := w.check(&b.times, ln, lineNo, name, pf.time, pf.sameTS, pf.timeCol, pf.value, pf.valueCol, pf.valueEnd); serr != nil {
		b.errs = append(b.errs, serr)
		return
	}
	w.first(b, pf.mid, name, lineNo)
	if w.lastDigits > b.maxDigits {
		b.maxDigits = w.lastDigits
	}
	var meta []byte
	if pf.meta >= 0 {
		meta = ln[pf.meta:pf.metaEnd]
	}
	if w.sink != nil {
		w.s.Metric, w.s.TimeNS, w.s.Value = name, w.lastNS, pf.value
		w.row.reset(pf.wl.l, w.tv, nil, meta)
		if !w.full {
			w.row.memo = pf.memo
		}
		w.sink(&w.s)
		b.n++
		return
	}
	r := jsonRec{metric: name, ts: w.lastNS, val: pf.value, layout: w.batchLayout(b, pf.wl), slow: -1, meta: -1, metaEnd: -1}
	if pf.tags >= 0 {
		r.tags, r.tagsEnd = int32(off+pf.tags), int32(off+pf.tagsEnd)
	}
	if pf.meta >= 0 {
		r.meta, r.metaEnd = int32(off+pf.meta), int32(off+pf.metaEnd)
	}
	b.recs = append(b.recs, r)
}

// check validates a point's time and value and makes the time current
// (w.lastNS, w.lastDigits; cached: the points of one request share it);
// o follows the batch's times.
func (w *jsonWorker) check(o *timeOrder, ln []byte, lineNo int64, metric string, ts []byte, sameTS bool, timeCol int, v float64, valueCol, valueEnd int) *SyntaxError {
	if !sameTS && (len(w.lastTS) == 0 || !bytes.Equal(ts, w.lastTS)) {
		ns, digits, err := w.parseTime(ts)
		if err != nil {
			return &SyntaxError{File: w.j.name, Line: lineNo, Column: timeCol + 1, Msg: err.Error()}
		}
		w.lastTS = append(w.lastTS[:0], ts...)
		w.lastNS, w.lastDigits = ns, digits
		w.tsGen++
		o.see(ns, lineNo)
	}
	if v < 0 {
		if msg := checkValue(metric, v); msg != "" {
			text := strconv.FormatFloat(v, 'g', -1, 64)
			if valueCol >= 0 && valueEnd > valueCol {
				text = string(ln[valueCol:valueEnd])
			}
			return &SyntaxError{File: w.j.name, Line: lineNo, Column: valueCol + 1, Msg: fmt.Sprintf("value %s: %s", truncBytes([]byte(text)), msg)}
		}
	}
	return nil
}

// first notes the first point of a metric in the batch, for the warning
// about points of undeclared metrics.
func (w *jsonWorker) first(b *jsonBatch, mid int32, name string, lineNo int64) {
	if mid >= 0 {
		if w.mStamp[mid] == w.stamp {
			return
		}
		w.mStamp[mid] = w.stamp
	} else if len(b.firsts) >= 64 {
		return // unbounded metric names: a few warnings are enough
	}
	declared := false
	for _, d := range b.declared {
		if d.name == name {
			declared = true
		}
	}
	b.firsts = append(b.firsts, jsonFirst{metric: name, line: lineNo, declared: declared})
}

// batchLayout returns the index of wl's layout in the batch's table.
func (w *jsonWorker) batchLayout(b *jsonBatch, wl *wLayout) int32 {
	if wl.stamp != w.stamp {
		wl.stamp, wl.bidx = w.stamp, int32(len(b.layouts))
		b.layouts = append(b.layouts, wl.l)
	}
	return wl.bidx
}

// metricName returns the interned name of the point's metric and sets
// pf.mid, guessing from the metric that followed the previous one last
// time.
func (w *jsonWorker) metricName(pf *pointFields) string {
	if pf.mid >= 0 {
		return w.mNames[pf.mid]
	}
	mf := pf.metric
	if w.lastID >= 0 {
		if g := w.mNext[w.lastID]; g >= 0 && string(mf) == w.mNames[g] {
			w.lastID, pf.mid = g, g
			return w.mNames[g]
		}
	}
	id, ok := w.mIDs[string(mf)]
	if !ok {
		if len(w.mNames) >= maxInterned {
			// Unbounded metric names: no more ids, no guessing.
			return w.names.intern(mf)
		}
		id = int32(len(w.mNames))
		name := w.names.intern(mf)
		w.mNames = append(w.mNames, name)
		w.mNext = append(w.mNext, -1)
		w.mLayout = append(w.mLayout, nil)
		w.mStamp = append(w.mStamp, 0)
		w.mIDs[name] = id
	}
	if w.lastID >= 0 {
		w.mNext[w.lastID] = id
	}
	w.lastID, pf.mid = id, id
	return w.mNames[id]
}

// ---- the fast scanner ----

// scanPoint scans a line of the shape k6 writes for a Point (keys in any
// order: metric, type, data{time, value, tags, metadata}; strings without
// escapes). It reports false for anything else, including Metric lines and
// malformed lines; those go to slowLine.
func (w *jsonWorker) scanPoint(b []byte) bool {
	pf := &w.pf
	*pf = pointFields{mid: -1, tags: -1, meta: -1}
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipWS(b, i+1)
	var seenMetric, seenType, seenData bool
	for {
		k, n, ok := scanString(b, i)
		if !ok {
			return false
		}
		i = skipWS(b, n)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipWS(b, i+1)
		switch string(k) {
		case "metric":
			if seenMetric {
				return false
			}
			seenMetric = true
			if pf.metric, i, ok = w.scanMetric(b, i); !ok {
				return false
			}
		case "type":
			if seenType {
				return false
			}
			seenType = true
			if i+7 > len(b) || string(b[i:i+7]) != `"Point"` {
				return false
			}
			i += 7
		case "data":
			if seenData {
				return false
			}
			seenData = true
			if i, ok = w.scanData(b, i); !ok {
				return false
			}
		default:
			return false
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			break
		}
		if b[i] != ',' {
			return false
		}
		i = skipWS(b, i+1)
	}
	if skipWS(b, i+1) != len(b) {
		return false
	}
	if !(seenMetric && seenType && seenData && len(pf.metric) > 0 && pf.time != nil) {
		return false
	}
	w.pointDone()
	return true
}

// scanMetric scans the metric name string; when it is the name that
// followed the previous line's metric last time, the comparison is the
// whole scan.
func (w *jsonWorker) scanMetric(b []byte, i int) ([]byte, int, bool) {
	if w.lastID >= 0 && i < len(b) && b[i] == '"' {
		if g := w.mNext[w.lastID]; g >= 0 {
			name := w.mNames[g]
			if e := i + 1 + len(name); e < len(b) && b[e] == '"' && string(b[i+1:e]) == name {
				w.lastID, w.pf.mid = g, g
				return b[i+1 : e], e + 1, true
			}
		}
	}
	return scanString(b, i)
}

func (w *jsonWorker) scanData(b []byte, i int) (int, bool) {
	pf := &w.pf
	if i >= len(b) || b[i] != '{' {
		return i, false
	}
	i = skipWS(b, i+1)
	var seenTime, seenValue, seenTags, seenMeta bool
	if i < len(b) && b[i] == '}' {
		return i, false
	}
	for {
		k, n, ok := scanString(b, i)
		if !ok {
			return i, false
		}
		i = skipWS(b, n)
		if i >= len(b) || b[i] != ':' {
			return i, false
		}
		i = skipWS(b, i+1)
		switch string(k) {
		case "time":
			if seenTime {
				return i, false
			}
			seenTime = true
			pf.timeCol = i
			if i, ok = w.scanTime(b, i); !ok {
				return i, false
			}
		case "value":
			if seenValue {
				return i, false
			}
			seenValue = true
			pf.valueCol = i
			if pf.value, i, ok = scanNumber(b, i); !ok {
				return i, false
			}
			pf.valueEnd = i
		case "tags":
			if seenTags {
				return i, false
			}
			seenTags = true
			pf.tags = i
			if i, ok = w.scanTags(b, i); !ok {
				return i, false
			}
			pf.tagsEnd = i
		case "metadata":
			if seenMeta {
				return i, false
			}
			seenMeta = true
			pf.meta = i
			if w.mk, w.mv, i, ok = scanStringMap(b, i, w.mk[:0], w.mv[:0]); !ok {
				return i, false
			}
			pf.metaEnd = i
		default:
			return i, false
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return i, false
		}
		if b[i] == '}' {
			return i + 1, seenTime && seenValue
		}
		if b[i] != ',' {
			return i, false
		}
		i = skipWS(b, i+1)
	}
}

// scanTags scans null or the tags object at b[i:] into w.tk, w.tv and finds
// its layout (w.pf.wl). The guess is the layout of the metric's last point
// (or of the previous line): while the line's keys follow it, a key is one
// comparison, and a value equal to the last one at its position too.
func (w *jsonWorker) scanTags(b []byte, i int) (int, bool) {
	pf := &w.pf
	// w.tv may be prevVals (the last line was a repeat): the scan appends
	// to its own buffer, tvBuf, so that prevVals stays whole.
	w.tk, w.tv = w.tk[:0], w.tvBuf[:0]
	if i+4 <= len(b) && string(b[i:i+4]) == "null" {
		pf.wl = w.empty
		return i + 4, true
	}
	if i >= len(b) || b[i] != '{' {
		return i, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		pf.wl = w.empty
		return i + 1, true
	}
	start := i - 1
	if t := w.prevTags; len(t) > 0 && !w.full && start+len(t) <= len(b) && string(b[start:start+len(t)]) == string(t) {
		// The same object as the last one scanned (the points of one
		// request share their tags): same layout, same values.
		w.tv = w.prevVals
		pf.wl, pf.memo = w.prevTagsL, w.prevMemo
		return start + len(t), true
	}
	guess := w.prev
	if pf.mid >= 0 && w.mLayout[pf.mid] != nil {
		guess = w.mLayout[pf.mid]
	}
	if w.full {
		guess = nil
	}
	if guess != nil {
		if lo := guess.find(b, start); lo != nil {
			// An object the metric's layout remembers (a metric's
			// points repeat their tags request after request).
			end := start + len(lo.obj)
			w.tv, pf.wl, pf.memo = lo.vals, guess, &lo.memo
			w.keepTags(b[start:end])
			return end, true
		}
	}
	var keys []string
	if guess != nil {
		keys = guess.l.keys
	}
	hit := guess != nil
	for p := 0; ; p++ {
		// The key.
		var k []byte
		if hit && p < len(keys) {
			key := keys[p]
			if e := i + 1 + len(key); e+1 < len(b) && b[i] == '"' && b[e] == '"' && b[e+1] == ':' && string(b[i+1:e]) == key {
				k, i = b[i+1:e], e+2
			} else {
				hit = false
			}
		} else {
			hit = false
		}
		if k == nil {
			var n int
			var ok bool
			if k, n, ok = scanString(b, i); !ok {
				return i, false
			}
			i = skipWS(b, n)
			if i >= len(b) || b[i] != ':' {
				return i, false
			}
			i++
		}
		i = skipWS(b, i)
		// The value.
		var v []byte
		if hit {
			last := guess.last[p]
			if e := i + 1 + len(last); e < len(b) && b[i] == '"' && b[e] == '"' && string(b[i+1:e]) == string(last) {
				v, i = b[i+1:e], e+1
			}
		}
		if v == nil {
			var ok bool
			if v, i, ok = scanString(b, i); !ok {
				return i, false
			}
			if hit {
				guess.last[p] = append(guess.last[p][:0], v...)
			}
		}
		w.tk, w.tv = append(w.tk, k), append(w.tv, v)
		i = skipWS(b, i)
		if i >= len(b) {
			return i, false
		}
		if b[i] == '}' {
			i++
			break
		}
		if b[i] != ',' {
			return i, false
		}
		i = skipWS(b, i+1)
	}
	w.tvBuf = w.tv
	if hit && len(w.tk) == len(keys) {
		pf.wl = guess
	} else if pf.wl = w.layoutOf(w.tk); pf.wl == nil {
		return i, false // a duplicate key: encoding/json decides
	}
	if i-start <= maxObj {
		w.keepTags(b[start:i])
		pf.memo = pf.wl.remember(b[start:i], w.tv)
		w.prevMemo = pf.memo
	} else {
		w.prevTags = nil
	}
	return i, true
}

// keepTags makes obj, the tags object just scanned (in the chunk being
// parsed: parse resets it), with its values w.tv and layout w.pf.wl, the
// one a byte-identical next object repeats.
func (w *jsonWorker) keepTags(obj []byte) {
	w.prevTags = obj
	w.prevVals = append(w.prevVals[:0], w.tv...)
	w.prevTagsL, w.prevMemo = w.pf.wl, w.pf.memo
}

// find returns the object of wl.objs that b holds from i on, or nil.
func (wl *wLayout) find(b []byte, i int) *layoutObj {
	for s := range wl.objs {
		lo := &wl.objs[s]
		if n := len(lo.obj); n > 0 && i+n <= len(b) && b[i+n-1] == '}' && string(b[i:i+n]) == string(lo.obj) {
			wl.tick++
			lo.used = wl.tick
			return lo
		}
	}
	return nil
}

// remember copies obj, a tags object of the layout whose values vals are,
// into wl.objs (in place of the least recently used, unless it is there
// already), with its values as slices of the copy, and returns the
// object's memo; when a value is not a slice of obj (a string with
// escapes, decoded), the slot stays empty and the memo is nil.
//
// The slot's old bytes may be those of prevVals, and its memo prevMemo:
// remember is called after keepTags has replaced them, and its caller
// sets prevMemo again.
func (wl *wLayout) remember(obj []byte, vals [][]byte) *tagsMemo {
	k := 0
	for s := range wl.objs {
		if string(wl.objs[s].obj) == string(obj) {
			k = s
			break
		}
		if wl.objs[s].used < wl.objs[k].used {
			k = s
		}
	}
	lo := &wl.objs[k]
	wl.tick++
	if string(lo.obj) != string(obj) {
		lo.memo.clear(len(vals))
	}
	lo.obj, lo.vals, lo.used = append(lo.obj[:0], obj...), lo.vals[:0], wl.tick
	base := uintptr(unsafe.Pointer(unsafe.SliceData(obj)))
	for _, v := range vals {
		if len(v) == 0 {
			lo.vals = append(lo.vals, nil)
			continue
		}
		off := uintptr(unsafe.Pointer(unsafe.SliceData(v))) - base
		if off >= uintptr(len(obj)) || off+uintptr(len(v)) > uintptr(len(obj)) {
			lo.obj, lo.used = lo.obj[:0], 0
			lo.memo.clear(0)
			return nil
		}
		lo.vals = append(lo.vals, lo.obj[off:off+uintptr(len(v)):off+uintptr(len(v))])
	}
	return &lo.memo
}

// layoutOf returns the worker's layout of keys, making it on first use;
// nil when keys repeat.
func (w *jsonWorker) layoutOf(keys [][]byte) *wLayout {
	w.lkey = layoutKey(w.lkey, keys)
	if wl, ok := w.layouts[string(w.lkey)]; ok {
		return wl
	}
	strs := make([]string, len(keys))
	for i, k := range keys {
		strs[i] = w.names.intern(k)
	}
	l := newLayout(strs)
	if l == nil {
		return nil
	}
	wl := &wLayout{l: l, last: make([][]byte, len(strs))}
	if len(w.layouts) < maxInterned {
		w.layouts[string(w.lkey)] = wl
	}
	return wl
}

// scanStringMap scans null or an object of string values.
func scanStringMap(b []byte, i int, ks, vs [][]byte) ([][]byte, [][]byte, int, bool) {
	if bytes.HasPrefix(b[i:], []byte("null")) {
		return ks, vs, i + 4, true
	}
	if i >= len(b) || b[i] != '{' {
		return ks, vs, i, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return ks, vs, i + 1, true
	}
	for {
		k, n, ok := scanString(b, i)
		if !ok {
			return ks, vs, i, false
		}
		i = skipWS(b, n)
		if i >= len(b) || b[i] != ':' {
			return ks, vs, i, false
		}
		i = skipWS(b, i+1)
		v, n, ok := scanString(b, i)
		if !ok {
			return ks, vs, i, false
		}
		ks, vs = append(ks, k), append(vs, v)
		i = skipWS(b, n)
		if i >= len(b) {
			return ks, vs, i, false
		}
		if b[i] == '}' {
			return ks, vs, i + 1, true
		}
		if b[i] != ',' {
			return ks, vs, i, false
		}
		i = skipWS(b, i+1)
	}
}

func skipWS(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		return i // k6 writes no whitespace: one compare
	}
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// scanString scans a JSON string with no escapes and returns its contents
// and the index after the closing quote. It fails on escapes, control
// characters and invalid UTF-8 (encoding/json then decides).
func scanString(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, i, false
	}
	start := i + 1
	ascii := true
	k := start
	// Eight bytes at a time while none is a quote, a backslash, a control
	// character or non-ASCII (a word with one goes byte by byte).
	for ; k+8 <= len(b); k += 8 {
		x := binary.LittleEndian.Uint64(b[k:])
		if specialBytes(x) != 0 {
			break
		}
	}
	for ; k < len(b); k++ {
		ch := b[k]
		switch {
		case ch == '"':
			s := b[start:k]
			if !ascii && !utf8.Valid(s) {
				return nil, i, false
			}
			return s, k + 1, true
		case ch == '\\' || ch < 0x20:
			return nil, i, false
		case ch >= 0x80:
			ascii = false
		}
	}
	return nil, i, false
}

// specialBytes is non-zero when a byte of the eight in x (little-endian)
// is '"', '\\', below 0x20 or 0x80 and above: the bytes a JSON string scan
// must look at. (A zero-byte test (v−0x01…)&^v&0x80… is exact for the
// lowest flagged byte; bytes of 0x80 and above are flagged by their top
// bit.)
func specialBytes(x uint64) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	q := x ^ (lo * '"')
	bs := x ^ (lo * '\\')
	return ((q-lo)&^q | (bs-lo)&^bs | (x - lo*0x20) | x) & hi
}

// scanNumber scans a JSON number (RFC 8259 grammar) and returns its value
// as strconv.ParseFloat (and so encoding/json) rounds it. A number of at
// most 15 digits without an exponent is converted directly (an integer
// below 2^53 divided by an exact power of ten is correctly rounded, as
// strconv rounds it); others go to strconv.
func scanNumber(b []byte, i int) (float64, int, bool) {
	if i+16 <= len(b) {
		// k6's usual shape, 1–7 integer digits and 0 or 1–7 decimals,
		// a word at a time (the loop below computes the same); first
		// a digit alone before the line goes on (counts: 0 and 1).
		if d := b[i] - '0'; d <= 9 && (b[i+1] == ',' || b[i+1] == '}') {
			return float64(d), i + 1, true
		}
		x := binary.LittleEndian.Uint64(b[i:])
		if n := digitRun(x); n > 0 && n < 8 && (n == 1 || b[i] != '0') {
			mant := leadDigits(x, n)
			j := i + n
			switch b[j] {
			case 'e', 'E':
			case '.':
				y := binary.LittleEndian.Uint64(b[j+1:])
				if m := digitRun(y); m > 0 && m < 8 {
					if e := j + 1 + m; b[e] != 'e' && b[e] != 'E' {
						return float64(mant*pow10u[m]+leadDigits(y, m)) / pow10[m], e, true
					}
				}
			default:
				return float64(mant), j, true
			}
		}
	}
	start := i
	neg := false
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	var mant uint64
	digits := 0
	switch {
	case i >= len(b):
		return 0, i, false
	case b[i] == '0':
		i++
		digits = 1
	case b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			mant = mant*10 + uint64(b[i]-'0')
			digits++
			i++
		}
	default:
		return 0, i, false
	}
	frac := 0
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			mant = mant*10 + uint64(b[i]-'0')
			digits++
			i++
		}
		if i == d {
			return 0, i, false
		}
		frac = i - d
	}
	exp := false
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		exp = true
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return 0, i, false
		}
	}
	if !exp && digits <= 15 {
		v := float64(mant)
		if frac > 0 {
			v /= pow10[frac]
		}
		if neg {
			v = -v
		}
		return v, i, true
	}
	num := b[start:i]
	v, err := strconv.ParseFloat(unsafe.String(&num[0], len(num)), 64)
	if err != nil {
		return 0, i, false
	}
	return v, i, true
}

// pow10u holds the powers of ten that leadDigits' numbers take, and
// those that scale a time's fraction to nanoseconds.
var pow10u = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

// digitRun returns how many of the eight bytes of x (little-endian: its
// first byte the lowest) are ASCII digits before the first that is not,
// 0–8. A byte of 0xFA or more carries into the next one in the second
// term, but it is itself not a digit, and only the bytes from the first
// flagged one up are changed.
func digitRun(x uint64) int {
	const f0, zeros = 0xF0F0F0F0F0F0F0F0, 0x3030303030303030
	t := (x&f0 ^ zeros) | ((x+0x0606060606060606)&f0 ^ zeros)
	return bits.TrailingZeros64(t) >> 3
}

// leadDigits returns the number that the first n (0–8) bytes of x, ASCII
// digits, spell: they are moved to the top of the word, below them zeros.
func leadDigits(x uint64, n int) uint64 {
	const zeros = 0x3030303030303030
	return eightDigits(x<<(64-8*uint(n)) | zeros>>(8*uint(n)))
}

// ---- the encoding/json path ----

type jsonEnvelope struct {
	Type   *string         `json:"type"`
	Metric string          `json:"metric"`
	Data   json.RawMessage `json:"data"`
}

type jsonPointData struct {
	Time     *string           `json:"time"`
	Value    *float64          `json:"value"`
	Tags     map[string]string `json:"tags"`
	Metadata map[string]string `json:"metadata"`
}

type jsonMetricData struct {
	Name       string            `json:"name"`
	Type       string            `json:"type"`
	Contains   string            `json:"contains"`
	Thresholds []json.RawMessage `json:"thresholds"`
	Submetrics []struct {
		Name string `json:"name"`
	} `json:"submetrics"`
}

// slowLine decodes a line with encoding/json: a Point becomes a sample, a
// Metric a declaration of the batch, anything else an error.
func (w *jsonWorker) slowLine(b *jsonBatch, line []byte, lineNo int64) {
	bad := func(col int, format string, a ...any) {
		b.errs = append(b.errs, &SyntaxError{File: w.j.name, Line: lineNo, Column: col, Msg: fmt.Sprintf(format, a...)})
	}
	var env jsonEnvelope
	if err := json.Unmarshal(line, &env); err != nil {
		col, msg := jsonErrorColumn(err, line, 0)
		bad(col, "invalid JSON (%s): want one k6 JSON output object per line", msg)
		return
	}
	if env.Type == nil {
		bad(0, `no "type": want a k6 JSON output line with "type":"Point" or "type":"Metric"`)
		return
	}
	switch *env.Type {
	case "Metric":
		var d jsonMetricData
		if len(env.Data) == 0 || string(env.Data) == "null" {
			bad(keyColumn(line, "type"), `Metric line without "data"`)
			return
		}
		if err := json.Unmarshal(env.Data, &d); err != nil {
			col, msg := jsonErrorColumn(err, line, max(valueColumn(line, "data")-1, 0))
			bad(col, "Metric data: %s", msg)
			return
		}
		name := env.Metric
		if name == "" {
			name = d.Name
		}
		if name == "" {
			bad(keyColumn(line, "data"), "Metric line without a metric name")
			return
		}
		mi := MetricInfo{Type: d.Type, Contains: d.Contains, Line: lineNo}
		for _, t := range d.Thresholds {
			var s string
			if json.Unmarshal(t, &s) == nil {
				mi.Thresholds = append(mi.Thresholds, s)
				continue
			}
			var o struct {
				Threshold string `json:"threshold"`
			}
			if json.Unmarshal(t, &o) == nil && o.Threshold != "" {
				mi.Thresholds = append(mi.Thresholds, o.Threshold)
			}
		}
		for _, s := range d.Submetrics {
			mi.Submetrics = append(mi.Submetrics, s.Name)
		}
		b.declared = append(b.declared, jsonDeclared{name: name, info: mi})
		return
	case "Point":
	default:
		bad(keyColumn(line, "type"), "unknown line type %q: want \"Point\" or \"Metric\"", *env.Type)
		return
	}
	if env.Metric == "" {
		bad(0, `Point without a "metric" name`)
		return
	}
	if len(env.Data) == 0 || string(env.Data) == "null" {
		bad(0, `Point without "data": want {"time":…,"value":…,"tags":{…}}`)
		return
	}
	var d jsonPointData
	if err := json.Unmarshal(env.Data, &d); err != nil {
		col, msg := jsonErrorColumn(err, line, max(valueColumn(line, "data")-1, 0))
		bad(col, "Point data: %s", msg)
		return
	}
	if d.Time == nil {
		bad(keyColumn(line, "data"), `Point without data.time: want an RFC 3339 time`)
		return
	}
	if d.Value == nil {
		bad(keyColumn(line, "data"), `Point without data.value: want a number`)
		return
	}
	pf := pointFields{metric: []byte(env.Metric), mid: -1}
	name := w.metricName(&pf)
	vcol := valueColumn(line, "value") - 1
	if serr := w.check(&b.times, line, lineNo, name, []byte(*d.Time), false, valueColumn(line, "time")-1, *d.Value, vcol, -1); serr != nil {
		b.errs = append(b.errs, serr)
		return
	}
	w.first(b, pf.mid, name, lineNo)
	if w.lastDigits > b.maxDigits {
		b.maxDigits = w.lastDigits
	}
	w.sortKeys = append(w.sortKeys[:0], sortedKeys(d.Tags)...)
	w.tk = w.tk[:0]
	vals := make([][]byte, len(w.sortKeys))
	for i, k := range w.sortKeys {
		w.tk = append(w.tk, []byte(k))
		vals[i] = []byte(d.Tags[k])
	}
	wl := w.layoutOf(w.tk)
	var meta []byte
	for _, k := range sortedKeys(d.Metadata) {
		meta = appendPair(meta, []byte(k), []byte(d.Metadata[k]))
	}
	if w.sink != nil {
		w.s.Metric, w.s.TimeNS, w.s.Value = name, w.lastNS, *d.Value
		w.row.resetSlow(wl.l, vals, string(meta))
		w.sink(&w.s)
		b.n++
		return
	}
	b.slow = append(b.slow, jsonSlow{vals: vals, meta: string(meta)})
	b.recs = append(b.recs, jsonRec{metric: name, ts: w.lastNS, val: *d.Value, layout: w.batchLayout(b, wl), slow: int32(len(b.slow) - 1)})
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func appendPair(dst, k, v []byte) []byte {
	if len(dst) > 0 {
		dst = append(dst, '&')
	}
	dst = append(dst, k...)
	dst = append(dst, '=')
	return append(dst, v...)
}

// truncBytes quotes at most 40 bytes of b for a message.
func truncBytes(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// jsonErrorColumn returns the 1-based column of an encoding/json error in
// line, for a value that starts after base bytes of the line, and a message
// without Go type names where possible.
func jsonErrorColumn(err error, line []byte, base int) (int, string) {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		col := base + int(se.Offset)
		if col > len(line) {
			col = len(line)
		}
		if col < 1 {
			col = 1
		}
		if base+int(se.Offset) >= len(line) {
			return col, "line ends inside a JSON value"
		}
		return col, se.Error()
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		col := base + int(te.Offset)
		if col < 1 || col > len(line) {
			col = 0
		}
		kind := te.Type.Kind().String()
		if num, ok := strings.CutPrefix(te.Value, "number "); ok && kind == "float64" {
			// A number too large for a float64; Offset is just after it.
			if col > len(num) {
				col -= len(num) - 1
			}
			return col, fmt.Sprintf("%s %s: want a finite number", fieldName(te.Field), num)
		}
		if (te.Field == "tags" || te.Field == "metadata") && kind == "string" {
			return col, fmt.Sprintf("%s holds a JSON %s, want string values", te.Field, te.Value)
		}
		return col, fmt.Sprintf("%s is a JSON %s, want %s", fieldName(te.Field), te.Value, jsonKind(kind))
	}
	return 0, err.Error()
}

func fieldName(f string) string {
	if f == "" {
		return "the value"
	}
	return f
}

func jsonKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "float64":
		return "a number"
	case "map", "struct":
		return "an object"
	case "slice":
		return "an array"
	}
	return k
}

// keyColumn returns the 1-based column of the first `"key"` in line, or 0.
func keyColumn(line []byte, key string) int {
	if key == "" {
		return 0
	}
	if i := bytes.Index(line, []byte(`"`+key+`"`)); i >= 0 {
		return i + 1
	}
	return 0
}

// valueColumn returns the 1-based column of the value after the first
// `"key":` in line, or 0.
func valueColumn(line []byte, key string) int {
	c := keyColumn(line, key)
	if c == 0 {
		return 0
	}
	i := skipWS(line, c-1+len(key)+2)
	if i >= len(line) || line[i] != ':' {
		return c
	}
	return skipWS(line, i+1) + 1
}

// ---- time ----

// parseJSONTime parses a k6 JSON time (Go's time.Time JSON form: RFC 3339
// with 0–9 fraction digits and a zone offset) into nanoseconds since the
// epoch, and returns the number of fraction digits. The common shape is
// parsed by hand; anything else goes to time.Parse.
func parseJSONTime(b []byte) (ns int64, digits int, err error) {
	if ns, digits, ok := fastRFC3339(b); ok {
		if ns < MinTimeNS || ns > MaxTimeNS {
			return 0, 0, fmt.Errorf("time %q: %s", truncBytes(b), checkYear(time.Unix(0, ns)))
		}
		return ns, digits, nil
	}
	if len(b) == 0 {
		return 0, 0, errors.New(`empty time: want RFC 3339, e.g. "2006-01-02T15:04:05.999999999Z07:00"`)
	}
	t, perr := time.Parse(time.RFC3339Nano, string(b))
	if perr != nil {
		return 0, 0, fmt.Errorf("time %q: want RFC 3339, e.g. \"2006-01-02T15:04:05.999999999Z07:00\"", truncBytes(b))
	}
	if msg := checkYear(t); msg != "" {
		return 0, 0, fmt.Errorf("time %q: %s", truncBytes(b), msg)
	}
	if dot := bytes.IndexAny(b, ".,"); dot >= 0 {
		k := dot + 1
		for k < len(b) && b[k] >= '0' && b[k] <= '9' {
			k++
		}
		digits = min(k-dot-1, 9)
	}
	return t.UnixNano(), digits, nil
}

// parseTime is parseJSONTime with the worker's minute cache: a time in
// the same minute as the last one parsed has only its seconds, fraction
// and zone parsed.
func (w *jsonWorker) parseTime(b []byte) (ns int64, digits int, err error) {
	base, ok := w.minuteBase, w.minuteOK && len(b) >= 20 && string(b[:17]) == string(w.minute[:])
	if !ok {
		if base, ok = rfc3339Minute(b); ok {
			copy(w.minute[:], b[:17])
			w.minuteBase, w.minuteOK = base, true
		}
	}
	if ok {
		if ns, digits, ok := rfc3339Rest(b, base); ok && ns >= MinTimeNS && ns <= MaxTimeNS {
			return ns, digits, nil
		}
	}
	return parseJSONTime(b) // not the fast form, or out of range: its error
}

// fastRFC3339 parses exactly YYYY-MM-DDTHH:MM:SS[.F{1,9}](Z|±HH:MM) with
// valid ranges and a year in 1678–2261; ok is false for anything else.
func fastRFC3339(b []byte) (ns int64, digits int, ok bool) {
	base, ok := rfc3339Minute(b)
	if !ok {
		return 0, 0, false
	}
	return rfc3339Rest(b, base)
}

// rfc3339Minute parses the first 17 bytes of a fastRFC3339 time,
// "YYYY-MM-DDTHH:MM:", into the seconds from the epoch to that minute in
// the time's own zone; ok is false when they are not a valid date and
// time of day (or b is shorter than 20 bytes).
func rfc3339Minute(b []byte) (base int64, ok bool) {
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	year, ok1 := digitsValue(b[0:4])
	month, ok2 := digitsValue(b[5:7])
	day, ok3 := digitsValue(b[8:10])
	hour, ok4 := digitsValue(b[11:13])
	minute, ok5 := digitsValue(b[14:16])
	if !(ok1 && ok2 && ok3 && ok4 && ok5) {
		return 0, false
	}
	if year < 1678 || year > 2261 || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 {
		return 0, false
	}
	return daysFromCivil(year, month, day)*86400 + hour*3600 + minute*60, true
}

// rfc3339Rest parses the rest of a fastRFC3339 time b from byte 17, the
// seconds, fraction and zone, given base, rfc3339Minute of b[:17]: the
// time in ns since the epoch and the fraction's digits.
func rfc3339Rest(b []byte, base int64) (ns int64, digits int, ok bool) {
	sec, okS := digitsValue(b[17:19])
	if !okS || sec > 59 {
		return 0, 0, false
	}
	i := 19
	var frac int64
	if b[i] == '.' {
		i++
		s := i
		if i+8 <= len(b) {
			// Eight digits at a time (the loop computes the same).
			x := binary.LittleEndian.Uint64(b[i:])
			n := digitRun(x)
			frac, i = int64(leadDigits(x, n)), i+n
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			frac = frac*10 + int64(b[i]-'0')
			i++
		}
		digits = i - s
		if digits == 0 || digits > 9 {
			return 0, 0, false
		}
		frac *= int64(pow10u[9-digits])
	}
	if i >= len(b) {
		return 0, 0, false
	}
	var off int64
	switch b[i] {
	case 'Z':
		i++
	case '+', '-':
		if len(b)-i != 6 || b[i+3] != ':' {
			return 0, 0, false
		}
		oh, okh := digitsValue(b[i+1 : i+3])
		om, okm := digitsValue(b[i+4 : i+6])
		if !okh || !okm || oh > 23 || om > 59 {
			return 0, 0, false
		}
		off = oh*3600 + om*60
		if b[i] == '-' {
			off = -off
		}
		i += 6
	default:
		return 0, 0, false
	}
	if i != len(b) {
		return 0, 0, false
	}
	return (base+sec-off)*1e9 + frac, digits, true
}

// digitsValue is the decimal value of s, ok when s is all ASCII digits.
func digitsValue(s []byte) (int64, bool) {
	var v int64
	for _, ch := range s {
		if ch < '0' || ch > '9' {
			return 0, false
		}
		v = v*10 + int64(ch-'0')
	}
	return v, true
}

func daysIn(month, year int64) int64 {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian
// date (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := m - 3
	if m <= 2 {
		mp = m + 9
	}
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// isSummaryHead tells, from the first line of a JSON file, a k6 summary
// from k6 JSON output lines: a summary is pretty-printed (the line is a bare
// "{") or, compact, starts with a key no output line has ("root_group",
// "metrics", "version", ...); output lines start with "type" or "metric".
func isSummaryHead(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 1 {
		return true
	}
	k, _, ok := scanString(line, skipWS(line, 1))
	if !ok {
		return false
	}
	switch string(k) {
	case "root_group", "metrics", "options", "state", "setup_data", "version", "metadata", "config", "results":
		return true
	}
	return false
}

// DeclaredMetrics returns the metrics declared by the k6 JSON "Metric"
// lines that r has read so far, keyed by metric name, for a reader from
// Open or OpenAll or a *K6JSONReader; with several JSON files the first
// declaration of a name wins. ok is false when r reads no k6 JSON input (a
// CSV carries no metric types).
func DeclaredMetrics(r Reader) (m map[string]MetricInfo, ok bool) {
	m = map[string]MetricInfo{}
	var walk func(Reader)
	walk = func(r Reader) {
		switch v := r.(type) {
		case *K6JSONReader:
			ok = true
			for k, mi := range v.metrics {
				if _, dup := m[k]; !dup {
					m[k] = mi
				}
			}
		case *closingReader:
			walk(v.Reader)
		case *MultiReader:
			for _, sub := range v.rs {
				walk(sub)
			}
		}
	}
	walk(r)
	return m, ok
}
