package timeline

import (
	"math"
	"runtime"
	"slices"
	"unsafe"
)

// table is every second of the run that holds data, decoded once when the
// Timeline is made (Close): row i is second sec(i), in time order. The
// analyses walk the run many times (the load levels, each check, the
// report); walking the sealed, encoded records each time cost a decode of
// every second per walk (~30 ms per walk of a 24-hour run), a walk of the
// table costs a few loads per second.
//
// Each column is kept in the narrowest integer type that holds its values
// exactly (column), and one that is zero in every second is never
// allocated, so an HTTP run carries no WebSocket columns: ~15–30 bytes a
// second in all.
type table struct {
	// secs are the rows' seconds; nil when they are every second from
	// first on (n rows), as in most runs.
	secs  []int64
	first int64
	n     int
	// Counts and gauges; a second's Failed is Requests − OK.
	reqs, ok                     column
	transport, timeouts, limited column
	iterations, dropped, metricN column
	vus, vusMax                  column
	bytesSent, bytesReceived     column
	msgsSent, msgsReceived       column
	hasVUs, hasVUsMax            []bool
	// failOff[i]..failOff[i+1] are row i's failures in fails; nil while no
	// second has failures.
	failOff []uint32
	fails   []StatusCount
}

// column is one value per row kept in the narrowest of uint8, uint16,
// uint32 and float64 that holds every value set exactly: nil until a
// value is not zero, widened (copying what it holds) when a value does not
// fit. Per-second counts of a run rarely pass 65,535, so a 24-hour run's
// column is 86–170 KB instead of 690 KB of float64.
type column struct {
	kind uint8 // 0 none, 1 uint8, 2 uint16, 3 uint32, 4 float64
	u8   []uint8
	u16  []uint16
	u32  []uint32
	f64  []float64
}

// kindOf is the narrowest kind that holds v exactly.
func kindOf(v float64) uint8 {
	switch {
	case v != math.Trunc(v) || v < 0 || v > math.MaxUint32:
		return 4
	case v <= math.MaxUint8:
		return 1
	case v <= math.MaxUint16:
		return 2
	}
	return 3
}

// set stores v in row i of a column of n rows, allocating or widening it
// as needed.
func (c *column) set(i, n int, v float64) {
	if v == 0 {
		return
	}
	if k := kindOf(v); k > c.kind {
		c.widen(k, n)
	}
	switch c.kind {
	case 1:
		c.u8[i] = uint8(v)
	case 2:
		c.u16[i] = uint16(v)
	case 3:
		c.u32[i] = uint32(v)
	default:
		c.f64[i] = v
	}
}

// setUint is set for a count, v: a whole number, so its kind is told by
// comparisons alone (set(i, n, float64(v)) stores the same).
func (c *column) setUint(i, n int, v uint64) {
	if v == 0 {
		return
	}
	k := uint8(4)
	switch {
	case v <= math.MaxUint8:
		k = 1
	case v <= math.MaxUint16:
		k = 2
	case v <= math.MaxUint32:
		k = 3
	}
	if k > c.kind {
		c.widen(k, n)
	}
	switch c.kind {
	case 1:
		c.u8[i] = uint8(v)
	case 2:
		c.u16[i] = uint16(v)
	case 3:
		c.u32[i] = uint32(v)
	default:
		c.f64[i] = float64(v)
	}
}

// widen moves the column to kind k, n rows.
func (c *column) widen(k uint8, n int) {
	old := *c
	*c = column{kind: k}
	switch k {
	case 1:
		c.u8 = make([]uint8, n)
	case 2:
		c.u16 = make([]uint16, n)
	case 3:
		c.u32 = make([]uint32, n)
	default:
		c.f64 = make([]float64, n)
	}
	if old.kind == 0 {
		return
	}
	for i := range n {
		if v := old.at(i); v != 0 {
			c.set(i, n, v)
		}
	}
}

// at is row i (0 in a column never set).
func (c *column) at(i int) float64 {
	switch c.kind {
	case 1:
		return float64(c.u8[i])
	case 2:
		return float64(c.u16[i])
	case 3:
		return float64(c.u32[i])
	case 4:
		return c.f64[i]
	}
	return 0
}

// splitRows is the fewest seconds whose decode buildTable splits over
// two cores: a 24-hour run's 86,400 records take ~20 ms to decode on one,
// which the analyses after it would wait for; a short run's take well
// under a millisecond.
const splitRows = 1 << 13

