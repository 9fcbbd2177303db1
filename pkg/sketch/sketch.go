// Package sketch is a mergeable quantile summary of float64 values with k6's
// percentile definition.
//
// A Sketch keeps every value exactly until it holds ExactLimit of them, then
// folds them into a log-linear histogram: each power of two is split into
// 256 equal-width buckets (the HDR-histogram layout, indexed straight from
// the float64 bits, no logarithm). A bucket [L, U) has U/L ≤ 1+1/256 and is
// represented by its midpoint, so every quantile the histogram returns is
// within RelativeError = 1/512 ≈ 0.195 % of the true order statistic.
//
// Quantiles follow k6's definition (metrics/sink.go TrendSink.P, also numpy's
// default "linear"): for n values sorted ascending, q maps to the rank
// i = q·(n−1) and the result interpolates linearly between the values at
// floor(i) and ceil(i). In exact mode the result equals k6's.
//
// Merging adds bucket counts, so sketches of the files of a distributed run,
// or of the seconds of a window, merge without any loss beyond RelativeError.
package sketch

import (
	"math"
	"slices"
)

// ExactLimit is the number of values a Sketch keeps exactly before it
// switches to the histogram.
const ExactLimit = 1024

const (
	subBits = 8
	subMask = 1<<subBits - 1
)

// RelativeError bounds |estimate − true| / |true| for every quantile of a
// sketch in histogram mode: half the relative bucket width, 2^−(subBits+1).
const RelativeError = 1.0 / (1 << (subBits + 1))

// Sketch summarises a stream of values. The zero value is an empty sketch
// ready to use. A Sketch is not safe for concurrent use.
type Sketch struct {
	n uint64
	// The sum is kept in two parts so that it does not depend on the order
	// of the values (parallel readers add them in any order): values with
	// at most six decimals — every k6 CSV value, printed with %f — add
	// exactly as integers of 1e-6; any others add in floating point.
	microSum int64
	sum      float64
	min, max float64

	exact  []float64
	sorted bool

	hist     bool
	zero     uint64
	pos, neg store
}

// store holds the counts of consecutive bucket indexes starting at off.
// Counts are 32-bit, which halves a histogram's memory: one bucket of one
// sketch can hold 4.29e9 values, beyond the ~1e9 samples of a 100 GB k6
// output; a count that would overflow saturates, which can only move a
// quantile within its neighbouring buckets.
type store struct {
	off    int
	counts []uint32
}

func (s *store) add(idx int, c uint64) {
	if len(s.counts) == 0 {
		s.off = idx
		s.counts = append(s.counts[:0], 0)
	}
	if idx < s.off {
		grow := s.off - idx
		nc := make([]uint32, len(s.counts)+grow, (len(s.counts)+grow)*5/4+8)
		copy(nc[grow:], s.counts)
		s.counts, s.off = nc, idx
	} else if idx >= s.off+len(s.counts) {
		need := idx - s.off + 1
		if need > cap(s.counts) {
			nc := make([]uint32, need, need*5/4+8)
			copy(nc, s.counts)
			s.counts = nc
		} else {
			n := len(s.counts)
			s.counts = s.counts[:need]
			clear(s.counts[n:]) // Reset keeps old counts in the capacity
		}
	}
	v := &s.counts[idx-s.off]
	if uint64(*v)+c > math.MaxUint32 {
		*v = math.MaxUint32
		return
	}
	*v += uint32(c)
}

// index returns the bucket of v > 0.
func index(v float64) int {
	b := math.Float64bits(v)
	e := int(b >> 52 & 0x7ff)
	if e == 0 { // subnormal: one bucket below the smallest normal
		return (-1023) << subBits
	}
	return (e-1023)<<subBits | int(b>>(52-subBits)&subMask)
}

// lowerBound returns the smallest value of bucket idx.
func lowerBound(idx int) float64 {
	e := idx >> subBits // arithmetic shift: floor division
	sub := idx & subMask
	return math.Ldexp(1+float64(sub)/(1<<subBits), e)
}

// represent returns the midpoint of bucket idx.
func represent(idx int) float64 { return (lowerBound(idx) + lowerBound(idx+1)) / 2 }

// Add adds one value. NaN is ignored (readers refuse it before here).
func (s *Sketch) Add(v float64) {
	if v != v {
		return
	}
	if s.n == 0 || v < s.min {
		s.min = v
	}
	if s.n == 0 || v > s.max {
		s.max = v
	}
	s.n++
	s.addSum(v)
	if !s.hist {
		s.exact = append(s.exact, v)
		s.sorted = false
		if len(s.exact) > ExactLimit {
			s.toHist()
		}
		return
	}
	s.addHist(v, 1)
}

func (s *Sketch) addHist(v float64, c uint64) {
	switch {
	case v > 0:
		s.pos.add(index(v), c)
	case v < 0:
		s.neg.add(index(-v), c)
	default:
		s.zero += c
	}
}

func (s *Sketch) toHist() {
	s.hist = true
	for _, v := range s.exact {
		s.addHist(v, 1)
	}
	s.exact = nil
}

// addSum adds v to the order-independent sum.
func (s *Sketch) addSum(v float64) {
	if m := math.Round(v * 1e6); math.Abs(m) < 1<<53 && m/1e6 == v {
		s.addMicro(int64(m))
		return
	}
	s.sum += v
}

