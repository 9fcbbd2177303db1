package ingest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// The Parquet reader's own page decoder. arrow-go's column readers hand
// out values (a dictionary column's strings gathered from the dictionary,
// row by row, through its generic level and value decoders); the reader
// needs a dictionary column's indices, which it maps to its string table
// once per dictionary entry. pqChunk reads the pages of one column chunk
// (arrow-go still reads, decrypts and decompresses them) and decodes the
// encodings WriteColumnar writes and most writers use: PLAIN and
// dictionary (PLAIN_DICTIONARY, RLE_DICTIONARY) values of BYTE_ARRAY,
// INT64 and DOUBLE columns, RLE definition levels, data pages V1 and V2.
// A chunk that lists another encoding (BIT_PACKED levels, DELTA_*,
// BYTE_STREAM_SPLIT) or is INT96 is read through arrow-go as before
// (chunkIsFast).

// chunkIsFast reports whether pqChunk decodes the column chunk cc of col.
func chunkIsFast(cc *metadata.ColumnChunkMetaData, col *pqColumn) bool {
	if col.int96 || col.maxDef > 1 {
		return false
	}
	switch col.kind {
	case kindString, kindTime, kindFloat64:
	default:
		return false
	}
	for _, e := range cc.Encodings() {
		switch e {
		case parquet.Encodings.Plain, parquet.Encodings.PlainDict, parquet.Encodings.RLEDict, parquet.Encodings.RLE:
		default:
			return false
		}
	}
	return true
}

// errRLE is the error of a definition level or dictionary index stream
// that ends before its values.
var errRLE = errors.New("RLE/bit-packed data ends early")

// rleDecoder decodes Parquet's RLE/bit-packing hybrid encoding of values
// of bw bits (0–32): runs of one repeated value and runs of bit-packed
// groups of 8 values, least significant bit first.
type rleDecoder struct {
	data []byte // the runs not yet started
	bw   uint
	mask uint64
	rle  int    // values left in the current repeated run
	val  uint32 // its value
	bp   int    // values left in the current bit-packed run
	bits []byte // the current bit-packed run
	bpos uint   // the bit offset of its next value
}

func (d *rleDecoder) init(data []byte, bw uint) {
	*d = rleDecoder{data: data, bw: bw, mask: 1<<bw - 1}
}

// maxRun bounds a run's length (a corrupt header may claim 2^63 values):
// a page holds at most 2^31 values anyway.
const maxRun = 1 << 31

// run starts the next run.
func (d *rleDecoder) run() error {
	for {
		if len(d.data) >= 2 && d.data[0]&0x81 == 0 && d.bw-1 < 8 {
			// A repeated run of 1–63 values of 1–8 bits (a one-byte
			// header and value): nearly every run of k6's tag columns.
			d.rle, d.val = int(d.data[0]>>1), uint32(d.data[1])
			d.data = d.data[2:]
			if d.rle > 0 {
				return nil
			}
			continue
		}
		h, n := binary.Uvarint(d.data)
		if n <= 0 {
			return errRLE
		}
		d.data = d.data[n:]
		if h&1 == 1 {
			groups := min(h>>1, maxRun/8)
			nb := uint64(len(d.data))
			if d.bw > 0 {
				nb = min(nb, groups*uint64(d.bw)) // the last run may be cut short of its padding
			} else {
				nb = 0
			}
			count := groups * 8
			if d.bw > 0 {
				count = min(count, nb*8/uint64(d.bw))
			}
			// bits runs on past the run, so that loads near its end
			// stay whole; count keeps the reads within it.
			d.bits, d.bpos, d.bp = d.data, 0, int(count)
			d.data = d.data[nb:]
			if d.bp > 0 {
				return nil
			}
			continue
		}
		nb := int(d.bw+7) / 8
		if len(d.data) < nb {
			return errRLE
		}
		var v uint32
		for i := range nb {
			v |= uint32(d.data[i]) << (8 * i)
		}
		d.data = d.data[nb:]
		d.rle, d.val = int(min(h>>1, maxRun)), v
		if d.rle > 0 {
			return nil
		}
	}
}

