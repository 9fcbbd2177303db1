package timeline

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestColumnWidens: a column returns every value exactly as set, in the
// narrowest kind that holds them all, widening as larger or fractional
// values come, and stays nil while every value is zero.
func TestColumnWidens(t *testing.T) {
	const n = 500
	var c column
	for i := range n {
		c.set(i, n, 0)
	}
	if c.kind != 0 || c.at(7) != 0 {
		t.Fatalf("all zeros: kind %d", c.kind)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	want := make([]float64, n)
	steps := []struct {
		upto int
		gen  func() float64
		kind uint8
	}{
		{100, func() float64 { return float64(rng.IntN(256)) }, 1},
		{200, func() float64 { return float64(rng.IntN(65536)) }, 2},
		{300, func() float64 { return float64(rng.Uint32()) }, 3},
		{400, func() float64 { return rng.Float64() * 1e6 }, 4},
		{n, func() float64 { return float64(rng.IntN(10)) }, 4},
	}
	i := 0
	for _, st := range steps {
		for ; i < st.upto; i++ {
			want[i] = st.gen()
			c.set(i, n, want[i])
		}
		if c.kind != st.kind {
			t.Fatalf("after row %d: kind %d, want %d", i, c.kind, st.kind)
		}
		for j := range n {
			if got := c.at(j); math.Float64bits(got) != math.Float64bits(want[j]) && !(got == 0 && want[j] == 0) {
				t.Fatalf("after row %d: row %d = %v, want %v", i, j, got, want[j])
			}
		}
	}
	// Negative and huge values need float64 too.
	for _, v := range []float64{-1, math.MaxUint32 + 1, 0.5} {
		if k := kindOf(v); k != 4 {
			t.Errorf("kindOf(%v) = %d, want 4", v, k)
		}
	}
}

// TestTableRows: the rows of [from, to) are those whose second lies in it,
// for a dense table (no secs) and a sparse one, whatever from and to.
func TestTableRows(t *testing.T) {
	dense := &table{first: 1000, n: 50}
	sparse := &table{secs: []int64{-5, 3, 4, 90, 1 << 40}, n: 5}
	rng := rand.New(rand.NewPCG(3, 4))
	negative := &table{first: -30, n: 40}
	for _, tb := range []*table{dense, sparse, negative} {
		for range 2000 {
			from := tb.sec(0) - 20 + rng.Int64N(int64(tb.n)+120)
			to := from + rng.Int64N(80) - 10
			if rng.IntN(20) == 0 {
				from, to = math.MinInt64, math.MaxInt64
			}
			i0, i1 := tb.rows(from, to)
			var want []int
			for i := range tb.n {
				if s := tb.sec(i); s >= from && s < to {
					want = append(want, i)
				}
			}
			got := i1 - i0
			if got < 0 {
				got = 0
			}
			if got != len(want) || (len(want) > 0 && i0 != want[0]) {
				t.Fatalf("rows(%d, %d) = [%d, %d), want %v", from, to, i0, i1, want)
			}
		}
	}
}

// TestRowsInto: Range's block layout (rowsInto) gives every row's values
// exactly as its columns hold them, for columns of every kind (and never
// set), flags, and failures, from any start and for any block length.
func TestRowsInto(t *testing.T) {
	const n = 300
	rng := rand.New(rand.NewPCG(5, 6))
	tb := &table{first: 100, n: n, failOff: make([]uint32, n+1)}
	gens := []func() float64{
		func() float64 { return float64(rng.IntN(200)) },
		func() float64 { return float64(rng.IntN(60000)) },
		func() float64 { return float64(rng.Uint32()) },
		func() float64 { return rng.Float64() * 1e4 },
	}
	cols := []*column{&tb.reqs, &tb.transport, &tb.timeouts, &tb.limited, &tb.iterations, &tb.dropped,
		&tb.metricN, &tb.vus, &tb.vusMax, &tb.bytesSent, &tb.bytesReceived, &tb.msgsSent}
	for k, c := range cols {
		g := gens[k%len(gens)]
		for i := range n {
			if rng.IntN(3) > 0 {
				c.set(i, n, g())
			}
		}
	}
	// OK ≤ Requests, as the timeline keeps them; msgsReceived never set.
	for i := range n {
		tb.ok.set(i, n, math.Floor(tb.reqs.at(i)*rng.Float64()))
		setBool(&tb.hasVUs, i, n, rng.IntN(2) == 0)
		for range rng.IntN(3) {
			tb.fails = append(tb.fails, StatusCount{Status: "500", N: uint64(rng.IntN(9) + 1)})
		}
		tb.failOff[i+1] = uint32(len(tb.fails))
	}
	if tb.transport.kind != 2 || tb.limited.kind != 4 || tb.msgsReceived.kind != 0 || tb.hasVUsMax != nil {
		t.Fatalf("kinds %d %d %d: the table does not cover every case", tb.transport.kind, tb.limited.kind, tb.msgsReceived.kind)
	}
	for range 200 {
		i0 := rng.IntN(n)
		dst := make([]Second, 1+rng.IntN(min(rowBlock, n-i0)))
		for j := range dst {
			dst[j] = Second{Requests: 99, HasVUsMax: true, Failures: []StatusCount{{}}} // stale values must go
		}
		tb.rowsInto(i0, dst)
		for j := range dst {
			i := i0 + j
			reqs, ok := uint64(tb.reqs.at(i)), uint64(tb.ok.at(i))
			want := Second{
				Requests: reqs, OK: ok, Failed: reqs - ok,
				Transport: uint64(tb.transport.at(i)), Timeouts: uint64(tb.timeouts.at(i)), Limited: uint64(tb.limited.at(i)),
				Iterations: uint64(tb.iterations.at(i)), Dropped: uint64(tb.dropped.at(i)),
				VUs: tb.vus.at(i), VUsMax: tb.vusMax.at(i), HasVUs: tb.hasVUs[i],
				BytesSent: tb.bytesSent.at(i), BytesReceived: tb.bytesReceived.at(i),
				MessagesSent: tb.msgsSent.at(i), MessagesReceived: tb.msgsReceived.at(i),
				MetricSamples: uint64(tb.metricN.at(i)),
			}
			if a, b := tb.failOff[i], tb.failOff[i+1]; b > a {
				want.Failures = tb.fails[a:b]
			}
			if !reflect.DeepEqual(dst[j], want) {
				t.Fatalf("row %d: rowsInto %+v, want %+v", i, dst[j], want)
			}
		}
	}
}
