package knee

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/ldanalyze/ldanalyze/pkg/timeline"
	"gonum.org/v1/gonum/stat/distuv"
)

// baseline is what a level is compared with: the run at low load.
type baseline struct {
	// p95 is the median p95 of the lowest-load levels with enough
	// samples; p50 their median p50.
	p95, p50 float64
	// fail and reqs pool the failures and requests of those levels.
	fail, reqs float64
	// perVU is the closed model's requests per second per VU at low load.
	perVU float64
	// perVUAt is perVU of each low-load level with at least one VU, at
	// its VUs: a level is judged against the levels below it (perVUBelow).
	perVUAt []vuRate
}

// vuRate is one low-load level's closed-model throughput per VU
// (requests per second per VU) at its mean VUs.
type vuRate struct{ vus, perVU float64 }

// perVUBelow is the median requests per second per VU of the low-load
// levels at fewer VUs than vus, NaN when there are none: a closed model's
// throughput is "linear in VUs" only as measured below a level (the vus
// gauge counts VUs that start or idle, so the throughput of the lowest
// levels is affine in it, X ≈ b·(N − N₀), and its per-VU rate rises with
// N; a level cannot fall short of a rate measured only above it, or of
// its own).
func (b baseline) perVUBelow(vus float64) float64 {
	var per []float64
	for _, r := range b.perVUAt {
		if r.vus < vus {
			per = append(per, r.perVU)
		}
	}
	if len(per) == 0 {
		return math.NaN()
	}
	if len(per) == len(b.perVUAt) {
		return b.perVU
	}
	slices.Sort(per)
	return median(per)
}

// Sample sizes the statistics need.
const (
	// minLatencySamples: a level's percentiles are judged only with this
	// many successful samples.
	minLatencySamples = 10
	// baseLatencySamples: a level counts towards the latency baseline
	// only with this many.
	baseLatencySamples = 30
	// zLimit is the one-sided z (≈ p < 0.0013) past which a count is
	// significantly off.
	zLimit = 3
)

// lowLoad returns the levels the baseline is taken from: the lowest
// quarter by offered load of those that carried requests (at least two,
// at most four), but none offered more than half the highest load (a run
// of few levels, such as a spike, must not take its baseline from its
// peak).
func lowLoad(levels []Level) []Level {
	c := make([]Level, 0, len(levels))
	top := F(0)
	for _, l := range levels {
		if l.Offered.Valid() && l.Offered > 0 && l.nReqs > 0 {
			c = append(c, l)
			top = max(top, l.Offered)
		}
	}
	slices.SortStableFunc(c, func(x, y Level) int { return cmpF(x.Offered, y.Offered) })
	k := min(len(c), max(2, min(4, (len(c)+3)/4)))
	for k > 1 && c[k-1].Offered > top/2 {
		k--
	}
	return c[:k]
}

func (a *analysis) baselineOf(levels []Level) baseline {
	low := lowLoad(levels)
	b := baseline{p95: math.NaN(), p50: math.NaN(), perVU: math.NaN()}
	var p95s, p50s, per []float64
	for _, want := range []uint64{baseLatencySamples, 1} {
		for _, l := range low {
			if l.Count >= want && l.P95MS.Valid() {
				p95s = append(p95s, float64(l.P95MS))
				p50s = append(p50s, float64(l.P50MS))
			}
		}
		if len(p95s) > 0 {
			break
		}
	}
	if len(p95s) > 0 {
		slices.Sort(p95s)
		slices.Sort(p50s)
		b.p95, b.p50 = median(p95s), median(p50s)
	}
	for _, l := range low {
		if !a.oneLoad {
			// With one load only (a constant-rate or constant-VU run) the
			// low-load error rate would be the level's own, and errors
			// that came with the load could not be told from a constant
			// rate: they are judged against none.
			b.fail += l.nFailed
		}
		b.reqs += l.nReqs
		if l.VUs.Valid() && l.VUs >= 1 {
			per = append(per, l.nUnits/l.Seconds/float64(l.VUs))
			b.perVUAt = append(b.perVUAt, vuRate{float64(l.VUs), per[len(per)-1]})
		}
	}
	if len(per) > 0 {
		slices.Sort(per)
		b.perVU = median(per)
	}
	return b
}

