package checks

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// The bimodal test of rate-limited: a limiter that delays requests instead
// of rejecting them (nginx limit_req with burst, Envoy or a gateway that
// queues, a client or SDK that retries after a 429 or 503 with a backoff)
// leaves no 429 in the results but splits the successful latencies of one
// request at one load into a fast group (under the limit) and a slow group
// (queued or retried, typically a whole backoff or 1/rate slot slower).
// A load level's distribution of one request name is bimodal when a split
// latency exists such that
//
//   - both groups hold at least BimodalMinShare (10 %) of the samples,
//   - the slow group's median is at least BimodalFactor (×5) the fast
//     group's, and
//   - the histogram has a valley at the split: its density there (counts
//     of the split bin and its two neighbours) is at most BimodalDip (½)
//     of the smaller of the two groups' peak densities,
//
// with at least BimodalMinSamples (50) successful samples. The valley
// condition is what keeps a wide unimodal (log-normal) distribution out:
// its lower and upper halves can differ by ×5 too, but without a dip. It is
// the histogram form of Hartigan's dip idea (Hartigan & Hartigan 1985,
// "The dip test of unimodality"), kept to fixed limits so that the verdict
// can be computed by hand. The ×5 and 10 % limits are ldanalyze's choice
// (issue 5): small enough to catch a queued group, large enough that
// network jitter and GC pauses (tails, not groups) do not pass.
//
// A saturated concurrency limit (a worker or connection pool: requests
// that find a free slot are fast, the others wait, Erlang C's atom at zero
// wait) shows the same two groups; the message names it too, since both
// mean the slow group measured a wait, not the service.
//
// A cache (hits and misses) or two kinds of request under one name are
// bimodal at every load; a limiter only above its rate. So the check warns
// only when the two groups appear above the lowest analysed load level of
// the name (or the run has a single level); two groups at every level are
// reported, but as ok.
const (
	BimodalFactor     = 5
	BimodalMinShare   = 0.10
	BimodalDip        = 0.5
	BimodalMinSamples = 50
)

// modes is a bimodal split of one histogram.
type modes struct {
	n                    uint64
	fastShare, slowShare float64
	fastP50, slowP50     float64 // ms
	splitMS              float64 // the split bin's lower bound: fast < split ≤ slow
}

// splitModes applies the rule above to h; ok is false when h is not
// bimodal by it. Of the splits that pass, the deepest valley wins (then
// the more even split).
func splitModes(h *timeline.Hist) (best modes, ok bool) {
	n := h.Total()
	if n < BimodalMinSamples {
		return best, false
	}
	var dens [timeline.HistBins]uint64 // counts of bin i and its neighbours
	for i := range h {
		for j := max(0, i-1); j <= min(timeline.HistBins-1, i+1); j++ {
			dens[i] += uint64(h[j])
		}
	}
	var peakL, peakR [timeline.HistBins]uint64 // max density of bins ≤ i, ≥ i
	for i := range dens {
		peakL[i] = dens[i]
		if i > 0 {
			peakL[i] = max(peakL[i], peakL[i-1])
		}
	}
	for i := timeline.HistBins - 1; i >= 0; i-- {
		peakR[i] = dens[i]
		if i < timeline.HistBins-1 {
			peakR[i] = max(peakR[i], peakR[i+1])
		}
	}
	var below uint64 // samples in bins < v
	bestDens := uint64(math.MaxUint64)
	for v := 1; v < timeline.HistBins-1; v++ {
		below += uint64(h[v-1])
		fs, ss := float64(below)/float64(n), float64(n-below)/float64(n)
		if fs < BimodalMinShare || ss < BimodalMinShare {
			continue
		}
		if float64(dens[v]) > BimodalDip*float64(min(peakL[v-1], peakR[v+1])) {
			continue
		}
		m := modes{n: n, fastShare: fs, slowShare: ss, fastP50: h.Median(0, v), slowP50: h.Median(v, timeline.HistBins), splitMS: timeline.BinLow(v)}
		if !(m.slowP50 >= BimodalFactor*m.fastP50) {
			continue
		}
		if !ok || dens[v] < bestDens || (dens[v] == bestDens && min(fs, ss) > min(best.fastShare, best.slowShare)) {
			best, bestDens, ok = m, dens[v], true
		}
	}
	return best, ok
}

// bimodalCase is a request name bimodal at a load level.
type bimodalCase struct {
	name    string
	offered float64 // NaN for the whole run
	m       modes
}

