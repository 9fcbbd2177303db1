//go:build unix

package ingest

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mmapFile maps size bytes of f read-only, advised sequential.
func mmapFile(f *os.File, size int) ([]byte, error) {
	data, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	_ = unix.Madvise(data, unix.MADV_SEQUENTIAL) // advice: its failure costs speed only
	return data, nil
}

// dropPages drops the pages of b, a page-aligned part of a mapping, from
// the process; a later read maps them again from the file.
func dropPages(b []byte) { _ = unix.Madvise(b, unix.MADV_DONTNEED) }

// unmapFile unmaps a mapping of mmapFile.
func unmapFile(data []byte) { _ = unix.Munmap(data) }

// addrOf returns the address of b's first byte.
func addrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
