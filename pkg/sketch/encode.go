package sketch

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
)

// The encoding of a sealed sketch (AppendEncoded, MergeEncoded): a mode
// byte, then uvarint n, varint microSum, and sum, min, max as 8-byte
// little-endian float64 bits, then the values:
//
//   - modeMicro: the exact values, all multiples of 1e-6 (every value of a
//     k6 CSV, printed with %f), as millionths sorted ascending: the first
//     as a zigzag varint, then uvarint gaps. ~2–3 bytes a latency in ms.
//   - modeFloat: the exact values as 8-byte float64 bits (k6 JSON values
//     with more digits).
//   - modeHist: uvarint zero count, then the negative and the positive
//     stores, each as runs of consecutive non-empty buckets: uvarint
//     number of runs, then per run the first bucket (zigzag varint for the
//     first run, uvarint gap after the previous run's end otherwise),
//     uvarint length and one uvarint count per bucket.
//
// A histogram of a second of latencies holds a few hundred non-empty
// buckets of small counts: ~1 byte a bucket instead of the 4 bytes of every
// bucket between the smallest and the largest in a live Sketch.
const (
	modeEmpty byte = iota
	modeMicro
	modeFloat
	modeHist
)

var errEncoding = errors.New("sketch: malformed encoding")

// AppendEncoded appends s in its compact, mergeable encoding to dst and
// returns the extended slice. MergeEncoded reads it back; the pair loses
// nothing (a sketch merged from its encoding equals one merged from s).
func (s *Sketch) AppendEncoded(dst []byte) []byte {
	if s.n == 0 {
		return append(dst, modeEmpty)
	}
	mode := modeHist
	if !s.hist {
		mode = modeMicro
		for _, v := range s.exact {
			if _, ok := micro(v); !ok {
				mode = modeFloat
				break
			}
		}
	}
	dst = s.appendHeader(dst, mode)
	switch mode {
	case modeMicro:
		if !s.sorted {
			slices.Sort(s.exact)
			s.sorted = true
		}
		var prev int64
		for i, v := range s.exact {
			m, _ := micro(v)
			if i == 0 {
				dst = binary.AppendVarint(dst, m)
			} else {
				dst = binary.AppendUvarint(dst, uint64(m-prev))
			}
			prev = m
		}
	case modeFloat:
		for _, v := range s.exact {
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
		}
	default:
		dst = binary.AppendUvarint(dst, s.zero)
		dst = s.neg.appendRuns(dst)
		dst = s.pos.appendRuns(dst)
	}
	return dst
}

// appendHeader appends the header of s's encoding in mode mode: the mode
// byte, the count, the sum's two parts, the minimum and the maximum.
func (s *Sketch) appendHeader(dst []byte, mode byte) []byte {
	dst = append(dst, mode)
	dst = binary.AppendUvarint(dst, s.n)
	dst = binary.AppendVarint(dst, s.microSum)
	dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(s.sum))
	dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(s.min))
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(s.max))
}

// maxMergedMicro bounds the millionths appendMergedMicro merges as
// integers: below it, m/1e6 in float64 is within |m|·2⁻⁵³ of the true
// quotient, so micro gives m back (the rounding error of ×1e6 stays far
// below ½) and distinct m stay distinct, ordered floats: merging the
// integers orders the values as sorting their floats does. 2⁴² millionths
// is 4.4e6 (73 minutes, in ms).
const maxMergedMicro = 1 << 42

