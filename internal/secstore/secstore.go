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
	"slices"
	"sync"
)

// blockBits sets the block size: 64 consecutive seconds.
const blockBits = 6

// Store holds the sealed records of type T. Its zero value is not usable;
// call New.
type Store[T any] struct {
	mu     sync.Mutex
	blocks map[int64]*block[T]
	merge  func(dst, src *T)
	n      int
}

type block[T any] struct {
	has  uint64 // bit i: second i of the block holds a record
	recs [1 << blockBits]T
}

// New returns an empty Store whose records merge with merge(dst, src),
// which must add src into dst (dst may be the zero T) and may keep
// src's slices and maps: src is dropped afterwards.
func New[T any](merge func(dst, src *T)) *Store[T] {
	return &Store[T]{blocks: map[int64]*block[T]{}, merge: merge}
}

// put merges r into the record of second sec. The caller holds st.mu when
// Locals may run.
func (st *Store[T]) put(sec int64, r *T, merge func(dst, src *T)) {
	k := sec >> blockBits // arithmetic shift: floor for negative seconds
	b := st.blocks[k]
	if b == nil {
		b = &block[T]{}
		st.blocks[k] = b
	}
	i := sec & (1<<blockBits - 1)
	if b.has&(1<<i) == 0 {
		b.has |= 1 << i
		st.n++
	}
	merge(&b.recs[i], r)
}

// Get returns the record of second sec, or nil when no sample fell in it.
// It must not run while a Local seals.
func (st *Store[T]) Get(sec int64) *T {
	b := st.blocks[sec>>blockBits]
	i := sec & (1<<blockBits - 1)
	if b == nil || b.has&(1<<i) == 0 {
		return nil
	}
	return &b.recs[i]
}

// Len returns the number of seconds that hold a record.
func (st *Store[T]) Len() int { return st.n }

// Each calls fn for every second that holds a record, in ascending order.
// It must not run while a Local seals.
func (st *Store[T]) Each(fn func(sec int64, r *T)) {
	keys := make([]int64, 0, len(st.blocks))
	for k := range st.blocks {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b := st.blocks[k]
		for i := range int64(1 << blockBits) {
			if b.has&(1<<i) != 0 {
				fn(k<<blockBits|i, &b.recs[i])
			}
		}
	}
}

// MergeFrom adds every record of o to st with merge (for stores filled
// apart, whose records need translating, e.g. renumbered sources). o must
// not be used afterwards. Merging a store into itself does nothing.
func (st *Store[T]) MergeFrom(o *Store[T], merge func(dst, src *T)) {
	if o == st {
		return
	}
	o.Each(func(sec int64, r *T) { st.put(sec, r, merge) })
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
	// last caches the value of the previous At.
	lastK K
	last  *T
	keys  []K
	vals  []*T
}

// lag is how many seconds behind the newest one values stay live;
// maxLive bounds them when samples arrive out of order.
const (
	lag     = 4
	maxLive = 64
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
		if sec := l.sec(k); !l.any || sec > l.hi {
			l.hi, l.any = sec, true
			l.sealBefore(sec - lag)
		} else if len(l.live) >= maxLive {
			l.sealBefore(l.hi - lag)
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
	for k := range l.live {
		if l.sec(k) < sec {
			l.keys = append(l.keys, k)
		}
	}
	if len(l.live)-len(l.keys) > maxLive {
		l.keys = l.keys[:0]
		for k := range l.live {
			l.keys = append(l.keys, k)
		}
	}
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

// Local returns a new writer of st for one goroutine.
func (st *Store[T]) Local() *Local[T] {
	return NewLive(func(sec int64) int64 { return sec }, func() *T { return new(T) },
		func(secs []int64, recs []*T) {
			st.mu.Lock()
			for i, sec := range secs {
				st.put(sec, recs[i], st.merge)
			}
			st.mu.Unlock()
		})
}
