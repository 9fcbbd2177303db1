package ingest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow/memory"
	flatbuffers "github.com/google/flatbuffers/go"
)

// A corrupt columnar file must give an error, never a panic or an
// allocation it cannot justify. arrow-go's readers trust lengths they find
// in the file in two places: Go slices made from flatbuffer vector lengths
// of an Arrow file's footer (a field's children, metadata), and buffers
// sized from a compressed body's or a page's "uncompressed size". The first
// is checked by verifyArrowFooter before arrow-go sees the file; the second
// by boundedAllocator, which refuses any single allocation larger than a
// multiple of the file's size (the panic becomes the read's error).

// BufferTooLargeError is the error of a columnar read whose file asked
// for a buffer (Size bytes) larger than it can hold (Max: 64× the file's
// size, at least 64 MiB, at most 1 TiB): a corrupt length.
type BufferTooLargeError struct {
	File      string
	Size, Max int
}

func (e *BufferTooLargeError) Error() string {
	return fmt.Sprintf("%s: corrupt file: a buffer of %d bytes, more than the file can hold (%d)", e.File, e.Size, e.Max)
}

// boundedAllocator is memory.DefaultAllocator with a cap on each buffer.
// arrow-go's memory.Allocator cannot return an error, so a refused size
// unwinds the decoder with a *BufferTooLargeError as the panic value;
// every entry point of the columnar reader recovers it (recovered) and
// returns it as its error: it never leaves the package.
type boundedAllocator struct {
	file string
	max  int
}

func newBoundedAllocator(file string, fileSize int64) memory.Allocator {
	return &boundedAllocator{file: file, max: int(min(max(64*fileSize, 64<<20), 1<<40))}
}

func (a *boundedAllocator) check(size int) {
	if size < 0 || size > a.max {
		panic(&BufferTooLargeError{File: a.file, Size: size, Max: a.max})
	}
}

func (a *boundedAllocator) Allocate(size int) []byte {
	a.check(size)
	return memory.DefaultAllocator.Allocate(size)
}

func (a *boundedAllocator) Reallocate(size int, b []byte) []byte {
	a.check(size)
	return memory.DefaultAllocator.Reallocate(size, b)
}

func (a *boundedAllocator) Free(b []byte) { memory.DefaultAllocator.Free(b) }

// verifyArrowFooter checks the footer of the Arrow IPC file f (size bytes):
// every table, string and vector of the footer and of its schema lies
// inside the footer's bytes (format/File.fbs, Schema.fbs).
func verifyArrowFooter(f *os.File, size int64) error {
	const tail = 10 // int32 footer length + "ARROW1"
	if size < 8+tail {
		return errors.New("file too small")
	}
	var end [tail]byte
	if _, err := f.ReadAt(end[:], size-tail); err != nil && err != io.EOF {
		return err
	}
	if string(end[4:]) != "ARROW1" {
		return errors.New("no ARROW1 magic at the end")
	}
	n := int64(int32(binary.LittleEndian.Uint32(end[:4])))
	if n <= 0 || n > size-tail-8 {
		return fmt.Errorf("footer of %d bytes in a file of %d", n, size)
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, size-tail-n); err != nil && err != io.EOF {
		return err
	}
	v := fbVerifier{buf: buf}
	root, ok := v.root()
	if !ok {
		return errors.New("corrupt footer")
	}
	if s, ok := v.child(root, 1); ok {
		v.schema(s)
	}
	v.vector(root, 2, 24) // dictionary blocks
	v.vector(root, 3, 24) // record batch blocks
	v.tables(root, 4, v.keyValue)
	if v.bad {
		return errors.New("corrupt footer")
	}
	return nil
}

// fbVerifier checks flatbuffer tables against the bounds of buf; bad
// records any violation.
type fbVerifier struct {
	buf   []byte
	bad   bool
	depth int
	count int // tables visited, against deep or wide bombs
}

