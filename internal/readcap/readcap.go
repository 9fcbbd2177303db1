// Package readcap bounds what a reader of a whole file takes in, so that a
// file that is not what a command expects (/dev/zero, a log of gigabytes
// given by mistake) fails at once with a message naming the cap and the
// file, instead of being read until memory or patience runs out.
package readcap

import (
	"fmt"
	"io"
	"os"
	"strconv"
)

// TooLargeError is a file or stream longer than its cap.
type TooLargeError struct {
	// File names the input as given.
	File string
	// Max is the cap, bytes.
	Max int64
	// What is what the file should have been, e.g. "a usage file".
	What string
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than %s: not %s", e.File, Size(e.Max), e.What)
}

// Size formats a byte count for a message: whole KiB, MiB or GiB when it
// is one, else bytes ("64 MiB", "1000 bytes").
func Size(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n > 0 && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// Reader is r bounded to max bytes: a read past them returns a
// *TooLargeError naming file. It reads at most max+1 bytes of r.
type Reader struct {
	r    io.Reader
	left int64 // bytes still allowed, plus one to detect the excess
	err  *TooLargeError
}

// NewReader returns r bounded to max bytes (max ≥ 0); file and what name
// the input in the error.
func NewReader(r io.Reader, max int64, file, what string) *Reader {
	return &Reader{r: r, left: max + 1, err: &TooLargeError{File: file, Max: max, What: what}}
}

// Read reads from the underlying reader; once more than the cap has been
// read it returns the *TooLargeError (the bytes past the cap are never
// returned).
func (b *Reader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, b.err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if b.left <= 0 {
		// The byte past the cap is dropped: the caller gets the cap's
		// worth and the error.
		return n - 1, b.err
	}
	return n, err
}

// ReadAll reads r to the end, at most max bytes; a longer stream is a
// *TooLargeError. Other errors are returned as they are.
func ReadAll(r io.Reader, max int64, file, what string) ([]byte, error) {
	return io.ReadAll(NewReader(r, max, file, what))
}

// ReadFile reads the file at path whole, at most max bytes; a longer
// file is a *TooLargeError naming path. A regular file is checked by its
// size first, without reading it.
func ReadFile(path string, max int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > max {
		return nil, &TooLargeError{File: path, Max: max, What: what}
	}
	return ReadAll(f, max, path, what)
}
