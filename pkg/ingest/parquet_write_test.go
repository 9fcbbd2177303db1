package ingest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// decodeHybrid decodes Parquet's RLE / bit-packing hybrid encoding of
// values of bw bits (the reference for pwHybrid): it returns every value
// the runs hold (a last bit-packed group may be padding) and whether all
// of b was runs, each bit-packed run of at most 63 groups.
func decodeHybrid(b []byte, bw int) ([]uint32, bool) {
	var out []uint32
	for len(b) > 0 {
		h, k := binary.Uvarint(b)
		if k <= 0 {
			return out, false
		}
		b = b[k:]
		if h&1 == 0 {
			nb := (bw + 7) / 8
			if len(b) < nb {
				return out, false
			}
			var v uint32
			for i := range nb {
				v |= uint32(b[i]) << (8 * i)
			}
			b = b[nb:]
			for range h >> 1 {
				out = append(out, v)
			}
			continue
		}
		groups := int(h >> 1)
		if groups > 63 || len(b) < groups*bw {
			return out, false
		}
		for i := range groups * 8 {
			var v uint32
			for j := range bw {
				bit := i*bw + j
				v |= uint32(b[bit/8]>>(bit%8)&1) << j
			}
			out = append(out, v)
		}
		b = b[groups*bw:]
	}
	return out, true
}

// TestPwHybrid: pwHybrid's encoding of random values, in runs of every
// length, decodes to the values, of every width and element type.
func TestPwHybrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 3000 {
		bw := 1 + rng.IntN(32)
		n := rng.IntN(1200)
		if trial%10 == 0 {
			n = rng.IntN(20)
		}
		vals := make([]uint32, 0, n)
		for len(vals) < n {
			v := uint32(rng.Uint64() & (1<<bw - 1))
			run := 1 + rng.IntN(4)
			switch rng.IntN(4) {
			case 0:
				run = 1 + rng.IntN(40)
			case 1:
				run = 7 + rng.IntN(3)
			}
			for range min(run, n-len(vals)) {
				vals = append(vals, v)
			}
		}
		var enc []byte
		switch {
		case bw <= 8:
			v8 := make([]uint8, n)
			for i, v := range vals {
				v8[i] = uint8(v)
			}
			enc = pwHybrid(nil, v8, bw)
		case bw <= 16:
			v16 := make([]uint16, n)
			for i, v := range vals {
				v16[i] = uint16(v)
			}
			enc = pwHybrid(nil, v16, bw)
		default:
			enc = pwHybrid(nil, vals, bw)
		}
		got, ok := decodeHybrid(enc, bw)
		if !ok || len(got) < n || len(got) > n+7 {
			t.Fatalf("trial %d (%d values of %d bits): decodes to %d values (ok %v)", trial, n, bw, len(got), ok)
		}
		for i, v := range vals {
			if got[i] != v {
				t.Fatalf("trial %d (%d values of %d bits): value %d is %d, want %d", trial, n, bw, i, got[i], v)
			}
		}
	}
}

