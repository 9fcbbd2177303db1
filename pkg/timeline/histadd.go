package timeline

import (
	"math"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/outcome"
	"github.com/ldanalyze/ldanalyze/pkg/sketch"
)

// HistogramBucket is one bucket of a histogram of a Trend's observations
// (a bucket of a Prometheus native histogram, in the Trend's unit).
type HistogramBucket struct {
	// Lower and Upper bound the bucket, in the Trend's unit (ms for k6's
	// time trends).
	Lower, Upper float64
	// Count is the number of observations in the bucket.
	Count uint64
}

// hugeMS is the value above which a latency sample counts as huge (a
// day, ms), as Add counts them.
const hugeMS = 86_400_000

// AddHistogram adds the observations of a Trend given as a histogram
// rather than one sample each: a source that holds distributions (a
// Prometheus native histogram, trend stats) adds them exactly, at the cost
// of the buckets, not of the observations. s names the Trend (Metric), the
// time of the observations (TimeNS: they all fall in its second), their
// tags (the outcome rule reads status, expected_response, name) and their
// source; its Value is not used.
//
// The result is what Add would give for each bucket's Count samples with
// s's tags and the values spread evenly over [Lower, Upper]
// (sketch.SpreadValue: the k-th of c at Lower + (k + ½)·(Upper −
// Lower)/c, the linear interpolation within a bucket that Prometheus'
// histogram_quantile assumes): the per-second latency sketches, the
// whole-run Trend (all, successful, failed, rate limited, negative and
// huge counts), the per-name histograms and failures, the queries and
// thresholds, the iteration durations (for iteration_duration), the
// sample and metric counts. Percentiles read back are those of the spread
// values (within sketch.RelativeError in histogram mode); a bucket of
// width zero is Count samples of that value (trend stats' per-step mean).
// The per-source checksum (Duplicates) takes the histogram's sum rounded
// once, not each value's.
func (a *Accumulator) AddHistogram(s *ingest.Sample, buckets []HistogramBucket) {
	var n uint64
	for _, b := range buckets {
		n += b.Count
	}
	if n == 0 {
		return
	}
	t := &a.tot
	t.rows += int64(n)
	if !t.any || s.TimeNS < t.minNS {
		t.minNS = s.TimeNS
	}
	if !t.any || s.TimeNS > t.maxNS {
		t.maxNS = s.TimeNS
	}
	t.any = true
	a.card.add(t, s)
	if c := t.metrics[s.Metric]; c != nil {
		*c += n - 1
	}
	for _, q := range a.qs {
		q.addHistogram(s, buckets, n)
	}
	sc := a.sec(s.TimeNS)
	for i, m := range a.cands {
		if s.Metric == m {
			a.addLatencyHistogram(i, sc, s, buckets, n)
		}
	}
	if s.Metric == "iteration_duration" {
		sk := &sketch.Sketch{}
		for _, b := range buckets {
			sk.AddSpread(b.Lower, b.Upper, b.Count)
			t.iterDur.AddSpread(b.Lower, b.Upper, b.Count)
		}
		a.sh.dur.AddSketch(secOf(s.TimeNS), 0, sk)
	}
}

// spreadSum is the sum of the values spread over the buckets.
func spreadSum(buckets []HistogramBucket) float64 {
	sum := 0.0
	for _, b := range buckets {
		sum += float64(b.Count) * (b.Lower + b.Upper) / 2
	}
	return sum
}

