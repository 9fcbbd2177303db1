package sketch

import (
	"fmt"
	"slices"
	"sync"

	"github.com/ldanalyze/ldanalyze/internal/secstore"
)

// Series is a run's sketches over time: one per slot of Width seconds and
// per group (a small integer the caller assigns, e.g. 0 for a single
// metric), in bounded memory.
//
// Values arrive through Writers, one per goroutine. A Writer keeps live
// Sketches only for the seconds near the newest it has seen and seals older
// ones into the Series in their compact encoding (AppendEncoded, ~1–3 bytes
// a value or a non-empty bucket instead of 8 bytes a value and 4 bytes a
// bucket). k6 writes samples roughly in time order (out of order by a second
// or two), so a second is sealed once per writer; a late value is sealed
// again and merged, so order never changes a result, only the work.
//
// When more slots hold values than its slot limit the Series coarsens in
// time: it doubles Width (1 s, 2 s, 4 s, …; slots stay aligned to the Unix
// epoch) and merges neighbouring slots, so that memory stays bounded
// whatever the run's duration (a slot holds at most ExactLimit values or a
// histogram). Range then answers at that resolution. The final width is
// the narrowest at which the data's seconds fill no more slots than the
// limit (slots only ever fill up as values arrive, and merge as the width
// grows), so it never depends on the order values arrive in: results do
// not change from one parallel read to the next, and gaps in the data
// cost nothing.
//
// The Writers of one Series may run concurrently; Range, Merge and Bytes
// must not run while a Writer adds or flushes.
type Series struct {
	mu       sync.Mutex
	width    int64 // seconds per slot, a power of two
	maxSlots int   // slots that may hold values before coarsening; ≤ 0: unbounded
	slots    map[seriesKey]*seriesSlot
	// scratch is reused to decode, merge and re-encode slots.
	scratch Sketch
	buf     []byte
	// err is the first slot that failed to decode (see Err).
	err error
	// regrouping is set while a Writer merges the slots of the previous
	// width outside the lock (coarsen); slots then holds only the values
	// sealed since, at the new width.
	regrouping bool
}

// Err returns the first failure to decode a sealed slot, or nil. The
// Series writes every encoding itself, so a failure is a bug; sketches
// built after one lack that slot's values, so callers report it as an
// error rather than a result.
func (s *Series) Err() error { return s.err }

type seriesKey struct {
	slot  int64 // floor(second / width)
	group int32
}

// seriesSlot is one slot's sketch: its encoding plus the small sketches
// sealed since (pending), folded in once they hold pendingLimit values.
type seriesSlot struct {
	enc     []byte
	pending *Sketch
}

// slotOverhead approximates the memory of a slot beyond its encoding: the
// map entry, the slot and the encoding's allocation header.
const slotOverhead = 96

// pendingLimit is the number of late values a slot collects before they
// are merged into its encoding (re-encoding a slot costs its size).
const pendingLimit = 256

// DefaultSeriesSlots is the slot limit NewSeries(0) gets: 68 minutes of
// data at 1-second resolution, 2 h 16 min at 2 s, 9 h at 8 s; at ~1–2 KB
// a second of latencies (~3 KB at most), 4–12 MB.
const DefaultSeriesSlots = 4096

// NewSeries returns an empty Series at 1-second resolution that coarsens
// once more than maxSlots slots hold values (0 means DefaultSeriesSlots,
// < 0 never coarsens).
func NewSeries(maxSlots int) *Series {
	if maxSlots == 0 {
		maxSlots = DefaultSeriesSlots
	}
	return &Series{width: 1, maxSlots: maxSlots, slots: map[seriesKey]*seriesSlot{}}
}

// Width returns the seconds per slot: 1 until the Series coarsened.
func (s *Series) Width() int64 { return s.width }

