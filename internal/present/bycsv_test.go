package present

import (
	"bytes"
	"encoding/csv"
	"math"
	"math/rand/v2"
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
		var got bytes.Buffer
		if err := WriteByCSV(&got, rows[:n], by, pcts); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			g, w := got.String(), want.String()
			i := 0
			for i < min(len(g), len(w)) && g[i] == w[i] {
				i++
			}
			t.Fatalf("%d rows: differ at byte %d: got %q, want %q", n, i, g[max(0, i-40):min(len(g), i+40)], w[max(0, i-40):min(len(w), i+40)])
		}
	}
}
