package ingest

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSpread: spread puts the values on the set bits in order, as a loop
// over the bits one at a time does, for bitmaps of every density,
// all-ones and empty words among them, and a short last word.
func TestSpread(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 500 {
		n := 1 + rng.IntN(300)
		bm := make([]uint64, (n+63)/64)
		density := rng.Float64()
		for k := range n {
			if trial%7 == 0 || rng.Float64() < density {
				bm[k>>6] |= 1 << (k & 63)
			}
		}
		ones := 0
		for _, w := range bm {
			ones += bits.OnesCount64(w)
		}
		src := make([]int32, ones)
		for i := range src {
			src[i] = int32(i + 1)
		}
		want, got := make([]int32, n), make([]int32, n)
		v := 0
		for k := range n {
			if bm[k>>6]&(1<<(k&63)) != 0 {
				want[k] = src[v]
				v++
			}
		}
		spread(got, src, bm)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: bitmap %x:\n got  %v\n want %v", trial, bm, got, want)
		}
	}
}

// TestFillIDs: fillIDs sets every element, for runs short and long.
func TestFillIDs(t *testing.T) {
	for n := range 300 {
		run := make([]int32, n+2)
		fillIDs(run[1:n+1], 7)
		for k, x := range run {
			want := int32(7)
			if k == 0 || k == n+1 {
				want = 0
			}
			if x != want {
				t.Fatalf("run of %d: element %d is %d, want %d", n, k, x, want)
			}
		}
	}
}
