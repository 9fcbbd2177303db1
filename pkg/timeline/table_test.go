package timeline

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
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

// TestTableJoin: a table decoded in two parts and joined (buildTable on a
// long run) holds every row exactly as the table set in one part does,
// whatever kinds the parts' columns took and whichever part alone has
// flags or failures.
func TestTableJoin(t *testing.T) {
	const n = 700
	rng := rand.New(rand.NewPCG(7, 8))
	gens := []func() float64{
		func() float64 { return 0 },
		func() float64 { return float64(rng.IntN(200)) },
		func() float64 { return float64(rng.IntN(60000)) },
		func() float64 { return float64(rng.Uint32()) },
		func() float64 { return rng.Float64() * 1e4 },
	}
	for round := range 60 {
		m := rng.IntN(n + 1)
		whole := &table{secs: make([]int64, 0, n)}
		a := &table{secs: make([]int64, 0, n)}
		b := &table{secs: make([]int64, 0, n-m)}
		gen := [2][14]func() float64{}
		for h := range gen {
			for k := range gen[h] {
				gen[h][k] = gens[rng.IntN(len(gens))]
			}
		}
		flags, fails := [2]bool{rng.IntN(2) == 0, rng.IntN(2) == 0}, [2]bool{rng.IntN(2) == 0, rng.IntN(2) == 0}
		sec := int64(1000)
		for i := range n {
			h, part, j, size := 0, a, i, n
			if i >= m {
				h, part, j, size = 1, b, i-m, n-m
			}
			sec += 1 + int64(rng.IntN(2))
			whole.secs, part.secs = append(whole.secs, sec), append(part.secs, sec)
			for k, c := range whole.cols() {
				v := gen[h][k]()
				c.set(i, n, v)
				part.cols()[k].set(j, size, v)
			}
			if flags[h] && rng.IntN(2) == 0 {
				setBool(&whole.hasVUs, i, n, true)
				setBool(&part.hasVUs, j, size, true)
			}
			if fails[h] && rng.IntN(3) == 0 {
				for _, tb := range []*table{whole, part} {
					if tb.failOff == nil {
						tb.failOff = make([]uint32, cap(tb.secs)+1) // no failure before this row
					}
				}
				st := StatusCount{Status: fmt.Sprint(500 + rng.IntN(4)), N: uint64(1 + rng.IntN(9))}
				whole.fails, part.fails = append(whole.fails, st), append(part.fails, st)
			}
			if whole.failOff != nil {
				whole.failOff[i+1] = uint32(len(whole.fails))
			}
			if part.failOff != nil {
				part.failOff[j+1] = uint32(len(part.fails))
			}
		}
		whole.n, a.n, b.n = n, m, n-m
		a.join(b)
		if a.n != n || !slices.Equal(a.secs, whole.secs) {
			t.Fatalf("round %d (split at %d): %d rows, seconds differ", round, m, a.n)
		}
		got, want := make([]Second, 1), make([]Second, 1)
		for i := range n {
			a.rowsInto(i, got)
			whole.rowsInto(i, want)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d (split at %d): row %d = %+v, want %+v", round, m, i, got[0], want[0])
			}
		}
	}
}

// TestBuildTableSplit: a run long enough to be decoded in two halves
// (splitRows seconds or more, with a gap, failures and VUs in one half
// only) gives the table of one decode of every second.
func TestBuildTableSplit(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("buildTable splits only on two cores or more")
	}
	a := New(Options{})
	const secs = splitRows + 1000
	for s := range int64(secs) {
		if s >= 3000 && s < 3010 {
			continue // a gap: the seconds are not every second from the first
		}
		ns := (1_700_000_000 + s) * 1e9
		status := "200"
		if s > secs/2 && s%7 == 0 {
			status = "503"
		}
		tags := ingest.NewTags([]string{"expected_response", "name", "status"}, []string{fmt.Sprint(status == "200"), "u", status}, "", "")
		a.Add(&ingest.Sample{Metric: "http_reqs", TimeNS: ns, Value: float64(1 + s%300), Tags: tags})
		a.Add(&ingest.Sample{Metric: "http_req_duration", TimeNS: ns, Value: 10, Tags: tags})
		if s < secs/3 {
			a.Add(&ingest.Sample{Metric: "vus", TimeNS: ns, Value: float64(s % 50)})
		}
	}
	tl := a.Close(1e9)
	if tl.tab.n < splitRows || tl.tab.secs == nil {
		t.Fatalf("table of %d rows (secs %v): the test does not cover a split sparse table", tl.tab.n, tl.tab.secs == nil)
	}
	one, rate, unknown := tl.decodeRows(math.MinInt64, math.MaxInt64, tl.sh.secs.Len())
	if rate != tl.rateRows || unknown != tl.unknown {
		t.Errorf("rate rows %v, unknown %d; one decode: %v, %d", tl.rateRows, tl.unknown, rate, unknown)
	}
	if one.n != tl.tab.n || !slices.Equal(one.secs, tl.tab.secs) {
		t.Fatalf("%d rows; one decode: %d", tl.tab.n, one.n)
	}
	got, want := make([]Second, 1), make([]Second, 1)
	var failed uint64
	for i := range one.n {
		tl.tab.rowsInto(i, got)
		one.rowsInto(i, want)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("row %d = %+v, want %+v", i, got[0], want[0])
		}
		failed += got[0].Failed
	}
	if failed == 0 {
		t.Fatal("no failures: the test does not cover the failures' join")
	}
}

// TestColumnSetUint: setting counts with setUint leaves a column as set
// with their float64 leaves it (kind, widening, every row), across the
// bounds of each kind: 255 | 256, 65,535 | 65,536, 2³²−1 | 2³², up to
// 2⁵³.
func TestColumnSetUint(t *testing.T) {
	vals := []uint64{0, 1, 255, 256, 65535, 65536, 1<<32 - 1, 1 << 32, 1 << 53}
	for i := range vals {
		for j := range vals {
			// Rows 0 and 1 set in this order, then row 2 = vals[i] again.
			seq := []uint64{vals[i], vals[j], vals[i]}
			var a, b column
			for r, v := range seq {
				a.setUint(r, len(seq), v)
				b.set(r, len(seq), float64(v))
			}
			if a.kind != b.kind {
				t.Fatalf("%v: kind %d, want %d", seq, a.kind, b.kind)
			}
			for r, v := range seq {
				if a.at(r) != b.at(r) || a.at(r) != float64(v) {
					t.Fatalf("%v: row %d holds %g, want %g", seq, r, a.at(r), float64(v))
				}
			}
		}
	}
}
