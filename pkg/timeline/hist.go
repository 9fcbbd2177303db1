package timeline

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
)

// Hist layout: 4 bins per power of two of milliseconds (the float's
// exponent and its top two mantissa bits, so no logarithm on the hot
// path: bins [1, 1.25), [1.25, 1.5), [1.5, 1.75), [1.75, 2) × 2^e, each
// ×1.14–1.25 wide), from 2^histMinExp ms to 2^(histMinExp+HistBins/4) ms:
// 1/16 ms to 1,048,576 ms (17 min). Values outside are clamped to the end
// bins.
const (
	histMinExp = -4
	// HistBins is the number of bins of a Hist.
	HistBins = 96
)

// Hist counts latencies, ms, in HistBins logarithmic bins (see BinLow):
// the per-second, per-request-name histograms the rate-limit check reads
// for a fast and a slow group.
type Hist [HistBins]uint32

// HistBin is the bin of a latency v, ms.
func HistBin(v float64) int {
	if !(v >= math.Ldexp(1, histMinExp)) {
		return 0
	}
	b := math.Float64bits(v)
	e := int(b>>52&0x7ff) - 1023
	i := (e-histMinExp)*4 + int(b>>50&3)
	return min(i, HistBins-1)
}

// BinLow is the lower bound of bin i, ms (BinLow(HistBins) is the upper
// bound of the last bin).
func BinLow(i int) float64 {
	return math.Ldexp(1+float64(i%4)/4, i/4+histMinExp)
}

// Add counts one latency v, ms.
func (h *Hist) Add(v float64) { h[HistBin(v)]++ }

// Total returns the number of values counted.
func (h *Hist) Total() uint64 {
	var n uint64
	for _, c := range h {
		n += uint64(c)
	}
	return n
}

// Median returns the median of the values in bins [lo, hi), ms: the value
// at rank (n−1)/2 (0-based), interpolated linearly within its bin as if
// the bin's values were spread evenly (so within a bin width, ≤ 25 %, of
// the true median). NaN when the bins are empty.
func (h *Hist) Median(lo, hi int) float64 {
	var n uint64
	for i := lo; i < hi; i++ {
		n += uint64(h[i])
	}
	if n == 0 {
		return math.NaN()
	}
	r := float64(n-1) / 2
	var seen float64
	for i := lo; i < hi; i++ {
		c := float64(h[i])
		if c > 0 && seen+c > r {
			f := (r - seen + 0.5) / c
			return BinLow(i) + f*(BinLow(i+1)-BinLow(i))
		}
		seen += c
	}
	return math.NaN()
}

// appendEnc appends h's non-empty bins to dst as (bin byte, uvarint
// count) pairs. Encodings concatenate: decoding dst adds the counts of
// every part.
func (h *Hist) appendEnc(dst []byte) []byte {
	// A second's histogram holds a few values: skip empty bins four at a
	// time (a 24-hour run seals 86,400 seconds × its request names).
	for i := 0; i < HistBins; i += 4 {
		if h[i]|h[i+1]|h[i+2]|h[i+3] == 0 {
			continue
		}
		for j := i; j < i+4; j++ {
			if c := h[j]; c != 0 {
				dst = append(dst, byte(j))
				dst = binary.AppendUvarint(dst, uint64(c))
			}
		}
	}
	return dst
}

// errHistEncoding reports a per-second histogram that does not decode.
// Only appendEnc writes them, so it is a bug; Timeline.Err reports it
// rather than a verdict from a short histogram.
var errHistEncoding = errors.New("timeline: malformed per-second histogram encoding")

// addEnc adds the counts of an appendEnc encoding to h; on a malformed
// encoding it adds what came before and returns errHistEncoding.
func (h *Hist) addEnc(b []byte) error {
	for len(b) > 0 {
		i := int(b[0])
		c, n := binary.Uvarint(b[1:])
		if n <= 0 || i >= HistBins {
			return errHistEncoding
		}
		h[i] += uint32(c)
		b = b[1+n:]
	}
	return nil
}

// liveHist is a live second's histogram of one request name with a mask
// of the bins it has counted into: a second's histogram holds a few
// values, so sealing it (appendEnc) and emptying it for reuse (reset)
// visit those bins only instead of all HistBins (a 24-hour run seals
// 86,400 seconds × its request names).
type liveHist struct {
	h Hist
	// used has bit i%64 of word i/64 set when bin i may hold a count;
	// every bin that holds one is set.
	used [(HistBins + 63) / 64]uint64
}

// add counts one latency v, ms (Hist.Add).
func (l *liveHist) add(v float64) {
	i := HistBin(v)
	l.h[i]++
	l.used[i>>6] |= 1 << (i & 63)
}

// addSpread counts n latencies spread evenly over [lo, hi] ms
// (Hist.addSpread), marking the bins it may have counted into.
func (l *liveHist) addSpread(lo, hi float64, n uint64) {
	if i0, i1, ok := l.h.addSpread(lo, hi, n); ok {
		for i := i0; i <= i1; i++ {
			l.used[i>>6] |= 1 << (i & 63)
		}
	}
}

// appendEnc appends the histogram as Hist.appendEnc does (the same
// bytes: its non-empty bins in order), visiting the marked bins only.
func (l *liveHist) appendEnc(dst []byte) []byte {
	for w, m := range l.used {
		for m != 0 {
			i := w<<6 | bits.TrailingZeros64(m)
			m &= m - 1
			if c := l.h[i]; c != 0 {
				dst = append(dst, byte(i))
				dst = binary.AppendUvarint(dst, uint64(c))
			}
		}
	}
	return dst
}

// reset empties the histogram, clearing the marked bins only.
func (l *liveHist) reset() {
	for w, m := range l.used {
		for m != 0 {
			l.h[w<<6|bits.TrailingZeros64(m)] = 0
			m &= m - 1
		}
	}
	l.used = [len(l.used)]uint64{}
}
