package ingest

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/klauspost/compress/s2"
)

// The Parquet writer of WriteColumnar encodes its pages itself, as
// arrow-go's column writers would, but from what the batch already holds:
// a string column's dictionary and its ids (the dictionary indices plus
// one, 0 for null, packed to one, two or four bytes), the times and the
// values as they are. Arrow-go's writers take the indices as an array,
// turn them into int32s, recompute the definition levels and run-length
// encode both a value at a time through a general encoder; that was most
// of the time convert spent. arrow-go's metadata builders still make the
// footer (schema, row groups, column chunks, the key-value metadata), so
// the file is standard Parquet: V1 data pages, snappy, the string columns
// RLE_DICTIONARY with a PLAIN dictionary page per row group, the
// timestamp and value columns PLAIN with min/max statistics.

// pwPageRows is the number of rows of a page of the timestamp, value and
// metadata columns (64 KiB of eight-byte values). A string column's
// indices are one page per row group.
const pwPageRows = 8192

// Parquet's enums (parquet.thrift): page types and encodings.
const (
	pwDataPage       = 0
	pwDictionaryPage = 2
	pwPlain          = 0
	pwRLE            = 3
	pwRLEDictionary  = 8
)

// pwFile is the Parquet file being written: its footer's builder and the
// row groups written so far.
type pwFile struct {
	sch    *schema.Schema
	fmb    *metadata.FileMetaDataBuilder
	rgs    int16
	chunks []pwChunk // per column, for the row group being written
}

// pwChunk is one column chunk being encoded: its pages (each with its
// header) in buf, and what its metadata needs.
type pwChunk struct {
	buf          []byte
	dictOff      int64 // the dictionary page's offset in buf; -1: none
	dataOff      int64 // the first data page's offset in buf
	uncompressed int64 // the pages' bytes had they not been compressed (with headers)
	dataPages    int32
	dataEnc      parquet.Encoding
	stats        metadata.EncodedStatistics

	// Scratch, reused from row group to row group.
	raw  []byte // a page before compression
	comp []byte // a page compressed
	lv   []byte // definition levels, a bit a row
	idx  []byte // non-null indices, packed like the ids
}

// reset empties c for the next row group.
func (c *pwChunk) reset() {
	c.buf = c.buf[:0]
	c.dictOff, c.dataOff, c.uncompressed, c.dataPages = -1, -1, 0, 0
	c.stats = metadata.EncodedStatistics{}
}

// page appends a page of raw (uncompressed) content to c: compressed
// with snappy, after its header. dict is a dictionary page of n values;
// otherwise a data page of n values (levels) in encoding enc, its levels
// RLE.
func (c *pwChunk) page(raw []byte, dict bool, n int, enc int32) error {
	if len(raw) > math.MaxInt32 || n > math.MaxInt32 {
		return fmt.Errorf("parquet page of %d bytes, %d values: too large", len(raw), n)
	}
	c.comp = s2.EncodeSnappy(c.comp[:cap(c.comp)], raw)
	at := len(c.buf)
	if dict {
		c.dictOff = int64(at)
	} else {
		if c.dataOff < 0 {
			c.dataOff = int64(at)
		}
		c.dataPages++
	}
	c.buf = pwPageHeader(c.buf, dict, int32(len(raw)), int32(len(c.comp)), int32(n), enc)
	hdr := len(c.buf) - at
	c.buf = append(c.buf, c.comp...)
	c.uncompressed += int64(hdr + len(raw))
	return nil
}

