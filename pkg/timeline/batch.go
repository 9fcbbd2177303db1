package timeline

import (
	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/outcome"
)

// batchMemo is AddBatch's memo of one metric id of a batch: the metric's
// cardinality slot, as Add would find it by name, looked up once per
// batch.
type batchMemo struct {
	state  uint8 // memoUnknown, memoSlot or memoAdd
	value  bool  // no series, and the kind needs only a row's time and value (addValue)
	series bool  // the slot's series: the row's series key is counted
	listed bool  // in Accumulator.memoIDs
	kind   metricKind
	counts *uint64 // the metric's count in totals.metrics
}

const (
	memoUnknown uint8 = iota
	memoSlot          // AddBatch does what Add does, with the slot here
	memoAdd           // the rows go to Add (the metric is not cached)
)

// AddBatch adds every row of b, in order, with the same effect as Add of
// each b.Sample(i): Add's work, with the metric's cardinality slot found
// by the batch's metric id (once per id and batch) instead of by the
// name's address on every row, and without a Sample for the rows whose
// kind needs only their time and value (a k6 request's timing
// sub-metrics, data_sent, data_received, http_req_failed,
// iteration_duration, …). A metric's rows go to Add until Add has cached
// its slot (its first row), and always when the cache is full; every row
// goes to Add while the Accumulator has queries or thresholds.
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
		if m.state != memoSlot {
			a.Add(b.Sample(i))
			continue
		}
		ns := times[i]
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
		if m.value {
			a.addValue(m.kind.op, sc, ns, values[i])
			continue
		}
		s := b.Sample(i)
		if m.series && len(t.series) < MaxSeries {
			a.card.addSeries(t, a.card.seriesKey(s))
		}
		a.addKind(m.kind, sc, s)
	}
}

// learn fills m, the memo of metric id (name), from the metric's
// cardinality slot once Add has cached the metric and its kind (so that
// a metric's first count, and a name's past the limits, stay Add's): Add
// when the cache holds no slot for it, unknown (learnt again on the next
// row) until its first row has gone to Add.
func (a *Accumulator) learn(m *batchMemo, id int32, name string) {
	if !m.listed {
		m.listed = true
		a.memoIDs = append(a.memoIDs, id)
	}
	slot := a.card.slot(name)
	switch {
	case slot == nil:
		m.state = memoAdd
	case slot.name == "" || !slot.kindSet:
		// Add caches it.
	default:
		k := slot.kind
		m.state, m.kind, m.counts, m.series = memoSlot, k, slot.counts, slot.series
		m.value = !slot.series && k.cand < 0 && k.stream == outcome.None && valueOp(k.op)
	}
}