// read fills dst with the next len(dst) values.
func (d *rleDecoder) read(dst []uint32) error {
	for i := 0; i < len(dst); {
		switch {
		case d.rle > 0:
			k := min(d.rle, len(dst)-i)
			v := d.val
			for j := range dst[i : i+k] {
				dst[i+j] = v
			}
			d.rle -= k
			i += k
		case d.bp > 0:
			k := min(d.bp, len(dst)-i)
			d.unpack(dst[i : i+k])
			d.bp -= k
			i += k
		default:
			if err := d.run(); err != nil {
				return err
			}
		}
	}
	return nil
}

// unpack reads len(dst) values of the current bit-packed run, as many
// from each 64-bit load as it holds.
func (d *rleDecoder) unpack(dst []uint32) {
	buf, bw, mask, pos := d.bits, d.bw, d.mask, d.bpos
	if bw == 0 {
		clear(dst)
		return
	}
	per := int(57 / bw) // values whole in a load shifted by up to 7 bits
	for i := 0; i < len(dst); {
		w := load64(buf, int(pos>>3)) >> (pos & 7)
		k := min(per, len(dst)-i)
		for j := range dst[i : i+k] {
			dst[i+j] = uint32(w & mask)
			w >>= bw
		}
		i += k
		pos += uint(k) * bw
	}
	d.bpos = pos
}

// load64 returns the 8 bytes of b at o, little-endian, zeros past its end.
func load64(b []byte, o int) uint64 {
	if o+8 <= len(b) {
		return binary.LittleEndian.Uint64(b[o:])
	}
	var w uint64
	for j := 0; o+j < len(b); j++ {
		w |= uint64(b[o+j]) << (8 * j)
	}
	return w
}

// readBits decodes the next n values of a 1-bit stream (definition levels
// of an optional column) into the bitmap bm, which is cleared and holds at
// least n bits: bit k%64 of bm[k/64] is value k. It returns the number of
// ones.
func (d *rleDecoder) readBits(bm []uint64, n int) (ones int, err error) {
	for p := 0; p < n; {
		switch {
		case d.rle > 0:
			k := min(d.rle, n-p)
			if d.val == 1 {
				setBits(bm, p, k)
				ones += k
			}
			d.rle -= k
			p += k
		case d.bp > 0:
			k := min(d.bp, n-p)
			d.bp -= k
			for k > 0 {
				c := min(k, 56, 64-p&63)
				w := load64(d.bits, int(d.bpos>>3)) >> (d.bpos & 7) & (1<<c - 1)
				bm[p>>6] |= w << (p & 63)
				ones += bits.OnesCount64(w)
				d.bpos += uint(c)
				p += c
				k -= c
			}
		default:
			if err := d.run(); err != nil {
				return ones, err
			}
		}
	}
	return ones, nil
}

// setBits sets bits [p, p+k) of bm.
func setBits(bm []uint64, p, k int) {
	for k > 0 {
		c := min(k, 64-p&63)
		bm[p>>6] |= (1<<c - 1) << (p & 63) // all ones for c = 64
		p += c
		k -= c
	}
}

// skip passes over the next n values.
func (d *rleDecoder) skip(n int) error {
	for n > 0 {
		switch {
		case d.rle > 0:
			k := min(d.rle, n)
			d.rle -= k
			n -= k
		case d.bp > 0:
			k := min(d.bp, n)
			d.bpos += uint(k) * d.bw
			d.bp -= k
			n -= k
		default:
			if err := d.run(); err != nil {
				return err
			}
		}
	}
	return nil
}

