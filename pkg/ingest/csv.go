package ingest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// CSVReader streams the samples of one k6 CSV output file (`k6 run --out
// csv=FILE`), already decompressed.
//
// Columns are mapped by header name, so every header k6 has shipped works:
// v0.26's 15 columns, the scenario/service/expected_response additions, the
// metadata column of v0.41+, and headers restricted or extended with
// --system-tags. Every column other than metric_name, timestamp,
// metric_value, extra_tags and metadata is a tag column.
//
// The timestamp encoding is detected per row, so all six
// K6_CSV_TIME_FORMAT values work: unix (10 digits or fewer: seconds),
// unix_milli (11–13), unix_micro (14–16), unix_nano (17–19), rfc3339 and
// rfc3339_nano (any fraction length and zone offset).
//
// Parsing runs on every core: one goroutine reads (and, under Open,
// decompresses) the input and cuts it at the last newline of each 256 KiB
// buffer, nothing more; a worker per core counts its chunk's lines and
// quotes (a chunk that ends inside a quoted field hands that record on to
// the next chunk's worker, so a newline inside quotes is never a cut) and
// parses it, and Next hands out their samples in file order. Tag columns
// are not decoded until asked for (Tags.Get), since most analyses read tags
// of few rows. Memory is bounded by the chunks in flight (about
// (2·cores+3) × 256 KiB) plus the interned tag values; rows need not be in
// time order.
type CSVReader struct {
	name string
	cols *csvCols

	order chan *csvBatch
	readAhead
	// start launches the reading goroutines, once, on the first Next or
	// Drain.
	start func()
	// sinks, in Drain mode, take the samples on the workers; bsinks, when
	// set (drainBatches), are told where each batch begins and ends.
	sinks  []func(*Sample)
	bsinks []batchSink

	cur *csvBatch
	idx int

	s   Sample
	row lazyRow
	st  Stats
	err error
	// intRes and rfcRes: see csvBatch.
	intRes, rfcRes int64
	// times follows the times of the batches absorbed.
	times timeOrder
	// lines is the number of lines of the header and the batches absorbed.
	lines int64
}

// csvCols is the header's mapping of columns.
type csvCols struct {
	width                                           int
	idxMetric, idxTime, idxValue, idxExtra, idxMeta int
	tagIdx                                          []int
	keys                                            []string
	// fast is set when metric_name, timestamp and metric_value are the
	// first three columns, as k6 always writes them.
	fast bool
	// contiguous is set when, beyond fast, the tag columns follow them and
	// only extra_tags and metadata come after (k6 v0.41+): the tag columns
	// are then one span of the line.
	contiguous bool
}

// csvRec is one parsed record of a chunk. It holds one pointer (the
// interned metric name), which keeps the garbage collector's work small.
type csvRec struct {
	metric     string
	ts         int64
	val        float64
	start, end int32 // the raw record is chunk[start:end]
	quoted     int32 // index into csvBatch.quoted, or -1
}

// csvBatch is one chunk of records and what its worker made of it. Line
// numbers in it (errors) count from the chunk's first line (1) until
// absorb adds the lines of the chunks before.
type csvBatch struct {
	raw rawChunk
	// chunk is what the worker parsed: raw.data without a tail that ends
	// inside a quoted field (handed on to the next chunk), after the tail
	// of the chunk before, if any (then a buffer of its own).
	chunk  []byte
	lines  int64 // lines of chunk
	recs   []csvRec
	quoted [][]string // unescaped fields of quoted records
	n      int64      // records handed to a sink (Drain mode)
	errs   []*SyntaxError
	// cutLast: the chunk is the input's last, its last line has no
	// newline and was malformed — the signature of a file cut while k6
	// wrote it.
	cutLast bool
	maxRes  int64 // coarsest unit of integer timestamps
	rfcRes  int64 // finest fraction of RFC 3339 timestamps (0: none)
	times   timeOrder
	ready   chan struct{}
	seq     int64 // the batch's number among those the workers parse
	// prevTail delivers the tail of the chunk before (nil: none); tail
	// takes this chunk's.
	prevTail, tail chan []byte
}

var batchPool = sync.Pool{New: func() any { return &csvBatch{} }}

// newBatch returns a batch from the pool, keeping its record slice.
func newBatch(raw rawChunk, prevTail chan []byte) *csvBatch {
	b := batchPool.Get().(*csvBatch)
	recs := b.recs[:0]
	*b = csvBatch{raw: raw, ready: make(chan struct{}), recs: recs, prevTail: prevTail, tail: make(chan []byte, 1)}
	return b
}

// release returns the batch and its chunk to their pools once its samples
// are no longer referenced.
func (b *csvBatch) release() {
	b.dropChunk()
	b.raw, b.quoted, b.errs = rawChunk{}, nil, nil
	b.prevTail, b.tail = nil, nil
	batchPool.Put(b)
}

// dropChunk returns the batch's chunk buffer to its pool, keeping what
// absorb reads of the batch.
func (b *csvBatch) dropChunk() {
	putChunk(b.raw.buf)
	b.raw.buf, b.raw.data, b.chunk = nil, nil, nil
}

var errUnterminated = errors.New("unterminated quoted field")

