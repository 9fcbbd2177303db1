package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
)

// The line-oriented readers (CSV, JSON lines) read their input in chunks of
// whole lines that workers parse in parallel. The reading goroutine only
// reads (and so, under Open, decompresses) and finds the last newline of
// each buffer; counting lines, quote parity and everything else is done by
// the workers, so that a gzip input's single inflate stream is the only
// serial stage.
const (
	chunkSize = 256 << 10
	maxRecord = 16 << 20
)

var chunkPool = sync.Pool{New: func() any { b := make([]byte, chunkSize); return &b }}

// putChunk returns a chunk buffer to the pool, if it is one of the pool's.
func putChunk(b *[]byte) {
	if b != nil && cap(*b) == chunkSize {
		chunkPool.Put(b)
	}
}

// drainWindow is how many batches a line-oriented reader's Drain keeps
// queued for their turn in file order: 8 per core. A parsed batch holds
// no chunk (the sinks took its samples), so a worker that finishes while
// another is held up (a lock, a coarsening sketch series, a GC assist)
// takes the next chunk instead of waiting for the slow one, and the
// chunks being read or parsed stay ~2 per core. (Next reads the records
// from the chunks, so it keeps one batch per core queued.)
func drainWindow() int { return 8 * runtime.GOMAXPROCS(0) }

// readAhead is the reading goroutine of a line-oriented reader: started
// once (the first Next or Drain sets started), told to stop (halt, from
// Close), and waited for (stopAndWait) before the source is closed.
type readAhead struct {
	started bool
	stop    chan struct{}
	once    sync.Once
	done    chan struct{} // closed when the reading goroutine has returned
}

func (g *readAhead) init() { g.stop, g.done = make(chan struct{}), make(chan struct{}) }

// halt tells the reading goroutine, if started, to stop.
func (g *readAhead) halt() {
	if g.started {
		g.once.Do(func() { close(g.stop) })
	}
}

// stopAndWait is halt, and waits until the reading goroutine no longer
// reads the underlying reader, so that it can be closed. The read it is
// in must return (a file's does; a pipe's need not).
func (g *readAhead) stopAndWait() {
	if g.started {
		g.halt()
		<-g.done
	}
}

// rawChunk is one piece of input cut by a chunkSource.
type rawChunk struct {
	// data holds whole lines (the final chunk may end without a newline);
	// buf is the pooled buffer behind it.
	data []byte
	buf  *[]byte
	// m, when not nil, is the mapping data is a slice of (buf is nil),
	// at offset off.
	m   *fileMap
	off int
	// longLine, when > 0, reports a line of at least longLine bytes that was
	// longer than the source's limit and skipped; data is nil.
	longLine int
	// final marks the last chunk; the fields below are set on it only.
	final bool
	// readErr is the I/O error that ended the input (not io.EOF, not a
	// truncated compressed stream).
	readErr error
	// trunc is set when a compressed stream was cut short; dropped is the
	// length of the cut last line, which is not in data.
	trunc   *TruncatedError
	dropped int
	// bytes is the number of (decompressed) bytes read in all.
	bytes int64
	// fault is the error of a fault on the mapping the chunks were cut
	// from (the file was cut under it): it ended the input.
	fault error
}

// chunkSource cuts a stream into chunks of whole lines.
type chunkSource struct {
	r       io.Reader
	maxLine int
	buf     []byte
	bufp    *[]byte
	eof     bool
	err     error
	total   int64
	done    bool

	// m, when not nil, is the mapping that chunks are cut from, at pos
	// (mapFrom), until leaveMap hands over to r: a tailReader of file.
	// mapBase is the file offset that total counts from; prog feeds
	// Open's onRead.
	m       *fileMap
	pos     int
	mapBase int64
	file    *os.File
	prog    progress
}