// pqChunk decodes the pages of one column chunk of a row group (a column
// with no repetition and at most one definition level).
type pqChunk struct {
	pr     file.PageReader
	maxDef int16
	width  int // bytes of a fixed-width value (INT64, DOUBLE); 0 for BYTE_ARRAY

	// The chunk's dictionary page, copied: BYTE_ARRAY entry k is
	// dictBuf[dictEnd[k-1]:dictEnd[k]], a fixed-width one
	// dictBuf[k*width:(k+1)*width].
	hasDict bool
	nDict   int
	dictBuf []byte
	dictEnd []int32
	dictIDs []int32 // the string table's id of each entry, -1 until used
	dictGen uint32  // the table generation of dictIDs
	// tbl is dictIDs by index of up to 8 bits, for unpackIDs: -1 until
	// used, and for an index past the dictionary; valid when tblOK.
	tbl   [256]int32
	tblOK bool

	// The current data page.
	left  int  // its levels (rows) not yet read
	dict  bool // its values are dictionary indices, else PLAIN values
	defs  rleDecoder
	idx   rleDecoder
	plain []byte // the PLAIN values not yet read

	bm  []uint64 // definition levels of a read, a bit per row (1: defined)
	ix  []uint32 // dictionary indices of a read
	tmp []int32  // the table ids of a read's defined rows
}

// reset starts chunk reading from pr.
func (ch *pqChunk) reset(pr file.PageReader, maxDef int16, width int) {
	ch.pr, ch.maxDef, ch.width = pr, maxDef, width
	ch.hasDict, ch.nDict, ch.left, ch.plain, ch.tblOK = false, 0, 0, nil, false
	ch.dictBuf, ch.dictEnd, ch.dictIDs = ch.dictBuf[:0], ch.dictEnd[:0], ch.dictIDs[:0]
}

// errChunkEnd is a chunk whose pages hold fewer rows than its row group.
var errChunkEnd = errors.New("column chunk ends before its row group")

// page moves to the next data page, reading a dictionary page on the way.
func (ch *pqChunk) page() error {
	for {
		if !ch.pr.Next() {
			if err := ch.pr.Err(); err != nil {
				return err
			}
			return errChunkEnd
		}
		var data []byte
		var levels int
		var enc parquet.Encoding
		switch p := ch.pr.Page().(type) {
		case *file.DictionaryPage:
			if err := ch.loadDict(p); err != nil {
				return err
			}
			continue
		case *file.DataPageV1:
			data, levels, enc = p.Data(), int(p.NumValues()), parquet.Encoding(p.Encoding())
			if p.RepetitionLevelEncoding() != parquet.Encodings.RLE && p.RepetitionLevelEncoding() != parquet.Encodings.BitPacked {
				return fmt.Errorf("repetition levels in encoding %s", p.RepetitionLevelEncoding())
			}
			if ch.maxDef > 0 {
				if e := p.DefinitionLevelEncoding(); e != parquet.Encodings.RLE {
					return fmt.Errorf("definition levels in encoding %s, not supported", e)
				}
				if len(data) < 4 {
					return errors.New("data page too short for its definition levels")
				}
				n := binary.LittleEndian.Uint32(data)
				if uint64(n) > uint64(len(data)-4) {
					return fmt.Errorf("definition levels of %d bytes in a page of %d", n, len(data))
				}
				ch.defs.init(data[4:4+n], 1)
				data = data[4+n:]
			}
		case *file.DataPageV2:
			data, levels, enc = p.Data(), int(p.NumValues()), parquet.Encoding(p.Encoding())
			rl, dl := int64(p.RepetitionLevelByteLen()), int64(p.DefinitionLevelByteLen())
			if rl < 0 || dl < 0 || rl+dl > int64(len(data)) {
				return fmt.Errorf("levels of %d+%d bytes in a page of %d", rl, dl, len(data))
			}
			if ch.maxDef > 0 {
				ch.defs.init(data[rl:rl+dl], 1)
			}
			data = data[rl+dl:]
		default:
			continue
		}
		if levels < 0 {
			return fmt.Errorf("data page of %d values", levels)
		}
		switch enc {
		case parquet.Encodings.Plain:
			ch.dict, ch.plain = false, data
		case parquet.Encodings.PlainDict, parquet.Encodings.RLEDict:
			if !ch.hasDict {
				return errors.New("dictionary-encoded data page without a dictionary page")
			}
			if len(data) < 1 || data[0] > 32 {
				return errors.New("dictionary indices without a valid bit width")
			}
			ch.dict = true
			ch.idx.init(data[1:], uint(data[0]))
		default:
			return fmt.Errorf("data page in encoding %s, not supported", enc)
		}
		ch.left = levels
		if levels > 0 {
			return nil
		}
	}
}