// judge gives every level a verdict against the low-load baseline
// (research/methods.md §1.1, with the thresholds made statistical):
//
//   - completed follows offered: the responses (all of them: errors are
//     judged apart) fall short of the offered requests by more than
//     1 − Follow and by more than zLimit standard deviations of a Poisson
//     count (a level of 11 requests cannot show 5 % loss); in a closed
//     model the offered requests are the low-load requests per VU times
//     the VUs, with Follow − 0.05, the requests per VU measured at the
//     low-load levels below the level's VUs (baseline.perVUBelow);
//   - latency flat: p95 within LatencyFactor of the low-load p95 (the
//     median over the lowest-load levels with enough samples);
//   - errors flat: the error rate grew over the low-load rate by more
//     than one point and significantly (two-proportion z test); a
//     constant error rate, however high, is not saturation;
//   - no drops: fewer than 0.5 % of the offered iterations were dropped
//     (or fewer than three);
//   - a hold whose queue grows (latency rising through it) is overloaded.
//
// A closed-model level past the peak (a ramp down) whose only shortfall is
// its throughput, at flat latency, has headroom: by Little's law the VUs
// it lacks were stopping, not waiting on the system.
// Overloaded when the errors grew by more than ErrorLimit, goodput fell
// below 90 % of an earlier level's, or the queue grew; generator when
// iterations were dropped with every VU busy (vus ≥ 95 % of vus_max) while
// latency stayed flat and the responses followed what was started
// (followsStarted);
// saturated otherwise.
func (a *analysis) judge(levels []Level, base baseline) {
	if len(levels) == 0 {
		return
	}
	baseErr := 0.0
	if base.reqs > 0 {
		baseErr = base.fail / base.reqs
	}
	oneLoad := a.oneLoad
	a.baseErr = baseErr
	bestSoFar := 0.0
	for i := range levels {
		l := &levels[i]
		var why []string
		follows := true
		if a.model == Open && !math.IsNaN(l.nOffered) && l.nOffered > 0 {
			short := l.nOffered - l.nReqs
			if short > (1-a.opt.Follow)*l.nOffered && short > zLimit*math.Sqrt(l.nOffered+1) {
				follows = false
				why = append(why, fmt.Sprintf("completed %.0f%% of offered", 100*l.nReqs/l.nOffered))
			}
		} else if perVU := base.perVUBelow(float64(l.VUs)); a.model == Closed && !math.IsNaN(perVU) && l.VUs.Valid() && l.VUs > 0 {
			lin := perVU * float64(l.VUs) * l.Seconds
			short := lin - l.nUnits
			if short > (1-(a.opt.Follow-0.05))*lin && short > zLimit*math.Sqrt(lin+1) {
				follows = false
				why = append(why, fmt.Sprintf("throughput %.0f%% of linear in VUs", 100*l.nUnits/lin))
			}
		}
		latOK := true
		if !math.IsNaN(base.p95) && l.Count >= minLatencySamples && l.P95MS.Valid() && float64(l.P95MS) > a.opt.LatencyFactor*base.p95 {
			latOK = false
			why = append(why, fmt.Sprintf("p95 %.3g× low-load", float64(l.P95MS)/base.p95))
		}
		errOK, excess := true, 0.0
		if l.nReqs > 0 {
			rate := l.nFailed / l.nReqs
			excess = rate - baseErr
			if excess > 0.01 && significantlyHigher(l.nFailed, l.nReqs, base.fail, base.reqs) {
				errOK = false
				why = append(why, fmt.Sprintf("errors %.1f%%", 100*rate))
				if baseErr > 0.005 {
					why[len(why)-1] += fmt.Sprintf(" (%.1f%% at low load)", 100*baseErr)
				}
				if oneLoad {
					why[len(why)-1] += " (the run has no lower load to compare with)"
				}
			}
		}
		dropsOK := true
		if a.model == Open && l.Offered > 0 && float64(l.DroppedPerS) > 0.005*float64(l.Offered) && l.nDropped >= 3 {
			dropsOK = false
			why = append(why, fmt.Sprintf("%.2g dropped iterations/s", float64(l.DroppedPerS)))
		}
		l.short = !follows
		l.latFlat = latOK && !math.IsNaN(base.p95) &&
			(math.IsNaN(base.p50) || l.Count < minLatencySamples || !l.P50MS.Valid() || float64(l.P50MS) <= a.opt.LatencyFactor*base.p50)
		growing := l.Kind == Hold && a.queueGrows(l, base)
		l.growing = growing
		if growing {
			why = append(why, "latency rising through the hold (a growing queue)")
		}
		fell := bestSoFar > 0 && float64(l.CompletedRPS) < 0.9*bestSoFar && l.Offered.Valid() && a.offeredAbovePeak(levels[:i], l)
		switch {
		case follows && latOK && errOK && dropsOK && !growing:
			l.Verdict, l.Reason = Headroom, "completed follows offered, latency flat"
		case a.pastPeak && a.model == Closed && l.latFlat && errOK && !growing:
			// N = X·(R + Z) (Little's law): with R flat, a throughput
			// short of the VUs is VUs not iterating — past the peak, VUs
			// the ramp down is stopping, still counted by the vus gauge
			// (k6's gracefulRampDown), not a saturated system.
			l.Verdict, l.Reason = Headroom, join(why)+" at flat latency past the peak: VUs stopping, not the system"
		case !dropsOK && a.followsStarted(l) && latOK && errOK && !growing && a.vusExhausted(l):
			l.Verdict = Generator
			l.Reason = fmt.Sprintf("%.2g dropped iterations/s with every VU busy (%.0f of %.0f) while latency stayed flat: the load generator, not the system, set the limit", float64(l.DroppedPerS), float64(l.VUs), a.vusMaxAt(l))
		case (!errOK && excess > a.opt.ErrorLimit) || fell || growing:
			l.Verdict = Overloaded
			if fell {
				why = append(why, "goodput falling")
			}
			l.Reason = join(why)
		default:
			l.Verdict, l.Reason = Saturated, join(why)
		}
		bestSoFar = math.Max(bestSoFar, float64(l.CompletedRPS))
	}
}

// oneLoad reports whether the levels (of the way up) are of one load:
// the highest offered within 25 % of the lowest.
func oneLoad(levels []Level) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, l := range levels {
		if l.Offered.Valid() {
			lo, hi = math.Min(lo, float64(l.Offered)), math.Max(hi, float64(l.Offered))
		}
	}
	return lo > 0 && hi <= 1.25*lo
}

// significantlyHigher reports whether the failure share f/n exceeds the
// baseline's bf/bn by a one-sided two-proportion z test at zLimit (pooled
// variance; Agresti, "Categorical Data Analysis", §2.4). Without a
// baseline of its own the comparison is with zero failures.
func significantlyHigher(f, n, bf, bn float64) bool {
	if n <= 0 {
		return false
	}
	if bn <= 0 {
		return f >= 3
	}
	p := (f + bf) / (n + bn)
	if p <= 0 || p >= 1 {
		return f/n > bf/bn
	}
	se := math.Sqrt(p * (1 - p) * (1/n + 1/bn))
	return (f/n-bf/bn)/se > zLimit
}

// refusedFlat reports whether a level lost its headroom to refusals
// alone: at least 80 % of its failures say "too many requests" (HTTP 429,
// gRPC ResourceExhausted) and its p95 stayed within LatencyFactor of the
// low-load p95. A rate limiter refuses before the servers queue, so it,
// not their capacity, set the ceiling.
func (a *analysis) refusedFlat(l *Level) bool {
	return l.latFlat && l.nFailed > 0 && l.nLimited >= 0.8*l.nFailed && !l.growing
}

// followsStarted reports whether a level's responses followed the
// iterations it started (offered less dropped): with the generator out of
// VUs, the system still answered all it was sent.
func (a *analysis) followsStarted(l *Level) bool {
	if a.model != Open || math.IsNaN(l.nOffered) {
		return false
	}
	sent := l.nOffered
	if a.hasHTTP {
		sent -= l.nDropped * a.reqsPerIter
	} else {
		sent -= l.nDropped
	}
	short := sent - l.nReqs
	return sent > 0 && !(short > (1-a.opt.Follow)*sent && short > zLimit*math.Sqrt(sent+1))
}