// pwPageHeader appends a thrift PageHeader (compact protocol) of a V1
// data page or a dictionary page to b.
func pwPageHeader(b []byte, dict bool, uncompressed, compressed, n, enc int32) []byte {
	typ := int32(pwDataPage)
	if dict {
		typ = pwDictionaryPage
	}
	// Fields 1–3: type, uncompressed_page_size, compressed_page_size
	// (i32s: field delta 1, type 5).
	b = pwThriftI32(append(b, 0x15), typ)
	b = pwThriftI32(append(b, 0x15), uncompressed)
	b = pwThriftI32(append(b, 0x15), compressed)
	if dict {
		// Field 7, a DictionaryPageHeader (delta 4, struct): num_values,
		// encoding, is_sorted false (delta 1, boolean false).
		b = append(b, 0x4c)
		b = pwThriftI32(append(b, 0x15), n)
		b = pwThriftI32(append(b, 0x15), enc)
		b = append(b, 0x12, 0)
	} else {
		// Field 5, a DataPageHeader (delta 2, struct): num_values,
		// encoding, definition and repetition level encodings.
		b = append(b, 0x2c)
		b = pwThriftI32(append(b, 0x15), n)
		b = pwThriftI32(append(b, 0x15), enc)
		b = pwThriftI32(append(b, 0x15), pwRLE)
		b = pwThriftI32(append(b, 0x15), pwRLE)
		b = append(b, 0)
	}
	return append(b, 0)
}

// pwThriftI32 appends v as a compact-protocol i32 (a zigzag varint).
func pwThriftI32(b []byte, v int32) []byte {
	return binary.AppendUvarint(b, uint64(uint32(v<<1^v>>31)))
}

// pwHybrid appends vals, of bw bits each (0 to 32), in Parquet's RLE /
// bit-packing hybrid encoding (without a length prefix), eight values at a
// time: a block of eight equal values, with the equal values after it,
// is an RLE run when that is shorter; the other blocks are bit-packed (up
// to 63 a run, so that a run's header is one byte), the last block padded
// with zeros. A run that starts inside a block is bit-packed up to the
// next block, as the block must be whole (arrow-go's encoder does the
// same), but the values of a block that is not a run are not looked at
// one by one.
func pwHybrid[T uint8 | uint16 | uint32](b []byte, vals []T, bw int) []byte {
	const lsb = 0x0101010101010101
	n := len(vals)
	b8, _ := any(vals).([]uint8)
	uniform := func(i int, v T) bool {
		if b8 != nil {
			return binary.LittleEndian.Uint64(b8[i:]) == uint64(v)*lsb
		}
		for _, u := range vals[i : i+8] {
			if u != v {
				return false
			}
		}
		return true
	}
	lit := 0 // vals[lit:i] wait to be bit-packed (whole blocks)
	for i := 0; i+8 <= n; {
		v := vals[i]
		if !uniform(i, v) {
			i += 8
			continue
		}
		j := i + 8
		for j+8 <= n && uniform(j, v) {
			j += 8
		}
		for j < n && vals[j] == v {
			j++
		}
		if hdr := uvarintLen(uint64(j-i) << 1); hdr+(bw+7)/8 < (j-i)*bw/8 {
			b = pwBitPacked(b, vals[lit:i], bw)
			b = binary.AppendUvarint(b, uint64(j-i)<<1)
			for x, s := uint64(v), 0; s < bw; s += 8 {
				b = append(b, byte(x>>s))
			}
			lit, i = j, j
		} else {
			i += (j - i) &^ 7 // the run's whole blocks stay bit-packed
		}
	}
	return pwBitPacked(b, vals[lit:], bw)
}

// uvarintLen is the length of x as a varint.
func uvarintLen(x uint64) int {
	return (bits.Len64(x|1) + 6) / 7
}

// pwLevels appends the definition levels (0 or 1) of n rows, given as a
// bitmap (row r is bit r%8 of masks[r/8]: bit-packed groups of eight
// levels as they are), in the hybrid encoding: runs of two or more 0x00
// or 0xff bytes are RLE runs, the other bytes bit-packed runs. The bits of
// masks past row n must be zero.
func pwLevels(b []byte, masks []byte, n int) []byte {
	full := n / 8
	lit := 0
	for i := 0; i < full; {
		m := masks[i]
		if m != 0 && m != 0xff {
			i++
			continue
		}
		j := i + 1
		for j < full && masks[j] == m {
			j++
		}
		if j-i >= 2 {
			b = pwMaskRuns(b, masks[lit:i])
			b = binary.AppendUvarint(b, uint64(8*(j-i))<<1)
			b = append(b, m&1)
			lit = j
		}
		i = j
	}
	return pwMaskRuns(b, masks[lit:(n+7)/8])
}