// loadDict copies a dictionary page.
func (ch *pqChunk) loadDict(p *file.DictionaryPage) error {
	if ch.hasDict {
		return errors.New("a second dictionary page in a column chunk")
	}
	if e := parquet.Encoding(p.Encoding()); e != parquet.Encodings.Plain && e != parquet.Encodings.PlainDict {
		return fmt.Errorf("dictionary page in encoding %s", e)
	}
	data, n := p.Data(), int(p.NumValues())
	if n < 0 {
		return fmt.Errorf("dictionary page of %d values", n)
	}
	if ch.width > 0 {
		if n > len(data)/ch.width {
			return fmt.Errorf("dictionary page of %d values in %d bytes", n, len(data))
		}
		ch.dictBuf = append(ch.dictBuf[:0], data[:n*ch.width]...)
	} else {
		if n > len(data)/4 {
			return fmt.Errorf("dictionary page of %d values in %d bytes", n, len(data))
		}
		ch.dictBuf, ch.dictEnd = ch.dictBuf[:0], ch.dictEnd[:0]
		for range n {
			if len(data) < 4 {
				return errors.New("dictionary page ends early")
			}
			l := binary.LittleEndian.Uint32(data)
			if uint64(l) > uint64(len(data)-4) {
				return errors.New("dictionary page ends early")
			}
			ch.dictBuf = append(ch.dictBuf, data[4:4+l]...)
			ch.dictEnd = append(ch.dictEnd, int32(len(ch.dictBuf)))
			data = data[4+l:]
		}
		ch.dictIDs = ch.dictIDs[:0]
		for range n {
			ch.dictIDs = append(ch.dictIDs, -1)
		}
		ch.tblOK = false
	}
	ch.hasDict, ch.nDict = true, n
	return nil
}

// dictBytes returns the bytes of BYTE_ARRAY dictionary entry k.
func (ch *pqChunk) dictBytes(k uint32) []byte {
	start := int32(0)
	if k > 0 {
		start = ch.dictEnd[k-1]
	}
	return ch.dictBuf[start:ch.dictEnd[k]]
}

// dictID returns the table id of BYTE_ARRAY dictionary entry k (< nDict).
func (ch *pqChunk) dictID(k uint32, t *strTable) int32 {
	if ch.dictGen != t.gen {
		ch.dictGen = t.gen
		for i := range ch.dictIDs {
			ch.dictIDs[i] = -1
		}
		ch.tblOK = false
	}
	id := ch.dictIDs[k]
	if id < 0 {
		id = t.id(ch.dictBytes(k))
		ch.dictIDs[k] = id
	}
	return id
}

// levels decodes the definition levels of the page's next n rows (n ≤
// left) into the bitmap ch.bm (see readBits) and returns how many are
// defined; bm is nil for a required column (all are).
func (ch *pqChunk) levels(n int) (bm []uint64, defined int, err error) {
	ch.left -= n
	if ch.maxDef == 0 {
		return nil, n, nil
	}
	words := (n + 63) / 64
	if cap(ch.bm) < words {
		ch.bm = make([]uint64, words)
	}
	bm = ch.bm[:words]
	clear(bm)
	if defined, err = ch.defs.readBits(bm, n); err != nil {
		return nil, 0, fmt.Errorf("definition levels: %w", err)
	}
	return bm, defined, nil
}