// vusExhausted reports whether the level's busy VUs reached its vus_max
// (≥ 95 %): an arrival-rate executor then has no VU to start an
// iteration with, whatever the system does.
func (a *analysis) vusExhausted(l *Level) bool {
	m := a.vusMaxAt(l)
	return l.VUs.Valid() && m > 0 && float64(l.VUs) >= 0.95*m
}

// vusMaxAt is the highest vus_max gauge over the level's seconds.
func (a *analysis) vusMaxAt(l *Level) float64 {
	m := 0.0
	for i := l.i0; i < l.i1; i++ {
		m = math.Max(m, a.p.vusMax.at(i))
	}
	return m
}

// queueGrows reports whether latency rises through a hold as a queue
// that grows without bound makes it: the per-second mean latency of the
// successful responses regressed on time climbs, over the hold, by more
// than the low-load p50 and by half the hold's first-quarter mean, with a
// slope more than five standard errors from zero. Holds under 10 s are not
// judged.
func (a *analysis) queueGrows(l *Level, base baseline) bool {
	if l.i1-l.i0 < 10 || math.IsNaN(base.p50) {
		return false
	}
	var ts, ys []float64
	for i := l.i0; i < l.i1; i++ {
		sec := a.p.start + int64(i)
		n, mean := a.tl.LatencyMean(sec, sec+1)
		if n == 0 {
			continue
		}
		ts = append(ts, float64(i-l.i0))
		ys = append(ys, mean)
	}
	n := len(ys)
	if n < 8 {
		return false
	}
	b, se := olsSlope(ts, ys)
	rise := b * float64(l.i1-l.i0)
	var first float64
	q := max(1, n/4)
	for _, v := range ys[:q] {
		first += v
	}
	first /= float64(q)
	return rise > base.p50 && rise > 0.5*first && b > 5*se
}

// olsSlope is the least-squares slope of y on t and its standard error.
func olsSlope(t, y []float64) (b, se float64) {
	n := float64(len(t))
	var mt, my float64
	for i := range t {
		mt += t[i]
		my += y[i]
	}
	mt /= n
	my /= n
	var stt, sty float64
	for i := range t {
		stt += (t[i] - mt) * (t[i] - mt)
		sty += (t[i] - mt) * (y[i] - my)
	}
	if stt == 0 || n < 3 {
		return 0, math.Inf(1)
	}
	b = sty / stt
	var rss float64
	for i := range t {
		r := y[i] - my - b*(t[i]-mt)
		rss += r * r
	}
	se = math.Sqrt(rss / (n - 2) / stt)
	return b, se
}

// offeredAbovePeak reports whether l is offered at least as much as the
// earlier level with the best goodput (a level on the way down a ramp is
// not "falling").
func (a *analysis) offeredAbovePeak(prev []Level, l *Level) bool {
	bi, best := -1, -1.0
	for i, p := range prev {
		if float64(p.CompletedRPS) > best {
			bi, best = i, float64(p.CompletedRPS)
		}
	}
	return bi >= 0 && l.Offered >= prev[bi].Offered
}

func join(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += "; "
		}
		out += v
	}
	return out
}

func cmpF(x, y F) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// lacksHeadroom reports whether a level shows the system, not the load
// generator, falling behind.
func lacksHeadroom(l *Level) bool { return l.Verdict != Headroom && l.Verdict != Generator }

// byLoad returns the levels sorted by offered load (stable: time order
// among equals).
func byLoad(levels []Level) []Level {
	s := slices.Clone(levels)
	slices.SortStableFunc(s, func(x, y Level) int { return cmpF(x.Offered, y.Offered) })
	return s
}

// firstLacking is the index, in s (sorted by load), of the first level
// that lacks headroom and is confirmed by the levels above it: it is the
// highest, or the next two (the next one, when only one is above) lack
// headroom too. A bad level followed by one with headroom (a stall of the
// generator's machine, one slow batch) is noise, not the knee. −1 when
// none.
func firstLacking(s []Level) int {
	for i := range s {
		if !lacksHeadroom(&s[i]) {
			continue
		}
		above := s[i+1:]
		confirmed := true
		for j := range above[:min(2, len(above))] {
			confirmed = confirmed && lacksHeadroom(&above[j])
		}
		if confirmed {
			return i
		}
	}
	return -1
}

// knee names the knee from the levels on the way up (wayUp): the last
// level with headroom below the first confirmed level without
// (firstLacking), with the range between them; when ramp steps are among
// the levels, the two-segment (hinge) fit X = a + b·min(λ, τ) +
// c·max(0, λ − τ) of completed vs offered (research/methods.md §1.5)
// places it, when it bends, below the first level without headroom.
func (a *analysis) knee(levels []Level) *Knee {
	if len(levels) == 0 {
		return nil
	}
	s := byLoad(levels)
	f := firstLacking(s)
	unit := a.res.OfferedUnit
	nan := F(math.NaN())
	if f < 0 {
		top, gen := s[len(s)-1], false
		for _, l := range s {
			gen = gen || l.Verdict == Generator
		}
		k := &Knee{Offered: top.Offered, CompletedRPS: top.CompletedRPS, P95MS: top.P95MS, Low: top.Offered, High: nan,
			Method: "not reached: every level had headroom; the knee is above the highest load tested"}
		if gen {
			// The system was sent what the generator started, not what
			// the schedule offered: the knee is above the most it got.
			sent := 0.0
			for _, l := range s {
				if l.Offered.Valid() && l.DroppedPerS.Valid() {
					sent = math.Max(sent, float64(l.Offered)-float64(l.DroppedPerS))
				}
			}
			k.Offered, k.Low = F(sent), F(sent)
			k.Method = "not reached: the load generator set the limit (iterations dropped with every VU busy while latency stayed flat); the knee is above the highest load the system was sent"
		}
		return k
	}
	if f == 0 {
		return nil
	}
	best := s[f-1]
	for _, l := range s[:f] {
		if l.Verdict == Headroom {
			best = l
		}
	}
	noun := "level"
	switch a.res.Levels {
	case "holds":
		noun = "hold"
	case "ramp":
		noun = "ramp step"
	}
	k := &Knee{Offered: best.Offered, CompletedRPS: best.CompletedRPS, P95MS: best.P95MS, Reached: true,
		Low: best.Offered, High: s[f].Offered, Method: "last " + noun + " with headroom",
		Next: fmt.Sprintf("at %.4g %s: %s", float64(s[f].Offered), unit, s[f].Reason)}
	if a.res.Levels == "holds" {
		return k
	}
	// The hinge is fitted to goodput at the offered mix: past the knee a
	// level that sheds serves cheap requests and its raw goodput keeps
	// rising, which would pull the bend down.
	mix := a.mixOf(lowLoad(levels))
	fit := slices.Clone(s)
	for i := range fit {
		if a.sheds(&fit[i]) {
			fit[i].CompletedRPS = F(math.Min(float64(fit[i].CompletedRPS), a.correctedGoodput(&fit[i], mix)))
		}
	}
	tau, ok := hinge(fit)
	if !ok || (a.model == Open && (tau >= float64(s[f].Offered) || tau < float64(best.Offered))) {
		// No bend, or (open model) a bend outside the levels' own range:
		// past a level that already lacked headroom, or below the last
		// one that had it. The last level with headroom is the knee.
		return k
	}
	// In a closed model the knee is where throughput stops growing with
	// the VUs (N* = X_max·(Z + R₀), the bend of the hinge): latency can
	// climb a little before it as the servers queue.
	x, p95 := interpolate(s, tau)
	k.Offered, k.CompletedRPS, k.P95MS = F(tau), F(x), F(p95)
	k.Low = F(math.Min(float64(k.Low), tau))
	k.High = F(math.Max(float64(k.High), tau))
	if tau >= float64(s[f].Offered) {
		// The bend is past the first level without headroom (its
		// shortfall was the climb of the hinge's first segment flattening,
		// not yet the knee): the level after the knee is the first above
		// the bend that lacks headroom, none when every level above it
		// has some (the range then ends at the bend).
		k.Next = ""
		for _, l := range s[f+1:] {
			if float64(l.Offered) > tau && lacksHeadroom(&l) {
				k.High = l.Offered
				k.Next = fmt.Sprintf("at %.4g %s: %s", float64(l.Offered), unit, l.Reason)
				break
			}
		}
	}
	k.Method = "hinge fit of completed vs offered over the levels up to the highest load"
	return k
}