// pwMaskRuns appends the bytes of masks as bit-packed runs of width 1.
func pwMaskRuns(b []byte, masks []byte) []byte {
	for len(masks) > 0 {
		g := min(len(masks), 63)
		b = append(append(b, byte(g<<1|1)), masks[:g]...)
		masks = masks[g:]
	}
	return b
}

// pwBitPacked appends vals as bit-packed runs of bw bits a value, the
// last group padded with zeros.
func pwBitPacked[T uint8 | uint16 | uint32](b []byte, vals []T, bw int) []byte {
	for len(vals) > 0 {
		groups := min((len(vals)+7)/8, 63)
		b = append(b, byte(groups<<1|1))
		start := len(b)
		m := min(len(vals), groups*8)
		var acc uint64
		nb := 0
		g := 0
		if b8, ok := any(vals[:m]).([]uint8); ok && bw <= 8 {
			for ; g+8 <= m; g += 8 {
				b = binary.LittleEndian.AppendUint64(b, pack8(binary.LittleEndian.Uint64(b8[g:]), bw))[:len(b)+bw]
			}
		}
		for _, v := range vals[g:m] {
			acc |= uint64(v) << nb
			nb += bw
			for nb >= 8 {
				b = append(b, byte(acc))
				acc >>= 8
				nb -= 8
			}
		}
		if nb > 0 {
			b = append(b, byte(acc))
		}
		for len(b)-start < groups*bw {
			b = append(b, 0) // the rest of the last group
		}
		vals = vals[m:]
	}
	return b
}

// pack8 packs the eight bytes of x (the first in the low byte), each a
// value of bw bits (1 to 8), into the low 8×bw bits of the result, the
// first value lowest.
func pack8(x uint64, bw int) uint64 {
	if bw == 1 {
		return x * 0x0102040810204080 >> 56 // byte k's low bit → bit k
	}
	s := uint(bw)
	return x&0xff | x>>8&0xff<<s | x>>16&0xff<<(2*s) | x>>24&0xff<<(3*s) |
		x>>32&0xff<<(4*s) | x>>40&0xff<<(5*s) | x>>48&0xff<<(6*s) | x>>56<<(7*s)
}

// pwBitWidth is the bit width of the indices into a dictionary of d
// entries (as arrow-go writes it: 0 for none, 1 for one).
func pwBitWidth(d int) int {
	if d <= 1 {
		return d
	}
	w := 0
	for x := d - 1; x > 0; x >>= 1 {
		w++
	}
	return w
}

// pwDictChunk encodes a string column of n rows: a dictionary page of dict
// and one data page of ids (T's: index+1, 0 = null). A null in a column
// that is not optional is an error naming the row (first is the rows of
// the file before the batch).
func pwDictChunk[T uint8 | uint16 | uint32](c *pwChunk, dict []string, ids []T, optional bool, first int64, name string) error {
	c.reset()
	c.dataEnc = parquet.Encodings.RLEDict
	raw := c.raw[:0]
	for _, s := range dict {
		raw = binary.LittleEndian.AppendUint32(raw, uint32(len(s)))
		raw = append(raw, s...)
	}
	if err := c.page(raw, true, len(dict), pwPlain); err != nil {
		return err
	}
	n := len(ids)
	// The definition levels (a bitmap) and the non-null indices.
	nm := (n + 7) / 8
	if cap(c.lv) < nm {
		c.lv = make([]byte, nm)
	}
	var z T
	if w := int(unsafe.Sizeof(z)); cap(c.idx) < n*w {
		c.idx = make([]byte, n*w, (n*w+7)&^7)
	}
	masks := c.lv[:nm]
	idx := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(c.idx))), n)
	k, i := 0, 0
	if b8, ok := any(ids).([]uint8); ok {
		k, i = levels8(b8, masks, asBytes(idx))
	}
	for ; i < n; i += 8 {
		var m byte
		for j, id := range ids[i:min(i+8, n)] {
			v := b2i[uint8](id > 0)
			m |= v << j
			idx[k] = id - T(v)
			k += int(v)
		}
		masks[i>>3] = m
	}
	nulls := n - k
	if nulls > 0 && !optional {
		for i := range n {
			if masks[i>>3]>>(i&7)&1 == 0 {
				return fmt.Errorf("column %s: row %d is null", name, first+int64(i)+1)
			}
		}
	}
	raw = raw[:0]
	if optional {
		raw = append(raw, 0, 0, 0, 0)
		raw = pwLevels(raw, masks, n)
		binary.LittleEndian.PutUint32(raw, uint32(len(raw)-4))
	}
	bw := pwBitWidth(len(dict))
	raw = append(raw, byte(bw))
	raw = pwHybrid(raw, idx[:k], bw)
	c.raw = raw
	c.stats = metadata.EncodedStatistics{HasNullCount: true, NullCount: int64(nulls)}
	return c.page(raw, false, n, pwRLEDictionary)
}