// appendMergedMicro appends to dst what AppendEncoded writes for the
// Sketch that merging the encodings a and then b (nil: none) into an
// empty Sketch makes (mergeEncodedOwn, as a coarsening Series merges the
// two halves of a slot), without that Sketch: when both are modeMicro
// and hold at most ExactLimit values together, their sorted millionths
// merge as integers, with no conversion to float64 and back and no sort.
// ok is false, with dst unchanged, for anything else (another mode, more
// values, a value of maxMergedMicro millionths or more, a malformed
// encoding): the caller then merges the Sketches.
func appendMergedMicro(dst, a, b []byte, buf *[2][ExactLimit]int64) (out []byte, ok bool) {
	var sc Sketch // the moments, added as mergeEncodedOwn adds them
	var vals [2][]int64
	for k, e := range [2][]byte{a, b} {
		if k == 1 && e == nil {
			break
		}
		h, d, err := readHeader(e)
		if err != nil || h.mode != modeMicro || sc.n+h.n > ExactLimit {
			return dst, false
		}
		sc.addMoments(h.n, h.micro, h.sum, h.lo, h.hi)
		v := buf[k][:h.n]
		var m int64
		for i := range v {
			if i == 0 {
				m = d.varint()
			} else {
				gap := d.uvarint()
				if gap > 1<<54 {
					return dst, false
				}
				m += int64(gap)
			}
			if m >= maxMergedMicro || m <= -maxMergedMicro {
				return dst, false
			}
			v[i] = m
		}
		if d.err != nil || len(d.b) != 0 {
			return dst, false
		}
		vals[k] = v
	}
	dst = sc.appendHeader(dst, modeMicro)
	x, y := vals[0], vals[1]
	i, j := 0, 0
	var prev int64
	for k := range len(x) + len(y) {
		var m int64
		if j < len(y) && (i == len(x) || y[j] < x[i]) {
			m, j = y[j], j+1
		} else {
			m, i = x[i], i+1
		}
		if k == 0 {
			dst = binary.AppendVarint(dst, m)
		} else {
			dst = binary.AppendUvarint(dst, uint64(m-prev))
		}
		prev = m
	}
	return dst, true
}

// micro returns v in millionths when v is an exact multiple of 1e-6 in
// float64 (the test addSum uses) small enough for gaps to fit in int64.
func micro(v float64) (int64, bool) {
	m := math.Round(v * 1e6)
	if math.Abs(m) >= 1<<53 || m/1e6 != v {
		return 0, false
	}
	return int64(m), true
}

func (st *store) appendRuns(dst []byte) []byte {
	runs := 0
	for i := 0; i < len(st.counts); {
		if st.counts[i] == 0 {
			i++
			continue
		}
		runs++
		for i < len(st.counts) && st.counts[i] != 0 {
			i++
		}
	}
	dst = binary.AppendUvarint(dst, uint64(runs))
	end := 0 // one past the previous run, as an index into counts
	first := true
	for i := 0; i < len(st.counts); {
		if st.counts[i] == 0 {
			i++
			continue
		}
		j := i
		for j < len(st.counts) && st.counts[j] != 0 {
			j++
		}
		if first {
			dst = binary.AppendVarint(dst, int64(st.off+i))
			first = false
		} else {
			dst = binary.AppendUvarint(dst, uint64(i-end))
		}
		dst = binary.AppendUvarint(dst, uint64(j-i))
		for _, c := range st.counts[i:j] {
			dst = binary.AppendUvarint(dst, uint64(c))
		}
		end, i = j, j
	}
	return dst
}

// decoder reads the encoding, remembering the first error.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) float() float64 {
	if len(d.b) < 8 {
		d.fail()
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return v
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errEncoding
	}
	d.b = nil
}

// MergeEncoded adds every value of an encoded sketch (AppendEncoded) to s,
// exactly as Merge adds those of the sketch that was encoded, without
// decoding it into a Sketch of its own. It returns an error, leaving s
// unchanged, when b is not such an encoding.
func (s *Sketch) MergeEncoded(b []byte) error {
	if err := walkEncoded(b, nil); err != nil {
		return err
	}
	return s.mergeEncodedOwn(b)
}