// hinge fits completed = a + b·min(λ, τ) + c·max(0, λ − τ) by least squares
// over a grid of τ between the second-lowest and second-highest offered
// load, and returns τ when the fit bends down (c < b/2, b > 0) after a
// first segment that rises: by at least a third of the completed load at
// the bend from the lowest level to it (b·(τ − λ_min) ≥ (a + b·τ)/3).
// Below the knee completed load grows with the offered (X = λ in an open
// model; X = N/(Z + R₀) in a closed one, so the rise is most of X(τ)); a
// run saturated from its first levels is flat throughout, and a slight
// rise then a fall at the very end (a last level cut by the ramp-down)
// is no knee.
func hinge(levels []Level) (float64, bool) {
	var xs, ys []float64
	for _, l := range levels {
		if l.Offered.Valid() && l.CompletedRPS.Valid() {
			xs = append(xs, float64(l.Offered))
			ys = append(ys, float64(l.CompletedRPS))
		}
	}
	if len(xs) < 4 {
		return 0, false
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	lo, hi := s[1], s[len(s)-2]
	if hi <= lo {
		return 0, false
	}
	bestSSE, bestTau, bestA, bestB, bestC := math.Inf(1), 0.0, 0.0, 0.0, 0.0
	const grid = 400
	for g := 0; g <= grid; g++ {
		tau := lo + (hi-lo)*float64(g)/grid
		sse, a, b, c, ok := fit3(xs, ys, tau)
		if ok && sse < bestSSE {
			bestSSE, bestTau, bestA, bestB, bestC = sse, tau, a, b, c
		}
	}
	if math.IsInf(bestSSE, 1) || bestB <= 0 || bestC >= bestB/2 {
		return 0, false
	}
	if rise := bestB * (bestTau - s[0]); rise < (bestA+bestB*bestTau)/3 {
		return 0, false
	}
	return bestTau, true
}

// fit3 solves the 3-parameter least squares of the hinge at a fixed τ
// through its normal equations: the intercept a, the slopes b below τ and
// c above it, and the sum of squared residuals.
func fit3(xs, ys []float64, tau float64) (sse, a, b, c float64, ok bool) {
	var m [3][4]float64
	for i, x := range xs {
		row := [3]float64{1, math.Min(x, tau), math.Max(0, x-tau)}
		for r := 0; r < 3; r++ {
			for q := 0; q < 3; q++ {
				m[r][q] += row[r] * row[q]
			}
			m[r][3] += row[r] * ys[i]
		}
	}
	// Gaussian elimination with partial pivoting.
	for col := 0; col < 3; col++ {
		p := col
		for r := col + 1; r < 3; r++ {
			if math.Abs(m[r][col]) > math.Abs(m[p][col]) {
				p = r
			}
		}
		if math.Abs(m[p][col]) < 1e-12 {
			return 0, 0, 0, 0, false
		}
		m[col], m[p] = m[p], m[col]
		for r := 0; r < 3; r++ {
			if r == col {
				continue
			}
			f := m[r][col] / m[col][col]
			for q := col; q < 4; q++ {
				m[r][q] -= f * m[col][q]
			}
		}
	}
	a0, b, c := m[0][3]/m[0][0], m[1][3]/m[1][1], m[2][3]/m[2][2]
	for i, x := range xs {
		d := ys[i] - (a0 + b*math.Min(x, tau) + c*math.Max(0, x-tau))
		sse += d * d
	}
	return sse, a0, b, c, true
}

// interpolate returns completed and p95 at offered load x, linearly between
// the levels (sorted by offered) around it.
func interpolate(levels []Level, x float64) (completed, p95 float64) {
	s := slices.Clone(levels)
	slices.SortStableFunc(s, func(p, q Level) int { return cmpF(p.Offered, q.Offered) })
	for i := 1; i < len(s); i++ {
		x0, x1 := float64(s[i-1].Offered), float64(s[i].Offered)
		if x >= x0 && x <= x1 {
			t := 0.0
			if x1 > x0 {
				t = (x - x0) / (x1 - x0)
			}
			return lerp(float64(s[i-1].CompletedRPS), float64(s[i].CompletedRPS), t), lerp(float64(s[i-1].P95MS), float64(s[i].P95MS), t)
		}
	}
	l := s[len(s)-1]
	return float64(l.CompletedRPS), float64(l.P95MS)
}

func lerp(a, b, t float64) float64 { return a + t*(b-a) }

// sheds reports whether a level's error rate grew over the low-load rate
// by more than ErrorLimit: the system rejects a share of its load.
func (a *analysis) sheds(l *Level) bool {
	return l.ErrorRate.Valid() && float64(l.ErrorRate)-a.baseErr > a.opt.ErrorLimit
}

// minIntervalS is the fewest seconds of goodput whose spread alone gives
// the ceiling's interval (a t interval on two degrees of freedom); fewer
// also get the counting interval.
const minIntervalS = 3

// countInterval is the exact 95 % interval of the rate of a Poisson count
// of total events over secs seconds, per second (Garwood 1936: the
// χ² quantiles χ²(0.025; 2k)/2 and χ²(0.975; 2k + 2)/2 for k events;
// the lower bound is 0 for k = 0). A fractional total (a goodput scaled
// to the offered mix) is taken as it is.
func countInterval(total, secs float64) (lo, hi float64) {
	if !(secs > 0) || !(total >= 0) {
		return math.NaN(), math.NaN()
	}
	if total > 0 {
		lo = distuv.ChiSquared{K: 2 * total}.Quantile(0.025) / 2
	}
	hi = distuv.ChiSquared{K: 2*total + 2}.Quantile(0.975) / 2
	return lo / secs, hi / secs
}

// poolSpread is how far (relative) a ramp step's offered load may lie
// from the first step of the group pooledSteps pools it into.
const poolSpread = 0.10

// similarLoad reports whether offered load x lies within poolSpread of g.
func similarLoad(x, g F) bool {
	return x.Valid() && g.Valid() && math.Abs(float64(x-g)) <= poolSpread*float64(g)
}

// pooledSteps returns levels with each run of consecutive, contiguous
// ramp steps shorter than MinHoldNS and of similar offered load (within
// poolSpread of the group's first) pooled into steps of at least
// MinHoldNS where they reach it (a short tail joins the group before when
// its load is similar), aggregated and judged again with the rest
// against base; levels itself when none is that short. Only the ceiling
// reads them: its offered load can be a pooled step's, between two rows
// of the levels table. The ceiling takes the levels with the most goodput, and among
// many short steps those are the ones whose counting noise ran high (the
// maximum of noisy rates is biased up, by about their spread): a ramp
// cut into 2-s steps past the knee gave a ceiling 6 % above the holds
// the same run gave with one second fewer.
func (a *analysis) pooledSteps(levels []Level, base baseline) []Level {
	minHold := a.opt.MinHoldNS / 1e9
	short := func(l *Level) bool { return l.Kind == RampStep && int64(l.i1-l.i0) < minHold }
	found := false
	for i := range levels {
		found = found || short(&levels[i])
	}
	if !found {
		return levels
	}
	var out []Level
	for i := 0; i < len(levels); {
		if !short(&levels[i]) {
			out = append(out, levels[i])
			i++
			continue
		}
		// A run of short, contiguous steps.
		j := i + 1
		for j < len(levels) && short(&levels[j]) && levels[j].i0 == levels[j-1].i1 {
			j++
		}
		// Groups of similar offered load (within poolSpread of the
		// group's first step: a fast ramp's steps stay apart).
		type group struct {
			i0, i1  int
			offered F
		}
		var groups []group
		for k := i; k < j; {
			g, e := group{levels[k].i0, levels[k].i1, levels[k].Offered}, k
			for e < j-1 && int64(g.i1-g.i0) < minHold && similarLoad(levels[e+1].Offered, g.offered) {
				e++
				g.i1 = levels[e].i1
			}
			if n := len(groups); n > 0 && int64(g.i1-g.i0) < minHold && groups[n-1].i1 == g.i0 && similarLoad(g.offered, groups[n-1].offered) {
				groups[n-1].i1 = g.i1 // a short tail joins the group before
			} else {
				groups = append(groups, g)
			}
			k = e + 1
		}
		for _, g := range groups {
			if l := a.aggregate(g.i0, g.i1, a.opt.Percentiles); a.loadLevel(&l) {
				l.Kind = RampStep
				out = append(out, l)
			}
		}
		i = j
	}
	a.judge(out, base)
	return out
}

// ceiling is the goodput plateau the system reached once it stopped
// following the offered load, over the levels past the knee (the first
// confirmed level without headroom, see firstLacking, and those offered
// more than the knee that lack headroom too):
//
//   - when the last of them that does not shed (sheds) is the run's
//     highest load and still gained > 3 % over the one before, beyond
//     noise (gainedOver), the test ended before the ceiling: that level,
//     marked not reached;
//   - when a level that does not shed served > 3 % more than the first
//     three levels past the knee, and beyond noise (gainedOver), goodput
//     kept rising: the top three that do not shed;
//   - otherwise the three levels with the most goodput, a shedding level
//     counting only up to 3 % above the best level that does not shed or
//     the first level that sheds, whichever served more (fast rejections
//     shift the served mix to cheap requests: goodput can creep up while
//     failing, reported beside the ceiling, not as it), joined by every
//     other level past the knee that does not shed and whose goodput lies
//     within noise of the middle one of those three (withinNoise).
//
// The ceiling is the middle one (of two, the higher: a rate a level served),
// with a 95 % t interval of the mean per-second goodput pooled over them
// (under minIntervalS seconds, at least its counting interval).
// When every level had headroom it is the highest goodput seen, marked not
// reached; when the load generator set the limit (levels with the
// Generator verdict and none without headroom), limited_by says so.
func (a *analysis) ceiling(levels []Level) *Ceiling {
	peak := -1
	for i, l := range levels {
		if l.CompletedRPS.Valid() && (peak < 0 || l.CompletedRPS > levels[peak].CompletedRPS) {
			peak = i
		}
	}
	if peak < 0 {
		return nil
	}
	s := byLoad(levels)
	f := firstLacking(s)
	var past []Level
	kneeOffered := F(0)
	if f >= 0 {
		for _, l := range s[:f] {
			kneeOffered = max(kneeOffered, l.Offered)
		}
		for _, l := range s[f:] {
			if lacksHeadroom(&l) && l.Offered >= kneeOffered && l.CompletedRPS.Valid() {
				past = append(past, l)
			}
		}
	}
	plateau := past[:min(3, len(past))]
	c := &Ceiling{PeakCompletedRPS: levels[peak].CompletedRPS, PeakErrorRate: levels[peak].ErrorRate}
	unit := a.completedUnit()
	rising, unreached, topShort := false, false, false
	var before F    // unreached: the goodput of the level before the last
	var mid Level   // the middle of the plateau's top three, when pooled
	pooled := false // the plateau was pooled around mid (withinNoise)
	if len(plateau) > 0 {
		topL := plateau[0] // the first three's most goodput
		for _, l := range plateau {
			if l.CompletedRPS > topL.CompletedRPS {
				topL = l
			}
		}
		var ok []Level // past the knee, not shedding, by offered load
		for _, l := range past {
			if !a.sheds(&l) {
				ok = append(ok, l)
			}
		}
		best := slices.Clone(ok)
		slices.SortStableFunc(best, func(x, y Level) int { return cmp.Compare(y.CompletedRPS, x.CompletedRPS) })
		maxOffered := s[len(s)-1].Offered
		switch n := len(ok); {
		// Still rising at the highest load, and keeping up with it: not
		// reached. A top level that fell short of what it was offered
		// served all the system could: its goodput is the ceiling.
		case n >= 2 && ok[n-1].Offered == maxOffered && ok[n-1].CompletedRPS == best[0].CompletedRPS && a.gainedOver(&ok[n-1], &ok[n-2]):
			plateau, before = ok[n-1:], ok[n-2].CompletedRPS
			unreached, topShort = !ok[n-1].short, ok[n-1].short
		case n > 0 && a.gainedOver(&best[0], &topL):
			plateau, rising = best[:min(3, n)], true
		default:
			// The three levels past the knee with the most goodput, a
			// shedding level counting only up to 3 % above the best level
			// that does not shed or the first that sheds, whichever served
			// more (that one meets capacity; later ones can lift goodput
			// while failing, as rejections are fast).
			limit := 0.0
			if n > 0 {
				limit = float64(best[0].CompletedRPS)
			}
			for _, l := range past {
				if a.sheds(&l) {
					limit = max(limit, float64(l.CompletedRPS))
					break
				}
			}
			limit *= 1.03
			var cand []Level
			for _, l := range past {
				if float64(l.CompletedRPS) <= limit {
					cand = append(cand, l)
				}
			}
			slices.SortStableFunc(cand, func(x, y Level) int { return cmp.Compare(y.CompletedRPS, x.CompletedRPS) })
			plateau = cand[:min(3, len(cand))]
			if len(plateau) > 0 {
				mid, pooled = plateau[len(plateau)-1-len(plateau)/2], true
				plateau = append(plateau, a.withinNoise(cand[len(plateau):], &mid)...)
			}
		}
	}
	gen := false
	for _, l := range s {
		gen = gen || l.Verdict == Generator
	}
	switch {
	case len(plateau) == 0 && gen:
		l := levels[peak]
		plateau = []Level{l}
		c.LimitedBy = LimitGenerator
		c.Note = a.generatorNote(s)
	case len(plateau) == 0:
		plateau = []Level{levels[peak]}
		c.Note = "completed load followed the offered load at every level: the ceiling is at least this"
	default:
		c.Reached = !unreached
		if c.Reached {
			c.LimitedBy = LimitServer
			// A rate limiter takes headroom a level below had: with
			// none below (f == 0), "latency flat" is the level against
			// itself, which says nothing.
			if f > 0 && a.refusedFlat(&s[f]) {
				c.LimitedBy = LimitRateLimiter
				c.Note = fmt.Sprintf("refusals (%.0f%% of the failures say too many requests) took the headroom at %.4g %s while latency stayed flat: a rate limiter set this ceiling, not the servers behind it; a limiter keyed by client (IP, token) sees a load generator as one client",
					100*s[f].nLimited/s[f].nFailed, float64(s[f].Offered), a.res.OfferedUnit)
			}
		}
	}
	// At the offered mix: a plateau level that sheds served a mix tilted to
	// cheap requests (correctedGoodput), so each level's goodput, and its
	// seconds in the interval below, are scaled to the offered mix.
	mix := a.mixOf(lowLoad(levels))
	vals := make([]float64, len(plateau))
	served := make([]float64, len(plateau))
	factors := make([]float64, len(plateau))
	for i := range plateau {
		raw := float64(plateau[i].CompletedRPS)
		served[i], vals[i], factors[i] = raw, raw, 1
		if raw > 0 && a.sheds(&plateau[i]) {
			factors[i] = math.Min(1, a.correctedGoodput(&plateau[i], mix)/raw)
			vals[i] = raw * factors[i]
		}
	}
	med, mi := medianAt(vals)
	c.CompletedRPS = F(med)
	c.Offered, c.ErrorRate = plateau[mi].Offered, plateau[mi].ErrorRate
	if rawMed, _ := medianAt(served); rawMed > 1.005*med {
		c.ServedMixRPS = F(rawMed)
	}
	// Per-second goodput pooled over the plateau levels, over their
	// seconds of data (a second without any sample is a hole in the
	// record, not a second that served nothing).
	src := a.p.completed
	var xs []float64
	for k, l := range plateau {
		for i := l.i0; i < l.i1; i++ {
			if a.p.missing != nil && a.p.missing[i] {
				continue
			}
			xs = append(xs, src.at(i)*factors[k])
		}
	}
	n := float64(len(xs))
	var mean, ss float64
	for _, v := range xs {
		mean += v
	}
	mean /= n
	for _, v := range xs {
		ss += (v - mean) * (v - mean)
	}
	// The t interval; under minIntervalS seconds pooled, at least the
	// counting interval of their goodput (countInterval): one or two
	// seconds have no spread to speak of (one has none: the interval was
	// that second's value alone), yet their count carries counting noise.
	lo, hi := math.Inf(1), math.Inf(-1)
	if n < minIntervalS {
		lo, hi = countInterval(mean*n, n)
	}
	if n >= 2 {
		half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.975) * math.Sqrt(ss/(n-1)) / math.Sqrt(n)
		lo, hi = math.Min(lo, mean-half), math.Max(hi, mean+half)
	}
	// Levels of one plateau also differ by more than their seconds'
	// counting noise (the mix of requests and the queue drift from level
	// to level): with three or more within noise of the middle one
	// (withinNoise), the random-effects interval of their means
	// (randomEffects) widens the interval when it is the wider.
	if pooled {
		var means, ses []float64
		gm, sm := float64(mid.CompletedRPS), a.goodputSE(&mid)
		for i := range plateau {
			if se, ok := a.nearMid(&plateau[i], gm, sm); ok {
				means = append(means, vals[i])
				ses = append(ses, se*factors[i])
			}
		}
		if len(means) >= 3 {
			if m, se := randomEffects(means, ses); !math.IsNaN(se) {
				lo, hi = math.Min(lo, m-1.96*se), math.Max(hi, m+1.96*se)
			}
		}
	}
	c.Low, c.High = F(math.Max(0, math.Min(med, lo))), F(math.Max(med, hi))
	switch {
	case unreached:
		c.Note = fmt.Sprintf("goodput was still rising at the highest load without shedding (%.0f → %.0f %s over the last two levels): the ceiling is at least this; push the load further to find it",
			float64(before), float64(c.CompletedRPS), unit)
	case topShort:
		c.Note = fmt.Sprintf("goodput rose to the highest load (%.0f → %.0f %s over the last two levels) but fell short of what that level was offered: the system served all it could there",
			float64(before), float64(c.CompletedRPS), unit)
	case rising:
		c.Note = fmt.Sprintf("goodput kept rising past the knee (from %.0f to %.0f %s without shedding): the ceiling is the highest goodput sustained, not a plateau",
			float64(past[0].CompletedRPS), float64(c.CompletedRPS), unit)
	case c.Reached && float64(c.PeakCompletedRPS) > 1.03*float64(c.CompletedRPS) && c.PeakErrorRate.Valid() && float64(c.PeakErrorRate)-a.baseErr > a.opt.ErrorLimit:
		why := "a level that sheds that much does not sustain it, so that is not capacity"
		if len(a.tl.HistNames()) > 1 {
			why = "rejections are fast and shift the served mix to cheap requests, so that is not capacity"
		}
		c.Note = fmt.Sprintf("goodput reached %.0f %s only while %.0f%% of requests failed: %s",
			float64(c.PeakCompletedRPS), unit, 100*float64(c.PeakErrorRate), why)
	}
	if c.ServedMixRPS > 0 {
		mixNote := fmt.Sprintf("taken at the offered mix of requests: the levels that shed served %.0f %s of a mix tilted to cheap ones", float64(c.ServedMixRPS), unit)
		if c.Note == "" {
			c.Note = mixNote
		} else {
			c.Note += "; the ceiling is " + mixNote
		}
	}
	return c
}

