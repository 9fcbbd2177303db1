package prom

import (
	"math"
	"sort"
)

// Bucket is one bucket of a native-histogram sample as the Prometheus HTTP
// API writes it: `[boundary_rule, "lower", "upper", "count"]`.
type Bucket struct {
	// Boundaries is the API's boundary rule (web/api/v1/json_codec.go,
	// marshalBucket): 0 lower open and upper closed (the positive
	// buckets), 1 lower closed and upper open (the negative buckets), 2
	// both open, 3 both closed (the zero bucket).
	Boundaries int32
	// Lower and Upper are the bucket's bounds, in the unit of the
	// observations (seconds for k6 time trends).
	Lower, Upper float64
	// Count is the number of observations in the bucket (a float: rates
	// and increases of histograms are fractional).
	Count float64
}

// HistogramPoint is one native-histogram sample: TimeNS in Unix
// nanoseconds, the count and sum of the observations (cumulative since the
// histogram was created, as k6 sends them) and the non-empty buckets in
// ascending order of their bounds.
type HistogramPoint struct {
	TimeNS  int64
	Count   float64
	Sum     float64
	Buckets []Bucket
}

// normalizeHistograms sorts histogram points by time and keeps the last of
// a duplicated timestamp; it returns the number dropped.
func normalizeHistograms(hs []HistogramPoint) ([]HistogramPoint, int) {
	if len(hs) == 0 {
		return hs, 0
	}
	sort.SliceStable(hs, func(a, b int) bool { return hs[a].TimeNS < hs[b].TimeNS })
	w, dups := 0, 0
	for r := range hs {
		if w > 0 && hs[w-1].TimeNS == hs[r].TimeNS {
			hs[w-1] = hs[r]
			dups++
			continue
		}
		hs[w] = hs[r]
		w++
	}
	return hs[:w], dups
}

// sortBuckets puts buckets in ascending order of their bounds.
func sortBuckets(bs []Bucket) {
	sort.Slice(bs, func(i, j int) bool {
		if bs[i].Lower != bs[j].Lower {
			return bs[i].Lower < bs[j].Lower
		}
		return bs[i].Upper < bs[j].Upper
	})
}

type bucketKey struct{ lo, hi float64 }

// HistogramDelta is the observations between two samples of one
// cumulative histogram, later − earlier, bucket by bucket (buckets matched
// by equal bounds: one schema, as k6's histograms have). When any count
// went down, or a bucket of earlier is missing from later, the histogram
// was reset (a restarted process) and the delta is later itself, as
// Prometheus' rate() and increase() treat a counter reset
// (promql/functions.go, histogramRate). The result's TimeNS is later's.
func HistogramDelta(earlier, later HistogramPoint) HistogramPoint {
	out := HistogramPoint{TimeNS: later.TimeNS, Count: later.Count - earlier.Count, Sum: later.Sum - earlier.Sum}
	if out.Count < 0 {
		return cloneHistogram(later)
	}
	prev := make(map[bucketKey]float64, len(earlier.Buckets))
	for _, b := range earlier.Buckets {
		prev[bucketKey{b.Lower, b.Upper}] += b.Count
	}
	for _, b := range later.Buckets {
		k := bucketKey{b.Lower, b.Upper}
		c := b.Count - prev[k]
		if c < 0 {
			return cloneHistogram(later)
		}
		delete(prev, k)
		if c > 0 {
			b.Count = c
			out.Buckets = append(out.Buckets, b)
		}
	}
	for _, c := range prev {
		if c > 0 {
			return cloneHistogram(later)
		}
	}
	return out
}

func cloneHistogram(h HistogramPoint) HistogramPoint {
	h.Buckets = append([]Bucket(nil), h.Buckets...)
	return h
}

// AddHistograms sums histogram samples bucket by bucket, as sum() does
// for native histograms of one schema; the result's buckets are sorted
// and its TimeNS is the latest of the inputs.
func AddHistograms(hs ...HistogramPoint) HistogramPoint {
	var out HistogramPoint
	idx := map[bucketKey]int{}
	for _, h := range hs {
		out.Count += h.Count
		out.Sum += h.Sum
		out.TimeNS = max(out.TimeNS, h.TimeNS)
		for _, b := range h.Buckets {
			k := bucketKey{b.Lower, b.Upper}
			if i, ok := idx[k]; ok {
				out.Buckets[i].Count += b.Count
				continue
			}
			idx[k] = len(out.Buckets)
			out.Buckets = append(out.Buckets, b)
		}
	}
	sortBuckets(out.Buckets)
	return out
}

// HistogramQuantile is the q-quantile (0 ≤ q ≤ 1) of the observations in
// h, in their unit, computed as Prometheus 2.42's histogram_quantile does
// for a native histogram (promql/quantile.go, histogramQuantile at
// v2.42.0): walk the buckets in ascending order until the cumulative
// count reaches the rank q·Count, then interpolate linearly inside that
// bucket, lower + (upper − lower)·(rank − count below) ÷ bucket count. A
// zero bucket of a histogram with only positive buckets has 0 as its
// lower bound. q < 0 gives −Inf, q > 1 +Inf, an empty histogram NaN.
// (Prometheus 3 interpolates exponentially inside buckets of the standard
// exponential schemas; within one schema-3 bucket, such as k6's, the two
// differ by at most the bucket's width, 9 %, and in practice far less.)
func HistogramQuantile(q float64, h HistogramPoint) float64 {
	switch {
	case q < 0:
		return math.Inf(-1)
	case q > 1:
		return math.Inf(1)
	case h.Count <= 0 || math.IsNaN(q) || len(h.Buckets) == 0:
		return math.NaN()
	}
	rank := q * h.Count
	var count float64
	var b Bucket
	for _, b = range h.Buckets {
		count += b.Count
		if count >= rank {
			break
		}
	}
	if b.Lower < 0 && b.Upper > 0 {
		neg, pos := false, false
		for _, o := range h.Buckets {
			neg = neg || o.Upper <= 0 && o.Lower < 0 && o.Count > 0
			pos = pos || o.Lower >= 0 && o.Upper > 0 && o.Count > 0
		}
		switch {
		case pos && !neg:
			b.Lower = 0
		case neg && !pos:
			b.Upper = 0
		}
	}
	if count > h.Count {
		count = h.Count
	}
	if count < rank {
		return b.Upper
	}
	rank -= count - b.Count
	if b.Count == 0 {
		return b.Upper
	}
	return b.Lower + (b.Upper-b.Lower)*(rank/b.Count)
}

// HistogramMean is Sum ÷ Count, NaN for an empty histogram.
func HistogramMean(h HistogramPoint) float64 {
	if h.Count <= 0 {
		return math.NaN()
	}
	return h.Sum / h.Count
}
