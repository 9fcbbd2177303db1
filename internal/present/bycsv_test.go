package present

import (
	"bytes"
	"encoding/csv"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/window"
)

// TestWriteByCSVMatchesEncodingCSV: WriteByCSV writes the bytes
// encoding/csv writes for byHeader and byRow's machine cells, whatever the
// tag values (commas, quotes, line breaks, leading spaces of any kind, \.,
// empty) and numbers (NaN, ±Inf, fractions, huge, negative zero).
func TestWriteByCSVMatchesEncodingCSV(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	tags := []string{"", "GET /a", "a,b", `say "hi"`, "\"", "x\ny", "x\r\ny", " lead", "\tlead", "\u00a0nbsp", "\u2003em", `\.`, `\.x`, "é", "trail ", `""`}
	nums := []float64{0, 1, -1, 0.1, 1.5e-7, 123456789.125, 1e300, math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1)}
	num := func() float64 {
		if rng.IntN(3) == 0 {
			return rng.NormFloat64() * 1e3
		}
		return nums[rng.IntN(len(nums))]
	}
	by := []string{"name", "a,b"}
	pcts := []float64{0.5, 0.95, 0.999}
	var rows []window.Row
	for range 400 {
		r := window.Row{StartNS: rng.Int64N(4e18) - 2e18, Count: rng.Uint64(), Failed: uint64(rng.IntN(1000)),
			Rate: num(), Mean: num(), Min: num(), Max: num()}
		for range by {
			r.Tags = append(r.Tags, tags[rng.IntN(len(tags))])
		}
		for range pcts {
			r.Percentiles = append(r.Percentiles, num())
		}
		rows = append(rows, r)
	}
	for _, n := range []int{0, 1, len(rows)} {
		var want bytes.Buffer
		cw := csv.NewWriter(&want)
		if err := cw.Write(byHeader(by, pcts, true)); err != nil {
			t.Fatal(err)
		}
		for i := range rows[:n] {
			if err := cw.Write(byRow(nil, &rows[i], true)); err != nil {
				t.Fatal(err)
			}
		}
		cw.Flush()
		// WriteByCSV, and its rows from split on formatted on another
		// goroutine (as WriteByCSV does for many rows).
		for _, split := range []int{-1, 0, min(1, n), n / 2, n} {
			var got bytes.Buffer
			var err error
			if split < 0 {
				err = WriteByCSV(&got, rows[:n], by, pcts)
			} else {
				err = writeByCSV(&got, rows[:n], by, pcts, split)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				g, w := got.String(), want.String()
				i := 0
				for i < min(len(g), len(w)) && g[i] == w[i] {
					i++
				}
				t.Fatalf("%d rows, split %d: differ at byte %d: got %q, want %q", n, split, i, g[max(0, i-40):min(len(g), i+40)], w[max(0, i-40):min(len(w), i+40)])
			}
		}
	}
}

// TestAppendMicrosMatchesFormatFloat: the millionths fast path writes
// strconv's shortest 'f' formatting, byte for byte, for values of six
// decimals and fewer across its whole range (to 2^29), both signs, the
// edges of the range, and values it must leave to strconv (more decimals,
// −0, past 2^29).
func TestAppendMicrosMatchesFormatFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	var vals []float64
	for range 300000 {
		m := rng.Int64N(1 << 49) // up to 5.6e8 after /1e6
		if rng.IntN(3) == 0 {
			m = rng.Int64N(1e9)
		}
		v := float64(m) / 1e6
		if rng.IntN(2) == 0 {
			v = -v
		}
		vals = append(vals, v, math.Nextafter(v, 1), v*10, v/1e3, v*float64(int64(1)<<rng.IntN(20)))
	}
	vals = append(vals, 0, math.Copysign(0, -1), 1<<29, -(1 << 29), math.Nextafter(1<<29, 0), 1e-6, 5e-7, 0.1, 0.3, 123.45, 1e6, 1e9, 2.5e-6)
	fast := 0
	for _, v := range vals {
		want := strconv.AppendFloat(nil, v, 'f', -1, 64)
		if got := appendCSVNum([]byte{}, v); !bytes.Equal(got, want) {
			t.Fatalf("%v (bits %x): %q, want %q", v, math.Float64bits(v), got, want)
		}
		if _, ok := appendMicros(nil, v); ok {
			fast++
		}
	}
	if fast < len(vals)/5 { // v and most v·10 of the five per draw
		t.Fatalf("fast path took %d of %d values", fast, len(vals))
	}
}