// gainedOver reports whether level x served more goodput than level y
// by more than 3 % and beyond noise: by more than plateauZ standard
// errors of the difference (goodputSE). Between 8-s ramp steps of a
// saturated closed ramp, 3 % is about one standard error: the top one of
// a dozen such steps lies 3 % above the first three by chance alone.
func (a *analysis) gainedOver(x, y *Level) bool {
	gx, gy := float64(x.CompletedRPS), float64(y.CompletedRPS)
	sx, sy := a.goodputSE(x), a.goodputSE(y)
	return gx > 1.03*gy && gx-gy > plateauZ*math.Sqrt(sx*sx+sy*sy)
}

// plateauZ is how many standard errors of their difference a level's
// goodput may lie from the plateau's middle level and still be taken as
// the same plateau (two-sided 95 %).
const plateauZ = 1.96

// withinNoise returns the levels of rest whose goodput does not differ
// significantly from mid's, the middle of the three levels with the most
// goodput: |g_mid − g| ≤ plateauZ · √(se_mid² + se_g²), each se the
// standard error of the level's mean per-second goodput (goodputSE).
// The ceiling is the median of the plateau's levels; with many saturated
// levels (a ramp of VUs past the knee, each step a level) the top three
// alone are the ones whose noise ran high, a median biased up by about a
// level's standard error (2–3 % on simulated closed ramps of known
// capacity), while a level truly below the plateau (retrograde
// throughput, a rising ramp below the knee) lies outside the noise and
// stays out. A level that sheds is not added: its goodput is corrected to
// the offered mix, an estimate, not a measurement.
func (a *analysis) withinNoise(rest []Level, mid *Level) []Level {
	gm, sm := float64(mid.CompletedRPS), a.goodputSE(mid)
	var out []Level
	for i := range rest {
		if _, ok := a.nearMid(&rest[i], gm, sm); ok {
			out = append(out, rest[i])
		}
	}
	return out
}