// bimodalResult sums the bimodal test over names and levels.
type bimodalResult struct {
	// limiter are the cases of the names not bimodal at their lowest
	// analysed level (or analysed at one level only); everywhere the
	// names bimodal already at their lowest level (a cache, mixed
	// requests).
	limiter    []bimodalCase
	everywhere []string
	// firstOffered is, per name of limiter, the lowest level offered at
	// which it is bimodal; single marks the names analysed at one level
	// only (no lower load to compare with).
	firstOffered map[string]float64
	single       map[string]bool
}

// bimodal runs splitModes for every request name with a histogram, at
// every load level (the whole run when there are none).
func (e *eval) bimodal() bimodalResult {
	r := bimodalResult{firstOffered: map[string]float64{}, single: map[string]bool{}}
	type span struct {
		a, b    int64
		offered float64
	}
	var spans []span
	for i := range e.levels {
		spans = append(spans, span{e.levels[i].Start.Unix(), e.levels[i].End.Unix(), float64(e.levels[i].Offered)})
	}
	if len(spans) == 0 {
		spans = []span{{e.s0, e.s1, math.NaN()}}
	}
	slices.SortStableFunc(spans, func(p, q span) int { return cmp.Compare(p.offered, q.offered) })
	names := e.tl.HistNames()
	mix := make([][]timeline.Hist, len(spans))
	for k, sp := range spans {
		mix[k], _ = e.tl.NameMix(sp.a, sp.b)
	}
	for i, name := range names {
		var found []bimodalCase
		analysed, atLowest := 0, false
		for k := range spans {
			if i >= len(mix[k]) {
				continue
			}
			sp, h := spans[k], &mix[k][i]
			if h.Total() < BimodalMinSamples {
				continue
			}
			analysed++
			if m, ok := splitModes(h); ok {
				found = append(found, bimodalCase{name, sp.offered, m})
				atLowest = atLowest || analysed == 1
			}
		}
		switch {
		case len(found) == 0:
		case atLowest && analysed > 1:
			r.everywhere = append(r.everywhere, name)
		default:
			r.limiter = append(r.limiter, found...)
			r.firstOffered[name] = found[0].offered
			r.single[name] = analysed == 1
		}
	}
	slices.SortStableFunc(r.limiter, func(p, q bimodalCase) int {
		return cmp.Or(cmp.Compare(q.m.slowShare, p.m.slowShare), cmp.Compare(p.name, q.name))
	})
	slices.Sort(r.everywhere)
	return r
}

// addBimodal adds the bimodal evidence to a rate-limited check and returns
// the sentence describing the groups ("" when none).
func (r *bimodalResult) addBimodal(ch *Check, unit string) string {
	ch.Evidence.add("bimodal_levels", float64(len(r.limiter)))
	if len(r.limiter) == 0 {
		return ""
	}
	b := r.limiter[0]
	ch.Evidence.add("bimodal_offered", b.offered)
	ch.Evidence.add("bimodal_first_offered", r.firstOffered[b.name])
	ch.Evidence.add("fast_share", b.m.fastShare)
	ch.Evidence.add("fast_p50_ms", b.m.fastP50)
	ch.Evidence.add("slow_share", b.m.slowShare)
	ch.Evidence.add("slow_p50_ms", b.m.slowP50)
	ch.Evidence.add("slow_fast_ratio", b.m.slowP50/b.m.fastP50)
	ch.Evidence.add("split_ms", b.m.splitMS)
	at := "over the run"
	switch {
	case math.IsNaN(b.offered):
	case r.single[b.name]:
		at = fmt.Sprintf("at %s %s (the only level with enough of its samples: no lower load to compare with)", fmtNum(b.offered), unit)
	default:
		at = fmt.Sprintf("at %s %s (first at %s %s, not at the lowest load)", fmtNum(b.offered), unit, fmtNum(r.firstOffered[b.name]), unit)
	}
	return fmt.Sprintf("the successful responses of %s split into two groups %s: %s fast (median %s ms) and %s slow (median %s ms, ×%s, above %s ms), the signature of a limiter that queues, of retries after a backoff, or of a concurrency limit (worker or connection pool) where part of the requests waited for a slot",
		quoteName(b.name), at, fmtPct(b.m.fastShare), fmtNum(b.m.fastP50), fmtPct(b.m.slowShare), fmtNum(b.m.slowP50), fmtNum(b.m.slowP50/b.m.fastP50), fmtNum(b.m.splitMS))
}

func quoteName(n string) string {
	if n == "" {
		return "the unnamed requests"
	}
	return fmt.Sprintf("%q", n)
}

func quoteNames(ns []string) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = quoteName(n)
	}
	return out
}
