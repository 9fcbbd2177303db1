package knee

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// judge gives every level a verdict (research/methods.md §1.1 rules):
// headroom when completed load follows the offered load, p95 is within
// LatencyFactor of the low-load p95 and errors/drops stay at their
// low-load level; overloaded when the level sheds more than ErrorLimit of
// its requests or its goodput fell below 90 % of an earlier level's;
// saturated otherwise.
func (a *analysis) judge(levels []Level) {
	if len(levels) == 0 {
		return
	}
	low := a.lowest(levels, 2)
	baseP95, baseErr, perVU := math.NaN(), 0.0, math.NaN()
	var p95s, errs, per []float64
	for _, l := range low {
		if l.P95MS.Valid() {
			p95s = append(p95s, float64(l.P95MS))
		}
		if l.ErrorRate.Valid() {
			errs = append(errs, float64(l.ErrorRate))
		}
		if l.VUs.Valid() && l.VUs > 0 {
			per = append(per, float64(l.CompletedRPS/l.VUs))
		}
	}
	if len(p95s) > 0 {
		baseP95 = slices.Min(p95s)
	}
	if len(errs) > 0 {
		baseErr = slices.Min(errs)
	}
	if len(per) > 0 {
		perVU = slices.Max(per)
	}
	bestSoFar := 0.0
	for i := range levels {
		l := &levels[i]
		var why []string
		follows := true
		if a.model == Open {
			if l.OfferedRPS.Valid() && l.OfferedRPS > 0 && float64(l.CompletedRPS) < a.opt.Follow*float64(l.OfferedRPS) {
				follows = false
				why = append(why, fmt.Sprintf("completed %.0f%% of offered", 100*float64(l.CompletedRPS/l.OfferedRPS)))
			}
		} else if !math.IsNaN(perVU) && l.VUs.Valid() && l.VUs > 0 {
			lin := perVU * float64(l.VUs)
			if float64(l.CompletedRPS) < (a.opt.Follow-0.05)*lin {
				follows = false
				why = append(why, fmt.Sprintf("throughput %.0f%% of linear in VUs", 100*float64(l.CompletedRPS)/lin))
			}
		}
		latOK := true
		if !math.IsNaN(baseP95) && l.P95MS.Valid() && float64(l.P95MS) > a.opt.LatencyFactor*baseP95 {
			latOK = false
			why = append(why, fmt.Sprintf("p95 %.3g× low-load", float64(l.P95MS)/baseP95))
		}
		errOK := true
		if l.ErrorRate.Valid() && float64(l.ErrorRate) > baseErr+0.01 {
			errOK = false
			why = append(why, fmt.Sprintf("errors %.1f%%", 100*float64(l.ErrorRate)))
		}
		if a.model == Open && l.Offered > 0 && float64(l.DroppedPerS) > 0.005*float64(l.Offered) {
			errOK = false
			why = append(why, fmt.Sprintf("%.2g dropped iterations/s", float64(l.DroppedPerS)))
		}
		fell := bestSoFar > 0 && float64(l.CompletedRPS) < 0.9*bestSoFar && l.Offered.Valid() && a.offeredAbovePeak(levels[:i], l)
		switch {
		case follows && latOK && errOK:
			l.Verdict, l.Reason = Headroom, "completed follows offered, latency flat"
		case (l.ErrorRate.Valid() && float64(l.ErrorRate) > a.opt.ErrorLimit) || fell:
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

// lowest returns up to k levels with the lowest offered load that carried
// requests.
func (a *analysis) lowest(levels []Level, k int) []Level {
	c := make([]Level, 0, len(levels))
	for _, l := range levels {
		if l.Offered.Valid() && l.Offered > 0 && l.Count > 0 {
			c = append(c, l)
		}
	}
	slices.SortStableFunc(c, func(x, y Level) int { return cmpF(x.Offered, y.Offered) })
	return c[:min(k, len(c))]
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

// knee picks the last level, in time order, before the first level that is
// not headroom. On a continuous ramp it also fits the two-segment hinge
// X = a + b·min(λ, τ) + c·max(0, λ − τ) to completed vs offered
// (research/methods.md §1.5) and reports τ when the fit bends.
func (a *analysis) knee(levels []Level) *Knee {
	if len(levels) == 0 {
		return nil
	}
	// On a continuous ramp only the way up counts: on the way down a
	// closed model's throughput lags its falling VUs and an open model's
	// queue drains, so those levels say nothing about where it bent.
	if a.res.Levels == "ramp" {
		top := 0
		for i, l := range levels {
			if l.Offered > levels[top].Offered {
				top = i
			}
		}
		levels = levels[:top+1]
	}
	first := -1
	for i, l := range levels {
		if l.Verdict != Headroom {
			first = i
			break
		}
	}
	unit := a.res.OfferedUnit
	var k *Knee
	switch {
	case first < 0:
		top := levels[0]
		for _, l := range levels {
			if l.Offered > top.Offered {
				top = l
			}
		}
		return &Knee{Offered: top.Offered, CompletedRPS: top.CompletedRPS, P95MS: top.P95MS,
			Method: "not reached: every level had headroom; the knee is above the highest load tested"}
	case first == 0:
		k = nil
	default:
		best := levels[0]
		for _, l := range levels[:first] {
			if l.Offered > best.Offered {
				best = l
			}
		}
		k = &Knee{Offered: best.Offered, CompletedRPS: best.CompletedRPS, P95MS: best.P95MS, Reached: true,
			Method: "last " + map[bool]string{true: "hold", false: "ramp step"}[a.res.Levels == "holds"] + " with headroom",
			Next:   fmt.Sprintf("at %.4g %s: %s", float64(levels[first].Offered), unit, levels[first].Reason)}
	}
	if a.res.Levels != "ramp" {
		return k
	}
	tau, ok := hinge(levels)
	if !ok {
		return k
	}
	// The bend cannot lie past a step that already lacked headroom: then
	// the last step with headroom is the knee.
	if first > 0 && tau >= float64(levels[first].Offered) {
		return k
	}
	if first == 0 {
		return nil
	}
	x, p95 := interpolate(levels, tau)
	next := ""
	for _, l := range levels {
		if float64(l.Offered) > tau && l.Verdict != Headroom {
			next = fmt.Sprintf("at %.4g %s: %s", float64(l.Offered), unit, l.Reason)
			break
		}
	}
	return &Knee{Offered: F(tau), CompletedRPS: F(x), P95MS: F(p95), Reached: true, Method: "hinge fit of completed vs offered over the ramp steps up to the highest load", Next: next}
}

// hinge fits completed = a + b·min(λ, τ) + c·max(0, λ − τ) by least squares
// over a grid of τ between the second-lowest and second-highest offered
// load, and returns τ when the fit bends down (c < b/2, b > 0).
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
	bestSSE, bestTau, bestB, bestC := math.Inf(1), 0.0, 0.0, 0.0
	const grid = 400
	for g := 0; g <= grid; g++ {
		tau := lo + (hi-lo)*float64(g)/grid
		sse, b, c, ok := fit3(xs, ys, tau)
		if ok && sse < bestSSE {
			bestSSE, bestTau, bestB, bestC = sse, tau, b, c
		}
	}
	if math.IsInf(bestSSE, 1) || bestB <= 0 || bestC >= bestB/2 {
		return 0, false
	}
	return bestTau, true
}

// fit3 solves the 3-parameter least squares of the hinge at a fixed τ
// through its normal equations.
func fit3(xs, ys []float64, tau float64) (sse, b, c float64, ok bool) {
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
			return 0, 0, 0, false
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
	return sse, b, c, true
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

// ceiling is the goodput plateau the system reached once it stopped
// following the offered load, over the levels past the knee (offered load
// above the knee's, a verdict other than headroom; holds and ramp steps
// that sent no request are not levels, see loadLevel):
//
//   - when the last of them that does not shed (errors ≤ ErrorLimit) is
//     the run's highest load and still gained > 3 % over the one before,
//     the test ended before the ceiling: that level, marked not reached;
//   - when a level that does not shed served > 3 % more than the first
//     three levels past the knee, goodput kept rising: the top three that
//     do not shed;
//   - otherwise the three levels with the most goodput, a shedding level
//     counting only up to 3 % above the best level that does not shed or
//     the first level that sheds, whichever served more (fast rejections
//     shift the served mix to cheap requests: goodput can creep up while
//     failing, reported beside the ceiling, not as it).
//
// The ceiling is the middle one (of two, the higher: a rate a level served),
// with a 95 % t interval of the mean per-second goodput pooled over them.
// When every level had headroom it is the highest goodput seen, marked not
// reached.
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
	first := -1
	for i, l := range levels {
		if l.Verdict != Headroom {
			first = i
			break
		}
	}
	var plateau []Level
	kneeOffered := F(0)
	if first >= 0 {
		for _, l := range levels[:first] {
			kneeOffered = max(kneeOffered, l.Offered)
		}
		for _, l := range levels[first:] {
			if len(plateau) == 3 {
				break
			}
			if l.Verdict != Headroom && l.Offered >= kneeOffered && l.CompletedRPS.Valid() {
				plateau = append(plateau, l)
			}
		}
	}
	c := &Ceiling{PeakCompletedRPS: levels[peak].CompletedRPS, PeakErrorRate: levels[peak].ErrorRate}
	rising, unreached := false, false
	var before F // unreached: the goodput of the level before the last
	if len(plateau) > 0 {
		// Goodput that kept rising past the knee (saturated: latency grows
		// faster than throughput, but throughput still grows) has no
		// plateau there. Among the levels past the knee that do not shed,
		// by offered load: if the last one is the run's highest load and
		// still gained > 3 % over the one before, the test ended before the
		// ceiling (at least that much);
		// otherwise the ceiling is the highest goodput sustained, the
		// median of the top three.
		top := 0.0
		for _, l := range plateau {
			top = max(top, float64(l.CompletedRPS))
		}
		var ok []Level
		for _, l := range levels[first:] {
			if l.Verdict != Headroom && l.Offered >= kneeOffered && l.CompletedRPS.Valid() && l.ErrorRate.Valid() && float64(l.ErrorRate) <= a.opt.ErrorLimit {
				ok = append(ok, l)
			}
		}
		slices.SortStableFunc(ok, func(x, y Level) int { return cmp.Compare(x.Offered, y.Offered) })
		best := slices.Clone(ok)
		slices.SortStableFunc(best, func(x, y Level) int { return cmp.Compare(y.CompletedRPS, x.CompletedRPS) })
		maxOffered := F(0)
		for _, l := range levels {
			maxOffered = max(maxOffered, l.Offered)
		}
		switch n := len(ok); {
		case n >= 2 && ok[n-1].Offered == maxOffered && ok[n-1].CompletedRPS == best[0].CompletedRPS && float64(ok[n-1].CompletedRPS) > 1.03*float64(ok[n-2].CompletedRPS):
			plateau, unreached, before = ok[n-1:], true, ok[n-2].CompletedRPS
		case n > 0 && float64(best[0].CompletedRPS) > 1.03*top:
			plateau, rising = best[:min(3, n)], true
		case n > 0:
			// The plateau is the three levels past the knee with the most
			// goodput; a shedding level counts only up to 3 % above the
			// best level that does not shed or the first that sheds,
			// whichever served more (that one meets capacity; later ones
			// can lift goodput while failing, as rejections are fast).
			limit := float64(best[0].CompletedRPS)
			var past []Level
			for _, l := range levels[first:] {
				if l.Verdict != Headroom && l.Offered >= kneeOffered && l.CompletedRPS.Valid() {
					past = append(past, l)
				}
			}
			byLoad := slices.Clone(past)
			slices.SortStableFunc(byLoad, func(x, y Level) int { return cmp.Compare(x.Offered, y.Offered) })
			for _, l := range byLoad {
				if l.ErrorRate.Valid() && float64(l.ErrorRate) > a.opt.ErrorLimit {
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
		}
	}
	if len(plateau) == 0 {
		l := levels[peak]
		plateau = []Level{l}
		c.Note = "completed load followed the offered load at every level: the ceiling is at least this"
	} else {
		c.Reached = !unreached
	}
	vals := make([]float64, len(plateau))
	for i, l := range plateau {
		vals[i] = float64(l.CompletedRPS)
	}
	order := slices.Clone(vals)
	slices.Sort(order)
	med := order[len(order)/2]
	mi := slices.Index(vals, med)
	c.CompletedRPS = F(med)
	c.Offered, c.ErrorRate = plateau[mi].Offered, plateau[mi].ErrorRate
	// Per-second goodput pooled over the plateau levels.
	src := a.p.ok
	if !a.hasHTTP {
		src = a.p.iterations
	}
	var xs []float64
	for _, l := range plateau {
		xs = append(xs, src[l.i0:l.i1]...)
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
	c.Low, c.High = c.CompletedRPS, c.CompletedRPS
	if n >= 2 {
		half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.975) * math.Sqrt(ss/(n-1)) / math.Sqrt(n)
		c.Low, c.High = F(math.Max(0, math.Min(med, mean-half))), F(math.Max(med, mean+half))
	}
	if unreached {
		c.Note = fmt.Sprintf("goodput was still rising at the highest load without shedding (%.0f → %.0f req/s over the last two levels): the ceiling is at least this; push the load further to find it",
			float64(before), float64(c.CompletedRPS))
	} else if rising {
		c.Note = fmt.Sprintf("goodput kept rising past the knee (from %.0f to %.0f req/s without shedding): the ceiling is the highest goodput sustained, not a plateau",
			float64(levels[first].CompletedRPS), float64(c.CompletedRPS))
	} else if c.Reached && float64(c.PeakCompletedRPS) > 1.03*float64(c.CompletedRPS) && c.PeakErrorRate.Valid() && float64(c.PeakErrorRate) > a.opt.ErrorLimit {
		c.Note = fmt.Sprintf("goodput reached %.0f req/s only while %.0f%% of requests failed: rejections are fast and shift the served mix to cheap requests, so that is not capacity",
			float64(c.PeakCompletedRPS), 100*float64(c.PeakErrorRate))
	}
	return c
}
