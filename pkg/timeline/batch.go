package timeline

import (
	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/outcome"
)

// batchMemo is AddBatch's memo of one metric id of the batch: what Add
// would do with its rows, worked out once per batch.
type batchMemo struct {
	state  uint8 // memoUnknown, memoFast or memoSlow
	op     metricOp
	counts *uint64 // the metric's count in totals.metrics
	listed bool    // in Accumulator.memoIDs
	// col, kind, series: for a memoSlow metric, how addCol adds its rows.
	col    colKind
	kind   metricKind
	series bool
}

const (
	memoUnknown uint8 = iota
	memoFast          // counted here: no tag, no series, no source asked
	memoSlow          // given to Add
)

// fastOp reports whether AddBatch counts the rows of a metric of kind k
// itself: not a latency candidate's, not a request stream's, and asking
// for no tag and no source (checks, iterations and the VU gauges do).
func fastOp(k metricKind) bool {
	if k.cand >= 0 || k.stream != outcome.None {
		return false
	}
	switch k.op {
	case opNone, opIterDur, opDropped, opDataSent, opDataReceived, opWSSent, opWSReceived, opHTTPFailed, opBrowserFailed:
		return true
	}
	return false
}

// AddBatch adds every row of b, in order, with the same effect as Add of
// each b.Sample(i). The rows of metrics that need no tag, no series key
// and no source (a k6 request's timing sub-metrics, data_sent,
// data_received, http_req_failed, iteration_duration, …) are counted in a
// tight loop; the others, and every row while the Accumulator has queries
// or thresholds, go to Add.
func (a *Accumulator) AddBatch(b *ingest.Batch) {
	if len(a.qs) > 0 {
		for i := range b.Len() {
			a.Add(b.Sample(i))
		}
		return
	}
	for _, id := range a.memoIDs {
		a.memo[id] = batchMemo{}
	}
	a.memoIDs = a.memoIDs[:0]
	a.col.reset(b)
	t := &a.tot
	times, values := b.TimesNS[:len(b.MetricIDs)], b.Values[:len(b.MetricIDs)]
	for i, id := range b.MetricIDs {
		if int(id) >= len(a.memo) {
			a.memo = append(a.memo, make([]batchMemo, int(id)+1-len(a.memo))...)
		}
		m := &a.memo[id]
		if m.state == memoUnknown {
			a.learn(m, id, b.Names[id])
		}
		if m.state != memoFast {
			if m.col == colNone || !a.addCol(b, i, m) {
				a.Add(b.Sample(i))
			}
			continue
		}
		ns, v := times[i], values[i]
		t.rows++
		if !t.any || ns < t.minNS {
			t.minNS = ns
		}
		if !t.any || ns > t.maxNS {
			t.maxNS = ns
		}
		t.any = true
		*m.counts++
		sc := a.live.At(secOf(ns))
		sc.any = true
		// Add's switch for these ops, copied: a shared function costs
		// the CSV path a call per row (+1 % instructions).
		// TestAddBatchSameAsAdd feeds rows of every op to both.
		switch m.op {
		case opIterDur:
			a.durW.Add(secOf(ns), 0, v)
			t.iterDur.Add(v)
		case opDropped:
			sc.dropped += count(v)
		case opDataSent:
			sc.bytesSent += v
		case opDataReceived:
			sc.bytesReceived += v
		case opWSSent:
			sc.msgsSent += v
		case opWSReceived:
			sc.msgsReceived += v
		case opHTTPFailed:
			r := &sc.req[protoIndex(outcome.HTTP)]
			r.rateN++
			if v != 0 {
				r.rateSum++
			}
		case opBrowserFailed:
			r := &sc.req[protoIndex(outcome.Browser)]
			r.rateN++
			if v != 0 {
				r.rateSum++
			}
		}
	}
}

// learn fills m, the memo of metric id (name), from the metric's
// cardinality slot: fast once Add has cached the metric and its kind
// (so the count, the first sight of a name past the limits, stay Add's),
// slow when its kind is not fastOp's or its name is not cached; unknown,
// to be learnt again, until its first row has gone to Add.
func (a *Accumulator) learn(m *batchMemo, id int32, name string) {
	if !m.listed {
		m.listed = true
		a.memoIDs = append(a.memoIDs, id)
	}
	slot := a.card.slot(name)
	switch {
	case slot == nil:
		m.state = memoSlow
	case slot.name == "" || !slot.kindSet:
		// Add caches it.
	case slot.series || !fastOp(slot.kind):
		m.state, m.counts = memoSlow, slot.counts
		m.col, m.kind, m.series = a.colOf(slot.kind, slot.series), slot.kind, slot.series
	default:
		m.state, m.op, m.counts = memoFast, slot.kind.op, slot.counts
	}
}
