package timeline

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

// TestLiveHistMatchesHist: a liveHist fed latencies one by one (add) and
// as spread buckets (addSpread) holds the counts a Hist fed the same
// holds, appendEnc writes the bytes Hist.appendEnc writes (its non-empty
// bins in order: the encoding sealed seconds keep), and reset empties it
// whole, mask included, for the next second.
func TestLiveHistMatchesHist(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var l liveHist
	for k := range 2000 {
		var h Hist
		for range rng.IntN(20) {
			// Latencies from below the first bin to past the last, ms.
			v := math.Exp2(rng.Float64()*30 - 8)
			if rng.IntN(8) == 0 {
				lo, n := v, uint64(rng.IntN(50))
				hi := lo * (1 + 3*rng.Float64())
				l.addSpread(lo, hi, n)
				h.addSpread(lo, hi, n)
				continue
			}
			l.add(v)
			h.Add(v)
		}
		if k < HistBins {
			// Every bin alone once (BinLow(k) falls in bin k).
			l.add(BinLow(k))
			h.Add(BinLow(k))
		}
		if l.h != h {
			t.Fatalf("case %d: counts %v, want %v", k, l.h, h)
		}
		for i, c := range h {
			if c != 0 && l.used[i>>6]&(1<<(i&63)) == 0 {
				t.Fatalf("case %d: bin %d holds %d but is not marked", k, i, c)
			}
		}
		if got, want := l.appendEnc([]byte{0xee}), h.appendEnc([]byte{0xee}); !bytes.Equal(got, want) {
			t.Fatalf("case %d: appendEnc %x, want %x", k, got, want)
		}
		l.reset()
		if l != (liveHist{}) {
			t.Fatalf("case %d: reset left %v", k, l)
		}
	}
}
