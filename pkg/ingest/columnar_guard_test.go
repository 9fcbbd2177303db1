package ingest

import (
	"errors"
	"testing"
)

// TestBoundedAllocatorError: a buffer larger than 64× a 10-byte file (at
// least 64 MiB) comes back from a guarded read as a *BufferTooLargeError
// naming the file, not as a panic; one within the bound is allocated.
func TestBoundedAllocatorError(t *testing.T) {
	a := newBoundedAllocator("run.parquet", 10)
	if b := a.Allocate(1 << 10); len(b) != 1<<10 {
		t.Fatalf("allocated %d bytes, want 1024", len(b))
	}
	read := func() (err error) {
		defer recovered(&err)
		a.Allocate(1 << 40)
		return nil
	}
	err := read()
	var e *BufferTooLargeError
	if !errors.As(err, &e) || e.File != "run.parquet" || e.Size != 1<<40 || e.Max != 64<<20 {
		t.Fatalf("error %v (%#v), want a *BufferTooLargeError of run.parquet, 2^40 > 64 MiB", err, e)
	}
	if want := "run.parquet: corrupt file: a buffer of 1099511627776 bytes, more than the file can hold (67108864)"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}
