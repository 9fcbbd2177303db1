package timeline

import "slices"

// table is every second of the run that holds data, decoded once when the
// Timeline is made (Close): row i is second secs[i], in time order. The
// analyses walk the run many times (the load levels, each check, the
// report); walking the sealed, encoded records each time cost a decode of
// every second per walk (~30 ms per walk of a 24-hour run), a walk of the
// table costs a few loads per second.
//
// Counts are kept as the records keep them (uint32); a column that is
// zero in every second is never allocated (col32.at and colF.at read nil
// as zeros), so an HTTP run carries no WebSocket columns: ~60–90 bytes a
// second in all.
type table struct {
	secs                         []int64
	reqs, ok, failed             col32
	transport, timeouts, limited col32
	iterations, dropped, metricN col32
	vus, vusMax                  colF
	bytesSent, bytesReceived     colF
	msgsSent, msgsReceived       colF
	hasVUs, hasVUsMax            []bool
	// failOff[i]..failOff[i+1] are row i's failures in fails; nil while no
	// second has failures.
	failOff []uint32
	fails   []StatusCount
}

// col32 is a count column, nil when zero in every row.
type col32 []uint32

// set stores v in row i of a column of n rows, allocating it on the first
// value that is not zero.
func (c *col32) set(i, n int, v uint64) {
	if v == 0 {
		return
	}
	if *c == nil {
		*c = make([]uint32, n)
	}
	(*c)[i] = uint32(v)
}

// at is row i (0 in a column never set).
func (c col32) at(i int) uint64 {
	if c == nil {
		return 0
	}
	return uint64(c[i])
}

// colF is a float column, nil when zero in every row.
type colF []float64

// set: see col32.set.
func (c *colF) set(i, n int, v float64) {
	if v == 0 {
		return
	}
	if *c == nil {
		*c = make([]float64, n)
	}
	(*c)[i] = v
}

// at: see col32.at.
func (c colF) at(i int) float64 {
	if c == nil {
		return 0
	}
	return c[i]
}

// buildTable decodes every second of t once into t.tab (after t.proto and
// t.cand are chosen), and notes what FailedRateRows and UnknownOutcomes
// tell.
func (t *Timeline) buildTable() {
	n := t.sh.secs.Len()
	tb := &table{secs: make([]int64, 0, n)}
	pi := protoIndex(t.proto)
	var s Second
	i := 0
	t.counts(func(sec int64, r *second) {
		if i >= n {
			return // the store holds no more seconds than it counts
		}
		t.view(r, &s)
		if pi >= 0 {
			t.rateRows = t.rateRows || r.req[pi].rateN > 0
			t.unknown += uint64(r.req[pi].unknown)
		}
		tb.secs = append(tb.secs, sec)
		tb.reqs.set(i, n, s.Requests)
		tb.ok.set(i, n, s.OK)
		tb.failed.set(i, n, s.Failed)
		tb.transport.set(i, n, s.Transport)
		tb.timeouts.set(i, n, s.Timeouts)
		tb.limited.set(i, n, s.Limited)
		tb.iterations.set(i, n, s.Iterations)
		tb.dropped.set(i, n, s.Dropped)
		tb.metricN.set(i, n, s.MetricSamples)
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
	if len(tb.secs) < n {
		// A record that did not decode (t.sh.secs.Err says so): keep the
		// columns as long as the seconds.
		tb.trim(len(tb.secs))
	}
	t.tab = tb
}

// trim cuts every column to m rows.
func (tb *table) trim(m int) {
	for _, c := range []*col32{&tb.reqs, &tb.ok, &tb.failed, &tb.transport, &tb.timeouts, &tb.limited, &tb.iterations, &tb.dropped, &tb.metricN} {
		if *c != nil {
			*c = (*c)[:m]
		}
	}
	for _, c := range []*colF{&tb.vus, &tb.vusMax, &tb.bytesSent, &tb.bytesReceived, &tb.msgsSent, &tb.msgsReceived} {
		if *c != nil {
			*c = (*c)[:m]
		}
	}
	for _, c := range []*[]bool{&tb.hasVUs, &tb.hasVUsMax} {
		if *c != nil {
			*c = (*c)[:m]
		}
	}
	if tb.failOff != nil {
		tb.failOff = tb.failOff[:m+1]
	}
}

// setBool is col32.set for a flag column.
func setBool(c *[]bool, i, n int, v bool) {
	if !v {
		return
	}
	if *c == nil {
		*c = make([]bool, n)
	}
	(*c)[i] = true
}

// row sets *s to row i, its Failures a view of the table's (not to be
// changed).
func (tb *table) row(i int, s *Second) {
	*s = Second{
		Requests: tb.reqs.at(i), OK: tb.ok.at(i), Failed: tb.failed.at(i),
		Transport: tb.transport.at(i), Timeouts: tb.timeouts.at(i), Limited: tb.limited.at(i),
		Iterations: tb.iterations.at(i), Dropped: tb.dropped.at(i),
		VUs: tb.vus.at(i), VUsMax: tb.vusMax.at(i),
		HasVUs: tb.hasVUs != nil && tb.hasVUs[i], HasVUsMax: tb.hasVUsMax != nil && tb.hasVUsMax[i],
		BytesSent: tb.bytesSent.at(i), BytesReceived: tb.bytesReceived.at(i),
		MessagesSent: tb.msgsSent.at(i), MessagesReceived: tb.msgsReceived.at(i),
		MetricSamples: tb.metricN.at(i),
	}
	if tb.failOff != nil && tb.failOff[i+1] > tb.failOff[i] {
		s.Failures = tb.fails[tb.failOff[i]:tb.failOff[i+1]:tb.failOff[i+1]]
	}
}

// rows returns the rows [i0, i1) of the seconds in [from, to).
func (tb *table) rows(from, to int64) (i0, i1 int) {
	if to <= from {
		return 0, 0
	}
	i0, _ = slices.BinarySearch(tb.secs, from)
	i1, _ = slices.BinarySearch(tb.secs[i0:], to)
	return i0, i0 + i1
}
