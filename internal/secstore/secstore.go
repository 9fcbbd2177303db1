// Package secstore keeps one record per second of a run, shared by the
// goroutines that read it: each goroutine fills live records for the
// seconds near the newest it has seen (Local) and seals older ones into the
// Store, merging them with what other goroutines sealed for the same
// second. Memory is then one record per second of the run, in dense blocks,
// however many cores read, instead of one map entry and one record per
// second per core.
//
// k6 writes samples roughly in time order (late by a second or two), so a
// second is sealed about once per goroutine; a later sample for a sealed
// second makes a new live record that is sealed and merged again, so order
// changes only the work, never the result, as long as merge adds.
package secstore

import (
	"math/bits"
	"slices"
	"sync"
)

// blockBits sets the block size: 64 consecutive seconds.
const blockBits = 6

// maxHot is the most blocks a Store with a Codec keeps decoded: the
// newest seconds, where the readers' goroutines seal. Older blocks are
// kept encoded, so memory grows with the bytes of the run's records, not
// with the size of the record type.
const maxHot = 16

// Codec is how a Store keeps its older records: encoded, one byte string
// per block of seconds. Append and Decode must round-trip every record a
// merge can produce.
type Codec[T any] struct {
	// Append appends the encoding of r to dst.
	Append func(dst []byte, r *T) []byte
	// Decode adds the record encoded at the start of b into r, which
	// Reset has emptied, and returns the rest of b; an error when b does
	// not hold an encoding (a bug: only Append writes them). r's slices
	// may share b's bytes only with their capacity cut (b[i:j:j]), so
	// that appending to them copies.
	Decode func(b []byte, r *T) ([]byte, error)
	// Reset empties r, keeping the capacity of its slices, so that a
	// record can be reused.
	Reset func(r *T)
	// Prepare, when set, readies a sealed record for merging without
	// changing what merging it adds (e.g. encodes its live parts): a
	// Local calls it before it takes the Store's lock, so that the work
	// does not keep the other goroutines' Locals waiting.
	Prepare func(r *T)
	// Move, when set, makes dst, a record that holds nothing (Reset),
	// what merging r, a prepared record, into it would make, and may
	// leave r anything that Reset empties: a seal into a second that
	// holds no record yet (nearly every one) then swaps instead of adding
	// field by field.
	Move func(dst, r *T)
}

// Store holds the sealed records of type T. Its zero value is not usable;
// call New or NewEncoded.
type Store[T any] struct {
	mu     sync.Mutex
	blocks map[int64]*block[T]
	merge  func(dst, src *T)
	n      int
	codec  *Codec[T]
	// hot are the keys of the decoded blocks when codec is set, least
	// recently used first.
	hot []int64
	// spare is a decoded block's array, reset, for the next hot block.
	spare *[1 << blockBits]T
	buf   []byte
	// encoded is signalled (with mu) when a block a Local took out to
	// encode outside the lock (block.encoding) is encoded.
	encoded *sync.Cond
	errMu   sync.Mutex
	err     error
}

// evicted is a block a Local encodes after it unlocks the Store: its
// records (recs, of the seconds of has).
type evicted[T any] struct {
	b    *block[T]
	has  uint64
	recs *[1 << blockBits]T
	// enc and off are the encoding, once made.
	enc []byte
	off *[1 << blockBits]uint32
}

// block is 64 consecutive seconds: decoded (recs) or encoded (enc, the
// records of the set bits of has in order, record i from off[i]).
type block[T any] struct {
	has  uint64 // bit i: second i of the block holds a record
	recs *[1 << blockBits]T
	enc  []byte
	off  *[1 << blockBits]uint32
	// encoding is set while a Local encodes the block outside the lock
	// (neither recs nor enc hold its records meanwhile).
	encoding bool
}

// raw returns second i of the block as GetRaw does: its record when the
// block is decoded, else its encoding (and the block's later records).
func (b *block[T]) raw(i int64) (*T, []byte) {
	if b.recs != nil {
		return &b.recs[i], nil
	}
	return nil, b.enc[b.off[i]:]
}

