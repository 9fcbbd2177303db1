package pipeline

import "github.com/ldanalyze/ldanalyze/pkg/ingest"

// batchWants is addBatch's memo, for one batch, of which of an accs'
// row aggregators (over, by, ep) take the rows of each metric id: each
// metric is asked once per batch (a batch's ids are few), and a row no
// aggregator takes costs no Sample and no calls.
type batchWants struct {
	small [256]uint8 // per metric id below 256: wantsKnown | the aggregators' bits
	byID  []uint8    // likewise, by id, for larger ids
	ids   []int32    // the ids set
}

// The bits of batchWants.byID: the aggregator takes every row of the
// metric (wantsOver, wantsBy, wantsEp) or only those of a value other
// than 0 (…NZ).
const (
	wantsKnown uint8 = 1 << iota
	wantsOver
	wantsBy
	wantsByNZ
	wantsEp
	wantsEpNZ
)

// rows hands the rows of b that a's over, by and ep take to them, in
// order, as add does (add's calls, written out: see addBatch).
func (a *accs) rows(b *ingest.Batch) {
	w := &a.wants
	for _, id := range w.ids {
		if id < int32(len(w.small)) {
			w.small[id] = 0
		} else {
			w.byID[id] = 0
		}
	}
	w.ids = w.ids[:0]
	values := b.Values[:len(b.MetricIDs)]
	for i, id := range b.MetricIDs {
		var m uint8
		if uint32(id) < uint32(len(w.small)) {
			m = w.small[id]
		} else {
			m = w.large(id)
		}
		if m == wantsKnown {
			continue
		}
		if m == 0 {
			m = a.wantsOf(b.Names[id])
			if id < int32(len(w.small)) {
				w.small[id] = m
			} else {
				w.byID[id] = m
			}
			w.ids = append(w.ids, id)
			if m == wantsKnown {
				continue
			}
		}
		nz := values[i] != 0
		toOver := m&wantsOver != 0
		toBy := m&wantsBy != 0 || m&wantsByNZ != 0 && nz
		toEp := m&wantsEp != 0 || m&wantsEpNZ != 0 && nz
		if !toOver && !toBy && !toEp {
			continue
		}
		s := b.Sample(i)
		if toOver {
			a.over.Add(s)
		}
		if toBy {
			a.by.Add(s)
		}
		if toEp {
			a.ep.Add(s)
		}
	}
}

// large is the bits of metric id (≥ 256), 0 until set.
func (w *batchWants) large(id int32) uint8 {
	if int(id) >= len(w.byID) {
		w.byID = append(w.byID, make([]uint8, int(id)+1-len(w.byID))...)
	}
	return w.byID[id]
}

// wantsOf is the batchWants bits of metric.
func (a *accs) wantsOf(metric string) uint8 {
	m := wantsKnown
	if a.over != nil && a.over.Wants(metric) {
		m |= wantsOver
	}
	if a.by != nil {
		all, nz := a.by.Wants(metric)
		if all {
			m |= wantsBy
		} else if nz {
			m |= wantsByNZ
		}
	}
	if a.ep != nil {
		all, nz := a.ep.Wants(metric)
		if all {
			m |= wantsEp
		} else if nz {
			m |= wantsEpNZ
		}
	}
	return m
}