// indices decodes the next n dictionary indices into ch.ix, each checked
// against the dictionary's size.
func (ch *pqChunk) indices(n int) ([]uint32, error) {
	if cap(ch.ix) < n {
		ch.ix = make([]uint32, max(n, pqBatchRows))
	}
	ix := ch.ix[:n]
	if err := ch.idx.read(ix); err != nil {
		return nil, fmt.Errorf("dictionary indices: %w", err)
	}
	nd := uint32(ch.nDict)
	for _, k := range ix {
		if k >= nd {
			return nil, fmt.Errorf("dictionary index %d of a dictionary of %d", k, nd)
		}
	}
	return ix, nil
}

// readIDs decodes the next len(dst) dictionary indices of the page as
// the table ids of their entries (dictID): a repeated run is looked up
// once and filled, a bit-packed one unpacked into ch.ix and mapped. Each
// index is checked against the dictionary's size; an index past it is an
// error once the indices are read (a stream that ends early is the error
// first, as for indices).
func (ch *pqChunk) readIDs(dst []int32, t *strTable) error {
	d, nd := &ch.idx, uint32(ch.nDict)
	bad, badX := false, uint32(0)
	for i := 0; i < len(dst); {
		switch {
		case d.rle > 0:
			k := min(d.rle, len(dst)-i)
			var id int32
			if x := d.val; x < nd {
				if id = ch.dictIDs[x]; id < 0 {
					id = ch.dictID(x, t)
				}
			} else if !bad {
				bad, badX = true, x
			}
			fillIDs(dst[i:i+k], id)
			d.rle -= k
			i += k
		case d.bp > 0:
			k := min(d.bp, len(dst)-i)
			if b, x := ch.unpackIDs(d, dst[i:i+k], t); b && !bad {
				bad, badX = true, x
			}
			d.bp -= k
			i += k
		default:
			if err := d.run(); err != nil {
				return fmt.Errorf("dictionary indices: %w", err)
			}
		}
	}
	if bad {
		return fmt.Errorf("dictionary index %d of a dictionary of %d", badX, nd)
	}
	return nil
}

// readDefIDs decodes the page's next len(dst) rows (≤ left) of an
// optional dictionary column as table ids, as levels, readIDs and spread
// would, in one pass: each run of defined rows (a repeated run of the
// definition levels, or a run of ones in a bit-packed group) takes its
// ids straight from the index runs, a null row is left as it is (dst must
// be zero). The errors are those of that sequence, in its order: a
// definition level stream that ends early, then an index stream that
// does, then an index past the dictionary.
func (ch *pqChunk) readDefIDs(dst []int32, t *strTable) error {
	n := len(dst)
	ch.left -= n
	d, x, nd := &ch.defs, &ch.idx, uint32(ch.nDict)
	var (
		bad    bool
		badX   uint32
		idxErr error
		w      uint64 // the defined rows of a bit-packed group not yet taken, from row wp
		wp     int
	)
	for p := 0; ; {
		var s, e int // the next run of defined rows
		switch {
		case w != 0:
			start := bits.TrailingZeros64(w)
			l := bits.TrailingZeros64(^(w >> start)) // w has at most 56 bits
			s, e = wp+start, wp+start+l
			w &^= 1<<(start+l) - 1
		case p >= n:
			if idxErr != nil {
				return idxErr
			}
			if bad {
				return fmt.Errorf("dictionary index %d of a dictionary of %d", badX, nd)
			}
			return nil
		case d.rle > 0:
			k := min(d.rle, n-p)
			d.rle -= k
			s, e = p, p+k
			p += k
			if d.val != 1 {
				continue
			}
		case d.bp > 0:
			c := min(d.bp, n-p, 56)
			w = load64(d.bits, int(d.bpos>>3)) >> (d.bpos & 7) & (1<<c - 1)
			wp = p
			d.bpos += uint(c)
			d.bp -= c
			p += c
			continue
		default:
			if err := d.run(); err != nil {
				return fmt.Errorf("definition levels: %w", err)
			}
			continue
		}
		if idxErr != nil {
			continue
		}
	fill:
		for q := s; q < e; {
			switch {
			case x.rle > 0:
				k := min(x.rle, e-q)
				var id int32
				if v := x.val; v < nd {
					if id = ch.dictIDs[v]; id < 0 {
						id = ch.dictID(v, t)
					}
				} else if !bad {
					bad, badX = true, v
				}
				run := dst[q : q+k]
				for j := range run {
					run[j] = id
				}
				x.rle -= k
				q += k
			case x.bp > 0:
				k := min(x.bp, e-q)
				if b, v := ch.unpackIDs(x, dst[q:q+k], t); b && !bad {
					bad, badX = true, v
				}
				x.bp -= k
				q += k
			default:
				if err := x.run(); err != nil {
					idxErr = fmt.Errorf("dictionary indices: %w", err)
					break fill
				}
			}
		}
	}
}