// nearMid is withinNoise's test of one level l against the middle level's
// goodput gm and standard error sm; it returns l's standard error too.
func (a *analysis) nearMid(l *Level, gm, sm float64) (se float64, ok bool) {
	if a.sheds(l) {
		return 0, false // its goodput is of a mix tilted to cheap requests
	}
	se = a.goodputSE(l)
	return se, math.Abs(gm-float64(l.CompletedRPS)) <= plateauZ*math.Sqrt(sm*sm+se*se)
}

// randomEffects is the DerSimonian–Laird random-effects mean of the level
// means (req/s) with standard errors ses, and its standard error
// (DerSimonian & Laird, "Meta-analysis in clinical trials", Controlled
// Clinical Trials 7, 1986): with fixed-effect weights w = 1/se², the
// between-level variance τ² = max(0, (Q − (k−1)) / (Σw − Σw²/Σw)), Q =
// Σw(m − m̄)², then weights 1/(se² + τ²). A long hold weighs more than a
// 1-s ramp step, and levels that differ beyond their noise widen it.
// A level whose standard error is not a positive number makes both NaN.
func randomEffects(means, ses []float64) (mean, se float64) {
	for _, e := range ses {
		if !(e > 0) || math.IsInf(e, 0) {
			return math.NaN(), math.NaN()
		}
	}
	k := float64(len(means))
	var sw, sw2, swm float64
	for i, m := range means {
		w := 1 / (ses[i] * ses[i])
		sw, sw2, swm = sw+w, sw2+w*w, swm+w*m
	}
	fixed := swm / sw
	q := 0.0
	for i, m := range means {
		q += (m - fixed) * (m - fixed) / (ses[i] * ses[i])
	}
	tau2 := math.Max(0, (q-(k-1))/(sw-sw2/sw))
	var sr, srm float64
	for i, m := range means {
		w := 1 / (ses[i]*ses[i] + tau2)
		sr, srm = sr+w, srm+w*m
	}
	return srm / sr, 1 / math.Sqrt(sr)
}