// NewCSVReader reads the header of a k6 CSV from r and starts reading its
// samples. name is used in errors and in Sample.Source. It returns an error
// when the header cannot be read or lacks one of metric_name, timestamp and
// metric_value. Call Close to stop the reading goroutines early.
func NewCSVReader(r io.Reader, name string) (*CSVReader, error) {
	// Read up to the end of the header line.
	head := make([]byte, 0, 4096)
	var rerr error
	nl := -1
	for nl < 0 {
		if len(head) == cap(head) {
			if len(head) >= maxRecord {
				return nil, &SyntaxError{File: name, Line: 1, Msg: fmt.Sprintf("header longer than %d bytes", maxRecord)}
			}
			head = append(head, make([]byte, len(head))...)[:len(head)]
		}
		n, err := r.Read(head[len(head):cap(head)])
		head = head[:len(head)+n]
		nl = bytes.IndexByte(head, '\n')
		if err != nil {
			rerr = err
			break
		}
	}
	var te *TruncatedError
	if rerr != nil && rerr != io.EOF && !errors.As(rerr, &te) {
		return nil, fmt.Errorf("%s: %w", name, rerr)
	}
	if te != nil && nl < 0 {
		// The compressed stream ends inside the header line: what came
		// is a cut header, not a wrong one.
		return nil, fmt.Errorf("%v inside the header line, after %d bytes: nothing to analyse (a damaged or incomplete compressed file)", te, len(head))
	}
	line := head
	rest := []byte(nil)
	if nl >= 0 {
		line, rest = head[:nl], head[nl+1:]
	}
	line = bytes.TrimSuffix(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")), []byte{'\r'})
	if len(bytes.TrimSpace(line)) == 0 {
		return nil, fmt.Errorf("%s: empty file: want a k6 CSV header (metric_name,timestamp,metric_value,...)", name)
	}
	var sc splitter
	fields, offs, _, _, err := sc.splitQuoted(line, true)
	if err != nil {
		return nil, &SyntaxError{File: name, Line: 1, Msg: "header: " + err.Error()}
	}
	cols, herr := parseHeader(fields, offs, name)
	if herr != nil {
		return nil, herr
	}
	c := &CSVReader{name: name, cols: cols, order: make(chan *csvBatch, runtime.GOMAXPROCS(0)), lines: 1}
	c.readAhead.init()
	c.s.Source = name
	c.s.Tags.keys = cols.keys
	c.s.Tags.lazy = &c.row
	c.row.init(cols)
	var final error
	if rerr != nil {
		final = rerr
	}
	c.start = func() { go c.produce(r, rest, final) }
	return c, nil
}

func parseHeader(fields [][]byte, offs []int, name string) (*csvCols, error) {
	c := &csvCols{idxMetric: -1, idxTime: -1, idxValue: -1, idxExtra: -1, idxMeta: -1, width: len(fields)}
	seen := map[string]bool{}
	for i, f := range fields {
		h := strings.TrimSpace(string(f))
		if seen[h] {
			return nil, &SyntaxError{File: name, Line: 1, Column: offs[i] + 1, Msg: fmt.Sprintf("duplicate column %q in the header", h)}
		}
		seen[h] = true
		switch h {
		case "metric_name":
			c.idxMetric = i
		case "timestamp":
			c.idxTime = i
		case "metric_value":
			c.idxValue = i
		case "extra_tags":
			c.idxExtra = i
		case "metadata":
			c.idxMeta = i
		default:
			c.tagIdx = append(c.tagIdx, i)
			c.keys = append(c.keys, h)
		}
	}
	var missing []string
	for _, m := range []struct {
		idx  int
		name string
	}{{c.idxMetric, "metric_name"}, {c.idxTime, "timestamp"}, {c.idxValue, "metric_value"}} {
		if m.idx < 0 {
			missing = append(missing, m.name)
		}
	}
	if len(missing) > 0 {
		first := string(fields[0])
		if len(first) > 40 {
			first = first[:40] + "…"
		}
		return nil, &SyntaxError{File: name, Line: 1, Msg: fmt.Sprintf("not a k6 CSV header: no %s column (first field %q); want metric_name,timestamp,metric_value,<tags>,extra_tags[,metadata]", strings.Join(missing, ", "), first)}
	}
	c.fast = c.idxMetric == 0 && c.idxTime == 1 && c.idxValue == 2
	c.contiguous = c.fast && c.idxExtra == c.width-2 && c.idxMeta == c.width-1 && len(c.tagIdx) == c.width-5
	return c, nil
}

// Columns returns the header's tag columns, in file order.
func (c *CSVReader) Columns() []string { return c.cols.keys }

// produce cuts the input into chunks of whole lines and hands them to the
// workers, in order, through c.order. It only reads and finds the last
// newline of each buffer: the workers count lines and follow quotes (a
// chunk that ends inside a quoted field hands its last record on to the
// next chunk's worker), so that decompression is the only serial stage.
func (c *CSVReader) produce(r io.Reader, carry []byte, final error) {
	defer close(c.done)
	workers := runtime.GOMAXPROCS(0)
	if len(c.sinks) > 0 {
		workers = len(c.sinks)
	}
	jobs := make(chan *csvBatch, workers)
	for i := range workers {
		go func() {
			var w csvWorker
			w.init(c)
			if c.sinks != nil {
				// Drain mode: records go straight to the sink as they
				// are parsed, with no buffer between.
				w.sink = c.sinks[i]
				w.s.Source = c.name
				w.s.Tags.keys = c.cols.keys
				w.s.Tags.lazy = &w.row
				w.row.init(c.cols)
				if c.bsinks != nil {
					w.bsink = c.bsinks[i]
				}
			}
			for b := range jobs {
				w.parse(b)
				if c.sinks != nil {
					// The sinks have taken the samples: the chunk can
					// be read into again now, while the batch waits for
					// its turn to be absorbed (line numbers, stats).
					b.dropChunk()
				}
				close(b.ready)
			}
		}()
	}
	defer close(jobs)
	defer close(c.order)
	// noTail is a tail channel that holds no tail: each is read once, by
	// the worker of the batch it is given to, so every batch gets its own.
	noTail := func() chan []byte {
		ch := make(chan []byte, 1)
		ch <- nil
		return ch
	}
	prevTail := noTail()
	var seq int64 // of the batches the workers parse
	cs := newChunkSource(r, carry, final, maxRecord)
	for {
		raw, ok := cs.next()
		if !ok {
			return
		}
		b := newBatch(raw, prevTail)
		if raw.longLine == 0 {
			b.seq, seq = seq, seq+1
		}
		tail := b.tail // b may be recycled once handed on
		select {
		case c.order <- b:
		case <-c.stop:
			return
		}
		if raw.longLine > 0 {
			// A record too long to hold: skipped (by absorb), and the
			// next chunk starts afresh, outside quotes.
			close(b.ready)
			prevTail = noTail()
			continue
		}
		select {
		case jobs <- b:
		case <-c.stop:
			return
		}
		if raw.final {
			return
		}
		prevTail = tail
	}
}

// splitTail returns the length of the longest prefix of data that ends in
// a newline outside quotes, given whether data starts inside a quoted
// field, or 0 when there is none. Quote parity is what tells (a doubled
// quote inside a quoted field counts twice), as RFC 4180 writers quote.
func splitTail(data []byte, inside bool) int {
	last := -1
	for i := 0; i < len(data); {
		q := bytes.IndexByte(data[i:], '"')
		end := len(data)
		if q >= 0 {
			end = i + q
		}
		if !inside {
			if nl := bytes.LastIndexByte(data[i:end], '\n'); nl >= 0 {
				last = i + nl
			}
		}
		if q < 0 {
			break
		}
		inside = !inside
		i = end + 1
	}
	return last + 1
}

// csvWorker parses chunks; each worker has its own caches.
type csvWorker struct {
	c       *CSVReader
	cols    *csvCols
	metrics *interner
	lastM   string
	// Metrics by id (ms), each with the id of the one that followed it
	// last time: k6 writes the samples of a request or an iteration in a
	// fixed metric order, so the guess is nearly always right and costs one
	// comparison instead of a map lookup.
	lastID int32
	ms     []metricID
	mIDs   map[string]int32
	lastTS []byte
	// tsGen numbers the timestamps in lastTS (from 1, counting each
	// change), for metricID.gen.
	tsGen   uint64
	lastNS  int64
	lastRes int64
	lastRFC bool
	sp      splitter

	// Drain mode: the sink, the worker's own sample and tag decoder.
	sink  func(*Sample)
	bsink batchSink
	s     Sample
	row   lazyRow
}

// metricID is what a csvWorker knows of the metric of an id.
type metricID struct {
	name string
	// next is the id of the metric that followed this one last time (-1:
	// none yet).
	next int32
	// plain: the name has no comma, quote, CR or LF, so that it can be
	// matched in place, in the record or in the chunk (quickRun).
	plain bool
	// head is w.head(id) when gen is w.tsGen.
	head []byte
	gen  uint64
}

func (w *csvWorker) init(c *CSVReader) {
	w.c, w.cols, w.metrics = c, c.cols, newInterner()
}

// parse parses a batch: first its quote parity, to tell whether its last
// record goes on into the next chunk (then that tail is handed on at once,
// before parsing, so that the next chunk's worker waits no longer than the
// parity count), then its records.
func (w *csvWorker) parse(b *csvBatch) {
	data := b.raw.data
	quotes := bytes.IndexByte(data, '"') >= 0
	odd := quotes && bytes.Count(data, []byte{'"'})%2 == 1
	carry := <-b.prevTail
	var next []byte
	if (carry != nil) != odd && !b.raw.final {
		// The chunk ends inside a quoted field: hand on its last record.
		if t := splitTail(data, carry != nil); t == 0 {
			next = make([]byte, 0, len(carry)+len(data))
			next = append(append(next, carry...), data...)
			carry, data = nil, nil
		} else {
			next = append([]byte(nil), data[t:]...)
			data = data[:t]
		}
	}
	var dropped []byte
	if len(next) > maxRecord {
		dropped, next = next, nil
	}
	b.tail <- next
	chunk := data
	if carry != nil {
		chunk = make([]byte, 0, len(carry)+len(data))
		chunk = append(append(chunk, carry...), data...)
		quotes = true
	}
	b.chunk = chunk
	if w.bsink != nil {
		w.bsink.begin(b.seq)
		defer func() { w.bsink.end(b.seq, resolution{intNS: b.maxRes, fracNS: b.rfcRes}) }()
	}
	w.parseRecords(b, chunk, quotes)
	b.cutLast = b.raw.final && cutLast(chunk, b.errs, b.lines)
	if dropped != nil {
		b.errs = append(b.errs, &SyntaxError{File: w.c.name, Line: b.lines + 1, Msg: fmt.Sprintf("record longer than %d bytes: skipped", maxRecord)})
		b.lines += int64(bytes.Count(dropped, []byte{'\n'}))
	}
}

// parseRecords parses the records of chunk; b.lines counts its lines.
func (w *csvWorker) parseRecords(b *csvBatch, chunk []byte, quotes bool) {
	w.row.newChunk()
	// The time of the worker's last record is of another chunk: the
	// chunk's first time is parsed, and so seen by b.times.
	w.lastTS = w.lastTS[:0]
	w.tsGen++
	line := int64(1)
	defer func() { b.lines = line - 1 }()
	if cap(b.recs) == 0 && w.sink == nil { // Drain mode keeps no records
		b.recs = make([]csvRec, 0, len(chunk)/64+16)
	}
	width := w.cols.width
	quick := w.sink != nil && w.cols.fast
	for pos := 0; pos < len(chunk); {
		if quick {
			if pos, line = w.quickRun(b, chunk, pos, line, quotes); pos >= len(chunk) {
				break
			}
		}
		rest := chunk[pos:]
		var rec []byte
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			rec, pos = rest, len(chunk)
		} else {
			rec, pos = rest[:nl], pos+nl+1
		}
		lineNo := line
		line++
		if n := len(rec); n > 0 && rec[n-1] == '\r' {
			rec = rec[:n-1]
		}
		if len(rec) == 0 {
			continue
		}
		if quotes && bytes.IndexByte(rec, '"') >= 0 {
			// A quoted record, possibly over several lines.
			fields, offs, n, lines, err := w.sp.splitQuoted(rest, true)
			pos = min(len(chunk)-len(rest)+n, len(chunk))
			line = lineNo + int64(lines)
			if err != nil {
				se := &SyntaxError{File: w.c.name, Line: lineNo, Msg: err.Error()}
				var ce *colError
				if errors.As(err, &ce) {
					se.Column, se.Msg = ce.col, ce.msg
				}
				b.errs = append(b.errs, se)
				continue
			}
			w.record(b, fields, offs, lineNo)
			continue
		}
		start := int32(len(chunk) - len(rest))
		if w.cols.fast {
			w.fastRecord(b, rec, start, lineNo)
			continue
		}
		fields, offs := w.sp.split(rec)
		if len(fields) != width {
			b.errs = append(b.errs, &SyntaxError{File: w.c.name, Line: lineNo, Msg: fmt.Sprintf("want %d fields as in the header, got %d", width, len(fields))})
			continue
		}
		ci, ti, vi := w.cols.idxMetric, w.cols.idxTime, w.cols.idxValue
		w.add(b, fields[ci], fields[ti], fields[vi], offs[ci], offs[ti], offs[vi], start, start+int32(len(rec)), -1, lineNo, nil)
	}
}