// unpackIDs reads len(dst) values of d's current bit-packed run (d.bp is
// left to the caller) as the table ids of their dictionary entries; an
// index past the dictionary is id 0, and bad is set with the first such.
// Indices of up to 8 bits are mapped through ch.tbl as they are unpacked,
// wider ones unpacked into ch.ix first.
func (ch *pqChunk) unpackIDs(d *rleDecoder, dst []int32, t *strTable) (bad bool, badX uint32) {
	bw := d.bw
	if bw == 0 || bw > 8 {
		if cap(ch.ix) < len(dst) {
			ch.ix = make([]uint32, max(len(dst), pqBatchRows))
		}
		ix := ch.ix[:len(dst)]
		d.unpack(ix)
		for j, x := range ix {
			id, b := ch.entryID(x, t)
			if b && !bad {
				bad, badX = true, x
			}
			dst[j] = id
		}
		return bad, badX
	}
	if !ch.tblOK {
		for i := range ch.tbl {
			ch.tbl[i] = -1
		}
		ch.tblOK = true
	}
	tbl := &ch.tbl
	buf, mask, pos := d.bits, d.mask, d.bpos
	per := int(57 / bw) // values whole in a load shifted by up to 7 bits
	neg := int32(0)     // the or of the ids: < 0 when an entry was not in tbl
	for i := 0; i < len(dst); {
		w := load64(buf, int(pos>>3)) >> (pos & 7)
		k := min(per, len(dst)-i)
		run := dst[i : i+k]
		for j := range run {
			id := tbl[uint8(w&mask)]
			run[j] = id
			neg |= id
			w >>= bw
		}
		i += k
		pos += uint(k) * bw
	}
	if neg < 0 {
		// Entries first met (once per entry and chunk), or indices past
		// the dictionary: the run again, each -1 looked up.
		pos := d.bpos
		for j := range dst {
			x := uint32(load64(buf, int(pos>>3))>>(pos&7)) & uint32(mask)
			pos += bw
			if dst[j] >= 0 {
				continue
			}
			id, b := ch.entryID(x, t)
			if b {
				if !bad {
					bad, badX = true, x
				}
			} else {
				tbl[x] = id
			}
			dst[j] = id
		}
	}
	d.bpos = pos
	return bad, badX
}

// entryID is the table id of dictionary entry x, or 0 and bad when there
// is no such entry.
func (ch *pqChunk) entryID(x uint32, t *strTable) (id int32, bad bool) {
	if x >= uint32(ch.nDict) {
		return 0, true
	}
	if id = ch.dictIDs[x]; id < 0 {
		id = ch.dictID(x, t)
	}
	return id, false
}