func (v *fbVerifier) in(pos, n uint64) bool {
	if pos+n > uint64(len(v.buf)) || pos+n < pos {
		v.bad = true
		return false
	}
	return true
}

func (v *fbVerifier) u32(pos uint64) uint64 { return uint64(binary.LittleEndian.Uint32(v.buf[pos:])) }

// table returns the table at pos after checking its vtable.
func (v *fbVerifier) table(pos uint64) (flatbuffers.Table, bool) {
	v.count++
	if v.count > 1<<16 || !v.in(pos, 4) {
		v.bad = true
		return flatbuffers.Table{}, false
	}
	vt := int64(pos) - int64(int32(binary.LittleEndian.Uint32(v.buf[pos:])))
	if vt < 0 || !v.in(uint64(vt), 4) {
		return flatbuffers.Table{}, false
	}
	vtSize := uint64(binary.LittleEndian.Uint16(v.buf[vt:]))
	if vtSize < 4 || vtSize%2 != 0 || !v.in(uint64(vt), vtSize) {
		v.bad = true
		return flatbuffers.Table{}, false
	}
	return flatbuffers.Table{Bytes: v.buf, Pos: flatbuffers.UOffsetT(pos)}, true
}

func (v *fbVerifier) root() (flatbuffers.Table, bool) {
	if !v.in(0, 4) {
		return flatbuffers.Table{}, false
	}
	return v.table(v.u32(0))
}

// ref returns where field slot of t points to (a uoffset), or false.
func (v *fbVerifier) ref(t flatbuffers.Table, slot int) (uint64, bool) {
	o := uint64(t.Offset(flatbuffers.VOffsetT(4 + 2*slot)))
	if o == 0 {
		return 0, false
	}
	pos := uint64(t.Pos) + o
	if !v.in(pos, 4) {
		return 0, false
	}
	return pos + v.u32(pos), true
}

func (v *fbVerifier) child(t flatbuffers.Table, slot int) (flatbuffers.Table, bool) {
	p, ok := v.ref(t, slot)
	if !ok {
		return flatbuffers.Table{}, false
	}
	return v.table(p)
}

// vector checks a vector of n elements of elem bytes, returning where its
// elements start and n.
func (v *fbVerifier) vector(t flatbuffers.Table, slot int, elem uint64) (uint64, uint64) {
	p, ok := v.ref(t, slot)
	if !ok || !v.in(p, 4) {
		return 0, 0
	}
	n := v.u32(p)
	if !v.in(p+4, n*elem) {
		return 0, 0
	}
	return p + 4, n
}

// tables checks a vector of tables with fn.
func (v *fbVerifier) tables(t flatbuffers.Table, slot int, fn func(flatbuffers.Table)) {
	start, n := v.vector(t, slot, 4)
	for i := uint64(0); i < n && !v.bad; i++ {
		e := start + 4*i
		if tt, ok := v.table(e + v.u32(e)); ok {
			fn(tt)
		}
	}
}

func (v *fbVerifier) keyValue(t flatbuffers.Table) {
	v.vector(t, 0, 1)
	v.vector(t, 1, 1)
}

func (v *fbVerifier) schema(t flatbuffers.Table) {
	v.tables(t, 1, v.field)
	v.tables(t, 2, v.keyValue)
	v.vector(t, 3, 8) // features
}

func (v *fbVerifier) field(t flatbuffers.Table) {
	v.depth++
	defer func() { v.depth-- }()
	if v.depth > 64 {
		v.bad = true
		return
	}
	v.vector(t, 0, 1) // name
	if ty, ok := v.child(t, 3); ok {
		v.vector(ty, 1, 1) // Timestamp.timezone and the like: a string if anything
	}
	if d, ok := v.child(t, 4); ok { // DictionaryEncoding
		v.child(d, 1) // indexType
	}
	v.tables(t, 5, v.field) // children
	v.tables(t, 6, v.keyValue)
}