// quickRun adds, from chunk[pos:], the records that Drain mode most
// often meets, one after another: the metric name that followed the last
// one, the last timestamp, a value of scanValue's shape that needs no
// check, and mostly the tail (from the third comma) of a tail slot of the
// row, then the end of the line. Matching the tail in place finds the
// line's end too, so such a record is read once, with no newline search
// and no comma count. A tail of no slot is cut at the newline and checked
// (no quote, the header's field count) as fastRecord checks it, and takes
// a slot. It returns the position after the records it added and line
// advanced by their number; it stops, having done nothing with it, at the
// first record of another kind (fastRecord and the others decide, as
// without it). quotes tells whether the chunk holds a quote.
//
// It adds what fastRecord would: the matched bytes hold no quote (a
// plain name, a timestamp parsed before, digits, and a tail that set3 took
// from an unquoted record of this chunk), and the line ends, as
// parseRecords cuts it, where the tail does, a CR before the LF dropped.
func (w *csvWorker) quickRun(b *csvBatch, chunk []byte, pos int, line int64, quotes bool) (int, int64) {
	if len(w.ms) == 0 || len(w.lastTS) == 0 {
		return pos, line
	}
	l := &w.row
	id, n0 := w.lastID, b.n
	width := w.cols.width
	for pos < len(chunk) {
		g := w.ms[id].next
		if g < 0 || !w.ms[g].plain {
			break
		}
		head := w.head(g)
		rest := chunk[pos:]
		if len(head) >= len(rest) || string(rest[:len(head)]) != string(head) {
			break
		}
		v, i3 := 0.0, 0
		if j := len(head); j+9 <= len(rest) && rest[j+1] == '.' && rest[j+8] == ',' && rest[j]-'0' <= 9 {
			// k6's "%f" of a value below ten (two thirds of a k6
			// run's values, 0 and 1 among them): what scanValue
			// computes, in place.
			z := binary.LittleEndian.Uint64(rest[j:])&^0xFFFF | 0x3030
			if ((z+0x4646464646464646)|(z-0x3030303030303030))&0x8080808080808080 != 0 {
				break
			}
			v, i3 = float64(uint64(rest[j]-'0')*1e6+eightDigits(z))/1e6, j+8
		} else {
			var ok bool
			if v, i3, ok = scanValue(rest, j); !ok || v < 0 || i3 >= len(rest) {
				break
			}
		}
		k := l.hit
		t := l.slots[k].tail
		if t == nil || !endsLine(rest, i3+len(t)) || string(rest[i3:i3+len(t)]) != string(t) {
			k = l.sameTailAt(rest, i3)
		}
		var end, n int // the record's end and the bytes consumed
		if k >= 0 {
			t = l.slots[k].tail
			end = i3 + len(t)
			if t[len(t)-1] == '\r' {
				// parseRecords would drop this CR if the line ended
				// here, and the tail would then be another.
				break
			}
			n = end
			if end < len(rest) {
				switch rest[end] {
				case '\n':
					n = end + 1
				case '\r':
					switch {
					case end+1 == len(rest):
						n = end + 1
					case rest[end+1] == '\n':
						n = end + 2
					default:
						return w.quickEnd(b, id, n0, pos, line)
					}
				default:
					return w.quickEnd(b, id, n0, pos, line)
				}
			}
		} else {
			// A tail of no slot (a request's new tag set): the line is
			// cut as parseRecords cuts it, and its tail checked as
			// fastRecord checks it; it takes a slot.
			end, n = len(rest), len(rest)
			if nl := bytes.IndexByte(rest[i3:], '\n'); nl >= 0 {
				end, n = i3+nl, i3+nl+1
			}
			if rest[end-1] == '\r' {
				end--
			}
			tail := rest[i3:end]
			if quotes && bytes.IndexByte(tail, '"') >= 0 || bytes.Count(tail, comma)+3 != width {
				break
			}
		}
		id = g
		w.s.Metric, w.s.TimeNS, w.s.Value = w.ms[g].name, w.lastNS, v
		// l.set3(rest[:end], len(name), len(head)-1, i3, k), in place.
		l.line, l.fields = rest[:end], nil
		st := l.starts[:4]
		st[0], st[1], st[2], st[3] = 0, len(w.ms[g].name)+1, len(head), i3+1
		l.starts = st
		l.tail, l.tail2 = -1, -1
		if k != l.hit {
			l.switchSlot(rest[i3:end], k)
		}
		w.sink(&w.s)
		b.n++
		pos += n
		line++
	}
	return w.quickEnd(b, id, n0, pos, line)
}