// fillIDs sets every element of run to id: a long run by doubling copies
// (memmove), not element by element.
func fillIDs(run []int32, id int32) {
	if len(run) < 32 {
		for j := range run {
			run[j] = id
		}
		return
	}
	for j := range run[:16] {
		run[j] = id
	}
	for k := 16; k < len(run); k *= 2 {
		copy(run[k:], run[:k])
	}
}

// spread copies the values of src to the rows of dst whose bits are set
// in bm (bit k%64 of bm[k/64] is row k), in order, a run of set bits at a
// time; src holds one value per set bit.
func spread(dst, src []int32, bm []uint64) {
	v := 0
	for wi, w := range bm {
		base := wi << 6
		for w != 0 {
			start := bits.TrailingZeros64(w)
			n := bits.TrailingZeros64(^(w >> start)) // the run's length
			d, s := dst[base+start:base+start+n], src[v:v+n]
			for k := range d {
				d[k] = s[k]
			}
			v += n
			if start+n == 64 {
				break
			}
			w &^= 1<<(start+n) - 1
		}
	}
}

// fixed returns the next n PLAIN fixed-width values' bytes.
func (ch *pqChunk) fixed(n int) ([]byte, error) {
	nb := n * ch.width
	if nb > len(ch.plain) {
		return nil, fmt.Errorf("%d values in %d bytes", n, len(ch.plain))
	}
	b := ch.plain[:nb]
	ch.plain = ch.plain[nb:]
	return b, nil
}

// byteArray returns the next PLAIN BYTE_ARRAY value; it aliases the page.
func (ch *pqChunk) byteArray() ([]byte, error) {
	if len(ch.plain) < 4 {
		return nil, errors.New("byte array values end early")
	}
	l := binary.LittleEndian.Uint32(ch.plain)
	if uint64(l) > uint64(len(ch.plain)-4) {
		return nil, errors.New("byte array values end early")
	}
	v := ch.plain[4 : 4+l]
	ch.plain = ch.plain[4+l:]
	return v, nil
}

// skip passes over the chunk's next n rows.
func (ch *pqChunk) skip(n int64) error {
	for n > 0 {
		if ch.left == 0 {
			if err := ch.page(); err != nil {
				return err
			}
		}
		m := int(min(n, int64(ch.left)))
		_, nv, err := ch.levels(m)
		if err != nil {
			return err
		}
		switch {
		case ch.dict:
			err = ch.idx.skip(nv)
		case ch.width > 0:
			_, err = ch.fixed(nv)
		default:
			for range nv {
				if _, err = ch.byteArray(); err != nil {
					break
				}
			}
		}
		if err != nil {
			return err
		}
		n -= int64(m)
	}
	return nil
}

// syncGen forgets the dictionary's table ids when the table was emptied.
func (ch *pqChunk) syncGen(t *strTable) {
	if ch.dictGen != t.gen {
		ch.dictGen = t.gen
		for i := range ch.dictIDs {
			ch.dictIDs[i] = -1
		}
		ch.tblOK = false
	}
}