// goodputSE is the standard error (req/s) of level l's mean per-second
// goodput: the sample standard deviation of its seconds of data over √n,
// and at least the Poisson counting error √(g/n) (one second, or seconds
// that happen to agree, have no spread to speak of).
func (a *analysis) goodputSE(l *Level) float64 {
	var xs []float64
	for i := l.i0; i < l.i1; i++ {
		if a.p.missing != nil && a.p.missing[i] {
			continue
		}
		xs = append(xs, a.p.completed.at(i))
	}
	n := float64(len(xs))
	if n == 0 {
		return math.Inf(1)
	}
	mean := 0.0
	for _, v := range xs {
		mean += v
	}
	mean /= n
	se := math.Sqrt(math.Max(mean, 0) / n)
	if n >= 2 {
		ss := 0.0
		for _, v := range xs {
			ss += (v - mean) * (v - mean)
		}
		se = math.Max(se, math.Sqrt(ss/(n-1)/n))
	}
	return se
}

// completedUnit is the unit of the completed rates: the protocol's
// ("req/s", "calls/s", "sessions/s"), iterations/s without requests.
func (a *analysis) completedUnit() string {
	if a.p.msgs {
		return "msgs/s"
	}
	if !a.hasHTTP {
		return "iterations/s"
	}
	return a.tl.Protocol().Unit()
}