// quickEnd ends a quickRun that added b.n-n0 records, the last of metric
// id: the metric becomes the current one, and the batch takes the
// timestamp's resolution (seeRes, as emit does).
func (w *csvWorker) quickEnd(b *csvBatch, id int32, n0 int64, pos int, line int64) (int, int64) {
	if b.n == n0 {
		return pos, line
	}
	w.lastM, w.lastID = w.ms[id].name, id
	w.seeRes(b)
	return pos, line
}

// seeRes counts the current timestamp's resolution in the batch's: the
// coarsest of integer timestamps; for RFC 3339 with trimmed trailing
// zeros, the finest fraction seen.
func (w *csvWorker) seeRes(b *csvBatch) {
	if w.lastRFC {
		if b.rfcRes == 0 || w.lastRes < b.rfcRes {
			b.rfcRes = w.lastRes
		}
	} else if w.lastRes > b.maxRes {
		b.maxRes = w.lastRes
	}
}

// head returns metric g's name, a comma, the last timestamp and a comma:
// how a record of that metric at that time starts.
func (w *csvWorker) head(g int32) []byte {
	m := &w.ms[g]
	if m.gen != w.tsGen {
		m.head = append(append(append(append(m.head[:0], m.name...), ','), w.lastTS...), ',')
		m.gen = w.tsGen
	}
	return m.head
}

// recHints is what fastRecord learnt of a record while cutting it, so that
// add need not find it again.
type recHints struct {
	// c1, c2, c3 are the offsets of the first three commas (c3 == the
	// record's length when there is no fourth field).
	c1, c2, c3 int
	// gid is the id of the metric name when it was the guessed one (-1:
	// not known).
	gid int32
	// sameTS: the timestamp equals w.lastTS.
	sameTS bool
	// valOK: val is the metric value, parsed (parseValue's exact shape).
	valOK bool
	val   float64
	// sameTail: the fields after the value are those of the row's tail
	// slot of this index (lazyRow.sameTail; -1: of none).
	sameTail int
}

var comma = []byte{','}

// fastRecord cuts and adds an unquoted record whose first three fields are
// metric_name, timestamp and metric_value. It first tries what the record
// most likely holds: the metric name that followed the last one, the last
// timestamp, and a value of k6's "%f" shape parsed up to its comma; each
// guess that fails falls back to a plain search.
func (w *csvWorker) fastRecord(b *csvBatch, rec []byte, start int32, lineNo int64) {
	h := recHints{gid: -1}
	i1 := -1
	if len(w.ms) > 0 {
		if g := w.ms[w.lastID].next; g >= 0 && w.ms[g].plain {
			name := w.ms[g].name
			if len(rec) > len(name) && rec[len(name)] == ',' && string(rec[:len(name)]) == name {
				i1, h.gid = len(name), g
			}
		}
	}
	if i1 < 0 {
		i1 = bytes.IndexByte(rec, ',')
	}
	i2 := -1
	if i1 >= 0 {
		if n := len(w.lastTS); n > 0 {
			if e := i1 + 1 + n; e < len(rec) && rec[e] == ',' && string(rec[i1+1:e]) == string(w.lastTS) {
				i2, h.sameTS = e, true
			}
		}
		if i2 < 0 {
			if k := bytes.IndexByte(rec[i1+1:], ','); k >= 0 {
				i2 = i1 + 1 + k
			}
		}
	}
	i3 := -1
	if i2 >= 0 {
		h.val, i3, h.valOK = scanValue(rec, i2+1)
		if !h.valOK {
			i3 = bytes.IndexByte(rec[i2+1:], ',')
			if i3 >= 0 {
				i3 += i2 + 1
			} else {
				i3 = len(rec)
			}
		}
	}
	width := w.cols.width
	// A record whose tag fields are byte for byte those of the record the
	// row last held (k6 writes a request's or an iteration's samples one
	// after another, with one tag set) has their comma count, and the
	// row keeps their decoded values.
	same := -1
	if i2 >= 0 && w.sink != nil {
		same = w.row.sameTail(rec[i3:])
	}
	if same < 0 && (i2 < 0 || bytes.Count(rec[i3:], comma)+3 != width) {
		b.errs = append(b.errs, &SyntaxError{File: w.c.name, Line: lineNo, Msg: fmt.Sprintf("want %d fields as in the header, got %d", width, bytes.Count(rec, comma)+1)})
		return
	}
	h.c1, h.c2, h.c3, h.sameTail = i1, i2, i3, same
	if h.gid >= 0 && h.sameTS && h.valOK && h.val >= 0 {
		// What add would find, known already: a metric name, the last
		// (valid) timestamp, a value that needs no check.
		w.lastM, w.lastID = w.ms[h.gid].name, h.gid
		w.emit(b, h.val, start, start+int32(len(rec)), -1, &h)
		return
	}
	w.add(b, rec[:i1], rec[i1+1:i2], rec[i2+1:i3], 0, i1+1, i2+1, start, start+int32(len(rec)), -1, lineNo, &h)
}

// scanValue parses the metric value that starts at rec[i] when it has
// parseValue's exact shape ([-] at most 15 digits with at most one '.')
// and ends at a comma or at the end of rec. It returns the value and the
// offset of its end, or ok false (then parseValue decides). k6's "%f" (at
// most 9 integer digits, six decimals) takes a path of its own.
func scanValue(rec []byte, i int) (v float64, end int, ok bool) {
	neg := false
	if i < len(rec) && rec[i] == '-' {
		neg, i = true, i+1
	}
	var mant uint64
	k := i
	for k < len(rec) {
		d := rec[k] - '0'
		if d > 9 {
			break
		}
		mant = mant*10 + uint64(d)
		k++
	}
	if k-i <= 9 && k+7 <= len(rec) && rec[k] == '.' && (k+7 == len(rec) || rec[k+7] == ',') {
		if k >= 1 {
			// The six decimals as one word: the eight bytes from k-1
			// with the two before the decimals set to '0'.
			z := binary.LittleEndian.Uint64(rec[k-1:])&^0xFFFF | 0x3030
			if ((z+0x4646464646464646)|(z-0x3030303030303030))&0x8080808080808080 == 0 {
				v = float64(mant*1e6+eightDigits(z)) / 1e6
				if neg {
					v = -v
				}
				return v, k + 7, true
			}
		}
		f := rec[k+1 : k+7]
		d0, d1, d2, d3, d4, d5 := f[0]-'0', f[1]-'0', f[2]-'0', f[3]-'0', f[4]-'0', f[5]-'0'
		if d0 <= 9 && d1 <= 9 && d2 <= 9 && d3 <= 9 && d4 <= 9 && d5 <= 9 {
			mant = mant*1e6 + uint64(d0)*1e5 + uint64(d1)*1e4 + uint64(d2)*1e3 + uint64(d3)*100 + uint64(d4)*10 + uint64(d5)
			v = float64(mant) / 1e6
			if neg {
				v = -v
			}
			return v, k + 7, true
		}
	}
	v, end, ok = simpleDecimal(rec, i)
	if !ok || end < len(rec) && rec[end] != ',' {
		return 0, 0, false
	}
	if neg {
		v = -v
	}
	return v, end, true
}

