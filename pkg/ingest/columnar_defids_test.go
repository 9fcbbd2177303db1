package ingest

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// hybrid encodes vals in Parquet's RLE/bit-packing hybrid of bw bits, as
// runs of random kinds: repeated runs, and bit-packed runs of whole groups
// of 8 (the last may be padded with zeros, as writers pad it); with a nil
// rng, repeated runs of one value only (a stream that holds no padding).
func hybrid(rng *rand.Rand, vals []uint32, bw uint) []byte {
	var out []byte
	nb := int(bw+7) / 8
	for i := 0; i < len(vals); {
		if rng == nil || rng.IntN(2) == 0 { // a repeated run of vals[i]
			k := 1
			for rng != nil && i+k < len(vals) && vals[i+k] == vals[i] && rng.IntN(20) > 0 {
				k++
			}
			out = binary.AppendUvarint(out, uint64(k)<<1)
			for b := range nb {
				out = append(out, byte(vals[i]>>(8*b)))
			}
			i += k
			continue
		}
		groups := 1 + rng.IntN(4)
		if rest := len(vals) - i; groups*8 > rest {
			groups = (rest + 7) / 8
			if rest%8 != 0 && i+groups*8 > len(vals) && rest >= 8 {
				groups = rest / 8 // only the stream's last run is padded
			}
		}
		out = binary.AppendUvarint(out, uint64(groups)<<1|1)
		packed := make([]byte, groups*int(bw))
		for j := range groups * 8 {
			var v uint32
			if i+j < len(vals) {
				v = vals[i+j]
			}
			for b := range bw {
				if v>>b&1 != 0 {
					bit := j*int(bw) + int(b)
					packed[bit/8] |= 1 << (bit % 8)
				}
			}
		}
		out = append(out, packed...)
		i += min(groups*8, len(vals)-i)
	}
	return out
}

// dictChunk returns a pqChunk on one dictionary data page of an optional
// BYTE_ARRAY column: rows rows, defined where def[k], the defined rows'
// dictionary indices idx (bw bits) in order.
func dictChunk(rng *rand.Rand, dict []string, def []bool, idx []uint32, bw uint) *pqChunk {
	ch := &pqChunk{maxDef: 1, hasDict: true, nDict: len(dict), dict: true, left: len(def)}
	for _, s := range dict {
		ch.dictBuf = append(ch.dictBuf, s...)
		ch.dictEnd = append(ch.dictEnd, int32(len(ch.dictBuf)))
		ch.dictIDs = append(ch.dictIDs, -1)
	}
	levels := make([]uint32, len(def))
	for k, d := range def {
		if d {
			levels[k] = 1
		}
	}
	ch.defs.init(hybrid(rng, levels, 1), 1)
	ch.idx.init(hybrid(rng, idx, bw), bw)
	return ch
}

// TestReadDefIDs: readDefIDs gives each defined row the string of its
// dictionary entry and each null row id 0 (""), as levels, readIDs and
// spread do, for definition levels and indices of every kind of run,
// dictionaries whose indices take 0 to 10 bits, and a page read in
// pieces of any length (runs carried over from one read to the next).
func TestReadDefIDs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 400 {
		nDict := 1 + rng.IntN(700)
		if trial%3 == 0 {
			nDict = 1 + rng.IntN(20)
		}
		bw := uint(0)
		for 1<<bw < nDict {
			bw++
		}
		dict := make([]string, nDict)
		for k := range dict {
			dict[k] = fmt.Sprintf("v%d", k)
		}
		rows := 1 + rng.IntN(3000)
		def := make([]bool, rows)
		var idx []uint32
		density, same := rng.Float64(), rng.Float64()
		for k := range def {
			// Runs of defined rows with the same value, as k6's tags
			// have (a request's rows share them), and scattered ones.
			def[k] = rng.Float64() < density
			if k > 0 && rng.Float64() < same {
				def[k] = def[k-1]
			}
			if def[k] {
				x := uint32(rng.IntN(nDict))
				if len(idx) > 0 && rng.Float64() < same {
					x = idx[len(idx)-1]
				}
				idx = append(idx, x)
			}
		}
		ch := dictChunk(rng, dict, def, idx, bw)
		tab := newStrTable()
		got := make([]int32, rows)
		for p := 0; p < rows; {
			m := min(rows-p, 1+rng.IntN(600))
			if err := ch.readDefIDs(got[p:p+m], tab); err != nil {
				t.Fatalf("trial %d: rows %d–%d: %v", trial, p, p+m, err)
			}
			p += m
		}
		if ch.left != 0 {
			t.Fatalf("trial %d: %d rows left, want 0", trial, ch.left)
		}
		v := 0
		for k := range rows {
			want := ""
			if def[k] {
				want = dict[idx[v]]
				v++
			}
			if s := tab.strs[got[k]]; s != want || (want == "") != (got[k] == 0) {
				t.Fatalf("trial %d (%d entries, %d bits): row %d is %q (id %d), want %q", trial, nDict, bw, k, s, got[k], want)
			}
		}
	}
}