// New returns an empty Store whose records merge with merge(dst, src),
// which must add src into dst (dst may be the zero T) and may keep
// src's slices and maps: src is dropped afterwards.
func New[T any](merge func(dst, src *T)) *Store[T] {
	st := &Store[T]{blocks: map[int64]*block[T]{}, merge: merge}
	st.encoded = sync.NewCond(&st.mu)
	return st
}

// NewEncoded returns an empty Store like New that keeps all but its
// newest maxHot blocks encoded with c. merge must copy what it keeps of
// src (MergeFrom hands it records decoded into a reused one), and the
// records Get and Each return are valid only until the next call.
// A Local of it reuses sealed records (c.Reset).
func NewEncoded[T any](merge func(dst, src *T), c Codec[T]) *Store[T] {
	st := New(merge)
	st.codec = &c
	return st
}

// Err returns the first record that failed to decode (a bug: see
// Codec.Decode); the record was left out. Nil when none did.
func (st *Store[T]) Err() error {
	st.errMu.Lock()
	defer st.errMu.Unlock()
	return st.err
}

func (st *Store[T]) fail(err error) {
	st.errMu.Lock()
	if st.err == nil {
		st.err = err
	}
	st.errMu.Unlock()
}

// put merges r into the record of second sec. The caller holds st.mu when
// Locals may run. A block that stops being hot is encoded at once, or,
// when ev is not nil, taken out for the caller to encode once it unlocks
// (appended to *ev; finishEncode). With move, r (a prepared record of a
// Local, reset afterwards) is moved (Codec.Move) into a second that holds
// no record yet.
func (st *Store[T]) put(sec int64, r *T, merge func(dst, src *T), move bool, ev *[]evicted[T]) {
	k := sec >> blockBits // arithmetic shift: floor for negative seconds
	b := st.blocks[k]
	if b == nil {
		b = &block[T]{}
		st.blocks[k] = b
	}
	if b.encoding {
		// A Local encodes it (rare: a late second). Waiting with blocks
		// of one's own taken out could wait for ever (two Locals each
		// waiting for the other's, or for its own): they are encoded
		// first, here.
		if ev != nil && len(*ev) > 0 {
			st.buf = st.keepEncoded(*ev, st.buf)
			*ev = (*ev)[:0]
		}
		for b.encoding {
			st.encoded.Wait()
		}
	}
	recs := st.decoded(k, b, ev)
	i := sec & (1<<blockBits - 1)
	if b.has&(1<<i) == 0 {
		b.has |= 1 << i
		st.n++
		if move {
			st.codec.Move(&recs[i], r)
			return
		}
	}
	merge(&recs[i], r)
}

// decoded returns block k's records, decoding the block if it was
// encoded and encoding the least recently used other one when more than
// maxHot are decoded.
func (st *Store[T]) decoded(k int64, b *block[T], ev *[]evicted[T]) *[1 << blockBits]T {
	if b.recs != nil {
		if n := len(st.hot); n > 0 && st.hot[n-1] != k {
			// Least recently used first.
			if j := slices.Index(st.hot, k); j >= 0 {
				copy(st.hot[j:], st.hot[j+1:])
				st.hot[n-1] = k
			}
		}
		return b.recs
	}
	recs := st.spare
	st.spare = nil
	if recs == nil {
		recs = new([1 << blockBits]T)
	}
	b.recs = recs
	if b.enc != nil {
		for i := range int64(1 << blockBits) {
			if b.has&(1<<i) == 0 {
				continue
			}
			if _, err := st.codec.Decode(b.enc[b.off[i]:], &recs[i]); err != nil {
				st.fail(err)
				st.codec.Reset(&recs[i])
				b.has &^= 1 << i
				st.n--
			}
		}
		b.enc, b.off = nil, nil
	}
	if st.codec == nil {
		return recs
	}
	st.hot = append(st.hot, k)
	if len(st.hot) > maxHot {
		// The least recently used.
		if ev != nil {
			old := st.blocks[st.hot[0]]
			*ev = append(*ev, evicted[T]{b: old, has: old.has, recs: old.recs})
			old.recs, old.encoding = nil, true
		} else {
			st.encode(st.hot[0])
		}
		st.hot = slices.Delete(st.hot, 0, 1)
	}
	return recs
}

