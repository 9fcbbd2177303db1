package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// A plain regular k6 JSON file read by Drain is mapped (mmap) rather than
// read:
// the chunks the workers parse are then slices of the mapping, not copies
// that read() made into pooled buffers. Only Drain maps, since there every
// goroutine that touches a chunk's bytes is the reader's own (the reading
// goroutine and the workers, whose sinks see the samples during the call);
// Next hands its samples' bytes to the caller's goroutine, so it reads.
// The CSV reader reads too: on the 285 MB bench CSV the mapping saved no
// CPU (the copy it saves is about what its page faults and drops cost),
// where on the 699 MB JSON of the same samples it cut the reader's CPU by
// 13–17 % (Drain alone) and a knee run's by 5–14 % (interleaved runs).
//
// Memory stays bounded: the mapping is advised sequential, and the pages
// behind the chunks are dropped from the process (MADV_DONTNEED: they stay
// in the page cache) once their batches drop them (fileMap.release), so
// the pages mapped are about those of the chunks in flight, as with
// read(). The mapping is unmapped once the reading goroutine is done with
// it and every chunk cut from it is dropped.
//
// Nothing keeps a chunk's bytes past its batch's dropChunk: interned
// metric names, tag keys and values, the slow path's values (encoding/json
// decodes copies), declared metrics and error messages are copies;
// jsonWorker's caches into a chunk (prevTags, prevVals, prevTail) are
// reset at each chunk and read only within it, and wLayout keeps copies
// (last, obj).
//
// A file cut (truncated) under the mapping makes a read of its lost pages
// fault (SIGBUS): the goroutines that read the mapping have
// debug.SetPanicOnFault set, and such a fault becomes an error that names
// the file (see fileMap.fault), not a crash.

// minMapped is the smallest file that is mapped: a smaller one is read,
// since mapping it costs more than it saves.
const minMapped = 4 * chunkSize

// mapTarget is a plain regular file that a reader's Drain may map: Open
// sets it on the readers of such files.
type mapTarget struct {
	f *os.File
	// start is the file offset of the reader's first byte (3 when Open
	// dropped a byte order mark).
	start int64
	// onRead is Open's progress feed, or nil.
	onRead func(int)
	// mapped, when not nil, is called once the file is mapped (tests).
	mapped func()
}

// fileMap is a read-only mapping of a whole file.
type fileMap struct {
	f    *os.File
	data []byte
	// refs counts the chunk source's hold and each chunk's; the mapping is
	// unmapped when it drops to zero.
	refs atomic.Int64
	// faulted is set once a read of the mapping has faulted.
	faulted atomic.Bool

	// mu guards the page dropping: every chunk before mark is released,
	// early holds the ends of chunks after it released (by offset), and
	// the pages before dropped are dropped.
	mu      sync.Mutex
	mark    int
	early   map[int]int
	dropped int
}

// mapFile maps t's file, or returns why not (then the file is read).
func mapFile(t *mapTarget) (*fileMap, error) {
	fi, err := t.f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	size := fi.Size()
	if size < minMapped || size != int64(int(size)) {
		return nil, errors.New("size not worth mapping")
	}
	data, err := mmapFile(t.f, int(size))
	if err != nil {
		return nil, err
	}
	m := &fileMap{f: t.f, data: data, early: map[int]int{}}
	m.refs.Store(1)
	if t.mapped != nil {
		t.mapped()
	}
	return m, nil
}

// release gives back a chunk's hold on the mapping (n bytes at off; the
// chunk source's is release(0, 0)). The pages behind the chunks are
// dropped from the process in file order, a dropBatch at a time, once
// every chunk before them is released: a page shared by two chunks is
// dropped after both, and one madvise call (and its TLB flush on the other
// cores) serves several chunks.
func (m *fileMap) release(off, n int) {
	if n > 0 {
		m.mu.Lock()
		if off == m.mark {
			m.mark = off + n
			for {
				end, ok := m.early[m.mark]
				if !ok {
					break
				}
				delete(m.early, m.mark)
				m.mark = end
			}
		} else {
			m.early[off] = off + n
		}
		if m.mark-m.dropped >= dropBatch {
			// From dropMargin before the pages dropped last: a read
			// fault maps the pages around the one faulted too (the
			// kernel's fault-around), so a worker that began a chunk
			// after the last drop may have mapped some of them again.
			ps := os.Getpagesize()
			lo, hi := max(m.dropped-dropMargin, 0)&^(ps-1), m.mark&^(ps-1)
			dropPages(m.data[lo:hi])
			m.dropped = hi
		}
		m.mu.Unlock()
	}
	if m.refs.Add(-1) == 0 {
		unmapFile(m.data)
		m.data = nil
	}
}

// dropBatch is how many bytes of released chunks are dropped at a time;
// dropMargin is Linux's default fault-around (fault_around_bytes).
const (
	dropBatch  = 4 * chunkSize
	dropMargin = 64 << 10
)

// fault returns the error of r, a recovered panic, when it is a fault on
// m's pages (the file was cut under the mapping); otherwise nil.
func (m *fileMap) fault(r any) error {
	e, ok := r.(interface {
		runtime.Error
		Addr() uintptr
	})
	if !ok || len(m.data) == 0 {
		return nil
	}
	lo := addrOf(m.data)
	if a := e.Addr(); a < lo || a >= lo+uintptr(len(m.data)) {
		return nil
	}
	m.faulted.Store(true)
	return m.changed()
}

