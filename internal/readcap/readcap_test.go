package readcap

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// zeros is an endless stream of zero bytes, as /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestEndless: an endless stream fails after the cap with the message
// naming the cap and the file, having handed out exactly the cap.
func TestEndless(t *testing.T) {
	b, err := ReadAll(zeros{}, 1<<20, "/dev/zero", "a usage file")
	var tl *TooLargeError
	if !errors.As(err, &tl) || err.Error() != "/dev/zero: larger than 1 MiB: not a usage file" {
		t.Fatalf("error %v", err)
	}
	if len(b) != 1<<20 {
		t.Errorf("read %d bytes, want the cap, %d", len(b), 1<<20)
	}
}

// TestAtCap: a stream of exactly the cap is read whole; one byte more is
// an error.
func TestAtCap(t *testing.T) {
	for _, tc := range []struct {
		n    int
		fail bool
	}{{0, false}, {999, false}, {1000, false}, {1001, true}} {
		b, err := ReadAll(strings.NewReader(strings.Repeat("x", tc.n)), 1000, "f", "a ledger")
		if tc.fail {
			if err == nil || err.Error() != "f: larger than 1000 bytes: not a ledger" {
				t.Errorf("%d bytes: %v", tc.n, err)
			}
			continue
		}
		if err != nil || len(b) != tc.n {
			t.Errorf("%d bytes: read %d, %v", tc.n, len(b), err)
		}
	}
}

// TestReadFile: a regular file over the cap is refused by its size;
// errors of the read (a missing file) come back as they are.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(p, bytes.Repeat([]byte("a"), 3<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p, 2<<10, "a usage file"); err == nil || err.Error() != p+": larger than 2 KiB: not a usage file" {
		t.Errorf("error %v", err)
	}
	if b, err := ReadFile(p, 3<<10, "a usage file"); err != nil || len(b) != 3<<10 {
		t.Errorf("at the cap: %d bytes, %v", len(b), err)
	}
	if _, err := ReadFile(filepath.Join(dir, "none"), 1, "x"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	var r io.Reader = NewReader(strings.NewReader("abc"), 2, "s", "t")
	if b, err := io.ReadAll(r); string(b) != "ab" || err == nil {
		t.Errorf("got %q, %v", b, err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{64 << 20: "64 MiB", 4 << 30: "4 GiB", 1536: "1536 bytes", 2048: "2 KiB", 0: "0 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