// finishEncode encodes the blocks put took out (ev) without the lock,
// using buf (returned, for reuse), then keeps their encodings under it.
func (st *Store[T]) finishEncode(ev []evicted[T], buf []byte) []byte {
	for j := range ev {
		e := &ev[j]
		e.enc, e.off, buf = st.encodeRecs(e.has, e.recs, buf)
	}
	st.mu.Lock()
	st.install(ev)
	st.mu.Unlock()
	return buf
}

// keepEncoded encodes the blocks put took out (ev) and keeps their
// encodings, under the lock, using buf (returned, for reuse).
func (st *Store[T]) keepEncoded(ev []evicted[T], buf []byte) []byte {
	for j := range ev {
		e := &ev[j]
		e.enc, e.off, buf = st.encodeRecs(e.has, e.recs, buf)
	}
	st.install(ev)
	return buf
}

// install keeps the encodings of the blocks of ev, whose arrays (reset)
// may serve as the spare, and wakes the puts waiting for them. The
// caller holds st.mu.
func (st *Store[T]) install(ev []evicted[T]) {
	for _, e := range ev {
		e.b.enc, e.b.off, e.b.encoding = e.enc, e.off, false
		if st.spare == nil {
			st.spare = e.recs
		}
	}
	st.encoded.Broadcast()
}

// encodeRecs encodes the records of the seconds of has in recs (their
// encoding and offsets, as encode keeps them) using buf, and resets every
// record of recs.
func (st *Store[T]) encodeRecs(has uint64, recs *[1 << blockBits]T, buf []byte) ([]byte, *[1 << blockBits]uint32, []byte) {
	off := new([1 << blockBits]uint32)
	buf = buf[:0]
	for i := range int64(1 << blockBits) {
		if has&(1<<i) != 0 {
			off[i] = uint32(len(buf))
			buf = st.codec.Append(buf, &recs[i])
		}
		st.codec.Reset(&recs[i])
	}
	enc := slices.Clone(buf)
	if enc == nil {
		enc = []byte{}
	}
	return enc, off, buf
}

// encode keeps block k encoded and its array as the spare.
func (st *Store[T]) encode(k int64) {
	b := st.blocks[k]
	b.enc, b.off, st.buf = st.encodeRecs(b.has, b.recs, st.buf)
	st.spare, b.recs = b.recs, nil
}

// Get returns the record of second sec, or nil when no sample fell in it:
// the stored one, or, for an encoded block, scratch holding its decoding
// (scratch may be nil for a Store without a Codec). It must not run while
// a Local seals.
func (st *Store[T]) Get(sec int64, scratch *T) *T {
	rec, enc, ok := st.GetRaw(sec)
	if !ok || rec != nil {
		return rec
	}
	return st.decode(enc, scratch)
}

// decode decodes enc into scratch, nil (the failure kept for Err) when
// it does not decode.
func (st *Store[T]) decode(enc []byte, scratch *T) *T {
	st.codec.Reset(scratch)
	if _, err := st.codec.Decode(enc, scratch); err != nil {
		st.fail(err)
		return nil
	}
	return scratch
}

// GetRaw returns second sec as it is kept: its record when its block is
// decoded, else its encoding (the Codec's Append bytes, followed by the
// block's later records); ok is false when no sample fell in it. It must
// not run while a Local seals.
func (st *Store[T]) GetRaw(sec int64) (rec *T, enc []byte, ok bool) {
	b := st.blocks[sec>>blockBits]
	i := sec & (1<<blockBits - 1)
	if b == nil || b.has&(1<<i) == 0 {
		return nil, nil, false
	}
	rec, enc = b.raw(i)
	return rec, enc, true
}