// TestParquetWriteRandom: a generated CSV whose tag columns take a few
// values, a thousand and a new one per row (ids of one, two and four
// bytes in a row group of 80,000 rows), in runs and with nulls, and
// metadata on some rows, converts to Parquet that arrow-go's own reader
// reads back value for value (with null counts that match), and that
// ldanalyze reads back sample for sample.
func TestParquetWriteRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const rows = 200_000
	var sb strings.Builder
	sb.WriteString("metric_name,timestamp,metric_value,few,many,unique,extra_tags,metadata\n")
	type row struct {
		few, many, unique, meta string
		ts                      int64
	}
	want := make([]row, 0, rows)
	var r row
	for i := range rows {
		if i == 0 || rng.IntN(8) == 0 { // a new request: new tags
			r.few = []string{"", "a", "b", "c", "d"}[rng.IntN(5)]
			r.many = ""
			if rng.IntN(5) > 0 {
				r.many = fmt.Sprintf("m%d", rng.IntN(1000))
			}
		}
		r.unique = ""
		if rng.IntN(10) > 0 {
			r.unique = fmt.Sprintf("u%d", i)
		}
		r.meta = ""
		if rng.IntN(50) == 0 {
			r.meta = fmt.Sprintf("x%d", rng.IntN(9))
		}
		r.ts = 1700000000 + int64(i/100)
		want = append(want, r)
		fmt.Fprintf(&sb, "http_req_duration,%d,%d.5,%s,%s,%s,,%s\n", r.ts, i, r.few, r.many, r.unique, r.meta)
	}
	in := filepath.Join(t.TempDir(), "random.csv")
	if err := os.WriteFile(in, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	roundTrip(t, in, FormatParquet, ColumnarOptions{BatchRows: 80_000})

	rd, err := Open(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_, err = WriteColumnar(&buf, rd, ColumnarOptions{BatchRows: 80_000})
	rd.Close()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	if pf.NumRows() != rows || pf.NumRowGroups() != 3 {
		t.Fatalf("%d rows in %d row groups, want %d in 3", pf.NumRows(), pf.NumRowGroups(), rows)
	}
	sch := pf.MetaData().Schema
	first := 0
	for g := range pf.NumRowGroups() {
		rg := pf.RowGroup(g)
		n := int(rg.NumRows())
		for c := range sch.NumColumns() {
			name := sch.Column(c).Name()
			cr, err := rg.Column(c)
			if err != nil {
				t.Fatal(err)
			}
			defs := make([]int16, n)
			var got []string
			var nulls int64
			switch cr := cr.(type) {
			case *file.ByteArrayColumnChunkReader:
				vals := make([]parquet.ByteArray, n)
				levels, nv, err := cr.ReadBatch(int64(n), vals, defs, nil)
				if err != nil || int(levels) != n {
					t.Fatalf("row group %d column %s: %d levels of %d, %v", g, name, levels, n, err)
				}
				k := 0
				for i := range n {
					if cr.Descriptor().MaxDefinitionLevel() > 0 && defs[i] == 0 {
						got = append(got, "")
						nulls++
						continue
					}
					got = append(got, string(vals[k]))
					k++
				}
				if k != nv {
					t.Fatalf("row group %d column %s: %d values for %d non-null levels", g, name, nv, k)
				}
			case *file.Int64ColumnChunkReader:
				vals := make([]int64, n)
				if _, _, err := cr.ReadBatch(int64(n), vals, nil, nil); err != nil {
					t.Fatal(err)
				}
				for _, v := range vals {
					got = append(got, fmt.Sprint(v/1000))
				}
			case *file.Float64ColumnChunkReader:
				vals := make([]float64, n)
				if _, _, err := cr.ReadBatch(int64(n), vals, nil, nil); err != nil {
					t.Fatal(err)
				}
				for _, v := range vals {
					got = append(got, fmt.Sprint(v))
				}
			}
			for i, v := range got {
				w := want[first+i]
				exp := map[string]string{"metric_name": "http_req_duration", "timestamp": fmt.Sprint(w.ts), "metric_value": fmt.Sprint(float64(first+i) + 0.5),
					"few": w.few, "many": w.many, "unique": w.unique, "metadata": w.meta, "source_file": in}[name]
				if v != exp {
					t.Fatalf("row group %d column %s row %d: %q, want %q", g, name, first+i+1, v, exp)
				}
			}
			cc, err := rg.MetaData().ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			if st, err := cc.Statistics(); err != nil || st == nil || !st.HasNullCount() || st.NullCount() != nulls {
				t.Errorf("row group %d column %s: statistics %v (%v), want a null count of %d", g, name, st, err, nulls)
			}
		}
		first += n
	}
}

// TestPwLevels: pwLevels' encoding of random bitmaps (runs of set and
// clear rows of every length, any row count) decodes to their bits.
func TestPwLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 2000 {
		n := rng.IntN(2000)
		masks := make([]byte, (n+7)/8)
		for r, v := 0, rng.IntN(2); r < n; v ^= 1 {
			run := 1 + rng.IntN(30)
			if rng.IntN(5) == 0 {
				run = 1 + rng.IntN(300)
			}
			for ; run > 0 && r < n; run, r = run-1, r+1 {
				masks[r/8] |= byte(v) << (r % 8)
			}
		}
		got, ok := decodeHybrid(pwLevels(nil, masks, n), 1)
		if !ok || len(got) < n || len(got) > n+7 {
			t.Fatalf("trial %d (%d rows): decodes to %d levels (ok %v)", trial, n, len(got), ok)
		}
		for r := range n {
			if want := uint32(masks[r/8] >> (r % 8) & 1); got[r] != want {
				t.Fatalf("trial %d (%d rows): level %d is %d, want %d", trial, n, r, got[r], want)
			}
		}
	}
}

// TestPackedColStarts: pack with run starts gives each row the id of its
// run's first row, for every width and run lengths around a word, and the
// runs' other ids are not read.
func TestPackedColStarts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, d := range []int{3, 255, 300, 65535, 70000} {
		for trial := range 200 {
			n := 1 + rng.IntN(300)
			ids := make([]int32, n)
			want := make([]int32, n)
			var starts []int32
			for i := 0; i < n; {
				run := 1 + rng.IntN(20)
				v := int32(rng.IntN(d + 1))
				starts = append(starts, int32(i))
				for j := i; j < min(i+run, n); j++ {
					want[j] = v
					ids[j] = -1 // not to be read
				}
				ids[i] = v
				i += run
			}
			var p packedCol
			p.pack(ids, d, starts)
			for i := range n {
				var got int32
				switch p.w {
				case 1:
					got = int32(p.b[i])
				case 2:
					got = int32(viewAs[uint16](p.b, n)[i])
				default:
					got = int32(viewAs[uint32](p.b, n)[i])
				}
				if got != want[i] {
					t.Fatalf("d %d trial %d: row %d is %d, want %d", d, trial, i, got, want[i])
				}
			}
		}
	}
}