// addMicro adds m millionths, spilling into the float sum rather than
// overflowing.
func (s *Sketch) addMicro(m int64) {
	if (m > 0 && s.microSum > math.MaxInt64-m) || (m < 0 && s.microSum < math.MinInt64-m) {
		s.sum += float64(s.microSum) / 1e6
		s.microSum = 0
	}
	s.microSum += m
}

// Merge adds every value of o to s. o is not changed.
func (s *Sketch) Merge(o *Sketch) {
	if o == nil || o.n == 0 {
		return
	}
	s.mergeMoments(o)
	if !s.hist && !o.hist && len(s.exact)+len(o.exact) <= ExactLimit {
		s.exact = append(s.exact, o.exact...)
		s.sorted = false
		return
	}
	if !s.hist {
		s.toHist()
	}
	if !o.hist {
		for _, v := range o.exact {
			s.addHist(v, 1)
		}
		return
	}
	s.zero += o.zero
	for i, c := range o.pos.counts {
		if c != 0 {
			s.pos.add(o.pos.off+i, uint64(c))
		}
	}
	for i, c := range o.neg.counts {
		if c != 0 {
			s.neg.add(o.neg.off+i, uint64(c))
		}
	}
}

// Count returns the number of values added.
func (s *Sketch) Count() uint64 { return s.n }

// Sum returns the sum of the values added. For values with at most six
// decimals it is exact up to the final rounding and independent of the
// order they were added in.
func (s *Sketch) Sum() float64 { return float64(s.microSum)/1e6 + s.sum }

// Mean returns the arithmetic mean, or NaN when empty.
func (s *Sketch) Mean() float64 {
	if s.n == 0 {
		return math.NaN()
	}
	return s.Sum() / float64(s.n)
}

// Min returns the smallest value, or NaN when empty.
func (s *Sketch) Min() float64 {
	if s.n == 0 {
		return math.NaN()
	}
	return s.min
}

// Max returns the largest value, or NaN when empty.
func (s *Sketch) Max() float64 {
	if s.n == 0 {
		return math.NaN()
	}
	return s.max
}

// Exact reports whether quantiles are exact (no value was folded into the
// histogram).
func (s *Sketch) Exact() bool { return !s.hist }

// Quantile returns the q-quantile (0 ≤ q ≤ 1) by k6's definition: linear
// interpolation between the order statistics at floor and ceil of q·(n−1).
// It returns NaN when the sketch is empty or q is outside [0, 1].
func (s *Sketch) Quantile(q float64) float64 {
	if s.n == 0 || !(q >= 0 && q <= 1) {
		return math.NaN()
	}
	rank := q * float64(s.n-1)
	lo := uint64(math.Floor(rank))
	frac := rank - float64(lo)
	hi := lo
	if frac > 0 && lo+1 < s.n {
		hi = lo + 1
	}
	var vlo, vhi float64
	if !s.hist {
		if !s.sorted {
			slices.Sort(s.exact)
			s.sorted = true
		}
		vlo, vhi = s.exact[lo], s.exact[hi]
	} else {
		vlo, vhi = s.rankValue(lo), s.rankValue(hi)
	}
	v := vlo + frac*(vhi-vlo)
	return min(max(v, s.min), s.max)
}

// rankValue returns the estimate of the order statistic of 0-based rank r
// in histogram mode.
func (s *Sketch) rankValue(r uint64) float64 {
	if r == 0 {
		return s.min
	}
	if r == s.n-1 {
		return s.max
	}
	var seen uint64
	for i := len(s.neg.counts) - 1; i >= 0; i-- {
		seen += uint64(s.neg.counts[i])
		if seen > r {
			return -represent(s.neg.off + i)
		}
	}
	seen += s.zero
	if seen > r {
		return 0
	}
	for i, c := range s.pos.counts {
		seen += uint64(c)
		if seen > r {
			return represent(s.pos.off + i)
		}
	}
	return s.max
}

// CountAtMost returns how many values are ≤ x: exact in exact mode; in
// histogram mode the values of x's own bucket count when the bucket's
// midpoint is ≤ x (each value stands at its bucket's midpoint, within
// RelativeError of itself). NaN x counts nothing.
func (s *Sketch) CountAtMost(x float64) uint64 {
	if s.n == 0 || math.IsNaN(x) {
		return 0
	}
	if x >= s.max {
		return s.n
	}
	if x < s.min {
		return 0
	}
	if !s.hist {
		if !s.sorted {
			slices.Sort(s.exact)
			s.sorted = true
		}
		i, found := slices.BinarySearch(s.exact, x)
		for found && i < len(s.exact) && s.exact[i] == x {
			i++
		}
		return uint64(i)
	}
	var n uint64
	for i, c := range s.neg.counts {
		if -represent(s.neg.off+i) <= x {
			n += uint64(c)
		}
	}
	if x >= 0 {
		n += s.zero
	}
	for i, c := range s.pos.counts {
		if represent(s.pos.off+i) > x {
			break
		}
		n += uint64(c)
	}
	return n
}

// Quantiles returns Quantile(q) for every q of qs.
func (s *Sketch) Quantiles(qs []float64) []float64 {
	out := make([]float64, len(qs))
	for i, q := range qs {
		out[i] = s.Quantile(q)
	}
	return out
}

// Reset empties the sketch, keeping the memory of its exact values and
// histogram buckets for reuse.
func (s *Sketch) Reset() {
	pos, neg := s.pos.counts[:0], s.neg.counts[:0]
	*s = Sketch{exact: s.exact[:0]}
	s.pos.counts, s.neg.counts = pos, neg
}