// readPages is read for a chunk that pqChunk decodes: the batch's n rows
// of r's column into b, strings as ids (or, copied, into strs), a fixed
// column into its slice, a null row of a fixed column flagged with
// nullFlag.
func (cur *pqCursor) readPages(r *pqReader, b *colBatch, n int, ids []int32, strs []string, nullFlag uint8) error {
	ch, col, tab := &r.ch, r.col, cur.tab
	ch.syncGen(tab)
	for got := 0; got < n; {
		if ch.left == 0 {
			if err := ch.page(); err != nil {
				return err
			}
		}
		m := min(n-got, ch.left)
		if ids != nil && ch.dict && ch.maxDef > 0 && nullFlag == 0 {
			if err := ch.readDefIDs(ids[got:got+m], tab); err != nil {
				return err
			}
			got += m
			continue
		}
		bm, nv, err := ch.levels(m)
		if err != nil {
			return err
		}
		if nv < m && nullFlag != 0 {
			for k := range m {
				if bm[k>>6]&(1<<(k&63)) == 0 {
					b.null[got+k] |= nullFlag
				}
			}
		}
		if nv == 0 {
			got += m
			continue
		}
		if ids != nil && ch.dict {
			// The ids straight from the index runs, then spread over
			// the defined rows.
			dst := ids[got : got+m]
			if nv == m {
				if err := ch.readIDs(dst, tab); err != nil {
					return err
				}
				got += m
				continue
			}
			if cap(ch.tmp) < nv {
				ch.tmp = make([]int32, max(nv, pqBatchRows))
			}
			tmp := ch.tmp[:nv]
			if err := ch.readIDs(tmp, tab); err != nil {
				return err
			}
			spread(dst, tmp, bm)
			got += m
			continue
		}
		if !ch.dict && ch.width > 0 && nv == m {
			// A fixed column with no nulls in the read, PLAIN.
			raw, err := ch.fixed(m)
			if err != nil {
				return err
			}
			if col.kind == kindTime {
				times, bad := b.times[got:got+m], b.bad[got:got+m]
				// unitTime, its limit divided out once, not per row.
				unit := col.unitNS
				limit := uint64(MaxTimeNS / unit)
				for k := range times {
					t := int64(binary.LittleEndian.Uint64(raw[k*8:]))
					if uint64(t) > limit { // t < 0 too
						times[k], bad[k] = unitTime(t, unit)
						continue
					}
					times[k] = t * unit
				}
			} else {
				values := b.values[got : got+m]
				if littleEndian {
					copy(asBytes(values), raw) // PLAIN doubles are little-endian
				} else {
					for k := range values {
						values[k] = math.Float64frombits(binary.LittleEndian.Uint64(raw[k*8:]))
					}
				}
			}
			got += m
			continue
		}
		var ix []uint32
		if ch.dict {
			if ix, err = ch.indices(nv); err != nil {
				return err
			}
		}
		// rows calls fn(k, v) for the defined rows k of the read, v
		// counting them.
		rows := func(fn func(k, v int) error) error {
			if nv == m {
				for k := range m {
					if err := fn(k, k); err != nil {
						return err
					}
				}
				return nil
			}
			v := 0
			for wi, w := range bm {
				for w != 0 {
					k := wi<<6 | bits.TrailingZeros64(w)
					w &= w - 1
					if err := fn(k, v); err != nil {
						return err
					}
					v++
				}
			}
			return nil
		}
		switch {
		case ids != nil || strs != nil:
			err = rows(func(k, v int) error {
				var bs []byte
				if ch.dict {
					bs = ch.dictBytes(ix[v])
				} else {
					var err error
					if bs, err = ch.byteArray(); err != nil {
						return err
					}
				}
				if ids != nil {
					ids[got+k] = r.ic.get(bs, tab)
				} else {
					strs[got+k] = string(bs)
				}
				return nil
			})
		default:
			var raw []byte
			if !ch.dict {
				if raw, err = ch.fixed(nv); err != nil {
					return err
				}
			}
			err = rows(func(k, v int) error {
				var u uint64
				if ch.dict {
					u = binary.LittleEndian.Uint64(ch.dictBuf[ix[v]*8:])
				} else {
					u = binary.LittleEndian.Uint64(raw[v*8:])
				}
				row := got + k
				if col.kind == kindTime {
					b.times[row], b.bad[row] = unitTime(int64(u), col.unitNS)
				} else {
					b.values[row] = math.Float64frombits(u)
				}
				return nil
			})
		}
		if err != nil {
			return err
		}
		got += m
	}
	r.done = b.start + int64(n)
	return nil
}