// Len returns the number of seconds that hold a record.
func (st *Store[T]) Len() int { return st.n }

// Each calls fn for every second that holds a record, in ascending order;
// with a Codec, r is valid only during the call. It must not run while a
// Local seals.
func (st *Store[T]) Each(fn func(sec int64, r *T)) {
	var scratch T
	st.EachRaw(func(sec int64, rec *T, enc []byte) {
		if rec == nil {
			if rec = st.decode(enc, &scratch); rec == nil {
				return
			}
		}
		fn(sec, rec)
	})
}

// EachRaw calls fn for every second that holds a record, in ascending
// order, with the second as GetRaw returns it. It must not run while a
// Local seals.
func (st *Store[T]) EachRaw(fn func(sec int64, rec *T, enc []byte)) {
	keys := make([]int64, 0, len(st.blocks))
	for k := range st.blocks {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b := st.blocks[k]
		for i := range int64(1 << blockBits) {
			if b.has&(1<<i) == 0 {
				continue
			}
			rec, enc := b.raw(i)
			fn(k<<blockBits|i, rec, enc)
		}
	}
}

// RangeRaw calls fn for every second in [from, to) that holds a record,
// in ascending order, with the second as GetRaw returns it: one lookup
// per block of 64 seconds instead of one per second. It must not run
// while a Local seals.
func (st *Store[T]) RangeRaw(from, to int64, fn func(sec int64, rec *T, enc []byte)) {
	if to <= from {
		return
	}
	last := (to - 1) >> blockBits
	for k := from >> blockBits; ; k++ {
		if b := st.blocks[k]; b != nil {
			has := b.has
			if lo := k << blockBits; from > lo {
				has &^= 1<<(from-lo) - 1 // the seconds before from
			}
			if k == last {
				if n := (to - 1) & (1<<blockBits - 1); n < 1<<blockBits-1 {
					has &= 1<<(n+1) - 1 // the seconds from to on
				}
			}
			for has != 0 {
				i := int64(bits.TrailingZeros64(has))
				has &= has - 1
				rec, enc := b.raw(i)
				fn(k<<blockBits|i, rec, enc)
			}
		}
		if k == last {
			return
		}
	}
}

// Fail records err as a failure to decode a record read with GetRaw or
// EachRaw, for Err.
func (st *Store[T]) Fail(err error) {
	if err != nil {
		st.fail(err)
	}
}

// MergeFrom adds every record of o to st with merge (for stores filled
// apart, whose records need translating, e.g. renumbered sources). o must
// not be used afterwards. Merging a store into itself does nothing.
func (st *Store[T]) MergeFrom(o *Store[T], merge func(dst, src *T)) {
	if o == st {
		return
	}
	o.Each(func(sec int64, r *T) { st.put(sec, r, merge, false, nil) })
}

// Live keeps one goroutine's values of type T for the keys near the
// newest second it has seen, and hands older ones to a seal function: the
// shared mechanism of a Store's Local writers and of sketch.Series's
// Writers. A key's second comes from sec; new values from newT.
type Live[K comparable, T any] struct {
	sec  func(K) int64
	newT func() *T
	// seal takes the values of keys, all at once (one lock), and owns
	// them afterwards.
	seal func(keys []K, vals []*T)
	live map[K]*T
	hi   int64 // newest second seen
	any  bool
	// lo is the oldest second of the live values (valid when live is not
	// empty).
	lo int64
	// last caches the value of the previous At.
	lastK K
	last  *T
	keys  []K
	vals  []*T
}

// lag is how many seconds behind the newest one values stay live;
// maxLive bounds them when samples arrive out of order. Values are sealed
// sealBatch seconds at a time (one call of the seal function, one lock of
// the Store): a value stays live until it is more than lag+sealBatch
// seconds behind the newest.
const (
	lag       = 4
	sealBatch = 8
	maxLive   = 64
)

