package timeline

import (
	"encoding/binary"
	"errors"
	"math"
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
