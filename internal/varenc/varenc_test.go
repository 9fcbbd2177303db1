package varenc

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// TestAppendPrefixed: a section is its body's length as a uvarint, then
// the body, after what dst held; for bodies whose lengths take one, two
// and three bytes (0, 127 | 128, 16383 | 16384 bytes), and Skip passes
// over it to what follows.
func TestAppendPrefixed(t *testing.T) {
	for _, n := range []int{0, 1, 5, 127, 128, 129, 300, 16383, 16384, 70000} {
		body := make([]byte, n)
		for i := range body {
			body[i] = byte(i*7 + n)
		}
		head := []byte{0xaa, 0xbb, 0xcc}
		// The same head, with room to grow and without.
		for _, dst := range [][]byte{append(make([]byte, 0, 4*n+16), head...), bytes.Clone(head)} {
			got := AppendPrefixed(dst, func(b []byte) []byte { return append(b, body...) })
			want := append(binary.AppendUvarint(bytes.Clone(head), uint64(n)), body...)
			if !bytes.Equal(got, want) {
				t.Fatalf("%d-byte body: got % x…, want % x…", n, got[:min(len(got), 8)], want[:min(len(want), 8)])
			}
			r := Reader{B: append(got[len(head):], 0x42)}
			r.Skip(r.Uint())
			if r.Err != nil || r.Uint() != 0x42 || len(r.B) != 0 {
				t.Fatalf("%d-byte body: Skip did not land after the section (%v)", n, r.Err)
			}
		}
	}
}
