package knee

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// LevelKind says how a load level was found.
type LevelKind string

// The kinds of load level.
const (
	// Hold is a plateau of offered load (a stage at constant target),
	// its first and last second left out.
	Hold LevelKind = "hold"
	// RampStep is a stretch of a ramp of offered load (a stage whose
	// target changes), cut into steps across the ramp's whole length.
	RampStep LevelKind = "ramp"
)

// Step widths: a ramp is cut into about targetSteps steps, never fewer
// than minSteps when its length allows, each holding at least
// minStepRequests requests at the ramp's rate on its way up (so that
// counting noise cannot fail a step: a step of 11 requests cannot show
// 5 % loss) and lasting at least one second of data.
const (
	targetSteps     = 16
	minSteps        = 8
	minStepRequests = 40
	// downSteps is the steps of a ramp down, which no decision reads.
	downSteps = 4
)

// isRamp reports whether piece p climbs or falls by more than its noise
// and more than a practical tolerance (3 % of its level, and one unit of
// offered load): a plateau may drift a little (latency, VUs starting),
// a ramp changes its level.
func isRamp(p piece) bool {
	n := float64(p.i1 - p.i0)
	if n < 3 || p.flat {
		return false
	}
	change := math.Abs(p.slope) * (n - 1)
	noise := 4 * p.slopeSE * (n - 1)
	return change > noise && change > 0.03*math.Abs(p.mean) && change > 1
}

// findLevels recovers the load schedule of the main span: its holds and
// the steps of its ramps, in time order each.
func (a *analysis) findLevels() (holds, steps []Level) {
	x := a.offeredSeries()
	minHold := int(a.opt.MinHoldNS / 1e9)
	// A run shorter than two holds may hold a shorter level: its full
	// seconds.
	minHold = max(2, min(minHold, len(x)-2))
	// The run's first and last seconds are partial: the schedule is
	// recovered from the seconds between them.
	var pieces []piece
	if n := len(x); n > 2 {
		// (the seconds are those of x; see the trims below)
		var miss []bool
		if a.p.missing != nil {
			miss = a.p.missing[1 : n-1]
		}
		pieces = stages(segmentsAt(x[1:n-1], miss, 3, a.model == Open, a.resolutionS(), a.gridPhase(1)), x[1:n-1], minHold)
		for i := range pieces {
			pieces[i].i0++
			pieces[i].i1++
		}
		// The partial seconds join the pieces next to them.
		if len(pieces) > 0 {
			if isRamp(pieces[0]) {
				pieces[0].i0 = 0
			}
			if k := len(pieces) - 1; isRamp(pieces[k]) {
				pieces[k].i1 = n
			}
		}
	}
	n := len(x)
	for _, p := range pieces {
		if !isRamp(p) {
			// The first and last second of a plateau mix two levels
			// (where a transition borders it; the run's own partial
			// first and last seconds are left out already).
			i0, i1 := p.i0, p.i1
			if i0 > 1 {
				i0++
			}
			if i1 < n-1 {
				i1--
			}
			if a.p.dataIn(i0, i1) < minHold {
				continue
			}
			if l := a.aggregate(i0, i1, a.opt.Percentiles); a.loadLevel(&l) {
				l.Kind = Hold
				holds = append(holds, l)
			}
			continue
		}
		steps = append(steps, a.rampSteps(p)...)
	}
	return holds, steps
}

// loneZeroMin is the least count, per second, of the seconds either side
// of a run of seconds that counted nothing for markLoneZeros to take the
// run as lost (a Poisson count of mean 10 is 0 with probability
// e⁻¹⁰ = 4.5·10⁻⁵); maxZeroRun is the longest such run, in seconds.
const (
	loneZeroMin = 10
	maxZeroRun  = 5
)

// markLoneZeros marks as missing (perSecond.missing) each run of up to
// maxZeroRun seconds of the main span that counted nothing, between
// seconds of data that counted at least loneZeroMin each: no iteration
// ended or was dropped in an open model, the vus gauge read 0 in a closed
// one. Such a run is a stalled generator or a lost export, not a load of
// zero: like a second without any sample it is left out of the level
// search (offeredSeries carries the load before it into it) and out of
// the seconds of data that rates are taken per. The model must be known.
func (a *analysis) markLoneZeros() {
	p := a.p
	n := p.n
	gone := func(i int) bool { return p.missing != nil && p.missing[i] }
	count := func(i int) float64 {
		if a.model == Closed {
			return p.vus.at(i)
		}
		return p.iterations.at(i) + p.dropped.at(i)
	}
	for i := 1; i+1 < n; i++ {
		if gone(i) || count(i) != 0 {
			continue
		}
		// The run [i, j) of seconds without data or counting nothing,
		// and the seconds with data either side of it.
		lo, j := i-1, i
		for j < n && (gone(j) || count(j) == 0) {
			j++
		}
		for lo >= 0 && gone(lo) {
			lo--
		}
		if lo < 0 || j >= n || j-i > maxZeroRun || count(lo) < loneZeroMin || count(j) < loneZeroMin {
			i = j
			continue
		}
		if p.missing == nil {
			p.missing = make([]bool, n)
		}
		for k := i; k < j; k++ {
			p.missing[k] = true
		}
		i = j
	}
}