// mergeEncodedOwn is MergeEncoded in one walk of b instead of two: on an
// error s holds part of b's values. For encodings a Series wrote itself,
// whose failure to decode is a bug reported as the Series' Err (the
// figures are not used then).
func (s *Sketch) mergeEncodedOwn(b []byte) error {
	var inExact, ascending bool
	start, wasSorted := len(s.exact), s.sorted || len(s.exact) == 0
	err := walkEncoded(b, &encodedVisitor{
		header: func(mode byte, n uint64, micro int64, sum, lo, hi float64) {
			inExact = mode != modeHist && !s.hist && uint64(len(s.exact))+n <= ExactLimit
			// modeMicro holds the values ascending (AppendEncoded sorts
			// them): kept sorted, they need no sort to be encoded again.
			ascending = mode == modeMicro
			s.addMoments(n, micro, sum, lo, hi)
			if !inExact && !s.hist {
				s.toHist()
			}
			if inExact {
				s.sorted = false
			}
		},
		value: func(v float64) {
			if inExact {
				s.exact = append(s.exact, v)
			} else {
				s.addHist(v, 1)
			}
		},
		zero: func(c uint64) { s.zero += c },
		bucket: func(neg bool, idx int, c uint64) {
			if neg {
				s.neg.add(idx, c)
			} else {
				s.pos.add(idx, c)
			}
		},
	})
	if err == nil && inExact && ascending && wasSorted {
		mergeRuns(s.exact, start)
		s.sorted = true
	}
	return err
}

// mergeRuns sorts x, whose runs x[:mid] and x[mid:] are each ascending,
// in one pass (len(x) ≤ ExactLimit): a series slot merging the encodings
// of its parts (coarsening, folding) then encodes them again without a
// sort.
func mergeRuns(x []float64, mid int) {
	if mid == 0 || mid == len(x) || x[mid-1] <= x[mid] {
		return
	}
	var buf [ExactLimit]float64
	left := buf[:copy(buf[:], x[:mid])]
	i, j, k := 0, mid, 0
	for i < len(left) && j < len(x) {
		if x[j] < left[i] {
			x[k] = x[j]
			j++
		} else {
			x[k] = left[i]
			i++
		}
		k++
	}
	copy(x[k:], left[i:])
}

// encodedHeader is the start of an encoding: its mode and, unless empty,
// the count, the micro-unit and float parts of the sum, the minimum and
// the maximum.
type encodedHeader struct {
	mode   byte
	n      uint64
	micro  int64
	sum    float64
	lo, hi float64
}

// readHeader parses the header of the encoding b and returns a decoder at
// its body; errEncoding for a header AppendEncoded cannot have written
// (an empty sketch's encoding is its mode byte alone).
func readHeader(b []byte) (encodedHeader, decoder, error) {
	var h encodedHeader
	if len(b) == 0 {
		return h, decoder{}, errEncoding
	}
	d := decoder{b: b[1:]}
	h.mode = b[0]
	if h.mode == modeEmpty {
		if len(d.b) != 0 {
			return h, d, errEncoding
		}
		return h, d, nil
	}
	if h.mode > modeHist {
		return h, d, errEncoding
	}
	h.n = d.uvarint()
	h.micro = d.varint()
	h.sum, h.lo, h.hi = d.float(), d.float(), d.float()
	if d.err != nil || h.n == 0 || !(h.lo <= h.hi) || (h.mode != modeHist && h.n > ExactLimit) {
		return h, d, errEncoding
	}
	return h, d, nil
}

// encodedVisitor receives the parts of an encoding from walkEncoded.
type encodedVisitor struct {
	header func(mode byte, n uint64, micro int64, sum, lo, hi float64)
	value  func(v float64)                   // exact values
	zero   func(c uint64)                    // histogram: the zero count
	bucket func(neg bool, idx int, c uint64) // histogram: a bucket
}

