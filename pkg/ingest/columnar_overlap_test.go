package ingest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// overlapCSV writes a k6 CSV of n rows to a temporary file: a few metrics
// and tag values, a url per 37 rows (so that its dictionary outgrows one
// byte in a large row group), metadata on every seventh row.
func overlapCSV(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("metric_name,timestamp,metric_value,method,name,status,url,extra_tags,metadata\n")
	for i := range n {
		meta := ""
		if i%7 == 3 {
			meta = fmt.Sprintf("vu=%d&iter=%d", i%5, i)
		}
		status := []string{"200", "404", ""}[i%3]
		fmt.Fprintf(&b, "http_req_duration,%d,%d.5,GET,n%d,%s,http://x/%d,,%s\n", 1700000000+i/10, i, i%4, status, i/37, meta)
	}
	p := filepath.Join(t.TempDir(), "overlap.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestColumnarOverlapRoundTrip: row groups written while the next batch
// fills (each one's ids packed to 1, 2 or 4 bytes, metadata kept only for
// the rows that have it) read back row for row, for row groups of a few
// rows (many hand-offs) and of more rows than one byte of url ids holds.
func TestColumnarOverlapRoundTrip(t *testing.T) {
	small, large := overlapCSV(t, 600), overlapCSV(t, 20000) // urls: 20000/37 = 541 distinct values
	for _, tc := range []struct {
		in         string
		rows, want int
	}{{small, 3, 600}, {large, 1000, 20000}, {large, 20000, 20000}} {
		for _, format := range []Format{FormatParquet, FormatArrow} {
			res := roundTrip(t, tc.in, format, ColumnarOptions{BatchRows: tc.rows})
			if res.RowsOut != int64(tc.want) {
				t.Errorf("%s, %d rows per batch: %d rows out, want %d", format, tc.rows, res.RowsOut, tc.want)
			}
		}
	}
}

// TestPackedCol: pack chooses the fewest bytes that hold a dictionary of d
// strings' ids (0 to d) and they read back as they were.
func TestPackedCol(t *testing.T) {
	for _, tc := range []struct {
		d, w int
	}{{0, 1}, {255, 1}, {256, 2}, {65535, 2}, {65536, 4}, {1 << 20, 4}} {
		ids := []int32{0, int32(tc.d), int32(tc.d / 2), 0, 1 % int32(tc.d+1), int32(tc.d / 3), int32(tc.d * 2 / 3), int32(tc.d), int32(tc.d / 5), 0, int32(tc.d)}
		var p packedCol
		p.pack(ids, tc.d, nil)
		var got []int32
		for i := range ids {
			switch p.w {
			case 1:
				got = append(got, int32(p.b[i]))
			case 2:
				got = append(got, int32(viewAs[uint16](p.b, len(ids))[i]))
			default:
				got = append(got, int32(viewAs[uint32](p.b, len(ids))[i]))
			}
		}
		if p.w != tc.w || len(p.b) != tc.w*len(ids) || fmt.Sprint(got) != fmt.Sprint(ids) {
			t.Errorf("d %d: width %d (%d bytes), ids %v; want width %d, ids %v", tc.d, p.w, len(p.b), got, tc.w, ids)
		}
	}
}

// failAfter accepts n bytes, then fails every write.
type failAfter struct{ n int }

var errDiskFull = errors.New("disk full")

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, errDiskFull
	}
	f.n -= len(p)
	return len(p), nil
}

// TestColumnarWriteFails: a Parquet row group that fails to write (on the
// writing goroutine, while the next batch fills) stops the conversion with
// the error and the rows of that row group; RowsOut counts the row groups
// written before it.
func TestColumnarWriteFails(t *testing.T) {
	in := overlapCSV(t, 5000)
	r, err := OpenAll([]string{in}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var full countWriter
	full.w = &failAfter{n: 1 << 30}
	if _, err := WriteColumnar(&full, r, ColumnarOptions{BatchRows: 500}); err != nil {
		t.Fatal(err)
	}
	r.Close()
	// Half the file: the row groups are about equal, so the write fails
	// in one of the middle ones.
	r, err = OpenAll([]string{in}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res, err := WriteColumnar(&failAfter{n: int(full.n / 2)}, r, ColumnarOptions{BatchRows: 500})
	if !errors.Is(err, errDiskFull) {
		t.Fatalf("error %v, want %v", err, errDiskFull)
	}
	if res.RowsOut%500 != 0 || res.RowsOut < 1000 || res.RowsOut > 4000 {
		t.Fatalf("%d rows out, want a multiple of the 500 rows per group, from 1000 to 4000 (half of 5000 rows)", res.RowsOut)
	}
	want := fmt.Sprintf("writing rows %d–%d: ", res.RowsOut+1, res.RowsOut+500)
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q, want it to start %q", err, want)
	}
}

// TestIndices8: the word-at-a-time loop for one-byte ids agrees with the
// generic loop (checked on the two-byte ids of the same values) for every
// pattern of nulls in a word and for ids 0 to 255, with a tail.
func TestIndices8(t *testing.T) {
	var ids []uint8
	for m := range 256 {
		for k := range 8 {
			if m>>k&1 == 1 {
				ids = append(ids, uint8(1+(m*8+k)%255))
			} else {
				ids = append(ids, 0)
			}
		}
	}
	ids = append(ids, 255, 0, 7) // a tail of three rows
	wide := make([]uint16, len(ids))
	for i, v := range ids {
		wide[i] = uint16(v)
	}
	var sa, sb colScratch
	da, db := make([]int16, len(ids)), make([]int16, len(ids))
	a, da, err := indices(&sa, ids, arrow.PrimitiveTypes.Uint8, 0, true, "c", da)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	b, db, err := indices(&sb, wide, arrow.PrimitiveTypes.Uint16, 0, true, "c", db)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	if a.NullN() != b.NullN() || a.NullN() != 256*4+1 {
		t.Fatalf("nulls %d and %d, want %d (half of 256×8 rows, and one in the tail)", a.NullN(), b.NullN(), 256*4+1)
	}
	if !slices.Equal(sa.valid, sb.valid) || !slices.Equal(da, db) {
		t.Fatal("validity or definition levels differ")
	}
	for i := range ids {
		if ids[i] != uint8(wide[i]) {
			t.Fatalf("row %d: index %d, want %d", i, ids[i], wide[i])
		}
	}
}