// NewLive returns an empty Live; see the type for its functions.
func NewLive[K comparable, T any](sec func(K) int64, newT func() *T, seal func(keys []K, vals []*T)) *Live[K, T] {
	return &Live[K, T]{sec: sec, newT: newT, seal: seal, live: map[K]*T{}}
}

// At returns the live value of key k, a new one when k is not live;
// values of keys more than lag seconds older than the newest may be sealed
// by the call.
func (l *Live[K, T]) At(k K) *T {
	if l.last != nil && k == l.lastK {
		return l.last
	}
	r := l.live[k]
	if r == nil {
		// Seal before adding r, which must stay live.
		sec := l.sec(k)
		if !l.any || sec > l.hi {
			l.hi, l.any = sec, true
			if len(l.live) > 0 && l.lo < sec-lag-sealBatch {
				l.sealBefore(sec - lag)
			}
		}
		if len(l.live) >= maxLive {
			l.sealBefore(l.hi - lag)
		}
		if len(l.live) == 0 || sec < l.lo {
			l.lo = sec
		}
		r = l.newT()
		l.live[k] = r
	}
	l.lastK, l.last = k, r
	return r
}

// sealBefore seals the live values of seconds before sec (all of them
// when too many stay live).
func (l *Live[K, T]) sealBefore(sec int64) {
	l.keys, l.vals = l.keys[:0], l.vals[:0]
	lo, kept := int64(0), 0
	for k := range l.live {
		if s := l.sec(k); s < sec {
			l.keys = append(l.keys, k)
		} else if kept++; kept == 1 || s < lo {
			lo = s
		}
	}
	if kept > maxLive {
		l.keys = l.keys[:0]
		for k := range l.live {
			l.keys = append(l.keys, k)
		}
	}
	l.lo = lo
	l.sealKeys()
}

// Flush seals every live value.
func (l *Live[K, T]) Flush() {
	l.keys, l.vals = l.keys[:0], l.vals[:0]
	for k := range l.live {
		l.keys = append(l.keys, k)
	}
	l.sealKeys()
}

func (l *Live[K, T]) sealKeys() {
	if len(l.keys) == 0 {
		return
	}
	for _, k := range l.keys {
		l.vals = append(l.vals, l.live[k])
		delete(l.live, k)
	}
	l.seal(l.keys, l.vals)
	clear(l.vals) // the seal function owns them now
	l.last = nil
}

// Local is one goroutine's writer to a Store: At returns the live record
// of a second, Flush seals them all.
type Local[T any] = Live[int64, T]

// Local returns a new writer of st for one goroutine. With a Codec, the
// records it seals are reset and reused for later seconds.
func (st *Store[T]) Local() *Local[T] {
	var free []*T
	var ev []evicted[T] // blocks to encode after a seal unlocks
	var buf []byte
	newT := func() *T { return new(T) }
	if st.codec != nil {
		newT = func() *T {
			if n := len(free); n > 0 {
				r := free[n-1]
				free = free[:n-1]
				return r
			}
			return new(T)
		}
	}
	return NewLive(func(sec int64) int64 { return sec }, newT,
		func(secs []int64, recs []*T) {
			if st.codec != nil && st.codec.Prepare != nil {
				for _, r := range recs {
					st.codec.Prepare(r)
				}
			}
			st.mu.Lock()
			ev = ev[:0]
			var evp *[]evicted[T]
			move := false
			if st.codec != nil {
				evp, move = &ev, st.codec.Move != nil
			}
			for i, sec := range secs {
				st.put(sec, recs[i], st.merge, move, evp)
			}
			st.mu.Unlock()
			if len(ev) > 0 {
				// Encoding a block is ~64 records' work: done under the
				// lock, it kept the other Locals waiting.
				buf = st.finishEncode(ev, buf)
				clear(ev)
			}
			if st.codec != nil {
				for _, r := range recs {
					st.codec.Reset(r)
					if len(free) < maxLive {
						free = append(free, r)
					}
				}
			}
		})
}
