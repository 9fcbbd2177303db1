package ingest

import "unsafe"

// keyCache caches, for a row type's Tags.Get, the column index of each
// key asked for: callers ask for a handful of keys, usually string
// constants, so a slot is found by the key's address and confirmed by its
// value. A slot holds its key, so the address it was found by cannot be
// reused for another string while it is cached. A key that takes
// another's slot moves that one to its spare slot, and a key found in the
// spare changes places with the slot's: two keys whose addresses share a
// slot, asked for in turn, then cost a swap, not a search of the columns.
type keyCache struct {
	slots, spare [keySlots]keySlot
}

// keySlot is an entry of a keyCache: idx is key's column, or -1 when there
// is no such column.
type keySlot struct {
	key string
	idx int
	ok  bool
}

// keySlots is the size of a keyCache (a power of two).
const keySlots = 32

// hit returns the index cached for key when its slot holds key by
// address (a constant asked for again): small enough to inline into a
// Get, which calls index otherwise.
func (c *keyCache) hit(key string) (int, bool) {
	p := unsafe.StringData(key)
	sl := &c.slots[(uint64(uintptr(unsafe.Pointer(p)))*0x9E3779B97F4A7C15)>>(64-5)]
	return sl.idx, unsafe.StringData(sl.key) == p && len(sl.key) == len(key) && sl.ok
}

// index returns the index of key among keys (the row's tag columns), or
// -1, looking keys up once per key and cache.
func (c *keyCache) index(keys []string, key string) int {
	p := uintptr(unsafe.Pointer(unsafe.StringData(key)))
	h := (uint64(p) * 0x9E3779B97F4A7C15) >> (64 - 5) & (keySlots - 1)
	sl, sp := &c.slots[h], &c.spare[h]
	if sl.ok && sl.key == key {
		return sl.idx
	}
	if sp.ok && sp.key == key {
		*sl, *sp = *sp, *sl
		return sl.idx
	}
	idx := -1
	for i, k := range keys {
		if k == key {
			idx = i
			break
		}
	}
	*sp = *sl
	*sl = keySlot{key: key, idx: idx, ok: true}
	return idx
}