// levels8 is pwDictChunk's loop for one-byte ids, eight at a time (see
// indices8): it sets each byte of masks to the bitmap of the nonzero ids
// of its eight rows, puts the nonzero ids less one at the start of idx,
// and returns how many it put and the rows it did (a multiple of eight).
func levels8(ids, masks, idx []uint8) (k, i int) {
	const lo7, lsb = 0x7f7f7f7f7f7f7f7f, 0x0101010101010101
	n := len(ids)
	for ; i+8 <= n; i += 8 {
		x := binary.LittleEndian.Uint64(ids[i:])
		ones := (x | (x&lo7 + lo7)) >> 7 & lsb
		m := byte(ones * 0x0102040810204080 >> 56) // byte j's low bit → bit j
		masks[i>>3] = m
		switch m {
		case 0:
		case 0xff:
			binary.LittleEndian.PutUint64(idx[k:], x-lsb)
			k += 8
		default:
			// One run of nonzero ids (mostly: nulls come in runs) is one
			// store of the word shifted down (idx[k+8] is at most
			// ids[i+8]'s place: there is room), else one at a time.
			lo := bits.TrailingZeros8(m)
			if r := m >> lo; r&(r+1) == 0 {
				binary.LittleEndian.PutUint64(idx[k:], (x-ones)>>(8*lo))
				k += bits.OnesCount8(m)
				continue
			}
			for ; m != 0; m &= m - 1 {
				idx[k] = byte(x>>(8*bits.TrailingZeros8(m))) - 1
				k++
			}
		}
	}
	return k, i
}

// pwPlainChunk encodes a required column of eight-byte values (little-endian
// on this machine: the bytes as they are), min and max in its statistics.
func pwPlainChunk[T int64 | float64](c *pwChunk, vals []T) error {
	c.reset()
	c.dataEnc = parquet.Encodings.Plain
	for p := 0; p < len(vals); p += pwPageRows {
		page := vals[p:min(p+pwPageRows, len(vals))]
		raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(page))), 8*len(page))
		if !littleEndian {
			c.raw = c.raw[:0]
			for _, v := range page {
				c.raw = binary.LittleEndian.AppendUint64(c.raw, *(*uint64)(unsafe.Pointer(&v)))
			}
			raw = c.raw
		}
		if err := c.page(raw, false, len(page), pwPlain); err != nil {
			return err
		}
	}
	c.stats = metadata.EncodedStatistics{HasNullCount: true, Signed: true}
	switch v := any(vals).(type) {
	case []int64:
		if len(v) > 0 {
			lo, hi := v[0], v[0]
			for _, x := range v {
				lo, hi = min(lo, x), max(hi, x)
			}
			c.stats.Min = binary.LittleEndian.AppendUint64(nil, uint64(lo))
			c.stats.Max = binary.LittleEndian.AppendUint64(nil, uint64(hi))
			c.stats.HasMin, c.stats.HasMax = true, true
		}
	case []float64:
		// NaNs are left out; a zero minimum is -0 and a zero maximum +0
		// (the Parquet specification's rule).
		lo, hi, seen := math.Inf(1), math.Inf(-1), false
		for _, x := range v {
			if x == x {
				lo, hi, seen = min(lo, x), max(hi, x), true
			}
		}
		if seen {
			if lo == 0 {
				lo = math.Copysign(0, -1)
			}
			if hi == 0 {
				hi = 0
			}
			c.stats.Min = binary.LittleEndian.AppendUint64(nil, math.Float64bits(lo))
			c.stats.Max = binary.LittleEndian.AppendUint64(nil, math.Float64bits(hi))
			c.stats.HasMin, c.stats.HasMax = true, true
		}
	}
	return nil
}