// addLatencyHistogram is addLatency for n observations in buckets.
func (a *Accumulator) addLatencyHistogram(i int, sc *second, s *ingest.Sample, buckets []HistogramBucket, n uint64) {
	tr := &a.tot.trends[i]
	for _, b := range buckets {
		lo, hi := min(b.Lower, b.Upper), max(b.Lower, b.Upper)
		tr.negative += sketch.SpreadBelow(lo, hi, b.Count, 0)
		tr.huge += b.Count - sketch.SpreadBelow(lo, hi, b.Count, math.Nextafter(hugeMS, math.Inf(1)))
	}
	key := a.input
	if key == "" {
		key = s.Source
	}
	k := srcKey{i, key}
	sp := a.tot.perSource[k]
	if sp == nil {
		sp = &sourceSpan{minNS: s.TimeNS, maxNS: s.TimeNS}
		a.tot.perSource[k] = sp
	}
	sp.n += int64(n)
	sp.micro += int64(math.Round(spreadSum(buckets) * 1e6))
	sp.minNS, sp.maxNS = min(sp.minNS, s.TimeNS), max(sp.maxNS, s.TimeNS)
	sc.metricN[i] += uint32(min(n, math.MaxUint32))
	for _, b := range buckets {
		tr.all.AddSpread(b.Lower, b.Upper, b.Count)
	}
	o := outcome.Classify(a.candP[i], &s.Tags)
	if o.Failed() {
		st, _ := s.Tags.Get("status")
		limited := limitedStatus(a.candP[i], st)
		for _, b := range buckets {
			tr.failed.AddSpread(b.Lower, b.Upper, b.Count)
			if limited {
				tr.limited.AddSpread(b.Lower, b.Upper, b.Count)
			}
		}
		if j := a.nameIndex(s); j >= 0 {
			for len(sc.nameFail) <= j {
				sc.nameFail = append(sc.nameFail, 0)
			}
			sc.nameFail[j] += uint32(min(n, math.MaxUint32))
		}
		return
	}
	sk := &sketch.Sketch{}
	for _, b := range buckets {
		tr.ok.AddSpread(b.Lower, b.Upper, b.Count)
		sk.AddSpread(b.Lower, b.Upper, b.Count)
	}
	a.sh.lat[i].AddSketch(secOf(s.TimeNS), 0, sk)
	j := a.nameIndex(s)
	if j < 0 {
		a.tot.histOver += n
		return
	}
	h := sc.histAt(j)
	for _, b := range buckets {
		h.addSpread(b.Lower, b.Upper, b.Count)
	}
}

// addSpread counts n latencies spread evenly over [lo, hi] ms
// (sketch.SpreadValue), bin by bin: as n calls of Add. It returns the
// bins [i0, i1] it may have counted into, ok false when it counted none.
func (h *Hist) addSpread(lo, hi float64, n uint64) (i0, i1 int, ok bool) {
	if n == 0 || lo != lo || hi != hi {
		return 0, 0, false
	}
	lo, hi = min(lo, hi), max(lo, hi)
	i0, i1 = HistBin(sketch.SpreadValue(lo, hi, 0, n)), HistBin(sketch.SpreadValue(lo, hi, n-1, n))
	below := uint64(0)
	for i := i0; i <= i1; i++ {
		c := n
		if i < i1 {
			c = sketch.SpreadBelow(lo, hi, n, BinLow(i+1))
		}
		if c > below {
			h[i] += uint32(min(c-below, math.MaxUint32))
			below = c
		}
	}
	return i0, i1, true
}

// addHistogram is add for n observations in buckets.
func (a *queryAgg) addHistogram(s *ingest.Sample, buckets []HistogramBucket, n uint64) {
	sc := a.secFor(s)
	if sc == nil {
		return
	}
	last := math.NaN()
	for _, b := range buckets {
		if b.Count == 0 {
			continue
		}
		lo, hi := min(b.Lower, b.Upper), max(b.Lower, b.Upper)
		sc.sk.AddSpread(lo, hi, b.Count)
		sc.nonzero += b.Count - zerosIn(lo, hi, b.Count)
		if !(lo == hi && (lo == 0 || lo == 1)) {
			a.nonBinary = true
		}
		last = sketch.SpreadValue(lo, hi, b.Count-1, b.Count)
	}
	sc.n += n
	sc.sum += spreadSum(buckets)
	if !sc.hasLast || s.TimeNS >= sc.lastNS {
		sc.last, sc.lastNS, sc.hasLast = last, s.TimeNS, true
	}
}

// zerosIn counts the values spread over [lo, hi] that are exactly 0.
func zerosIn(lo, hi float64, n uint64) uint64 {
	if lo > 0 || hi < 0 {
		return 0
	}
	return sketch.SpreadBelow(lo, hi, n, math.Nextafter(0, 1)) - sketch.SpreadBelow(lo, hi, n, 0)
}