// eightDigits returns the number that the eight ASCII digits of z spell,
// its first byte the most significant digit (Lemire, "Fast number
// parsing", parse_eight_digits_unrolled).
func eightDigits(z uint64) uint64 {
	z -= 0x3030303030303030
	z = z*10 + z>>8
	return ((z&0x000000FF000000FF)*(100+1000000<<32) + (z>>16&0x000000FF000000FF)*(1+10000<<32)) >> 32
}

// simpleDecimal parses digits with at most one '.' from b[i:], up to the
// first other byte (end): ok when there are 1–15 digits, so that the
// integer divided by a power of ten is exact and correctly rounded.
func simpleDecimal(b []byte, i int) (v float64, end int, ok bool) {
	var mant uint64
	digits, frac := 0, -1
	for ; i < len(b); i++ {
		ch := b[i]
		if d := ch - '0'; d <= 9 {
			mant = mant*10 + uint64(d)
			digits++
			if frac >= 0 {
				frac++
			}
			continue
		}
		if ch == '.' && frac < 0 {
			frac = 0
			continue
		}
		break
	}
	if digits == 0 || digits > 15 {
		return 0, i, false
	}
	v = float64(mant)
	if frac > 0 {
		v /= pow10[frac]
	}
	return v, i, true
}

// record adds a quoted record from its unescaped fields.
func (w *csvWorker) record(b *csvBatch, fields [][]byte, offs []int, lineNo int64) {
	if len(fields) != w.cols.width {
		b.errs = append(b.errs, &SyntaxError{File: w.c.name, Line: lineNo, Msg: fmt.Sprintf("want %d fields as in the header, got %d", w.cols.width, len(fields))})
		return
	}
	strs := make([]string, len(fields))
	for i, f := range fields {
		strs[i] = string(f)
	}
	ci, ti, vi := w.cols.idxMetric, w.cols.idxTime, w.cols.idxValue
	b.quoted = append(b.quoted, strs)
	w.add(b, fields[ci], fields[ti], fields[vi], offs[ci], offs[ti], offs[vi], 0, 0, int32(len(b.quoted)-1), lineNo, nil)
}

// add parses the metric, time and value of a record and hands it on (or
// keeps it). h, when not nil, is what fastRecord already knows of it.
func (w *csvWorker) add(b *csvBatch, mf, tf, vf []byte, mo, to, vo int, start, end, quoted int32, lineNo int64, h *recHints) {
	if len(mf) == 0 {
		b.errs = append(b.errs, &SyntaxError{File: w.c.name, Line: lineNo, Column: mo + 1, Msg: "empty metric_name"})
		return
	}
	if (h == nil || !h.sameTS) && (len(w.lastTS) == 0 || !bytes.Equal(tf, w.lastTS)) {
		ns, res, err := parseTimestamp(tf)
		if err != nil {
			col, msg := to+1, fmt.Sprintf("timestamp %q: %v", trunc(tf), err)
			if string(mf) == "metric_name" && string(tf) == "timestamp" {
				col, msg = 0, "a header line among the data (k6 CSV outputs concatenated?): skipped; give each run as its own file"
			}
			b.errs = append(b.errs, &SyntaxError{File: w.c.name, Line: lineNo, Column: col, Msg: msg})
			return
		}
		w.lastTS = append(w.lastTS[:0], tf...)
		w.tsGen++
		w.lastNS, w.lastRes = ns, res
		b.times.see(ns, lineNo)
		w.lastRFC = tf[0] < '0' || tf[0] > '9' || bytes.IndexByte(tf, '-') >= 0
	}
	var v float64
	if h != nil && h.valOK {
		v = h.val
	} else {
		var err error
		if v, err = parseValue(vf); err != nil {
			b.errs = append(b.errs, &SyntaxError{File: w.c.name, Line: lineNo, Column: vo + 1, Msg: fmt.Sprintf("metric_value %q: %v", trunc(vf), err)})
			return
		}
	}
	if h != nil && h.gid >= 0 {
		w.lastM, w.lastID = w.ms[h.gid].name, h.gid
	} else if w.lastM == "" || string(mf) != w.lastM {
		w.metricName(mf)
	}
	if v < 0 {
		if msg := checkValue(w.lastM, v); msg != "" {
			b.errs = append(b.errs, &SyntaxError{File: w.c.name, Line: lineNo, Column: vo + 1, Msg: fmt.Sprintf("metric_value %q: %s", trunc(vf), msg)})
			return
		}
	}
	w.emit(b, v, start, end, quoted, h)
}

// emit hands on (Drain mode) or keeps the current record, of value v, with
// the metric and time in w.lastM and w.lastNS.
func (w *csvWorker) emit(b *csvBatch, v float64, start, end, quoted int32, h *recHints) {
	w.seeRes(b)
	if w.sink != nil {
		w.s.Metric, w.s.TimeNS, w.s.Value = w.lastM, w.lastNS, v
		switch {
		case quoted >= 0:
			w.row.set(nil, b.quoted[quoted])
		case h != nil:
			w.row.set3(b.chunk[start:end], h.c1, h.c2, h.c3, h.sameTail)
		default:
			w.row.set(b.chunk[start:end], nil)
		}
		w.sink(&w.s)
		b.n++
		return
	}
	b.recs = append(b.recs, csvRec{metric: w.lastM, ts: w.lastNS, val: v, start: start, end: end, quoted: quoted})
}

// metricName makes mf the current metric (w.lastM, w.lastID).
func (w *csvWorker) metricName(mf []byte) {
	if w.mIDs == nil {
		w.mIDs = map[string]int32{}
	}
	if len(w.ms) > 0 {
		if g := w.ms[w.lastID].next; g >= 0 && string(mf) == w.ms[g].name {
			w.lastM, w.lastID = w.ms[g].name, g
			return
		}
	}
	id, ok := w.mIDs[string(mf)]
	if !ok {
		if len(w.ms) >= maxInterned {
			// Unbounded metric names: no more ids, no guessing.
			w.lastM = w.metrics.intern(mf)
			return
		}
		id = int32(len(w.ms))
		name := w.metrics.intern(mf)
		w.ms = append(w.ms, metricID{name: name, next: -1, plain: !strings.ContainsAny(name, ",\"\r\n")})
		w.mIDs[name] = id
	}
	if w.lastM != "" {
		w.ms[w.lastID].next = id
	}
	w.lastM, w.lastID = w.ms[id].name, id
}

