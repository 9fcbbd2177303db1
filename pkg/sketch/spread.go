package sketch

import "math"

// AddN adds n copies of the value v (NaN is ignored): the same as n calls
// of Add, in O(1) once the sketch is in histogram mode.
func (s *Sketch) AddN(v float64, n uint64) {
	if v != v || n == 0 {
		return
	}
	if !s.hist && uint64(len(s.exact))+n <= ExactLimit {
		for range n {
			s.Add(v)
		}
		return
	}
	if !s.hist {
		s.toHist()
	}
	if s.n == 0 || v < s.min {
		s.min = v
	}
	if s.n == 0 || v > s.max {
		s.max = v
	}
	s.n += n
	s.sum += v * float64(n)
	s.addHist(v, n)
}

// SpreadValue is the k-th (0-based) of n values spread evenly over
// [lo, hi]: lo + (k + ½)·(hi − lo)/n, the midpoints of n equal parts.
// This is how Prometheus' histogram_quantile places a bucket's
// observations (linear interpolation within the bucket,
// promql/quantile.go, bucketQuantile).
func SpreadValue(lo, hi float64, k, n uint64) float64 {
	return lo + (float64(k)+0.5)*(hi-lo)/float64(n)
}

// SpreadBelow is the number of the n values spread evenly over [lo, hi]
// (SpreadValue) that are below x.
func SpreadBelow(lo, hi float64, n uint64, x float64) uint64 {
	if !(hi > lo) {
		if x > lo {
			return n
		}
		return 0
	}
	// SpreadValue(k) < x ⇔ k < (x − lo)·n/(hi − lo) − ½.
	c := math.Ceil((x-lo)*float64(n)/(hi-lo) - 0.5)
	if !(c > 0) {
		return 0
	}
	if c >= float64(n) {
		return n
	}
	return uint64(c)
}

// AddSpread adds n values spread evenly over [lo, hi] (the k-th at
// SpreadValue(lo, hi, k, n)), as a histogram bucket of n observations is
// read by histogram_quantile: the same as n calls of Add with those
// values, exactly in exact mode and bucket for bucket in histogram mode,
// but in O(min(n, buckets spanned)) once the sketch is in histogram mode
// (a bucket of a million observations costs the few hundred buckets it
// covers). lo > hi are swapped; a NaN bound adds nothing. In histogram
// mode the sum is n·(lo + hi)/2, the sum of the spread values.
func (s *Sketch) AddSpread(lo, hi float64, n uint64) {
	if lo != lo || hi != hi || n == 0 {
		return
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	if lo == hi {
		s.AddN(lo, n)
		return
	}
	if !s.hist && uint64(len(s.exact))+n <= ExactLimit {
		for k := range n {
			s.Add(SpreadValue(lo, hi, k, n))
		}
		return
	}
	if !s.hist {
		s.toHist()
	}
	first, last := SpreadValue(lo, hi, 0, n), SpreadValue(lo, hi, n-1, n)
	if s.n == 0 || first < s.min {
		s.min = first
	}
	if s.n == 0 || last > s.max {
		s.max = last
	}
	s.n += n
	s.sum += float64(n) * (lo + hi) / 2
	if first <= 0 {
		// A range reaching zero or below (not a latency): value by value.
		for k := range n {
			s.addHist(SpreadValue(lo, hi, k, n), 1)
		}
		return
	}
	i0, i1 := index(first), index(last)
	if uint64(i1-i0) >= n {
		for k := range n {
			s.addHist(SpreadValue(lo, hi, k, n), 1)
		}
		return
	}
	below := uint64(0)
	for i := i0; i <= i1; i++ {
		c := n
		if i < i1 {
			c = SpreadBelow(lo, hi, n, lowerBound(i+1))
		}
		if c > below {
			s.pos.add(i, c-below)
			below = c
		}
	}
}