// walkEncoded parses an encoding, calling v's functions (v nil: only
// checks it). It returns errEncoding for anything AppendEncoded cannot
// have written; with v nil it has no effect, so callers check first.
func walkEncoded(b []byte, v *encodedVisitor) error {
	h, d, err := readHeader(b)
	if err != nil || h.mode == modeEmpty {
		return err
	}
	mode, n := h.mode, h.n
	if v != nil {
		v.header(mode, n, h.micro, h.sum, h.lo, h.hi)
	}
	switch mode {
	case modeMicro, modeFloat:
		var m int64
		for i := uint64(0); i < n && d.err == nil; i++ {
			var x float64
			if mode == modeFloat {
				x = d.float()
			} else {
				if i == 0 {
					m = d.varint()
				} else {
					gap := d.uvarint()
					if gap > 1<<54 {
						d.fail()
					}
					m += int64(gap)
				}
				x = float64(m) / 1e6
			}
			if v != nil && d.err == nil {
				v.value(x)
			}
		}
	case modeHist:
		z := d.uvarint()
		if v != nil {
			v.zero(z)
		}
		total := z + walkRuns(&d, true, v) + walkRuns(&d, false, v)
		if d.err == nil && total != n {
			d.fail()
		}
	}
	if d.err != nil || len(d.b) != 0 {
		return errEncoding
	}
	return nil
}

// maxIndex bounds a bucket index: float64 exponents span −1075..1024.
const maxIndex = 1100 << subBits

// walkRuns reads a store written by appendRuns, passing each bucket to v
// (may be nil), and returns the sum of its counts.
func walkRuns(d *decoder, neg bool, v *encodedVisitor) uint64 {
	runs := d.uvarint()
	var total uint64
	idx := 0
	for r := uint64(0); r < runs && d.err == nil; r++ {
		if r == 0 {
			x := d.varint()
			if x < -maxIndex || x > maxIndex {
				d.fail()
				return 0
			}
			idx = int(x)
		} else {
			gap := d.uvarint()
			if gap == 0 || gap > 2*maxIndex {
				d.fail()
				return 0
			}
			idx += int(gap)
		}
		length := d.uvarint()
		if length == 0 || length > 2*maxIndex || idx+int(length) > maxIndex {
			d.fail()
			return 0
		}
		for k := 0; k < int(length) && d.err == nil; k++ {
			c := d.uvarint()
			if c == 0 || c > math.MaxUint32 {
				d.fail()
				return 0
			}
			if v != nil {
				v.bucket(neg, idx+k, c)
			}
			total += c
		}
		idx += int(length)
	}
	return total
}

// mergeEncodedMoments adds the count, sum, minimum and maximum of the
// encoding b to s, as MergeEncoded would (the same operations in the same
// order, so Count, Sum and Mean come out bit for bit equal), without its
// values: s must hold no values of its own (a Sketch only ever given
// moments). The body of b is not read, so only its header is checked.
func (s *Sketch) mergeEncodedMoments(b []byte) error {
	h, _, err := readHeader(b)
	if err != nil || h.mode == modeEmpty {
		return err
	}
	s.addMoments(h.n, h.micro, h.sum, h.lo, h.hi)
	return nil
}

// mergeMoments is Merge of o's count, sum, minimum and maximum alone (see
// mergeEncodedMoments).
func (s *Sketch) mergeMoments(o *Sketch) {
	if o == nil || o.n == 0 {
		return
	}
	s.addMoments(o.n, o.microSum, o.sum, o.min, o.max)
}

// addMoments adds n values of micro-unit sum micro plus float sum sum,
// smallest lo and largest hi, to s's count, sum, minimum and maximum: the
// part of every merge (Merge, MergeEncoded) that is not the values.
func (s *Sketch) addMoments(n uint64, micro int64, sum, lo, hi float64) {
	if s.n == 0 || lo < s.min {
		s.min = lo
	}
	if s.n == 0 || hi > s.max {
		s.max = hi
	}
	s.n += n
	s.sum += sum
	s.addMicro(micro)
}