func trunc(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// Next advances to the next valid row. Malformed rows are recorded in Stats
// and skipped.
func (c *CSVReader) Next() bool {
	if !c.started {
		c.started = true
		c.start()
	}
	for {
		if c.cur != nil && c.idx < len(c.cur.recs) {
			r := &c.cur.recs[c.idx]
			c.idx++
			c.s.Metric, c.s.TimeNS, c.s.Value = r.metric, r.ts, r.val
			if r.quoted >= 0 {
				c.row.set(nil, c.cur.quoted[r.quoted])
			} else {
				c.row.set(c.cur.chunk[r.start:r.end], nil)
			}
			c.st.Rows++
			return true
		}
		if c.cur != nil {
			c.cur.release()
		}
		c.cur = nil
		if c.err != nil {
			return false
		}
		b, ok := <-c.order
		if !ok {
			return false
		}
		<-b.ready
		c.absorb(b)
		c.cur, c.idx = b, 0
	}
}

// Sample returns the current sample; it is valid until the next call to Next.
func (c *CSVReader) Sample() *Sample { return &c.s }

// Drain reads the whole file, handing its samples to sinks from parallel
// workers: sinks[i] is called only from worker i's goroutine, with samples
// in no particular order, valid during the call. It is the fast path for
// accumulators that merge (see ReadAll). Drain must be called before any
// Next; the stats count every row as usual. It returns the I/O error that
// stopped the read, or nil.
func (c *CSVReader) Drain(sinks []func(*Sample)) error {
	if c.started {
		return errors.New("ingest: Drain after Next")
	}
	if len(sinks) == 0 {
		return errors.New("ingest: Drain with no sinks")
	}
	c.sinks, c.started = sinks, true
	c.order = make(chan *csvBatch, drainWindow())
	c.start()
	for {
		b, ok := <-c.order
		if !ok {
			return c.err
		}
		<-b.ready
		c.st.Rows += b.n
		c.absorb(b)
		b.release()
	}
}

// drainBatches is Drain for batch sinks.
func (c *CSVReader) drainBatches(sinks []batchSink) error {
	c.bsinks = sinks
	fs := make([]func(*Sample), len(sinks))
	for i, s := range sinks {
		fs[i] = s.sample
	}
	return c.Drain(fs)
}

// absorb takes a finished batch's errors and end-of-input facts into the
// reader's stats, in file order.
func (c *CSVReader) absorb(b *csvBatch) {
	base := c.lines
	if b.raw.longLine > 0 {
		c.st.record(&SyntaxError{File: c.name, Line: base + 1, Msg: fmt.Sprintf("record longer than %d bytes: skipped", maxRecord)})
		c.lines++
		return
	}
	for _, e := range b.errs {
		e.Line += base
		c.st.record(e)
	}
	c.times.absorb(&b.times, base, c.name)
	c.lines += b.lines
	c.intRes = max(c.intRes, b.maxRes)
	if b.rfcRes > 0 && (c.rfcRes == 0 || b.rfcRes < c.rfcRes) {
		c.rfcRes = b.rfcRes
	}
	c.st.ResolutionNS = max(c.intRes, c.rfcRes)
	if !b.raw.final {
		return
	}
	c.st.Bytes = b.raw.bytes
	c.times.finish(&c.st, c.name)
	if b.cutLast && b.raw.trunc == nil {
		c.st.Truncated = true
		c.st.Warnings = append(c.st.Warnings, cutWarning(c.name, c.lines))
	}
	if te := b.raw.trunc; te != nil {
		c.st.Truncated = true
		if te.Corrupt() {
			c.st.Corrupt = true
			c.st.Warnings = append(c.st.Warnings, te.Error()+"; every row is analysed, and a damaged one is skipped only where it is malformed: get an intact copy")
		} else {
			c.st.Warnings = append(c.st.Warnings, te.Error()+"; the rows before the cut are analysed")
		}
		if b.raw.dropped > 0 {
			c.st.record(&SyntaxError{File: c.name, Line: c.lines + 1, Msg: fmt.Sprintf("last line cut short by the truncated stream (%d bytes dropped)", b.raw.dropped)})
		}
	}
	if b.raw.readErr != nil {
		c.err = fmt.Errorf("%s: %w", c.name, b.raw.readErr)
	}
}

// Err returns the I/O error that stopped the read, or nil.
func (c *CSVReader) Err() error { return c.err }

// Stats returns the counts so far.
func (c *CSVReader) Stats() Stats { return c.st }

// Close stops the reading goroutines. The caller owns the underlying reader.
func (c *CSVReader) Close() error {
	c.halt()
	return nil
}

// lazyRow decodes the tag columns of the current record on demand, on the
// consumer's goroutine. Each column remembers its last value, so a value
// repeated row after row costs one comparison; a value asked for twice in
// one row is decoded once.
type lazyRow struct {
	cols   *csvCols
	line   []byte
	fields []string
	starts []int      // start of each field found so far; the next one's start is scanned on demand
	last   [][]string // per column, a few recent values
	lastX  string
	lastMd string
	in     *interner
	// row numbers the records set (from 1); memo[i] holds column i's value
	// when memo[i].row == row. A record set by set3 shares its number, and
	// its memo, with the records of its tail slot.
	row  uint64
	rows uint64 // the row numbers given so far
	memo []memoValue
	// tail, in a contiguous unquoted record, is the offset of the comma
	// before extra_tags, and tail2 that of the comma before metadata (-1:
	// not yet found).
	tail, tail2 int
	// keys caches the column index of the keys asked for (Get).
	keys keyCache
	// slots are the tails (from the third comma) of the last few unquoted
	// records set3 set with different tails, within the current chunk,
	// each with the row number and memo of its values; hit is the slot set
	// last; used orders the slots for eviction.
	slots [tailSlots]tailSlot
	hit   int
	used  uint64
}

// tailSlots is how many recent tails a row keeps the decoded values of: a
// k6 iteration writes its samples under a few tag sets in turn (a
// request's, its checks', the iteration's own), and each comes back.
const tailSlots = 4

// tailSlot is a recent tail, the row number its values are memoised
// under, and their memo.
type tailSlot struct {
	tail []byte // nil: empty slot
	row  uint64
	used uint64
	memo []memoValue
}

// memoValue is a column's value decoded for the record of row number row.
type memoValue struct {
	v   string
	row uint64
}

func (l *lazyRow) init(cols *csvCols) {
	l.cols = cols
	l.starts = make([]int, 0, max(cols.width+1, 4))
	l.last = make([][]string, len(cols.tagIdx))
	l.memo = make([]memoValue, len(cols.tagIdx))
	l.in = newInterner()
}

func (l *lazyRow) set(line []byte, fields []string) {
	l.line, l.fields = line, fields
	l.starts = append(l.starts[:0], 0)
	l.rows++
	l.row = l.rows
	l.tail, l.tail2 = -1, -1
	l.newChunk() // the slots' memos may now hold this record's values
}

// set3 is set for an unquoted record whose first three commas are at i1,
// i2 and i3 (i3 == len(line): there is no fourth field). same is the tail
// slot whose tail line[i3:] is (sameTail), or -1: then the record takes
// the least recently used slot, under a new row number.
func (l *lazyRow) set3(line []byte, i1, i2, i3 int, same int) {
	l.line, l.fields = line, nil
	st := l.starts[:4] // init gave starts room for a start per field and one
	st[0], st[1], st[2], st[3] = 0, i1+1, i2+1, i3+1
	l.starts = st
	l.tail, l.tail2 = -1, -1
	if same < 0 || same != l.hit {
		l.switchSlot(line[i3:], same)
	}
}

// switchSlot makes tail slot k current, or, when k < 0, the least recently
// used slot, given tail and a new row number.
func (l *lazyRow) switchSlot(tail []byte, k int) {
	if k < 0 {
		k = 0
		for j := 1; j < tailSlots; j++ {
			if l.slots[j].used < l.slots[k].used {
				k = j
			}
		}
		sl := &l.slots[k]
		l.rows++
		sl.tail, sl.row = tail, l.rows
		if sl.memo == nil {
			sl.memo = make([]memoValue, len(l.cols.tagIdx))
		}
	}
	sl := &l.slots[k]
	l.used++
	sl.used, l.hit = l.used, k
	l.row, l.memo = sl.row, sl.memo
}

// sameTail returns the tail slot whose tail is byte for byte tail (a
// record from its third comma on), or -1. The slot set last is tried
// first.
func (l *lazyRow) sameTail(tail []byte) int {
	if t := l.slots[l.hit].tail; t != nil && string(tail) == string(t) {
		return l.hit
	}
	for k := range l.slots {
		if t := l.slots[k].tail; k != l.hit && t != nil && string(tail) == string(t) {
			return k
		}
	}
	return -1
}

// sameTailAt returns a tail slot whose tail is byte for byte
// rest[i:i+len(tail)] and is followed by the end of rest, a CR or a LF, or
// -1. The caller checks how the line ends there.
func (l *lazyRow) sameTailAt(rest []byte, i int) int {
	for k := range l.slots {
		if t := l.slots[k].tail; t != nil && endsLine(rest, i+len(t)) && string(rest[i:i+len(t)]) == string(t) {
			return k
		}
	}
	return -1
}

// endsLine reports whether a line of rest may end at e: e is rest's end,
// or a CR or LF.
func endsLine(rest []byte, e int) bool {
	return e == len(rest) || e < len(rest) && (rest[e] == '\n' || rest[e] == '\r')
}

// newChunk forgets the tail slots: their tails lay in a chunk that is
// handed back once parsed, and may be read into again.
func (l *lazyRow) newChunk() {
	for k := range l.slots {
		l.slots[k].tail = nil
	}
}

// field returns field j of the current unquoted record, scanning only as
// far as field j's end.
func (l *lazyRow) field(j int) []byte {
	if len(l.starts) <= j+1 {
		// Fields are short (often empty): a byte loop beats IndexByte's
		// call and setup here. The starts are kept in locals while
		// scanning, so that each field costs its bytes and one store.
		line, st := l.line, l.starts
		k := st[len(st)-1]
		for len(st) <= j+1 && k <= len(line) {
			for k < len(line) && line[k] != ',' {
				k++
			}
			k++
			st = append(st, k)
		}
		l.starts = st
		if len(st) <= j+1 {
			return nil
		}
	}
	a, b := l.starts[j], l.starts[j+1]-1
	if a > len(l.line) {
		return nil
	}
	return l.line[a:b]
}

// findTail sets tail and tail2 in a contiguous unquoted record: the last
// two commas, found from the end (an unquoted record has no comma inside a
// field, and the reader checked its comma count).
func (l *lazyRow) findTail() {
	line := l.line
	k := len(line) - 1
	for k >= 0 && line[k] != ',' {
		k--
	}
	l.tail2 = k
	k--
	for k >= 0 && line[k] != ',' {
		k--
	}
	l.tail = k
}

// get is Tags.Get for a CSV record.
func (l *lazyRow) get(key string) (string, bool) {
	i, hit := l.keys.hit(key) // a key asked for before, by address
	if !hit {
		i = l.keyIndex(key)
	}
	if i >= 0 {
		v := l.memo[i].v // value(i), its memo read in place
		if l.memo[i].row != l.row {
			v = l.fill(i)
		}
		return v, v != ""
	}
	if v, ok := lookupPairs(l.extra(), key); ok {
		return v, true
	}
	return lookupPairs(l.metadata(), key)
}

// keyIndex returns the index of key among the tag columns, or -1.
func (l *lazyRow) keyIndex(key string) int { return l.keys.index(l.cols.keys, key) }

// value returns column i's value in the current record: small enough to
// inline where the memo holds it, which it mostly does (a record shares
// the memo of the records with its tail).
func (l *lazyRow) value(i int) string {
	if m := &l.memo[i]; m.row == l.row {
		return m.v
	}
	return l.fill(i)
}

// fill decodes column i's value into the memo and returns it.
func (l *lazyRow) fill(i int) string {
	v := l.decode(i)
	l.memo[i] = memoValue{v, l.row}
	return v
}

// decode returns the interned value of column i of the current record.
func (l *lazyRow) decode(i int) string {
	j := l.cols.tagIdx[i]
	if l.fields != nil {
		return l.in.intern([]byte(l.fields[j]))
	}
	f := l.field(j)
	recent := l.last[i]
	for k, v := range recent {
		if string(f) == v {
			if k > 0 { // move to front
				copy(recent[1:k+1], recent[:k])
				recent[0] = v
			}
			return v
		}
	}
	v := l.in.intern(f)
	if len(recent) < recentValues {
		recent = append(recent, "")
	}
	copy(recent[1:], recent)
	recent[0] = v
	l.last[i] = recent
	return v
}

// recentValues is how many recent values of each tag column are compared
// before the interning map is asked: enough for a handful of endpoints.
const recentValues = 8

// rawExtra returns the extra_tags field of the current unquoted record.
func (l *lazyRow) rawExtra() []byte {
	if l.cols.contiguous {
		if l.tail2 < 0 {
			l.findTail()
		}
		if l.tail < 0 {
			return nil
		}
		return l.line[l.tail+1 : l.tail2]
	}
	return l.field(l.cols.idxExtra)
}

func (l *lazyRow) extra() string {
	j := l.cols.idxExtra
	if j < 0 {
		return ""
	}
	if l.fields != nil {
		return l.fields[j]
	}
	f := l.rawExtra()
	if string(f) != l.lastX {
		l.lastX = l.in.intern(f)
	}
	return l.lastX
}

func (l *lazyRow) metadata() string {
	j := l.cols.idxMeta
	if j < 0 {
		return ""
	}
	if l.fields != nil {
		return l.fields[j]
	}
	var f []byte
	if l.cols.contiguous {
		if l.tail2 < 0 {
			l.findTail()
		}
		f = l.line[l.tail2+1:]
	} else {
		f = l.field(j)
	}
	if string(f) != l.lastMd {
		l.lastMd = string(f)
	}
	return l.lastMd
}

// hashColumns writes the raw bytes of every tag column to h.
func (l *lazyRow) hashColumns(h *maphash.Hash) {
	if l.fields != nil {
		for i, j := range l.cols.tagIdx {
			h.WriteString(l.fields[j])
			h.WriteByte(byte(i))
		}
		return
	}
	if l.cols.contiguous {
		// The span from the 4th field to the one before extra_tags (an
		// unquoted record has no comma inside a field).
		if len(l.starts) < 4 {
			l.field(3)
		}
		if l.tail2 < 0 {
			l.findTail()
		}
		if start := l.starts[3]; l.tail >= start {
			h.Write(l.line[start:l.tail])
		}
		return
	}
	for i, j := range l.cols.tagIdx {
		h.Write(l.field(j))
		h.WriteByte(byte(i))
	}
}

// splitter splits records into fields, reusing its buffers.
type splitter struct {
	fields  [][]byte
	offsets []int
	scratch []byte
}

// split splits an unquoted record at commas.
func (s *splitter) split(line []byte) ([][]byte, []int) {
	s.fields = s.fields[:0]
	s.offsets = s.offsets[:0]
	off := 0
	for {
		i := bytes.IndexByte(line[off:], ',')
		if i < 0 {
			s.fields = append(s.fields, line[off:])
			s.offsets = append(s.offsets, off)
			return s.fields, s.offsets
		}
		s.fields = append(s.fields, line[off:off+i])
		s.offsets = append(s.offsets, off)
		off += i + 1
	}
}

// colError is a record-level syntax error at a known column.
type colError struct {
	col int
	msg string
}

func (e *colError) Error() string { return fmt.Sprintf("column %d: %s", e.col, e.msg) }

// splitQuoted parses one RFC 4180 record from b (as Go's encoding/csv
// writes it: a field is quoted when it holds a comma, a quote, a CR or LF,
// or starts with a space; quotes inside are doubled). It returns the
// fields, their byte columns, the bytes consumed including the final
// newline, and the number of lines the record took. b holds whole records,
// so running out of input inside quotes is an unterminated field.
func (s *splitter) splitQuoted(b []byte, _ bool) (fields [][]byte, offs []int, n, lines int, err error) {
	s.fields = s.fields[:0]
	s.offsets = s.offsets[:0]
	s.scratch = s.scratch[:0]
	i := 0
	lineStart := 0
	skipLine := func(from int) int {
		if end := bytes.IndexByte(b[from:], '\n'); end >= 0 {
			return from + end + 1
		}
		return len(b)
	}
	for {
		s.offsets = append(s.offsets, i-lineStart)
		if i < len(b) && b[i] == '"' {
			start := len(s.scratch)
			j := i + 1
			for {
				if j >= len(b) {
					return nil, nil, len(b), lines + 1, errUnterminated
				}
				ch := b[j]
				if ch == '"' {
					if j+1 < len(b) && b[j+1] == '"' {
						s.scratch = append(s.scratch, '"')
						j += 2
						continue
					}
					j++
					break
				}
				if ch == '\n' {
					lines++
					lineStart = j + 1
				}
				s.scratch = append(s.scratch, ch)
				j++
			}
			s.fields = append(s.fields, s.scratch[start:len(s.scratch):len(s.scratch)])
			i = j
			if i < len(b) && b[i] == '\r' {
				i++
			}
			if i >= len(b) {
				return s.fields, s.offsets, i, lines + 1, nil
			}
			switch b[i] {
			case ',':
				i++
				continue
			case '\n':
				return s.fields, s.offsets, i + 1, lines + 1, nil
			default:
				return nil, nil, skipLine(i), lines + 1, &colError{i - lineStart + 1, fmt.Sprintf("extraneous character %q after a quoted field", b[i])}
			}
		}
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '\n' {
			if b[j] == '"' {
				return nil, nil, skipLine(j), lines + 1, &colError{j - lineStart + 1, "bare quote in an unquoted field"}
			}
			j++
		}
		s.fields = append(s.fields, bytes.TrimSuffix(b[i:j], []byte{'\r'}))
		if j >= len(b) {
			return s.fields, s.offsets, j, lines + 1, nil
		}
		if b[j] == '\n' {
			return s.fields, s.offsets, j + 1, lines + 1, nil
		}
		i = j + 1
	}
}

// parseTimestamp decodes a k6 CSV timestamp and returns nanoseconds since
// the epoch and the encoding's resolution in nanoseconds. A time outside
// 1970–2200 (MinTimeNS..MaxTimeNS) is an error.
func parseTimestamp(b []byte) (ns, res int64, err error) {
	if len(b) == 0 {
		return 0, 0, errors.New("empty: want unix seconds/ms/µs/ns or RFC 3339")
	}
	allDigits := true
	for _, ch := range b {
		if ch < '0' || ch > '9' {
			allDigits = false
			break
		}
	}
	if allDigits {
		if len(b) > 19 {
			return 0, 0, errors.New("more than 19 digits: want unix seconds (10), ms (13), µs (16) or ns (19)")
		}
		var v uint64 // 19 digits fit
		for _, ch := range b {
			v = v*10 + uint64(ch-'0')
		}
		var u uint64 // v in ns; at most 19 digits, so no overflow
		switch {
		case len(b) <= 10:
			u, res = v*1e9, 1e9
		case len(b) <= 13:
			u, res = v*1e6, 1e6
		case len(b) <= 16:
			u, res = v*1e3, 1e3
		default:
			u, res = v, 1
		}
		if u > uint64(MaxTimeNS) {
			t := time.Unix(int64(u/1e9), int64(u%1e9)).UTC()
			return 0, 0, fmt.Errorf("%s is outside %s", t.Format(time.RFC3339Nano), timeRange)
		}
		return int64(u), res, nil
	}
	t, perr := time.Parse(time.RFC3339Nano, unsafe.String(&b[0], len(b)))
	if perr != nil {
		return 0, 0, errors.New("want unix seconds/ms/µs/ns digits or RFC 3339 (2006-01-02T15:04:05.999999999Z07:00)")
	}
	if msg := checkYear(t); msg != "" {
		return 0, 0, errors.New(msg)
	}
	res = int64(1e9)
	if dot := bytes.IndexByte(b, '.'); dot >= 0 {
		k := dot + 1
		for k < len(b) && b[k] >= '0' && b[k] <= '9' {
			k++
		}
		digits := k - dot - 1
		res = 1
		for d := digits; d < 9; d++ {
			res *= 10
		}
	}
	return t.UnixNano(), res, nil
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// parseValue decodes a metric value. k6 writes "%f" (six decimals, no
// exponent); that shape is parsed directly and exactly (an integer of at
// most 15 digits divided by a power of ten is correctly rounded in IEEE
// arithmetic, as strconv would round it). Other decimal numbers (more
// digits, an exponent, a leading '+') go to strconv once they pass
// validNumber: Go's own literal forms that strconv also takes (digit
// separators "1_000", hex "0x1p3", "Inf", "NaN") are not numbers in a k6
// file. NaN and ±Inf, and numbers beyond float64, are refused: they would
// poison every sum and percentile.
func parseValue(b []byte) (float64, error) {
	i := 0
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg, i = true, 1
	}
	if v, end, ok := simpleDecimal(b, i); ok && end == len(b) {
		if neg {
			v = -v
		}
		return v, nil
	}
	if len(b) == 0 {
		return 0, errors.New("empty: want a number")
	}
	if !validNumber(b) {
		if bytes.IndexByte(b, '_') >= 0 {
			return 0, errors.New("want a number (digits without '_' separators)")
		}
		if isNonFinite(b) {
			return 0, errors.New("want a finite number")
		}
		return 0, errors.New("want a number")
	}
	v, err := strconv.ParseFloat(unsafe.String(&b[0], len(b)), 64)
	if math.IsInf(v, 0) {
		return 0, errors.New("want a finite number")
	}
	if err != nil && !errors.Is(err, strconv.ErrRange) { // underflow to 0 is fine
		return 0, errors.New("want a number")
	}
	return v, nil
}

// validNumber reports whether b is a plain decimal number:
// [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?
func validNumber(b []byte) bool {
	i := 0
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	d := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i, d = i+1, d+1
	}
	if i < len(b) && b[i] == '.' {
		i++
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i, d = i+1, d+1
		}
	}
	if d == 0 {
		return false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		e := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i, e = i+1, e+1
		}
		if e == 0 {
			return false
		}
	}
	return i == len(b)
}

// isNonFinite reports whether b spells NaN or an infinity as strconv
// would take it ("NaN", "+Inf", "-infinity", any case).
func isNonFinite(b []byte) bool {
	s := strings.ToLower(strings.TrimLeft(string(b), "+-"))
	return s == "nan" || s == "inf" || s == "infinity"
}