// buildTable decodes every second of t once into t.tab (after t.proto and
// t.cand are chosen), and notes what FailedRateRows and UnknownOutcomes
// tell. A long run's records are decoded in two halves at once, joined in
// time order.
func (t *Timeline) buildTable() {
	n := t.sh.secs.Len()
	if n < splitRows || runtime.GOMAXPROCS(0) < 2 {
		tb, rate, unknown := t.decodeRows(math.MinInt64, math.MaxInt64, n)
		t.finishTable(tb, rate, unknown)
		return
	}
	// The second that starts the later half, and the run's first and
	// last: the halves then walk their seconds by block.
	var first, mid, last int64
	i := 0
	t.sh.secs.EachRaw(func(sec int64, _ *second, _ []byte) {
		switch {
		case i == 0:
			first = sec
		case i == n/2:
			mid = sec
		}
		last = sec
		i++
	})
	var tb1 *table
	var rate1 bool
	var unknown1 uint64
	done := make(chan struct{})
	go func() {
		defer close(done)
		tb1, rate1, unknown1 = t.decodeRows(mid, last+1, n-n/2)
	}()
	tb, rate, unknown := t.decodeRows(first, mid, n)
	<-done
	tb.join(tb1)
	t.finishTable(tb, rate || rate1, unknown+unknown1)
}

// decodeRows decodes the seconds in [from, to) into a table whose columns
// are n rows long (the rows decoded are its first tb.n), and returns what
// FailedRateRows and UnknownOutcomes tell of them.
func (t *Timeline) decodeRows(from, to int64, n int) (tb *table, rateRows bool, unknown uint64) {
	tb = &table{secs: make([]int64, 0, n)}
	pi := protoIndex(t.proto)
	var s Second
	i := 0
	t.countsIn(from, to, func(sec int64, r *second) {
		if i >= n {
			return // the store holds no more seconds than it counts
		}
		t.view(r, &s)
		if pi >= 0 {
			rateRows = rateRows || r.req[pi].rateN > 0
			unknown += uint64(r.req[pi].unknown)
		}
		tb.secs = append(tb.secs, sec)
		tb.reqs.setUint(i, n, s.Requests)
		tb.ok.setUint(i, n, s.OK)
		tb.transport.setUint(i, n, s.Transport)
		tb.timeouts.setUint(i, n, s.Timeouts)
		tb.limited.setUint(i, n, s.Limited)
		tb.iterations.setUint(i, n, s.Iterations)
		tb.dropped.setUint(i, n, s.Dropped)
		tb.metricN.setUint(i, n, s.MetricSamples)
		tb.vus.set(i, n, s.VUs)
		tb.vusMax.set(i, n, s.VUsMax)
		tb.bytesSent.set(i, n, s.BytesSent)
		tb.bytesReceived.set(i, n, s.BytesReceived)
		tb.msgsSent.set(i, n, s.MessagesSent)
		tb.msgsReceived.set(i, n, s.MessagesReceived)
		setBool(&tb.hasVUs, i, n, s.HasVUs)
		setBool(&tb.hasVUsMax, i, n, s.HasVUsMax)
		if len(s.Failures) > 0 && tb.failOff == nil {
			tb.failOff = make([]uint32, n+1)
		}
		tb.fails = append(tb.fails, s.Failures...)
		if tb.failOff != nil {
			tb.failOff[i+1] = uint32(len(tb.fails))
		}
		i++
	})
	// A record that did not decode (t.sh.secs.Err says so) leaves fewer
	// rows than the columns were made for: the rows past tb.n are never
	// read.
	tb.n = len(tb.secs)
	return tb, rateRows, unknown
}

// finishTable makes tb the timeline's table.
func (t *Timeline) finishTable(tb *table, rateRows bool, unknown uint64) {
	t.rateRows, t.unknown = rateRows, unknown
	if tb.n > 0 && tb.secs[tb.n-1]-tb.secs[0] == int64(tb.n-1) {
		tb.first, tb.secs = tb.secs[0], nil
	}
	t.tab = tb
}

// cols are the table's value columns, in one order for every table.
func (tb *table) cols() [14]*column {
	return [...]*column{&tb.reqs, &tb.ok, &tb.transport, &tb.timeouts, &tb.limited, &tb.iterations, &tb.dropped,
		&tb.metricN, &tb.vus, &tb.vusMax, &tb.bytesSent, &tb.bytesReceived, &tb.msgsSent, &tb.msgsReceived}
}