// Bytes returns the memory held by the slots, in bytes: their encodings
// plus a fixed overhead per slot (late values waiting to be folded in are
// not counted).
func (s *Series) Bytes() int {
	n := 0
	for _, sl := range s.slots {
		n += cap(sl.enc) + slotOverhead
	}
	return n
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// seal merges sk, the values of second sec and group g, into the Series,
// coarsening it when the slots overflow. The caller holds s.mu.
func (s *Series) seal(sec int64, g int32, sk *Sketch) {
	s.sealEnc(sec, g, sk, nil)
	for !s.regrouping && !s.fits() {
		s.regroup()
	}
}

// fits reports whether the slots are within the slot limit (or the width
// can grow no more).
func (s *Series) fits() bool {
	return s.maxSlots <= 0 || len(s.slots) <= s.maxSlots || s.width >= 1<<40
}

// sealEnc is seal with sk's encoding already made (nil: made here), used
// when sk starts a slot: the Writers encode their sketches before they
// take the Series' lock, so that the other cores' Writers do not wait on
// it.
func (s *Series) sealEnc(sec int64, g int32, sk *Sketch, enc []byte) {
	if sk.n == 0 {
		return
	}
	k := seriesKey{floorDiv(sec, s.width), g}
	sl := s.slots[k]
	if sl == nil {
		if enc == nil {
			enc = s.encode(sk)
		}
		sl = &seriesSlot{enc: enc}
		s.slots[k] = sl
	} else if sk.n < pendingLimit {
		if sl.pending == nil {
			sl.pending = &Sketch{}
		}
		sl.pending.Merge(sk)
		if sl.pending.n >= pendingLimit {
			s.fold(sl, nil)
		}
	} else {
		s.fold(sl, sk)
	}
}

// fold merges the slot's pending values and extra (may be nil) into its
// encoding.
func (s *Series) fold(sl *seriesSlot, extra *Sketch) {
	sc := &s.scratch
	sc.Reset()
	s.mergeSlot(sl, sc)
	sc.Merge(extra)
	sl.pending = nil
	sl.enc = s.encode(sc)
}

// encode returns sk's encoding in a slice of its own length (Bytes counts
// capacity).
func (s *Series) encode(sk *Sketch) []byte {
	s.buf = sk.AppendEncoded(s.buf[:0])
	return slices.Clone(s.buf)
}

// mergeSlot merges the slot's values into sc, recording a failure in
// s.err.
func (s *Series) mergeSlot(sl *seriesSlot, sc *Sketch) {
	if err := sl.mergeInto(sc); err != nil && s.err == nil {
		s.err = err
	}
}

// mergeInto merges the slot's values into sc; an error when its encoding
// does not decode (its pending values are merged still).
func (sl *seriesSlot) mergeInto(sc *Sketch) error {
	err := sc.mergeEncodedOwn(sl.enc)
	sc.Merge(sl.pending)
	if err != nil {
		return fmt.Errorf("sketch: series slot: %w", err)
	}
	return nil
}

// regroup rebuilds the slots at twice the width.
func (s *Series) regroup() {
	slots, err := regroupSlots(s.slots)
	s.slots, s.width = slots, 2*s.width
	if err != nil && s.err == nil {
		s.err = err
	}
}

// regroupSlots returns the slots of old merged two to a slot (the width
// doubled), each encoded anew, and the first failure to decode one. The
// two parts of a slot merge in time order, so the result does not depend
// on the map's order. It touches nothing of a Series, so it runs outside
// the lock (coarsen).
func regroupSlots(old map[seriesKey]*seriesSlot) (map[seriesKey]*seriesSlot, error) {
	out := make(map[seriesKey]*seriesSlot, len(old)/2+1)
	var sc Sketch
	var buf []byte
	var ints [2][ExactLimit]int64
	var first error
	for k := range old {
		nk := seriesKey{floorDiv(k.slot, 2), k.group}
		if out[nk] != nil {
			continue // merged with its other half
		}
		var parts [2]*seriesSlot
		n := 0
		for _, part := range [2]int64{2 * nk.slot, 2*nk.slot + 1} {
			if p := old[seriesKey{part, k.group}]; p != nil {
				parts[n] = p
				n++
			}
		}
		// Exact halves without late values merge as encodings (the
		// same bytes as through a Sketch); anything else through sc.
		ok := false
		if parts[0].pending == nil && (parts[1] == nil || parts[1].pending == nil) {
			var b []byte
			if parts[1] != nil {
				b = parts[1].enc
			}
			buf, ok = appendMergedMicro(buf[:0], parts[0].enc, b, &ints)
		}
		if !ok {
			sc.Reset()
			for _, p := range parts[:n] {
				if err := p.mergeInto(&sc); err != nil && first == nil {
					first = err
				}
			}
			buf = sc.AppendEncoded(buf[:0])
		}
		out[nk] = &seriesSlot{enc: slices.Clone(buf)}
	}
	return out, first
}

// coarsen doubles the width until the slots fit, as regroup does, but
// merges the slots of the old width with the lock released, so that the
// other Writers seal meanwhile (into slots of the new width, merged in
// after). The caller holds s.mu; coarsen returns with it held. When
// another Writer is coarsening already, it does nothing: that one checks
// the limit again once its slots are merged in.
func (s *Series) coarsen() {
	for !s.regrouping && !s.fits() {
		old := s.slots
		s.slots = make(map[seriesKey]*seriesSlot, len(old)/2+1)
		s.width *= 2
		s.regrouping = true
		s.mu.Unlock()
		merged, err := regroupSlots(old)
		s.mu.Lock()
		for k, sl := range merged {
			if cur := s.slots[k]; cur != nil {
				// Values sealed while the old slots were merged.
				sc := &s.scratch
				sc.Reset()
				s.mergeSlot(sl, sc)
				s.mergeSlot(cur, sc)
				sl = &seriesSlot{enc: s.encode(sc)}
			}
			s.slots[k] = sl
		}
		if err != nil && s.err == nil {
			s.err = err
		}
		s.regrouping = false
	}
}

// Len returns the number of slots that hold values (live values of
// Writers not counted).
func (s *Series) Len() int { return len(s.slots) }

// Regroup moves the values of every group g to group to(g), merging the
// slots that meet (several groups folded into one). It must not run while
// a Writer adds or flushes.
func (s *Series) Regroup(to func(g int) int) {
	type moved struct {
		k  seriesKey
		sl *seriesSlot
	}
	var ms []moved
	for k, sl := range s.slots {
		if int(k.group) != to(int(k.group)) {
			ms = append(ms, moved{k, sl})
		}
	}
	for _, m := range ms {
		delete(s.slots, m.k)
	}
	for _, m := range ms {
		sk := &Sketch{}
		s.mergeSlot(m.sl, sk)
		s.seal(m.k.slot*s.width, int32(to(int(m.k.group))), sk)
	}
}

// Range returns a new Sketch of group g's values in the slots whose
// midpoint lies in [from, to), seconds since the Unix epoch: at width 1,
// exactly the seconds from, …, to−1; at a coarser width, each slot counts
// in the one range that holds its middle, so adjacent ranges never share a
// value.
func (s *Series) Range(g int, from, to int64) *Sketch {
	out := &Sketch{}
	s.RangeInto(g, from, to, out)
	return out
}

// RangeInto is Range into out, which it resets first (keeping its
// capacity): for many ranges in a row, e.g. the windows of a run, one
// Sketch instead of one per range.
func (s *Series) RangeInto(g int, from, to int64, out *Sketch) {
	out.Reset()
	s.eachIn(g, from, to, func(sl *seriesSlot) { s.mergeSlot(sl, out) })
}

// Moments returns the count and the mean of group g's values in the
// seconds [from, to) — Range(g, from, to).Count() and .Mean(), bit for bit,
// NaN when there are none — reading only each slot's header: a per-second
// series of means (the knee's queue test) costs a few loads a slot
// instead of a Sketch a second.
func (s *Series) Moments(g int, from, to int64) (n uint64, mean float64) {
	var out Sketch
	s.eachIn(g, from, to, func(sl *seriesSlot) {
		if err := out.mergeEncodedMoments(sl.enc); err != nil && s.err == nil {
			s.err = fmt.Errorf("sketch: series slot: %w", err)
		}
		out.mergeMoments(sl.pending)
	})
	return out.Count(), out.Mean()
}

// eachIn calls fn with every slot of group g whose middle lies in [from,
// to), in time order when the range is narrower than the data.
func (s *Series) eachIn(g int, from, to int64, fn func(sl *seriesSlot)) {
	if to <= from {
		return
	}
	w := s.width
	in := func(k int64) bool { // the slot's middle lies in [from, to)
		mid2 := 2*k*w + w
		return mid2 >= 2*from && mid2 < 2*to
	}
	k0, k1 := floorDiv(from, w)-1, floorDiv(to, w)
	if k1-k0 > int64(len(s.slots)) {
		// A range wider than the data: visit the slots, not the span.
		for k, sl := range s.slots {
			if k.group == int32(g) && in(k.slot) {
				fn(sl)
			}
		}
		return
	}
	for k := k0; k <= k1; k++ {
		if sl := s.slots[seriesKey{k, int32(g)}]; sl != nil && in(k) {
			fn(sl)
		}
	}
}

// Merge adds every value of o to s, as if o's Writers had written to s; it
// coarsens s to o's width when o's is larger. Merging a Series into itself
// does nothing. o must not be used afterwards.
func (s *Series) Merge(o *Series) {
	if o == nil || o == s {
		return
	}
	for s.width < o.width {
		s.regroup()
	}
	o.Each(func(sec int64, g int, sk *Sketch) { s.seal(sec, int32(g), sk) })
	if s.err == nil {
		s.err = o.err
	}
}

// Each calls fn for every slot of the Series, in no particular order, with
// the slot's first second, its group and a new Sketch of its values. It
// must not run while a Writer adds or flushes.
func (s *Series) Each(fn func(sec int64, g int, sk *Sketch)) {
	for k, sl := range s.slots {
		sk := &Sketch{}
		s.mergeSlot(sl, sk)
		fn(k.slot*s.width, int(k.group), sk)
	}
}

// EachInto is Each with every slot decoded into sc in turn (reset first):
// sk is sc, valid only during the call, so that visiting tens of
// thousands of slots holds one Sketch, not one per slot.
func (s *Series) EachInto(sc *Sketch, fn func(sec int64, g int, sk *Sketch)) {
	for k, sl := range s.slots {
		sc.Reset()
		s.mergeSlot(sl, sc)
		fn(k.slot*s.width, int(k.group), sc)
	}
}

// AddSketch merges every value of sk into the slot of second sec and group
// g. It is safe to call while Writers run.
func (s *Series) AddSketch(sec int64, g int, sk *Sketch) {
	s.mu.Lock()
	s.seal(sec, int32(g), sk)
	s.mu.Unlock()
}

// Writer adds values to a Series from one goroutine. Call Flush when done:
// values still live in a Writer are not in the Series.
type Writer struct {
	live *secstore.Live[liveKey, Sketch]
	// width is the Series' slot width when the Writer last sealed: live
	// sketches are kept per slot of it (a slot of the Series holds whole
	// slots of any narrower power-of-two width), so a coarsened Series
	// costs a seal per slot, not per second.
	width int64
}

type liveKey struct {
	sec   int64
	group int32
}

// Writer returns a new Writer of s.
func (s *Series) Writer() *Writer {
	var free []*Sketch // sealed sketches, reset, for reuse
	var buf []byte     // an encoding, before it is cloned
	var encs [][]byte  // the encodings of the sketches being sealed
	s.mu.Lock()
	w := &Writer{width: s.width}
	s.mu.Unlock()
	w.live = secstore.NewLive(
		func(k liveKey) int64 { return k.sec },
		func() *Sketch {
			if n := len(free); n > 0 {
				sk := free[n-1]
				free = free[:n-1]
				return sk
			}
			return &Sketch{}
		},
		func(keys []liveKey, sks []*Sketch) {
			encs = encs[:0]
			for _, sk := range sks {
				var enc []byte
				if sk.n > 0 {
					buf = sk.AppendEncoded(buf[:0])
					enc = slices.Clone(buf)
				}
				encs = append(encs, enc)
			}
			s.mu.Lock()
			for i, k := range keys {
				s.sealEnc(k.sec, k.group, sks[i], encs[i])
			}
			s.coarsen()
			w.width = s.width
			s.mu.Unlock()
			for _, sk := range sks {
				if len(free) < 8 {
					sk.Reset()
					free = append(free, sk)
				}
			}
		})
	return w
}

// Add adds v (NaN is ignored) to group g at second sec (Unix seconds).
func (w *Writer) Add(sec int64, g int, v float64) {
	// Floor to the slot: width is a power of two.
	w.live.At(liveKey{sec &^ (w.width - 1), int32(g)}).Add(v)
}

// Flush seals every live sketch into the Series.
func (w *Writer) Flush() { w.live.Flush() }
