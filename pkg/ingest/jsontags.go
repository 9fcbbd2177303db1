package ingest

import (
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// jsonKeys is the tag columns of one JSON file, shared by its workers and
// consumers: the k6 default columns first, then each key in the order a
// consumer first asks for a sample's columns (Tags.Keys, Len, Value,
// Extra). Indices never change, so a column index stays valid for the
// whole file. Past maxJSONTagColumns keys, further keys go to the extra
// tags.
type jsonKeys struct {
	mu   sync.Mutex
	idx  map[string]int32
	list []string                 // under mu; append-only
	snap atomic.Pointer[[]string] // list as of the last registration
}

func newJSONKeys() *jsonKeys {
	k := &jsonKeys{idx: map[string]int32{}}
	for _, key := range k6DefaultTagColumns {
		k.idx[key] = int32(len(k.list))
		k.list = append(k.list, key)
	}
	s := k.list[:len(k.list):len(k.list)]
	k.snap.Store(&s)
	return k
}

// keys returns the columns registered so far; the slice is never modified.
func (k *jsonKeys) keys() []string { return *k.snap.Load() }

// register returns the column of each key (-1 past the cap), registering
// new keys.
func (k *jsonKeys) register(keys []string) []int32 {
	cols := make([]int32, len(keys))
	k.mu.Lock()
	defer k.mu.Unlock()
	grew := false
	for i, key := range keys {
		c, ok := k.idx[key]
		if !ok {
			if len(k.list) >= maxJSONTagColumns {
				cols[i] = -1
				continue
			}
			c = int32(len(k.list))
			k.idx[key] = c
			k.list = append(k.list, key)
			grew = true
		}
		cols[i] = c
	}
	if grew {
		s := k.list[:len(k.list):len(k.list)]
		k.snap.Store(&s)
	}
	return cols
}

// jsonLayout is the key sequence of a tags object, shared by every sample
// whose tags have these keys in this order (k6 writes them sorted, and the
// samples of one metric nearly always have the same keys). Workers create
// layouts and only read them afterwards; the fields below keys belong to
// the consumer of the samples (the goroutine of a Drain sink, or of Next).
type jsonLayout struct {
	keys []string // interned, in line order; no duplicates

	cols   []int32    // per key: the file's column, or -1 (extra tags); nil until asked
	pos    []int16    // per column below len(pos): the key's position, or -1
	recent [][]string // per key: recent values, most recent first
	extra  bool       // some key is past the column cap
	// keyHash is maphash.String(hashSeed, key) per key, for seriesHash;
	// nil until asked.
	keyHash  []uint64
	hashSeed maphash.Seed
	// found caches get's key positions (−1: not a key of the layout) by
	// the address and length of the key asked for: a consumer asks with
	// the same string constants, sample after sample. (A cached address
	// keeps its string alive, and strings do not change, so an address
	// and length stand for the same bytes while cached.)
	found [8]foundKey

	// The converter's fragment builder that reads samples of this layout,
	// and the slot of each key in it.
	fbOwner *fragBuilder
	fbSlots []int32
}

// jsonRow is the tag view of one JSON sample: its layout and the raw value
// bytes per key, decoded only when asked (Tags.Get and friends), as the
// CSV reader does.
type jsonRow struct {
	reg    *jsonKeys
	in     *interner
	layout *jsonLayout
	// vals are the values' bytes per key of layout: the worker's scan
	// (Drain), decoded strings (lines read by encoding/json), or filled
	// from tags by a scan on first use (Next).
	vals    [][]byte
	tags    []byte // the raw tags object when vals is not filled yet
	scanned bool
	meta    []byte // the raw metadata object, or nil
	metaStr string // metadata as "k=v&k=v", built when asked
	metaSet bool
	lastMd  string
	extra   string
	extraOK bool
	scratch []byte
	ktmp    [][]byte
	vtmp    [][]byte
	own     [][]byte
	// memo, set by a Drain worker after reset when the tags are an
	// object their layout remembers, keeps what value and seriesHash
	// work out of them for the next sample with the same object.
	memo *tagsMemo
}

// tagsMemo is what a tag view worked out of a tags object's values: the
// interned value per key position ("" not known yet) and the series hash
// with its seed.
type tagsMemo struct {
	strs     []string
	hash     uint64
	hashSeed maphash.Seed
	hashOK   bool
}

// clear forgets the memo, for an object of n keys.
func (m *tagsMemo) clear(n int) {
	if cap(m.strs) < n {
		m.strs = make([]string, n)
	}
	m.strs = m.strs[:n]
	clear(m.strs)
	m.hashOK = false
}

// reset points the row at a new sample.
func (r *jsonRow) reset(l *jsonLayout, vals [][]byte, tags, meta []byte) {
	r.layout, r.vals, r.tags, r.meta, r.memo = l, vals, tags, meta, nil
	r.scanned = vals != nil || len(l.keys) == 0
	r.metaSet, r.extraOK = false, false
}

// resetSlow points the row at a sample decoded by encoding/json: its
// values and its metadata as "k=v&k=v".
func (r *jsonRow) resetSlow(l *jsonLayout, vals [][]byte, meta string) {
	r.layout, r.vals, r.tags, r.meta, r.memo = l, vals, nil, nil, nil
	r.scanned, r.metaSet, r.metaStr, r.extraOK = true, true, meta, false
}

// fill scans the tags object for the values (Next mode: the worker's scan
// did not outlive the chunk's parse).
func (r *jsonRow) fill() {
	r.scanned = true
	var ok bool
	r.ktmp, r.own, _, ok = scanStringMap(r.tags, 0, r.ktmp[:0], r.own[:0])
	r.vals = r.own
	if !ok || len(r.vals) != len(r.layout.keys) {
		// Cannot happen: the worker scanned the same bytes.
		r.vals = r.vals[:0]
		for range r.layout.keys {
			r.vals = append(r.vals, nil)
		}
		return
	}
}

// value returns the interned value at key position p.
func (r *jsonRow) value(p int) string {
	if !r.scanned {
		r.fill()
	}
	b := r.vals[p]
	if len(b) == 0 {
		return ""
	}
	m := r.memo
	if m != nil && p < len(m.strs) && m.strs[p] != "" {
		return m.strs[p]
	}
	v := r.intern(p, b)
	if m != nil && p < len(m.strs) {
		m.strs[p] = v
	}
	return v
}

// intern returns the interned value b at key position p, most recent
// values first.
func (r *jsonRow) intern(p int, b []byte) string {
	l := r.layout
	if l.recent == nil {
		l.recent = make([][]string, len(l.keys))
	}
	recent := l.recent[p]
	for k, v := range recent {
		if string(b) == v {
			if k > 0 {
				copy(recent[1:k+1], recent[:k])
				recent[0] = v
			}
			return v
		}
	}
	v := r.in.intern(b)
	if len(recent) < recentValues {
		recent = append(recent, "")
	}
	copy(recent[1:], recent)
	recent[0] = v
	l.recent[p] = recent
	return v
}

// foundKey is a cached key position of a layout (jsonLayout.found).
type foundKey struct {
	key *byte
	n   int
	pos int
}

// get returns the value of key and whether the sample has it non-empty.
func (r *jsonRow) get(key string) (string, bool) {
	l := r.layout
	kp := unsafe.StringData(key)
	f := &l.found[(uint64(uintptr(unsafe.Pointer(kp)))*0x9E3779B97F4A7C15)>>(64-3)]
	if f.key != kp || f.n != len(key) || kp == nil {
		*f = foundKey{key: kp, n: len(key), pos: slices.Index(l.keys, key)}
	}
	if f.pos >= 0 {
		v := r.value(f.pos)
		return v, v != ""
	}
	if v, ok := lookupPairs(r.extraTags(), key); ok {
		return v, true
	}
	return lookupPairs(r.metadata(), key)
}

// columns makes sure the layout's keys have columns.
func (r *jsonRow) columns() *jsonLayout {
	l := r.layout
	if l.cols == nil {
		l.cols = r.reg.register(l.keys)
		var top int32 = -1
		for _, c := range l.cols {
			top = max(top, c)
			l.extra = l.extra || c < 0
		}
		l.pos = make([]int16, top+1)
		for i := range l.pos {
			l.pos[i] = -1
		}
		for p, c := range l.cols {
			if c >= 0 {
				l.pos[c] = int16(p)
			}
		}
	}
	return l
}

func (r *jsonRow) keys() []string {
	r.columns()
	return r.reg.keys()
}

// col returns the value of column i.
func (r *jsonRow) col(i int) string {
	l := r.columns()
	if i >= len(l.pos) || l.pos[i] < 0 {
		return ""
	}
	return r.value(int(l.pos[i]))
}

// extraTags returns the keys past the column cap as "k=v&k=v".
func (r *jsonRow) extraTags() string {
	if r.layout.cols == nil || !r.layout.extra {
		// Columns not asked for yet: nothing can be past the cap from
		// the consumer's point of view (Get finds every key).
		return ""
	}
	if !r.extraOK {
		r.extraOK = true
		var b []byte
		for p, c := range r.layout.cols {
			if c < 0 {
				if v := r.value(p); v != "" {
					b = appendPair(b, []byte(r.layout.keys[p]), []byte(v))
				}
			}
		}
		r.extra = string(b)
	}
	return r.extra
}

// metadata returns the metadata object as "k=v&k=v".
func (r *jsonRow) metadata() string {
	if r.metaSet {
		return r.metaStr
	}
	r.metaSet = true
	if len(r.meta) == 0 {
		r.metaStr = ""
		return ""
	}
	var ok bool
	var vs [][]byte
	r.ktmp, vs, _, ok = scanStringMap(r.meta, 0, r.ktmp[:0], r.vtmp[:0])
	r.vtmp = vs
	if !ok {
		r.metaStr = ""
		return ""
	}
	b := r.scratch[:0]
	for i := range r.ktmp {
		b = appendPair(b, r.ktmp[i], vs[i])
	}
	r.scratch = b
	if string(b) != r.lastMd {
		r.lastMd = string(b)
	}
	r.metaStr = r.lastMd
	return r.metaStr
}

// each calls fn for every non-empty tag, in line order, then the metadata.
func (r *jsonRow) each(fn func(k, v string, metadata bool)) {
	for p, k := range r.layout.keys {
		if v := r.value(p); v != "" {
			fn(k, v, false)
		}
	}
	eachPair(r.metadata(), func(k, v string) { fn(k, v, true) })
}

// seriesHash hashes the non-empty tags regardless of their order: the sum
// of a mix of each key's hash (kept in the layout) and its value's.
func (r *jsonRow) seriesHash(seed maphash.Seed) uint64 {
	if !r.scanned {
		r.fill()
	}
	if m := r.memo; m != nil && m.hashOK && m.hashSeed == seed {
		return m.hash
	}
	l := r.layout
	if l.keyHash == nil || l.hashSeed != seed {
		l.keyHash, l.hashSeed = make([]uint64, len(l.keys)), seed
		for p, k := range l.keys {
			l.keyHash[p] = maphash.String(seed, k)
		}
	}
	var sum uint64
	for p, kh := range l.keyHash {
		if v := r.vals[p]; len(v) > 0 {
			sum += mixSeries(kh ^ maphash.Bytes(seed, v)*0x9E3779B97F4A7C15)
		}
	}
	if m := r.memo; m != nil {
		m.hash, m.hashSeed, m.hashOK = sum, seed, true
	}
	return sum
}

// newLayout returns a layout of keys (copied), or nil when keys repeat (a
// tags object with a duplicate key goes to encoding/json, whose last value
// wins).
func newLayout(keys []string) *jsonLayout {
	for i := 1; i < len(keys); i++ {
		if slices.Contains(keys[:i], keys[i]) {
			return nil
		}
	}
	return &jsonLayout{keys: slices.Clone(keys)}
}

// layoutKey is the map key of a key sequence.
func layoutKey(dst []byte, keys [][]byte) []byte {
	dst = dst[:0]
	for _, k := range keys {
		dst = append(dst, k...)
		dst = append(dst, 0)
	}
	return dst
}