// pwMetaChunk encodes the metadata column of n rows: PLAIN strings, strs at
// rows (ascending), the other rows null.
func pwMetaChunk(c *pwChunk, n int, rows []int32, strs []string) error {
	c.reset()
	c.dataEnc = parquet.Encodings.Plain
	nm := (n + 7) / 8
	if cap(c.lv) < nm {
		c.lv = make([]byte, nm)
	}
	masks := c.lv[:nm]
	clear(masks)
	for _, r := range rows {
		masks[r>>3] |= 1 << (r & 7)
	}
	k := 0
	for p := 0; p < n; p += pwPageRows { // (a multiple of eight)
		e := min(p+pwPageRows, n)
		raw := append(c.raw[:0], 0, 0, 0, 0)
		raw = pwLevels(raw, masks[p/8:], e-p)
		binary.LittleEndian.PutUint32(raw, uint32(len(raw)-4))
		for ; k < len(rows) && int(rows[k]) < e; k++ {
			raw = binary.LittleEndian.AppendUint32(raw, uint32(len(strs[k])))
			raw = append(raw, strs[k]...)
		}
		c.raw = raw
		if err := c.page(raw, false, e-p, pwPlain); err != nil {
			return err
		}
	}
	c.stats = metadata.EncodedStatistics{HasNullCount: true, NullCount: int64(n - len(rows))}
	return nil
}

// rowGroup writes the encoded chunks of a row group of n rows at the
// writer's position, and their metadata into the footer's builder.
func (pf *pwFile) rowGroup(out *countWriter, n int) error {
	rgb := pf.fmb.AppendRowGroup()
	rgb.SetNumRows(n)
	for i := range pf.chunks {
		c := &pf.chunks[i]
		base := out.n
		ccb := rgb.NextColumnChunk()
		if c.stats.HasNullCount || c.stats.HasMin {
			ccb.SetStats(c.stats)
		}
		info := metadata.ChunkMetaInfo{
			NumValues:        int64(n),
			IndexPageOffset:  -1,
			DataPageOffset:   base + c.dataOff,
			CompressedSize:   int64(len(c.buf)),
			UncompressedSize: c.uncompressed,
		}
		st := metadata.EncodingStats{DataEncodingStats: map[parquet.Encoding]int32{c.dataEnc: c.dataPages}}
		if c.dictOff >= 0 {
			info.DictPageOffset = base + c.dictOff
			st.DictEncodingStats = map[parquet.Encoding]int32{parquet.Encodings.Plain: 1}
		}
		if err := ccb.Finish(info, c.dictOff >= 0, false, st); err != nil {
			return err
		}
		if _, err := out.Write(c.buf); err != nil {
			return err
		}
	}
	if err := rgb.Finish(0, pf.rgs); err != nil {
		return err
	}
	pf.rgs++
	return nil
}

// finish writes the footer, with the key-value pair key=value added.
func (pf *pwFile) finish(out *countWriter, key, value string) error {
	if err := pf.fmb.AppendKeyValueMetadata(key, value); err != nil {
		return err
	}
	md, err := pf.fmb.Finish()
	if err != nil {
		return err
	}
	start := out.n
	if _, err := md.WriteTo(out, nil); err != nil {
		return err
	}
	tail := binary.LittleEndian.AppendUint32(nil, uint32(out.n-start))
	if _, err := out.Write(append(tail, "PAR1"...)); err != nil {
		return err
	}
	return nil
}