// minRampS is the shortest ramp, in seconds, that is a stage of its own
// rather than the transition between two holds (k6 scripts step a
// staircase with 1-s stages, which the fit makes 1–3 s long; a spike ramps
// over several seconds).
const minRampS = 4

// stages merges neighbouring plateaus at the same level (a piece split by
// noise) and neighbouring ramps of the same direction and a similar slope,
// so that one stage of the schedule gives one level or one set of steps.
// A piece shorter than minLen seconds (minRampS for a ramp) joins a ramp
// next to it (the ragged start or end of the ramp), or is dropped between
// plateaus (the transition between two holds of a staircase).
func stages(pieces []piece, x []float64, minLen int) []piece {
	var kept []piece
	for i, p := range pieces {
		need := minLen
		if isRamp(p) {
			need = min(minLen, minRampS)
		}
		if p.i1-p.i0 >= need {
			kept = append(kept, p)
			continue
		}
		// A short climb between two plateaus far apart (a spike's ramp:
		// at least ×1.5 from the lower to the higher) is a stage to judge,
		// not a transition: its seconds are the only levels in between.
		if i > 0 && i+1 < len(pieces) && p.i1-p.i0 >= 3 && !isRamp(pieces[i-1]) && !isRamp(pieces[i+1]) {
			lo, hi := math.Min(pieces[i-1].mean, pieces[i+1].mean), math.Max(pieces[i-1].mean, pieces[i+1].mean)
			if lo > 0 && hi >= 1.5*lo && p.mean > lo && p.mean < hi {
				p.flat, p.slope = false, (pieces[i+1].mean-pieces[i-1].mean)/float64(p.i1-p.i0)
				kept = append(kept, p)
				continue
			}
		}
		switch {
		case len(kept) > 0 && isRamp(kept[len(kept)-1]):
			q := kept[len(kept)-1]
			kept[len(kept)-1] = mergePieces(q, p, x, false)
		case i+1 < len(pieces) && isRamp(pieces[i+1]):
			pieces[i+1] = mergePieces(p, pieces[i+1], x, false)
		}
	}
	var merged []piece
	for _, p := range kept {
		if k := len(merged) - 1; k >= 0 {
			q := merged[k]
			switch {
			case !isRamp(q) && !isRamp(p) && math.Abs(p.mean-q.mean) <= 0.03*math.Abs(q.mean)+0.5:
				merged[k] = mergePieces(q, p, x, true)
				continue
			case isRamp(q) && isRamp(p) && q.slope*p.slope > 0 && math.Abs(p.slope-q.slope) <= 0.25*math.Abs(q.slope):
				merged[k] = mergePieces(q, p, x, false)
				continue
			}
		}
		merged = append(merged, p)
	}
	return merged
}

// mergePieces joins neighbouring pieces p and q (p first) into one, with
// the line refitted; flat says whether the result is a plateau.
func mergePieces(p, q piece, x []float64, flat bool) piece {
	r := piece{i0: p.i0, i1: q.i1, flat: flat}
	seg := x[r.i0:r.i1]
	r.slope = slope(seg)
	var m float64
	for _, v := range seg {
		m += v
	}
	r.mean = m / float64(len(seg))
	// The merged piece's slope error: the larger of the two, scaled to
	// the longer length (a conservative bound).
	la, lb, lr := float64(p.i1-p.i0), float64(q.i1-q.i0), float64(r.i1-r.i0)
	ses := []float64{}
	for _, v := range []struct{ se, l float64 }{{p.slopeSE, la}, {q.slopeSE, lb}} {
		if !math.IsInf(v.se, 0) && !math.IsNaN(v.se) {
			ses = append(ses, v.se*math.Pow(v.l/lr, 1.5))
		}
	}
	r.slopeSE = 0
	for _, v := range ses {
		r.slopeSE = math.Max(r.slopeSE, v)
	}
	return r
}