// join appends the rows of o, the seconds after tb's, to tb, whose
// columns are made long enough to hold them (decodeRows' n, the capacity
// of tb.secs); o is not used after.
func (tb *table) join(o *table) {
	m, n, size := tb.n, tb.n+o.n, cap(tb.secs)
	cols, ocols := tb.cols(), o.cols()
	for k, c := range cols {
		c.appendRows(m, size, ocols[k], o.n)
	}
	for _, f := range [...]struct{ dst, src *[]bool }{{&tb.hasVUs, &o.hasVUs}, {&tb.hasVUsMax, &o.hasVUsMax}} {
		if *f.src == nil {
			continue
		}
		if *f.dst == nil {
			*f.dst = make([]bool, size)
		}
		copy((*f.dst)[m:n], (*f.src)[:o.n])
	}
	if o.failOff != nil {
		if tb.failOff == nil {
			tb.failOff = make([]uint32, size+1)
		}
		base := uint32(len(tb.fails))
		for i := range o.n {
			tb.failOff[m+i+1] = base + o.failOff[i+1]
		}
		tb.fails = append(tb.fails, o.fails...)
	} else if tb.failOff != nil {
		for i := range o.n {
			tb.failOff[m+i+1] = tb.failOff[m]
		}
	}
	tb.secs = append(tb.secs, o.secs[:o.n]...)
	tb.n = n
}

// appendRows sets rows [m, m+on) of c, a column of size rows, to the
// first on rows of o.
func (c *column) appendRows(m, size int, o *column, on int) {
	if o.kind == 0 {
		return
	}
	if o.kind > c.kind {
		c.widen(o.kind, size)
	}
	if o.kind == c.kind {
		switch c.kind {
		case 1:
			copy(c.u8[m:m+on], o.u8[:on])
		case 2:
			copy(c.u16[m:m+on], o.u16[:on])
		case 3:
			copy(c.u32[m:m+on], o.u32[:on])
		default:
			copy(c.f64[m:m+on], o.f64[:on])
		}
		return
	}
	for i := range on {
		if v := o.at(i); v != 0 {
			c.set(m+i, size, v)
		}
	}
}

// setBool is column.set for a flag column.
func setBool(c *[]bool, i, n int, v bool) {
	if !v {
		return
	}
	if *c == nil {
		*c = make([]bool, n)
	}
	(*c)[i] = true
}

// rowBlock is how many rows Timeline.Range lays out at a time
// (rowsInto): ~10 KB of Seconds.
const rowBlock = 64

// rowsInto sets dst[j] to row i0+j, its Failures a view of the table's
// (not to be changed). It fills column by column: one kind switch per
// column per block instead of one per value, and nothing for a column
// never set (a 24-hour run is walked a dozen times by the checks, 86,400
// rows each). dst holds at most rowBlock rows.
func (tb *table) rowsInto(i0 int, dst []Second) {
	clear(dst)
	var s Second
	for _, c := range [...]struct {
		col *column
		off uintptr
	}{
		{&tb.reqs, unsafe.Offsetof(s.Requests)}, {&tb.ok, unsafe.Offsetof(s.OK)},
		{&tb.transport, unsafe.Offsetof(s.Transport)}, {&tb.timeouts, unsafe.Offsetof(s.Timeouts)},
		{&tb.limited, unsafe.Offsetof(s.Limited)}, {&tb.iterations, unsafe.Offsetof(s.Iterations)},
		{&tb.dropped, unsafe.Offsetof(s.Dropped)}, {&tb.metricN, unsafe.Offsetof(s.MetricSamples)},
	} {
		into[uint64](c.col, i0, dst, c.off)
	}
	for _, c := range [...]struct {
		col *column
		off uintptr
	}{
		{&tb.vus, unsafe.Offsetof(s.VUs)}, {&tb.vusMax, unsafe.Offsetof(s.VUsMax)},
		{&tb.bytesSent, unsafe.Offsetof(s.BytesSent)}, {&tb.bytesReceived, unsafe.Offsetof(s.BytesReceived)},
		{&tb.msgsSent, unsafe.Offsetof(s.MessagesSent)}, {&tb.msgsReceived, unsafe.Offsetof(s.MessagesReceived)},
	} {
		into[float64](c.col, i0, dst, c.off)
	}
	for j := range dst {
		dst[j].Failed = dst[j].Requests - dst[j].OK
	}
	if tb.hasVUs != nil {
		for j, h := range tb.hasVUs[i0 : i0+len(dst)] {
			dst[j].HasVUs = h
		}
	}
	if tb.hasVUsMax != nil {
		for j, h := range tb.hasVUsMax[i0 : i0+len(dst)] {
			dst[j].HasVUsMax = h
		}
	}
	if tb.failOff != nil {
		fo := tb.failOff[i0 : i0+len(dst)+1]
		for j := range dst {
			if a, b := fo[j], fo[j+1]; b > a {
				dst[j].Failures = tb.fails[a:b:b]
			}
		}
	}
}