// recovered is the error of r, a panic recovered while reading m: the
// fault of a file cut under the mapping (fault), or any other panic as an
// internal error with its stack, so that a bug in a parser ends the read
// with an error the CLI prints rather than a crash of the process.
func (m *fileMap) recovered(r any) error {
	if err := m.fault(r); err != nil {
		return err
	}
	return fmt.Errorf("internal error while reading the mapped file (%v): a bug in ldanalyze; please report it with this message\n%s", r, debug.Stack())
}

// changed is the error of a file cut under its mapping; it does not name
// the file (the readers do, as they name read errors).
func (m *fileMap) changed() error {
	now := "unknown"
	if fi, err := m.f.Stat(); err == nil {
		now = fmt.Sprintf("%d", fi.Size())
	}
	return fmt.Errorf("changed size while being read (%d bytes when opened, %s now): a file that is still being written or was cut; analyse a finished copy", len(m.data), now)
}

// guard runs parse, the parsing of a chunk of m (nil: a chunk that is not
// mapped), and returns the error of a fault on m's pages during it. Once m
// has faulted, parse is not run: the rest of the file is lost too.
func (m *fileMap) guard(parse func()) (err error) {
	if m == nil {
		parse()
		return nil
	}
	if m.faulted.Load() {
		return m.changed()
	}
	defer func() {
		if r := recover(); r != nil {
			err = m.recovered(r)
		}
	}()
	parse()
	return nil
}

// progress feeds onRead the bytes of the file up to an offset, each once.
type progress struct {
	fn func(int)
	at int64 // bytes reported so far
}

func (p *progress) advance(to int64) {
	if p.fn != nil && to > p.at {
		p.fn(int(to - p.at))
		p.at = to
	}
}

// tailReader reads a file from an offset, reporting to p: how a mapped
// source reads what comes after the mapping (a file still growing) or a
// line too long for a chunk.
type tailReader struct {
	f   *os.File
	off int64
	p   *progress
}

func (t *tailReader) Read(b []byte) (int, error) {
	n, err := t.f.ReadAt(b, t.off)
	t.off += int64(n)
	t.p.advance(t.off)
	return n, err
}

// mapFrom makes cs, a source given no carry, cut its chunks from t's file
// mapped, from t.start; it reports whether it does (when the file cannot
// be mapped cs reads, as it was made to).
func (cs *chunkSource) mapFrom(t *mapTarget) bool {
	m, err := mapFile(t)
	if err != nil {
		return false
	}
	at := t.start
	if at > int64(len(m.data)) {
		m.release(0, 0)
		return false
	}
	cur, err := t.f.Seek(0, io.SeekCurrent)
	if err != nil {
		m.release(0, 0)
		return false
	}
	putChunk(cs.bufp)
	cs.buf, cs.bufp = nil, nil
	cs.m, cs.pos, cs.mapBase = m, int(at), at
	m.mark, m.dropped = int(at), int(at)
	cs.file, cs.prog = t.f, progress{fn: t.onRead, at: cur}
	return true
}

// nextMapped returns the next chunk cut from the mapping, as next would
// cut it: up to chunkSize bytes, to the last newline. ok is false when the
// read() path is to go on instead, from where the mapping left off (its
// last, partial window; a line longer than a chunk). A fault on the
// mapping ends the input with its error.
func (cs *chunkSource) nextMapped() (c rawChunk, ok bool) {
	m := cs.m
	defer func() {
		if r := recover(); r != nil {
			err := m.recovered(r)
			cs.dropMap()
			cs.done = true
			c, ok = rawChunk{final: true, fault: err, bytes: int64(cs.pos) - cs.mapBase}, true
		}
	}()
	if m.faulted.Load() {
		// A worker's chunk faulted: the file was cut, and so is the rest.
		cs.dropMap()
		cs.done = true
		return rawChunk{final: true, fault: m.changed(), bytes: int64(cs.pos) - cs.mapBase}, true
	}
	if rest := m.data[cs.pos:]; len(rest) >= chunkSize {
		if i := bytes.LastIndexByte(rest[:chunkSize], '\n'); i >= 0 {
			m.refs.Add(1)
			c = rawChunk{data: rest[:i+1], m: m, off: cs.pos}
			cs.pos += i + 1
			cs.prog.advance(int64(cs.pos))
			return c, true
		}
		cs.leaveMap(cs.pos)
		return rawChunk{}, false
	}
	cs.leaveMap(len(m.data))
	return rawChunk{}, false
}

// leaveMap hands the source over to the read() path: the mapped bytes from
// cs.pos to end are its carry, and it reads the file from end.
func (cs *chunkSource) leaveMap(end int) {
	bufp := chunkPool.Get().(*[]byte)
	buf := append((*bufp)[:0], cs.m.data[cs.pos:end]...)
	cs.buf, cs.bufp = buf, bufp
	cs.total = int64(end) - cs.mapBase
	cs.prog.advance(int64(end))
	cs.r = &tailReader{f: cs.file, off: int64(end), p: &cs.prog}
	cs.dropMap()
}

// dropMap gives back the source's hold on its mapping, if any.
func (cs *chunkSource) dropMap() {
	if cs.m != nil {
		cs.m.release(0, 0)
		cs.m = nil
	}
}

// free gives back the memory of a chunk: its pooled buffer, or its hold on
// the mapping it was cut from (its pages dropped).
func (c *rawChunk) free() {
	if c.m != nil {
		c.m.release(c.off, len(c.data))
		c.m = nil
	}
	putChunk(c.buf)
	c.buf = nil
}