// rampSteps cuts a ramp piece into steps across its whole length: the
// --ramp-step width when given, else a width chosen from the ramp (see
// targetSteps). A tail under half a step joins the step before.
func (a *analysis) rampSteps(p piece) []Level {
	w := int(a.opt.RampStepNS / 1e9)
	if w <= 0 {
		w = a.coarseStep(a.stepWidth(p))
	} else if n := p.i1 - p.i0; w > n && n >= 2*int(a.opt.MinHoldNS/1e9) && p.slope > 0 {
		a.wideRamp = max(a.wideRamp, n)
	}
	var out []Level
	for i0 := p.i0; i0 < p.i1; i0 += w {
		i1 := min(i0+w, p.i1)
		if p.i1-i1 < a.coarseTail((w+1)/2) {
			i1 = p.i1 // the tail joins this step
		}
		if l := a.aggregate(i0, i1, a.opt.Percentiles); a.loadLevel(&l) {
			l.Kind = RampStep
			out = append(out, l)
		}
		if i1 == p.i1 {
			break
		}
	}
	return out
}

// fixedSteps cuts the main span into steps of --ramp-step (default
// 10 s) from its first second; a tail under half a step is left out.
func (a *analysis) fixedSteps() []Level {
	w := int(a.opt.RampStepNS / 1e9)
	if w <= 0 {
		w = 10
	}
	n := a.p.n
	var out []Level
	for i0 := 0; i0 < n; i0 += w {
		i1 := min(i0+w, n)
		if 2*(i1-i0) < w && len(out) > 0 {
			continue
		}
		if l := a.aggregate(i0, i1, a.opt.Percentiles); a.loadLevel(&l) {
			l.Kind = RampStep
			out = append(out, l)
		}
	}
	return out
}

// stepWidth chooses the width, in seconds, of a ramp's steps: about
// targetSteps steps, at least minSteps when the ramp is long enough, each
// with at least minStepRequests requests at the rate of the ramp's lower
// half (where the knee of a ramp up lies) and at least 1 s.
func (a *analysis) stepWidth(p piece) int {
	n := p.i1 - p.i0
	// Requests (else iterations) per second over the lower half of the
	// ramp's load.
	half := p.i0 + n/2
	if p.slope < 0 {
		half = p.i0 // a ramp down: its lower half is its end
	}
	lo, hi := p.i0, half
	if p.slope < 0 {
		lo, hi = p.i0+n/2, p.i1
	}
	var reqs float64
	secs := 0
	for i := lo; i < hi; i++ {
		if a.p.missing != nil && a.p.missing[i] {
			continue
		}
		if a.hasHTTP {
			reqs += a.p.reqs.at(i)
		} else {
			reqs += a.p.iterations.at(i)
		}
		secs++
	}
	rate := reqs / math.Max(1, float64(secs))
	wStat := 1
	if rate > 0 {
		wStat = int(math.Ceil(minStepRequests / rate))
	}
	w := int(math.Round(float64(n) / targetSteps))
	w = min(w, n/minSteps)
	if p.slope < 0 {
		// A ramp down decides nothing (wayUp): a few steps show it.
		w = int(math.Round(float64(n) / downSteps))
	}
	return max(1, w, wStat)
}

// wayUp returns the levels the knee is decided on: holds and ramp steps
// in time order up to and including the one with the highest offered load
// (past it, a closed model's throughput lags its falling VUs and an open
// model's queue drains: those levels say nothing about where it bent).
func wayUp(holds, steps []Level) []Level {
	all := append(slices.Clone(holds), steps...)
	slices.SortStableFunc(all, func(x, y Level) int { return x.Start.Compare(y.Start) })
	top := -1
	for i, l := range all {
		if l.Offered.Valid() && (top < 0 || l.Offered > all[top].Offered) {
			top = i
		}
	}
	return all[:top+1]
}

// AllLevels are the run's holds and ramp steps in time order.
func (r *Result) AllLevels() []Level {
	all := append(slices.Clone(r.Holds), r.RampSteps...)
	slices.SortStableFunc(all, func(x, y Level) int { return x.Start.Compare(y.Start) })
	return all
}

// LevelsTitle describes the run's load levels for a table's heading:
// "Holds (…)", "Continuous ramp: N ramp steps (…)" or "Load levels: N
// holds and M ramp steps (…)".
func (r *Result) LevelsTitle() string {
	nh, ns := len(r.Holds), len(r.RampSteps)
	switch {
	case ns == 0:
		return "Holds (plateaus of offered load; the seconds between levels are left out)"
	case nh == 0:
		w := r.RampSteps[0].Seconds
		return fmt.Sprintf("Continuous ramp: %d ramp step%s of %s s (no plateaus of offered load to hold on)", ns, plural(ns), strconv.FormatFloat(w, 'f', -1, 64))
	}
	return fmt.Sprintf("Load levels: %d hold%s and %d ramp step%s, in time order (the seconds between levels are left out)", nh, plural(nh), ns, plural(ns))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
