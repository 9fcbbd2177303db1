//go:build !unix

package ingest

import (
	"errors"
	"os"
	"unsafe"
)

// mmapFile does not map here: the file is read.
func mmapFile(f *os.File, size int) ([]byte, error) {
	return nil, errors.New("no mmap on this system")
}

func dropPages(b []byte) {}

func unmapFile(data []byte) {}

// addrOf returns the address of b's first byte.
func addrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
