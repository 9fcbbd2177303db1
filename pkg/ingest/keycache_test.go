package ingest

import (
	"fmt"
	"strings"
	"testing"
)

// TestKeyCache: whatever keys share a slot (more keys than slots, asked
// in a shifting order, as constants and as copies at other addresses, and
// keys that are no column), hit never returns another key's index and
// index always returns the key's column, as a search of the columns would.
func TestKeyCache(t *testing.T) {
	var cols []string
	for i := range 3 * keySlots {
		cols = append(cols, fmt.Sprintf("col%d", i))
	}
	asked := append([]string(nil), cols...)
	for i := range keySlots {
		asked = append(asked, fmt.Sprintf("none%d", i)) // no such column
	}
	want := func(key string) int {
		for i, k := range cols {
			if k == key {
				return i
			}
		}
		return -1
	}
	var c keyCache
	hits := 0
	seed := uint64(7)
	for n := 0; n < 20000; n++ {
		seed = seed*6364136223846793005 + 1442695040888963407
		key := asked[int(seed>>33)%len(asked)]
		if seed&(1<<20) != 0 {
			key = strings.Clone(key) // the same key at another address
		}
		if i, ok := c.hit(key); ok {
			if i != want(key) {
				t.Fatalf("hit(%q) = %d, want %d", key, i, want(key))
			}
			hits++
		}
		if i := c.index(cols, key); i != want(key) {
			t.Fatalf("index(%q) = %d, want %d", key, i, want(key))
		}
	}
	if hits == 0 {
		t.Error("no hits: the cache kept nothing")
	}
}