// TestReadDefIDsErrors: the errors of readDefIDs are those of levels, then
// readIDs: a definition level stream that ends early wins over an index
// stream that does, which wins over an index past the dictionary (the
// first such is named).
func TestReadDefIDsErrors(t *testing.T) {
	dict := []string{"a", "b", "c"}
	def := []bool{true, false, true, true, true, false, true, true, true, true}
	idx := []uint32{0, 2, 3, 1, 7, 0, 1, 2}
	const early = "RLE/bit-packed data ends early"
	for _, c := range []struct {
		name        string
		nDefs, nIdx int // levels and indices in the streams (of 10 and 8)
		want        string
	}{
		{"index past the dictionary", 10, 8, "dictionary index 3 of a dictionary of 3"},
		{"index past the dictionary, then the index stream ends", 10, 4, "dictionary indices: " + early},
		{"no index stream", 10, 0, "dictionary indices: " + early},
		{"index stream ends, then the level stream", 7, 1, "definition levels: " + early},
		{"no level stream", 0, 8, "definition levels: " + early},
	} {
		ch := dictChunk(nil, dict, def[:c.nDefs], idx[:c.nIdx], 3)
		ch.left = len(def)
		err := ch.readDefIDs(make([]int32, len(def)), newStrTable())
		if err == nil || err.Error() != c.want {
			t.Fatalf("%s: error %v, want %q", c.name, err, c.want)
		}
		// levels, then readIDs, as readPages did before readDefIDs.
		ch = dictChunk(nil, dict, def[:c.nDefs], idx[:c.nIdx], 3)
		ch.left = len(def)
		_, nv, err := ch.levels(len(def))
		if err == nil {
			err = ch.readIDs(make([]int32, nv), newStrTable())
		}
		if err == nil || err.Error() != c.want {
			t.Fatalf("%s: levels, readIDs: error %v, want %q", c.name, err, c.want)
		}
	}
}

// TestUnpackIDs: readIDs maps bit-packed indices of 1 to 10 bits (through
// the chunk's table up to 8 bits) to their entries' strings, and names
// the first index past the dictionary, which is id 0, as the table learns
// entries from one read to the next.
func TestUnpackIDs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for bw := uint(1); bw <= 10; bw++ {
		for trial := range 30 {
			nDict := 1 + rng.IntN(1<<bw)
			dict := make([]string, nDict)
			for k := range dict {
				dict[k] = strings.Repeat("x", k+1)
			}
			n := 8 * (1 + rng.IntN(200))
			idx := make([]uint32, n)
			bad := -1
			for k := range idx {
				idx[k] = uint32(rng.IntN(nDict))
				if trial%5 == 4 && nDict < 1<<bw && rng.IntN(50) == 0 {
					idx[k] = uint32(nDict + rng.IntN(1<<bw-nDict)) // fits in bw bits, past the dictionary
					if bad < 0 {
						bad = k
					}
				}
			}
			ch := &pqChunk{hasDict: true, nDict: nDict, dict: true}
			for _, s := range dict {
				ch.dictBuf = append(ch.dictBuf, s...)
				ch.dictEnd = append(ch.dictEnd, int32(len(ch.dictBuf)))
				ch.dictIDs = append(ch.dictIDs, -1)
			}
			// One bit-packed run, read in pieces.
			var packed []byte
			packed = binary.AppendUvarint(packed, uint64(n/8)<<1|1)
			bitsOut := make([]byte, n*int(bw)/8)
			for j, v := range idx {
				for b := range bw {
					if v>>b&1 != 0 {
						bit := j*int(bw) + int(b)
						bitsOut[bit/8] |= 1 << (bit % 8)
					}
				}
			}
			ch.idx.init(append(packed, bitsOut...), bw)
			tab := newStrTable()
			got := make([]int32, n)
			var errs []string
			for p := 0; p < n; {
				m := min(n-p, 1+rng.IntN(100))
				if err := ch.readIDs(got[p:p+m], tab); err != nil {
					errs = append(errs, err.Error())
				}
				p += m
			}
			for k, x := range idx {
				want := ""
				if x < uint32(nDict) {
					want = dict[x]
				}
				if s := tab.strs[got[k]]; s != want {
					t.Fatalf("%d bits, trial %d: value %d (index %d) is %q, want %q", bw, trial, k, x, s, want)
				}
			}
			if bad >= 0 {
				want := fmt.Sprintf("dictionary index %d of a dictionary of %d", idx[bad], nDict)
				if len(errs) == 0 || errs[0] != want {
					t.Fatalf("%d bits, trial %d: errors %q, want first %q", bw, trial, errs, want)
				}
			} else if len(errs) > 0 {
				t.Fatalf("%d bits, trial %d: errors %q, want none", bw, trial, errs)
			}
		}
	}
}
