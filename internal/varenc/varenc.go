// Package varenc writes and reads the compact encodings of the records a
// run keeps per second once they are sealed: unsigned varints
// (encoding/binary's), floats that are whole numbers as varints, and
// length-prefixed byte strings.
package varenc

import (
	"encoding/binary"
	"errors"
	"math"
)

// ErrShort reports an encoding that ends early or holds a malformed
// varint.
var ErrShort = errors.New("varenc: truncated or malformed encoding")

// maxWhole is the largest whole float AppendFloat writes as a varint:
// below it every integer is exact in a float64.
const maxWhole = 1 << 52

// AppendUint appends v as an unsigned varint.
func AppendUint(dst []byte, v uint64) []byte { return binary.AppendUvarint(dst, v) }

// AppendFloat appends v: a whole number in [0, 2^52) (byte and message
// counts, VU gauges) as the varint 2v, any other value (fractions,
// negatives, −0, NaN, ±Inf) as the varint 1 then its 8 bytes (IEEE 754,
// little-endian), so every float round-trips bit for bit.
func AppendFloat(dst []byte, v float64) []byte {
	if v >= 0 && v < maxWhole && v == math.Trunc(v) && !math.Signbit(v) {
		return binary.AppendUvarint(dst, uint64(v)<<1)
	}
	dst = append(dst, 1)
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
}

// AppendBytes appends b's length as a varint, then b.
func AppendBytes(dst, b []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

// Reader reads an encoding from the start of B, advancing B. After the
// first malformed value Err is set, B is emptied and every read returns
// zero.
type Reader struct {
	B   []byte
	Err error
}

func (r *Reader) fail() {
	r.Err = ErrShort
	r.B = nil
}

// Uint reads an unsigned varint.
func (r *Reader) Uint() uint64 {
	// One byte: most counts of a second. (B is empty once Err is set.)
	if b := r.B; len(b) > 0 && b[0] < 0x80 {
		r.B = b[1:]
		return uint64(b[0])
	}
	return uintSlow(r)
}

func uintSlow(r *Reader) uint64 {
	if r.Err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.B)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.B = r.B[n:]
	return v
}

// Uint32 reads an unsigned varint that must fit 32 bits.
func (r *Reader) Uint32() uint32 {
	v := r.Uint()
	if v > math.MaxUint32 {
		r.fail()
		return 0
	}
	return uint32(v)
}

// Float reads an AppendFloat encoding.
func (r *Reader) Float() float64 {
	u := r.Uint()
	if u&1 == 0 {
		return float64(u >> 1)
	}
	if u != 1 || len(r.B) < 8 {
		r.fail()
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.B))
	r.B = r.B[8:]
	return v
}

// Bytes reads an AppendBytes encoding: a slice of B with its capacity
// cut, so appending to it copies.
func (r *Reader) Bytes() []byte {
	n := r.Uint()
	if r.Err != nil {
		return nil
	}
	if n > uint64(len(r.B)) {
		r.fail()
		return nil
	}
	b := r.B[:n:n]
	r.B = r.B[n:]
	return b
}

// Len reads a count of following items that each take at least one
// byte: more than the bytes left is malformed (so a corrupt count cannot
// ask for unbounded memory).
func (r *Reader) Len() int {
	n := r.Uint()
	if n > uint64(len(r.B)) {
		r.fail()
		return 0
	}
	return int(n)
}

// Skip skips n bytes.
func (r *Reader) Skip(n uint64) {
	if r.Err != nil {
		return
	}
	if n > uint64(len(r.B)) {
		r.fail()
		return
	}
	r.B = r.B[n:]
}

// AppendPrefixed appends body(dst)'s output preceded by its length as a
// varint: a section a reader can skip (Skip) without decoding it. body
// must only append to the slice it is given.
func AppendPrefixed(dst []byte, body func([]byte) []byte) []byte {
	// Most sections (a second's counts, a name's histogram) are shorter
	// than 128 bytes, whose length is one byte: that byte is kept before
	// the body is written, and the body moved only when its length needs
	// more.
	mark := len(dst)
	dst = body(append(dst, 0))
	n := len(dst) - mark - 1
	if n < 0x80 {
		dst[mark] = byte(n)
		return dst
	}
	var lb [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(lb[:], uint64(n))
	dst = append(dst, lb[1:k]...)
	copy(dst[mark+k:], dst[mark+1:mark+1+n])
	copy(dst[mark:], lb[:k])
	return dst
}
