package ingest

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// poolAllocator is a memory.Allocator for arrow-go's writers that recycles
// the buffers they free (a Parquet row group makes new column writers, with
// new page and level buffers, every time): buffers come in power-of-two
// sizes from 64 bytes to 64 MiB, 64-byte aligned as arrow-go's own Go
// allocator gives them, zeroed, and go back to a sync.Pool per size on Free
// (so the garbage collector still reclaims what is not reused).
type poolAllocator struct {
	pools [27]sync.Pool // size 64 << i
}

var _ memory.Allocator = (*poolAllocator)(nil)

const poolMinShift, poolClasses = 6, 21

func sizeClass(n int) int {
	if n <= 1<<poolMinShift {
		return 0
	}
	return bits.Len(uint(n-1)) - poolMinShift
}

// Allocate returns a zeroed buffer of size bytes.
func (p *poolAllocator) Allocate(size int) []byte {
	c := sizeClass(size)
	if c >= poolClasses {
		return alignedBytes(size, size)
	}
	if v := p.pools[c].Get(); v != nil {
		b := *(v.(*[]byte))
		b = b[:size]
		clear(b)
		return b
	}
	return alignedBytes(size, 1<<(c+poolMinShift))
}

// Reallocate resizes b, keeping its contents; new bytes are zero.
func (p *poolAllocator) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		old := len(b)
		b = b[:size]
		if size > old {
			clear(b[old:])
		}
		return b
	}
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

// Free takes b back for reuse, if it is one of the allocator's sizes.
func (p *poolAllocator) Free(b []byte) {
	c := cap(b)
	if c < 1<<poolMinShift || c&(c-1) != 0 {
		return
	}
	k := sizeClass(c)
	if k >= poolClasses {
		return
	}
	b = b[:0]
	p.pools[k].Put(&b)
}

// alignedBytes returns size bytes with capacity capacity, 64-byte aligned.
func alignedBytes(size, capacity int) []byte {
	buf := make([]byte, capacity+64)
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	shift := int((64 - addr%64) % 64)
	return buf[shift : shift+size : shift+capacity]
}