// generatorNote says what the load generator lacked: by Little's law
// (L = λW) the VUs an arrival rate needs are the rate times the iteration
// duration; at the level that dropped most, that is against vus_max.
func (a *analysis) generatorNote(levels []Level) string {
	var worst *Level
	for i := range levels {
		if levels[i].Verdict == Generator && (worst == nil || levels[i].DroppedPerS > worst.DroppedPerS) {
			worst = &levels[i]
		}
	}
	if worst == nil {
		return ""
	}
	d := a.tl.IterationDurations(a.p.start+int64(worst.i0), a.p.start+int64(worst.i1))
	need := float64(worst.Offered) * d.Mean() / 1000
	msg := fmt.Sprintf("the load generator set the limit, not the system: at %.4g %s offered, %.2g iterations/s were dropped with every VU busy (%.0f of vus_max %.0f) while latency stayed flat",
		float64(worst.Offered), a.res.OfferedUnit, float64(worst.DroppedPerS), float64(worst.VUs), a.vusMaxAt(worst))
	if !math.IsNaN(need) && need > 0 {
		msg += fmt.Sprintf("; by Little's law %.4g it/s × %.4g ms needs about %.0f VUs: raise maxVUs (and preAllocatedVUs) to at least that and run again", float64(worst.Offered), d.Mean(), math.Ceil(need))
	}
	return msg + "; the ceiling is at least this"
}

// medianAt returns the median of xs (the upper one of an even count) and
// its index in xs; xs is not empty.
func medianAt(xs []float64) (float64, int) {
	order := slices.Clone(xs)
	slices.Sort(order)
	m := order[len(order)/2]
	return m, slices.Index(xs, m)
}

// mixModel is what corrects goodput for the shift of the served mix under
// shedding: per request name (timeline.Timeline.HistNames), the mean
// latency of its successful responses at low load, a stand-in for its
// service time S_k.
type mixModel struct {
	serviceMS []float64
	// order is the name numbers sorted by name: sums in a fixed order, as
	// the numbering depends on which reader saw a name first.
	order []int
	ok    bool
}

// mixOf builds the mix model from the baseline levels. It is not ok
// (goodput is then taken as it is) with fewer than two names, or when the
// names with histograms miss more than 5 % of the successful responses.
func (a *analysis) mixOf(low []Level) mixModel {
	names := a.tl.HistNames()
	m := mixModel{serviceMS: make([]float64, len(names)), order: make([]int, len(names))}
	for i := range m.order {
		m.order[i] = i
	}
	slices.SortFunc(m.order, func(x, y int) int { return cmp.Compare(names[x], names[y]) })
	if len(names) < 2 || len(low) == 0 {
		return m
	}
	var total float64
	hs := make([]timeline.Hist, len(names))
	for _, l := range low {
		xs, _ := a.tl.NameMix(a.p.start+int64(l.i0), a.p.start+int64(l.i1))
		for i := range min(len(xs), len(hs)) {
			for b := range xs[i] {
				hs[i][b] += xs[i][b]
			}
		}
	}
	for _, i := range m.order {
		h := &hs[i]
		n := float64(h.Total())
		if n == 0 {
			continue
		}
		var sum float64
		for b, c := range h {
			sum += float64(c) * (timeline.BinLow(b) + timeline.BinLow(b+1)) / 2
		}
		m.serviceMS[i] = sum / n
		total += n
	}
	var counted float64
	for _, l := range low {
		counted += float64(l.Count)
	}
	// Only goodput counted in the stream's successful responses is
	// corrected: not WebSocket messages, not iterations.
	m.ok = total > 0 && counted > 0 && total >= 0.95*counted && a.hasHTTP && !a.p.msgs
	return m
}

// correctedGoodput is a level's goodput at its offered mix: by the
// utilisation law the servers' busy time per second is Σ_k X_k·S_k (X_k
// name k's successful responses per second; rejected requests take no
// service), and at the offered mix m_k (the level's requests of name k,
// failed or not, over all of them) that busy time serves Σ_k X_k·S_k ÷
// Σ_k m_k·S_k responses per second (Denning & Buzen 1978, "The
// operational analysis of queueing network models", §3). Under shedding
// the served mix tilts to cheap requests and raw goodput overstates the
// capacity; without failures the served mix is the offered one and the
// two are equal. It returns the raw goodput when the model is not ok.
func (a *analysis) correctedGoodput(l *Level, m mixModel) float64 {
	raw := float64(l.CompletedRPS)
	if !m.ok || !(raw > 0) {
		return raw
	}
	from, to := a.p.start+int64(l.i0), a.p.start+int64(l.i1)
	var busy, per, offered float64
	hs, failed := a.tl.NameMix(from, to)
	for _, i := range m.order {
		s := m.serviceMS[i]
		if s == 0 || i >= len(hs) {
			continue
		}
		ok := float64(hs[i].Total())
		busy += ok / l.Seconds * s
		all := ok + float64(failed[i])
		per += all * s
		offered += all
	}
	if !(busy > 0) || !(per > 0) {
		return raw
	}
	return busy / (per / offered)
}