// field returns the field at offset off of dst[j]: a uint64 or float64
// field of Second (rowsInto's offsets), j < len(dst).
func field[T uint64 | float64](dst []Second, j int, off uintptr) *T {
	return (*T)(unsafe.Add(unsafe.Pointer(&dst[j]), off))
}

// into sets the field of type T at offset off of dst[j] to row i0+j,
// converted as at does (nothing for a column never set: dst is zero).
func into[T uint64 | float64](c *column, i0 int, dst []Second, off uintptr) {
	switch c.kind {
	case 1:
		for j, x := range c.u8[i0 : i0+len(dst)] {
			*field[T](dst, j, off) = T(x)
		}
	case 2:
		for j, x := range c.u16[i0 : i0+len(dst)] {
			*field[T](dst, j, off) = T(x)
		}
	case 3:
		for j, x := range c.u32[i0 : i0+len(dst)] {
			*field[T](dst, j, off) = T(x)
		}
	case 4:
		for j, x := range c.f64[i0 : i0+len(dst)] {
			*field[T](dst, j, off) = T(x)
		}
	}
}

// sec is row i's second.
func (tb *table) sec(i int) int64 {
	if tb.secs == nil {
		return tb.first + int64(i)
	}
	return tb.secs[i]
}

// rows returns the rows [i0, i1) of the seconds in [from, to).
func (tb *table) rows(from, to int64) (i0, i1 int) {
	if to <= from || tb.n == 0 {
		return 0, 0
	}
	if tb.secs == nil {
		clamp := func(s int64) int {
			switch {
			case s <= tb.first:
				return 0
			case s >= tb.first+int64(tb.n):
				return tb.n
			}
			return int(s - tb.first)
		}
		return clamp(from), clamp(to)
	}
	i0, _ = slices.BinarySearch(tb.secs, from)
	i1, _ = slices.BinarySearch(tb.secs[i0:], to)
	return i0, i0 + i1
}

// Column is a read-only view of one per-second series of the run's main
// span (Timeline.MainColumns): At(i) is its value in second
// Main().First + i, as the table keeps it (no copy).
type Column struct {
	c   *column
	off int
}

// At returns the series' value in second i of the main span (0 where the
// series has no value).
func (c Column) At(i int) float64 { return c.c.at(c.off + i) }

// Flags is a read-only view of a per-second flag of the main span
// (MainColumns): At(i) is its value in second Main().First + i.
type Flags struct {
	b   []bool
	off int
}

// At returns the flag in second i of the main span.
func (f Flags) At(i int) bool { return f.b != nil && f.b[f.off+i] }

// MainColumns are the per-second series of the main span that the knee
// analysis reads many times, as views of the table.
type MainColumns struct {
	// Requests, OK, Iterations, Dropped and MessagesReceived are Second's
	// counts; VUs and VUsMax its gauges (0 in a second without a sample).
	Requests, OK, Iterations, Dropped, MessagesReceived Column
	VUs, VUsMax                                         Column
	// HasVUs and HasVUsMax tell whether any second of the span has a
	// sample of the gauge, EveryVUs and EveryVUsMax whether every one has;
	// SampledVUs and SampledVUsMax say it second by second.
	HasVUs, HasVUsMax, EveryVUs, EveryVUsMax bool
	SampledVUs, SampledVUsMax                Flags
}

// MainColumns returns views of the main span's per-second series, and
// false when the span has seconds without data (an analysis then lays the
// span out itself, with Range).
func (t *Timeline) MainColumns() (MainColumns, bool) {
	tb, m := t.tab, t.main
	if m.Seconds == 0 || m.Seconds != m.Len() {
		return MainColumns{}, false
	}
	i0, i1 := tb.rows(m.First, m.Last+1)
	if i1-i0 != m.Len() {
		return MainColumns{}, false
	}
	flags := func(c []bool) (some, every bool) {
		if c == nil {
			return false, false
		}
		n := 0
		for _, v := range c[i0:i1] {
			if v {
				n++
			}
		}
		return n > 0, n == i1-i0
	}
	col := func(c *column) Column { return Column{c, i0} }
	mc := MainColumns{
		Requests: col(&tb.reqs), OK: col(&tb.ok), Iterations: col(&tb.iterations), Dropped: col(&tb.dropped),
		MessagesReceived: col(&tb.msgsReceived), VUs: col(&tb.vus), VUsMax: col(&tb.vusMax),
	}
	mc.SampledVUs, mc.SampledVUsMax = Flags{tb.hasVUs, i0}, Flags{tb.hasVUsMax, i0}
	mc.HasVUs, mc.EveryVUs = flags(tb.hasVUs)
	mc.HasVUsMax, mc.EveryVUsMax = flags(tb.hasVUsMax)
	return mc, true
}