// newChunkSource reads r, after the bytes of carry (read already, e.g. with
// a header); final, when not nil, is the error that ended r already.
func newChunkSource(r io.Reader, carry []byte, final error, maxLine int) *chunkSource {
	bufp := chunkPool.Get().(*[]byte)
	buf := (*bufp)[:0]
	if len(carry) > cap(buf) {
		buf = make([]byte, 0, 2*len(carry))
		bufp = &buf
	}
	buf = append(buf, carry...)
	return &chunkSource{r: r, maxLine: maxLine, buf: buf, bufp: bufp, eof: final != nil, err: final}
}

func (cs *chunkSource) read(p []byte) int {
	n, err := cs.r.Read(p)
	cs.total += int64(n)
	if err != nil {
		cs.eof, cs.err = true, err
	}
	return n
}

// next returns the next chunk; ok is false after the final one.
func (cs *chunkSource) next() (c rawChunk, ok bool) {
	if cs.done {
		return rawChunk{}, false
	}
	if cs.m != nil {
		if c, ok := cs.nextMapped(); ok {
			return c, true
		}
	}
	buf := cs.buf
	for {
		for !cs.eof && len(buf) < cap(buf) {
			buf = buf[:len(buf)+cs.read(buf[len(buf):cap(buf)])]
		}
		if cs.eof {
			cs.done = true
			c = rawChunk{data: buf, buf: cs.bufp, final: true}
			var te *TruncatedError
			switch {
			case cs.err == io.EOF:
			case errors.As(cs.err, &te):
				c.trunc = te
				// The last line was cut by the truncation: its last field
				// may be a prefix of a number. Leave it out.
				if i := bytes.LastIndexByte(buf, '\n'); i+1 < len(buf) {
					c.dropped = len(buf) - (i + 1)
					c.data = buf[:i+1]
				}
			default:
				c.readErr = cs.err
			}
			if len(c.data) == 0 {
				c.data = nil
			}
			c.bytes = cs.total
			return c, true
		}
		i := bytes.LastIndexByte(buf, '\n')
		if i < 0 {
			if cap(buf) < cs.maxLine {
				// No whole line in the buffer: grow it.
				nb := make([]byte, len(buf), 2*cap(buf))
				copy(nb, buf)
				buf, cs.bufp = nb, &nb
				continue
			}
			// A line longer than the limit: skip to the next newline,
			// then go on with a buffer of the usual size.
			n := len(buf)
			buf = buf[:0]
			for !cs.eof {
				buf = buf[:cs.read(buf[:cap(buf)])]
				if i := bytes.IndexByte(buf, '\n'); i >= 0 {
					n += i + 1
					buf = buf[i+1:]
					break
				}
				n += len(buf)
				buf = buf[:0]
			}
			nbp := chunkPool.Get().(*[]byte)
			nb := (*nbp)[:0]
			if len(buf) > cap(nb) {
				nb = make([]byte, 0, len(buf))
				nbp = &nb
			}
			cs.buf, cs.bufp = append(nb, buf...), nbp
			return rawChunk{longLine: n}, true
		}
		c = rawChunk{data: buf[:i+1], buf: cs.bufp}
		rest := buf[i+1:]
		nbp := chunkPool.Get().(*[]byte)
		nb := (*nbp)[:0]
		if len(rest) > cap(nb) {
			nb = make([]byte, 0, 2*len(rest))
			nbp = &nb
		}
		cs.buf, cs.bufp = append(nb, rest...), nbp
		return c, true
	}
}

// cutLast reports whether chunk, the input's last, ends in a line without
// a newline that was malformed (its error, the last of errs, is on line
// lines of the chunk): what a k6 killed mid-write leaves in a plain file,
// the counterpart of a compressed stream that ends early.
func cutLast(chunk []byte, errs []*SyntaxError, lines int64) bool {
	return len(chunk) > 0 && chunk[len(chunk)-1] != '\n' && len(errs) > 0 && errs[len(errs)-1].Line == lines
}

// cutWarning is the warning of a plain file whose last line, line, was
// cut (cutLast).
func cutWarning(name string, line int64) string {
	return fmt.Sprintf("%s: the last line (%d) ends without a newline and is malformed: the file was cut while k6 wrote it (killed, disk full, copied early); the rows before the cut are analysed, and the last load level may be where the file was cut", name, line)
}
