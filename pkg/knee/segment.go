package knee

import (
	"math"
	"math/bits"
	"slices"
)

// The load schedule is recovered from the offered load by optimal
// partitioning (Jackson et al. 2005, "An algorithm for optimal partitioning
// of data on an interval") into pieces that are each a plateau or a ramp:
// a stage at a constant target, or one whose target moves linearly, as k6
// stages do. The cost of a piece is its weighted least-squares error under
// its best model plus a BIC penalty (Schwarz 1978) of ln(m + 1) per
// parameter and change point; piecewise-constant pieces, as before, cut a
// straight ramp into many false plateaus, and these do not.
//
// What is fitted depends on how the offered load was measured:
//
//   - open model: the offered load of a second is the iterations started
//     in it, measured as those that ended, plus those dropped, plus the
//     growth of the busy VUs. An iteration counted one second too late is
//     missing from the one before, so the per-second counts carry the
//     differences of a measurement error, not independent noise; their
//     running sum, the started iterations so far, carries that error
//     itself. So the cumulative count is fitted: a line on a plateau (its
//     slope is the rate), a parabola on a ramp. A staircase whose steps
//     drown in per-second noise stands out of its cumulative count.
//   - closed model: the offered load is the vus gauge, a level measured
//     each second: it is fitted itself, a constant on a plateau and a line
//     on a ramp.
//
// Each point is weighted by the inverse of its noise variance, measured
// around it from the differences that the models do not change (third
// differences of a cumulative count, second of a level), robustly (first
// quartile), so that the noise is measured where the signal is quiet,
// never taken from the saturated end for the whole run; with floors of a
// quarter of a count and 2 % of the level, so that k6's nearly
// deterministic counts do not turn every wobble into a piece.
//
// Long runs are searched on points every b seconds (at most maxPoints, so
// the cost stays bounded whatever the run's length: a 24-hour soak costs
// what a 30-minute run does), and each change point is then moved to the
// best second within ±b.

// piece is one plateau or ramp of the offered load: seconds [i0, i1).
type piece struct {
	i0, i1 int
	// slope is the change of the offered load per second, mean its mean
	// over the piece, slopeSE the slope's standard error under the noise
	// model.
	slope, mean, slopeSE float64
	// flat is set when a plateau explains the piece better than a ramp.
	flat bool
}

// maxPoints bounds the points the partitioning searches.
const maxPoints = 1500

// polySums accumulates one stretch of weighted points (u, y), u counted
// from the stretch's own end so that the sums stay small and exact.
type polySums struct {
	w    [5]float64 // Σ w·u^k, k = 0…4
	wy   [3]float64 // Σ w·u^k·y, k = 0…2
	yy   float64    // Σ w·y²
	umax float64    // the largest u added (the last: add takes u ascending)
}

// add adds the point (u, y) of weight w; u ≥ 0 is at least the u of every
// point added before (a stretch grows backwards from its end: u = 0, 1,
// 2, …). The partitioning adds every point of every candidate piece, so
// the powers are written out: the same products and sums, in the same
// order, as the loop uk = 1, u, u², … (w·1 is w exactly).
func (p *polySums) add(u, y, w float64) {
	p.umax = u
	u2 := u * u
	u3 := u2 * u
	wu, wu2 := w*u, w*u2
	p.w[0] += w
	p.w[1] += wu
	p.w[2] += wu2
	p.w[3] += w * u3
	p.w[4] += w * (u3 * u)
	p.wy[0] += w * y
	p.wy[1] += wu * y
	p.wy[2] += wu2 * y
	p.yy += w * y * y
}

// fit solves the weighted least squares of a polynomial of degree d (0,
// 1 or 2) and returns its squared error, coefficients and their
// covariance's diagonal (in units of the noise), or ok false when the
// points do not determine it.
func (p *polySums) fit(d int) (sse float64, coef, vars [3]float64, ok bool) {
	n := d + 1
	// Solve in u/U, U the stretch's length, where the normal equations are
	// well conditioned (their entries in u grow as U^k), and scale back:
	// Σ w·(u/U)^k = Σ w·u^k / U^k.
	sc := max(1, p.umax)
	var pow [5]float64
	pow[0] = 1
	for k := 1; k < 5; k++ {
		pow[k] = pow[k-1] * sc
	}
	var a [3][4]float64
	for r := 0; r < n; r++ {
		for c := 0; c < n; c++ {
			a[r][c] = p.w[r+c] / pow[r+c]
		}
		a[r][3] = p.wy[r] / pow[r]
	}
	// The inverse's diagonal (the coefficients' variances) by solving for
	// the unit vectors too: augment with the identity.
	var inv [3][3]float64
	for r := 0; r < n; r++ {
		inv[r][r] = 1
	}
	for c := 0; c < n; c++ {
		piv := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[piv][c]) {
				piv = r
			}
		}
		if !(math.Abs(a[piv][c]) > 1e-300) {
			return 0, coef, vars, false
		}
		a[c], a[piv] = a[piv], a[c]
		inv[c], inv[piv] = inv[piv], inv[c]
		for r := 0; r < n; r++ {
			if r == c {
				continue
			}
			f := a[r][c] / a[c][c]
			for q := c; q < 4; q++ {
				a[r][q] -= f * a[c][q]
			}
			for q := 0; q < n; q++ {
				inv[r][q] -= f * inv[c][q]
			}
		}
	}
	sse = p.yy
	for r := 0; r < n; r++ {
		c := a[r][3] / a[r][r]
		sse -= c * p.wy[r] / pow[r]
		coef[r] = c / pow[r]
		vars[r] = inv[r][r] / a[r][r] / (pow[r] * pow[r])
	}
	if vars[0] < 0 || (n > 1 && vars[n-1] < 0) {
		return 0, coef, vars, false
	}
	return max(0, sse), coef, vars, true
}

// noiseVariance returns the noise variance of each point of y (points at
// spacing b seconds of data; missing[i]: no data, +Inf), measured in
// ±noiseWindow points from the order-k differences (k = the model degree
// + 1, which the models do not change): for white noise of variance σ²
// the k-th difference has variance C(2k, k)·σ², and the first quartile of
// its absolute value is 0.3186 of its standard deviation. floor is the
// least variance of each point.
func noiseVariance(y []float64, missing []bool, k int, floor []float64) []float64 {
	return noiseVarianceOf(y, missing, k, floor, true)
}

// noiseVarianceOf is noiseVariance, a missing point +Inf when inf is set,
// else its window's variance, as any other point's (a bridged point of a
// running sum, which carries the bridge's error as every later point
// does: only the differences across it are left out).
func noiseVarianceOf(y []float64, missing []bool, k int, floor []float64, inf bool) []float64 {
	m := len(y)
	d, ok, binom := noiseDiffs(y, missing, k)
	out := make([]float64, m)
	// buf is the sorted window of point i: the differences d[j] with
	// ok[j], j within noiseWindow of i; moving to i+1 drops d[i−W] and
	// inserts d[i+1+W] (the same multiset, and so the same sorted values,
	// as sorting each window afresh).
	buf := make([]float64, 0, 2*noiseWindow+1)
	for j := range min(m, noiseWindow) {
		if ok[j] {
			buf = sortedInsert(buf, d[j])
		}
	}
	for i := range y {
		jo, ji := i-noiseWindow-1, i+noiseWindow
		switch drop, add := jo >= 0 && ok[jo], ji < m && ok[ji]; {
		case drop && add:
			buf = sortedReplace(buf, d[jo], d[ji])
		case drop:
			buf = sortedRemove(buf, d[jo])
		case add:
			buf = sortedInsert(buf, d[ji])
		}
		if inf && missing != nil && missing[i] {
			out[i] = math.Inf(1)
			continue
		}
		s := 0.0
		if len(buf) >= 3 {
			s = quantileSorted(buf, 0.25) / 0.3186 / math.Sqrt(binom)
		}
		out[i] = max(s*s, floor[i])
	}
	return out
}

// sortedInsert inserts v into the ascending s (slices.Sort's order: NaN
// first).
func sortedInsert(s []float64, v float64) []float64 {
	i, _ := slices.BinarySearch(s, v)
	return slices.Insert(s, i, v)
}

// sortedRemove removes one value equal to v (by slices.Sort's order) from
// the ascending s, which holds it.
func sortedRemove(s []float64, v float64) []float64 {
	i, found := slices.BinarySearch(s, v)
	if !found {
		return s // cannot happen: v was inserted
	}
	return slices.Delete(s, i, i+1)
}

// sortedReplace is sortedInsert(sortedRemove(s, out), in) in one pass
// over the values between the two places: a sliding window's step.
func sortedReplace(s []float64, out, in float64) []float64 {
	i, found := slices.BinarySearch(s, out)
	if !found {
		return sortedInsert(s, in) // cannot happen: out was inserted
	}
	// in's place in s without s[i]: the values before it there are those
	// before it in s, less s[i] when s[i] is one of them.
	p, _ := slices.BinarySearch(s, in)
	if p > i {
		p--
	}
	switch {
	case p < i:
		copy(s[p+1:i+1], s[p:i])
	case p > i:
		copy(s[i:p], s[i+1:p+1])
	}
	s[p] = in
	return s
}

// noiseDiffs returns the absolute k-th differences of y (d[i] of points
// i−k … i; ok[i] is false where one of them is missing, and for i < k)
// and C(2k, k), their variance for white noise of unit variance.
func noiseDiffs(y []float64, missing []bool, k int) (d []float64, ok []bool, binom float64) {
	m := len(y)
	d, ok = make([]float64, m), make([]bool, m)
	binom = map[int]float64{1: 2, 2: 6, 3: 20}[k]
	for i := k; i < m; i++ {
		bad := false
		for j := i - k; j <= i; j++ {
			bad = bad || (missing != nil && missing[j])
		}
		if bad {
			continue
		}
		var v float64
		switch k {
		case 1:
			v = y[i] - y[i-1]
		case 2:
			v = y[i] - 2*y[i-1] + y[i-2]
		default:
			v = y[i] - 3*y[i-1] + 3*y[i-2] - y[i-3]
		}
		d[i], ok[i] = math.Abs(v), true
	}
	return d, ok, binom
}

// noiseWindow is the half-width, in points, of the window a point's noise
// is measured in.
const noiseWindow = 10

// partitionPoly finds the optimal pieces of the points y (weights w) whose
// model is a polynomial of degree d0 (a plateau) or d0+1 (a ramp), pieces
// at least minLen points long, and returns the start of each piece (the
// first is 0). It is O(m²) at worst: for each end the pieces ending there
// are grown backwards one point at a time, their sums kept in the piece's
// own coordinates; pruning leaves out most starts.
func partitionPoly(y, w []float64, d0, minLen int) []int {
	// Pruning (PELT, Killick, Fearnhead & Eckley 2012): a start s whose
	// best path to t is worse than f[t] by the largest piece penalty K
	// can never start the last piece of a longer optimum. With M the
	// better model of a piece (s, T), splitting it at t fits each part at
	// least as well under M, so C(s,T) ≥ C(s,t) + C(t,T) − pen_M ≥
	// C(s,t) + C(t,T) − K, and f[s] + C(s,T) ≥ f[t] + C(t,T) ≥ f[T]. That
	// needs both models determined on (s, t) and on (t, T): (t, T) at
	// least minLen points long and holding d0+2 points of positive weight
	// (a missing point weighs 0), from when on s is left out (dead[s]).
	// The optimum is the same as without pruning; on a staircase most
	// starts die within a few steps. Weights must be finite and not
	// negative for it.
	prune := true
	for _, v := range w {
		prune = prune && v >= 0 && !math.IsInf(v, 1)
	}
	return partition(y, w, d0, minLen, prune)
}

// partition is partitionPoly, pruning when prune is set (every weight
// finite and not negative).
func partition(y, w []float64, d0, minLen int, prune bool) []int {
	m := len(y)
	l := math.Log(float64(m) + 1)
	f := make([]float64, m+1)
	last := make([]int, m+1)
	var dead, need []int
	delay := max(minLen, d0+2)
	k := float64(d0+3) * l
	if prune {
		dead = make([]int, m+1)
		for i := range dead {
			dead[i] = math.MaxInt
		}
		need = pruneAfter(w, d0+2, minLen)
	}
	var costs []float64 // costs[s]: the piece (s, t)'s cost when prunable
	if prune {
		costs = make([]float64, m)
	}
	// Every start below lo is out for good: dead (t ≥ dead[s] stays so
	// as t grows), or never a start (0 < s < minLen, f[s] infinite). The
	// pieces ending at t are grown down to lo only (the points below it
	// summed afresh only when f[t] needs the whole stretch): pruned
	// starts then cost nothing, where the walk used to add their points
	// for every later t.
	lo := 0
	for t := 1; t <= m; t++ {
		f[t] = math.Inf(1)
		for lo < t-1 && ((lo > 0 && (lo < minLen || math.IsInf(f[lo], 1))) || (prune && t >= dead[lo])) {
			lo++
		}
		var ps polySums
		lowest := t // the lowest s costed with both models determined
		// s ≥ 0 is implied by s ≥ lo; it is written out for the compiler,
		// which then drops the bounds checks of y[s] and w[s].
		for s := t - 1; s >= 0 && s >= lo; s-- {
			ps.add(float64(t-1-s), y[s]-y[t-1], w[s])
			if prune {
				costs[s] = math.NaN()
			}
			if t-s < minLen || (s > 0 && (s < minLen || math.IsInf(f[s], 1))) || (prune && t >= dead[s]) {
				continue
			}
			c, ok, both := pieceCostBoth(&ps, d0, l)
			if !ok {
				continue
			}
			if prune && both && t-s >= delay {
				costs[s], lowest = c, s
			}
			if v := f[s] + c; v < f[t] {
				f[t], last[t] = v, s
			}
		}
		if math.IsInf(f[t], 1) {
			last[t] = 0
			// The whole stretch [0, t): the loop stopped at lo. (The
			// same additions in the same order as growing ps down to 0.)
			ps = sums(y, w, 0, t)
			if c, ok := pieceCost(&ps, d0, l); ok {
				f[t] = c
			} else {
				f[t] = 0
			}
			continue
		}
		for s := lowest; prune && need[t] != math.MaxInt && s < t; s++ {
			if c := costs[s]; dead[s] == math.MaxInt && !math.IsNaN(c) && f[s]+c-k >= f[t] {
				dead[s] = need[t]
			}
		}
	}
	var starts []int
	for t := m; t > 0; t = last[t] {
		starts = append(starts, last[t])
	}
	slices.Reverse(starts)
	return starts
}

// pruneAfter returns, for each t of the m = len(w) points, the least T
// such that (t, T) is at least minLen points long and holds k points of
// positive weight (math.MaxInt when no T ≤ m does): from T on a piece
// (t, T) is determined, which the partitioning's pruning at t needs. With
// every weight positive it is t + max(minLen, k).
func pruneAfter(w []float64, k, minLen int) []int {
	m := len(w)
	need := make([]int, m+1)
	pos := make([]int, 0, m) // the points of positive weight
	for i, v := range w {
		if v > 0 {
			pos = append(pos, i)
		}
	}
	j := 0 // the first of pos at or after t
	for t := range need {
		for j < len(pos) && pos[j] < t {
			j++
		}
		if j+k-1 >= len(pos) {
			need[t] = math.MaxInt
			continue
		}
		need[t] = max(t+minLen, pos[j+k-1]+1)
	}
	return need
}

// sse2 is fit's squared error alone (no coefficients, no variances: the
// partitioning asks it of every candidate piece) for degrees d (lo) and
// d+1 (hi) from one factorisation: Cholesky without the square roots
// (LDLᵀ; the explained sum of squares is Σ z_r² / D_r with L·z = b), in
// u/U as fit; the degree-d equations are the leading part of the
// degree-(d+1) ones, the same operations in the same order. ok is false
// when the points do not determine the polynomial: a pivot of the normal
// equations (positive semi-definite) that is not positive; okHi implies
// okLo.
func (p *polySums) sse2(d int) (lo float64, okLo bool, hi float64, okHi bool) {
	// The factorisation written out for n = d+2 = 2 and 3 (d is 0 or 1),
	// with a[r][c] = Σ w·u^(r+c) / U^(r+c) and b[r] = Σ w·u^r·y / U^r:
	// the partitioning asks it of every candidate piece. Every operation
	// is the loop's, in its order (TestSSE2MatchesLoop).
	// max(1, x) written as comparisons (the builtin's NaN and ±0 rules
	// cost a few instructions a call): umax ≥ 0 is a count, and a NaN
	// a00 fails the test below either way.
	sc := 1.0
	if p.umax > 1 {
		sc = p.umax
	}
	p2 := sc * sc
	a00, b0 := p.w[0], p.wy[0] // pow[0] is 1, by which division is exact
	scale := math.Abs(a00)
	if !(scale > 1) {
		scale = 1
	}
	tiny := 1e-300 * scale
	if !(a00 > tiny) {
		return 0, false, 0, false
	}
	explained := 0.0
	explained += b0 * b0 / a00
	a01, a11, b1 := p.w[1]/sc, p.w[2]/p2, p.wy[1]/sc
	if d == 0 {
		f := a01 / a00 // a[1][0] = a[0][1]
		a11 -= f * a01
		b1 -= f * b0
		return p.sse2Last(explained, a11, b1, tiny)
	}
	p3 := p2 * sc
	a02, a12, a22, b2 := p.w[2]/p2, p.w[3]/p3, p.w[4]/(p3*sc), p.wy[2]/p2
	a21 := a12
	f := a01 / a00 // row 1: a[1][0] = a[0][1]
	a11 -= f * a01
	a12 -= f * a02
	b1 -= f * b0
	f = a02 / a00 // row 2: a[2][0] = a[0][2]
	a21 -= f * a01
	a22 -= f * a02
	b2 -= f * b0
	if !(a11 > tiny) {
		return 0, false, 0, false
	}
	explained += b1 * b1 / a11
	f = a21 / a11
	a22 -= f * a12
	b2 -= f * b1
	return p.sse2Last(explained, a22, b2, tiny)
}

// sse2Last is sse2's last pivot piv (with b, the right-hand side's last
// entry): the lower degree's error before it, the higher one's after.
func (p *polySums) sse2Last(explained, piv, b, tiny float64) (lo float64, okLo bool, hi float64, okHi bool) {
	lo = max(0, p.yy-explained)
	if !(piv > tiny) {
		return lo, true, 0, false
	}
	explained += b * b / piv
	return lo, true, max(0, p.yy-explained), true
}

// pieceCost is a piece's squared error under the better of its two
// models, each with its BIC penalty: (d0 + 2)·L for the plateau (its
// coefficients and the change point), (d0 + 3)·L for the ramp.
func pieceCost(ps *polySums, d0 int, l float64) (float64, bool) {
	c, ok, _ := pieceCostBoth(ps, d0, l)
	return c, ok
}

// pieceCostBoth is pieceCost, and whether both models are determined
// (what the partitioning's pruning needs).
func pieceCostBoth(ps *polySums, d0 int, l float64) (c float64, ok, both bool) {
	flat, ok0, ramp, ok1 := ps.sse2(d0)
	switch {
	case ok0 && ok1:
		return min(flat+float64(d0+2)*l, ramp+float64(d0+3)*l), true, true
	case ok0:
		return flat + float64(d0+2)*l, true, false
	}
	return 0, false, false
}

// sums returns the polySums of points [a, b) of y with weights w.
func sums(y, w []float64, a, b int) polySums {
	var ps polySums
	for s := b - 1; s >= a; s-- {
		ps.add(float64(b-1-s), y[s]-y[b-1], w[s])
	}
	return ps
}

// segments splits the per-second offered load x (missing: seconds without
// data, nil for none) into plateaus and ramps; see the comment at the top
// of this file. cumulative is set for an open model. minLen is the
// shortest piece, in seconds.
func segments(x []float64, missing []bool, minLen int, cumulative bool) []piece {
	n := len(x)
	if n == 0 {
		return nil
	}
	d0 := 0
	y := slices.Clone(x)
	disp := 0.0 // the counts' variance per unit of their level, when white
	if cumulative {
		if white, v := whiteCounts(x, missing); white {
			// Counts of independent arrivals (Poisson-like): their running
			// sum is a random walk, which no line or parabola fits, so the
			// counts themselves are fitted, as a level.
			cumulative, disp = false, v
		}
	}
	if cumulative {
		d0 = 1
		// A missing second's count is unknown: it is bridged by the line
		// between the seconds with data either side, not the count
		// carried from the second before (a whole step off at a change of
		// level). The bridge's error is an offset that the running sum
		// keeps from that second on: the differences across it are left
		// out of the noise (pmiss, missing below), but the points keep
		// their weights, the later ones carrying the same error.
		xf := bridged(x, missing)
		var sum float64
		for i, v := range xf {
			sum += v
			y[i] = sum
		}
	}
	// floor is worked out in the running median's array (each floor[i]
	// needs level[i] only): at a day's length every n-sized array is
	// 0.7 MB of the analysis' peak.
	level := runningMedian(x, 3)
	floor := level
	for i := range floor {
		// A count's rounding, and 2 % of the level (of a second's worth
		// of it, for a cumulative count).
		f := 0.5 + 0.02*level[i]
		// Independent counts: their variance grows with their level
		// (= the level for Poisson counts), at the dispersion measured.
		floor[i] = max(f*f, disp*level[i])
	}
	// The points searched: every b-th second (a cumulative count is taken
	// at the bin's end; a level is averaged over the bin).
	b := max(1, (n+maxPoints-1)/maxPoints)
	m := (n + b - 1) / b
	py, pf := make([]float64, m), make([]float64, m)
	var pmiss []bool
	for j := range m {
		lo, hi := j*b, min(n, (j+1)*b)
		if cumulative {
			py[j] = y[hi-1]
			pf[j] = floor[hi-1]
			for i := lo; i < hi && missing != nil; i++ {
				if missing[i] {
					if pmiss == nil {
						pmiss = make([]bool, m)
					}
					pmiss[j] = true
				}
			}
			continue
		}
		cnt := 0.0
		for i := lo; i < hi; i++ {
			if missing != nil && missing[i] {
				continue
			}
			py[j] += y[i]
			pf[j] += floor[i]
			cnt++
		}
		if cnt == 0 {
			if pmiss == nil {
				pmiss = make([]bool, m)
			}
			pmiss[j] = true
			continue
		}
		py[j] /= cnt
		pf[j] /= cnt * cnt
	}
	pv := noiseVarianceOf(py, pmiss, d0+2, pf, !cumulative)
	pw := make([]float64, m)
	for j := range pv {
		pw[j] = 1 / pv[j]
	}
	starts := partitionPoly(py, pw, d0, max(2, (minLen+b-1)/b))

	// Back to seconds; refine each change point within ±b seconds.
	bounds := make([]int, len(starts)+1)
	for k, s := range starts {
		bounds[k] = min(n, s*b)
	}
	bounds[len(starts)] = n
	w := noiseVarianceOf(y, missing, d0+2, floor, !cumulative) // the variances, then in place their inverses
	for i := range w {
		w[i] = 1 / w[i]
	}
	l := math.Log(float64(n) + 1)
	cost := func(a, c int) float64 {
		ps := sums(y, w, a, c)
		v, _ := pieceCost(&ps, d0, l)
		return v
	}
	if b > 1 {
		// Each change point moves to the best second within ±b, judged on
		// the 4b seconds either side (the rest of the pieces does not
		// move it).
		for k := 1; k < len(bounds)-1; k++ {
			lo, hi := max(bounds[k-1]+2, bounds[k]-b), min(bounds[k+1]-2, bounds[k]+b)
			a0, b1 := max(bounds[k-1], bounds[k]-4*b), min(bounds[k+1], bounds[k]+4*b)
			best, arg := math.Inf(1), bounds[k]
			for c := lo; c <= hi; c++ {
				if v := cost(a0, c) + cost(c, b1); v < best {
					best, arg = v, c
				}
			}
			bounds[k] = arg
		}
	}
	out := make([]piece, 0, len(bounds)-1)
	for k := 0; k+1 < len(bounds); k++ {
		out = append(out, describe(y, w, x, bounds[k], bounds[k+1], d0, l))
	}
	return out
}

// bridged returns x with each run of missing seconds replaced by the
// line between the seconds with data either side of it (the nearest one
// at an end of x), or x itself when none is missing.
func bridged(x []float64, missing []bool) []float64 {
	if !slices.Contains(missing, true) {
		return x
	}
	out := slices.Clone(x)
	n := len(x)
	for i := 0; i < n; {
		if !missing[i] {
			i++
			continue
		}
		j := i
		for j < n && missing[j] {
			j++
		}
		// Seconds [i, j) are missing; i−1 and j hold data where they exist.
		switch {
		case i == 0 && j == n:
			return out
		case i == 0:
			for k := i; k < j; k++ {
				out[k] = x[j]
			}
		case j == n:
			for k := i; k < j; k++ {
				out[k] = x[i-1]
			}
		default:
			for k := i; k < j; k++ {
				f := float64(k-i+1) / float64(j-i+1)
				out[k] = x[i-1] + f*(x[j]-x[i-1])
			}
		}
		i = j
	}
	return out
}

// describe fits piece [a, b) of y (weights w) and reads its plateau or
// ramp off the model: the offered load's mean over the piece (from x), its
// slope per second and the slope's standard error. In the piece's own
// coordinates u = b−1−i the time runs backwards, so the slope's sign is
// flipped.
func describe(y, w, x []float64, a, b, d0 int, l float64) piece {
	p := piece{i0: a, i1: b}
	var mean float64
	for _, v := range x[a:b] {
		mean += v
	}
	p.mean = mean / float64(b-a)
	ps := sums(y, w, a, b)
	flat, _, _, ok0 := ps.fit(d0)
	ramp, coef, vars, ok1 := ps.fit(d0 + 1)
	p.flat = ok0 && (!ok1 || flat+float64(d0+2)*l <= ramp+float64(d0+3)*l)
	if !ok1 {
		p.slopeSE = math.Inf(1)
		return p
	}
	// A level's line: slope = −coef[1]; a cumulative count's parabola
	// y = c0 + c1·u + c2·u²: rate = −(c1 + 2·c2·u), slope of the rate = 2·c2.
	if d0 == 0 {
		p.slope, p.slopeSE = -coef[1], math.Sqrt(vars[1])
	} else {
		p.slope, p.slopeSE = 2*coef[2], 2*math.Sqrt(vars[2])
	}
	return p
}

// whiteBin is the widest bin, in seconds, at which whiteCounts compares
// the counts' noise with that of single seconds, whiteMinBin the
// narrowest; whiteMinBins the bins it needs.
const (
	whiteBin     = 16
	whiteMinBin  = 8
	whiteMinBins = 32
)

// whiteBinFor is the bin width whiteCounts uses on n seconds: the widest
// of whiteBin, whiteBin/2, … whiteMinBin that gives whiteMinBins bins
// (the wider the bin, the further apart the two noises' ratios, B against
// 1), or 0 when even whiteMinBin does not (n < 256 s).
func whiteBinFor(n int) int {
	for b := whiteBin; b >= whiteMinBin; b /= 2 {
		if n/b >= whiteMinBins {
			return b
		}
	}
	return 0
}

// whiteCounts reports whether the noise of the per-second counts x is
// independent from second to second (arrivals of a Poisson-like process,
// variance = mean) rather than a measurement error that moves counts
// between neighbouring seconds (k6's iterations counted at their end).
// The two differ in how the noise of a sum of B seconds grows: for
// independent counts of variance σ² its variance is B·σ², for a shifted
// count x_i = c_i + e_i − e_{i−1} the sum telescopes to e_end − e_start
// and its variance does not grow. So with q the ratio of the robust
// variances (median of squares) of the second differences of B-second
// sums and of single seconds (second differences leave a ramp out; white
// noise gives 6Bσ² against 6σ², a shift 20σ_e² against 20σ_e²), the noise
// is white when q > √B, the geometric middle of B and 1. B is the widest
// bin (whiteBinFor) that still gives whiteMinBins bins, so that a run of
// four minutes or more is tested too (at B = 8 the ratios are 8 against
// 1; a narrower bin needs holds much longer than 3B to keep the steps out
// of most triples of bins: the 10-s holds of testdata/k6/breakpoint.csv.gz
// read as white at B = 4). Shorter runs are left to the shift model
// (false); missing seconds, and the bins that hold them, are left out of
// the differences.
//
// dispersion is then the counts' noise variance per unit of their median
// level (1 for Poisson counts): the median of the squared second
// differences is 0.4549·6σ² for normal noise (0.4549 the median of χ²₁).
func whiteCounts(x []float64, missing []bool) (white bool, dispersion float64) {
	bw := whiteBinFor(len(x))
	if bw == 0 {
		return false, 0
	}
	m := len(x) / bw
	sum := make([]float64, m)
	var gap []bool // gap[j]: bin j holds a missing second
	for j := range m {
		for i := j * bw; i < (j+1)*bw; i++ {
			if missing != nil && missing[i] {
				if gap == nil {
					gap = make([]bool, m)
				}
				gap[j] = true
			}
			sum[j] += x[i]
		}
	}
	// d2 is the median squared second difference of v over the triples
	// without a missing point (a missing second is left out, not read as
	// a count).
	d2 := func(v []float64, miss []bool) float64 {
		d := make([]float64, 0, len(v))
		for i := 2; i < len(v); i++ {
			if miss != nil && (miss[i] || miss[i-1] || miss[i-2]) {
				continue
			}
			e := v[i] - 2*v[i-1] + v[i-2]
			d = append(d, e*e)
		}
		return medianOf(d)
	}
	one, bin := d2(x, missing), d2(sum, gap)
	if !(one > 0) || !(bin/one > math.Sqrt(float64(bw))) {
		return false, 0
	}
	lv := make([]float64, 0, len(x))
	for i, v := range x {
		if missing == nil || !missing[i] {
			lv = append(lv, v)
		}
	}
	if med := medianOf(lv); med > 0 {
		dispersion = one / 0.4549 / 6 / med
	}
	return true, dispersion
}

// runningMedian is the median of x over a window of ±k points (fewer at
// the ends). The window is kept sorted as it slides, one value out and
// one in (the same multiset, and so the same sorted values, as sorting
// each window afresh): a day-long run has 86,400 windows.
func runningMedian(x []float64, k int) []float64 {
	n := len(x)
	out := make([]float64, n)
	buf := make([]float64, 0, 2*k+2)
	for j := range min(n, k) {
		buf = sortedInsert(buf, x[j])
	}
	for i := range x {
		if j := i - k - 1; j >= 0 {
			buf = sortedRemove(buf, x[j])
		}
		if j := i + k; j < n {
			buf = sortedInsert(buf, x[j])
		}
		out[i] = median(buf)
	}
	return out
}

// medianOf is median(d sorted) without sorting d (whose order it
// changes): the middle order statistics by selection, O(len(d)) on
// average instead of a sort of a day's 86,400 values. With a NaN in d
// (no order to select by) it sorts, as median's callers did.
func medianOf(d []float64) float64 {
	n := len(d)
	for _, v := range d {
		if v != v {
			slices.Sort(d)
			return median(d)
		}
	}
	if n == 0 {
		return math.NaN()
	}
	hi := selectKth(d, n/2)
	if n%2 == 1 {
		return hi
	}
	// d[:n/2] holds the n/2 smallest values: the largest of them is the
	// other middle one.
	lo := d[0]
	for _, v := range d[1 : n/2] {
		lo = max(lo, v)
	}
	return (lo + hi) / 2
}

// selectKth reorders d (no NaN) so that d[k] is the value a sort would put
// there, every value before it ≤ it and every value after it ≥ it, and
// returns it: quickselect with a median-of-three pivot, falling back to a
// sort of what is left when the partitions stay unbalanced.
func selectKth(d []float64, k int) float64 {
	lo, hi := 0, len(d)-1
	for budget := 2 * bits.Len(uint(len(d))); hi > lo; budget-- {
		if budget == 0 {
			slices.Sort(d[lo : hi+1])
			break
		}
		mid := lo + (hi-lo)/2
		if d[mid] < d[lo] {
			d[mid], d[lo] = d[lo], d[mid]
		}
		if d[hi] < d[lo] {
			d[hi], d[lo] = d[lo], d[hi]
		}
		if d[hi] < d[mid] {
			d[hi], d[mid] = d[mid], d[hi]
		}
		p := d[mid]
		i, j := lo, hi
		for i <= j {
			for d[i] < p {
				i++
			}
			for d[j] > p {
				j--
			}
			if i <= j {
				d[i], d[j] = d[j], d[i]
				i++
				j--
			}
		}
		// [lo, j] ≤ p ≤ [i, hi]; between them, values equal to p.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return d[k]
		}
	}
	return d[k]
}

// noiseSigma estimates the standard deviation of the noise around a
// piecewise-linear signal from its second differences: 1.4826 ×
// median|Δ²x| / √6 (a MAD estimate, robust to the changes themselves).
func noiseSigma(x []float64) float64 {
	if len(x) < 4 {
		return 0
	}
	d := make([]float64, len(x)-2)
	for i := 1; i+1 < len(x); i++ {
		d[i-1] = math.Abs(x[i+1] - 2*x[i] + x[i-1])
	}
	slices.Sort(d)
	return 1.4826 * median(d) / math.Sqrt(6)
}

// quantileSorted is the q-quantile of sorted values, linear between order
// statistics at q·(n−1).
func quantileSorted(s []float64, q float64) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	r := q * float64(len(s)-1)
	i := int(r)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (r-float64(i))*(s[i+1]-s[i])
}

// median is the median of sorted values, NaN for none.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// slope is the least-squares slope of x against its index.
func slope(x []float64) float64 {
	n := float64(len(x))
	if n < 2 {
		return 0
	}
	mi := (n - 1) / 2
	var mx float64
	for _, v := range x {
		mx += v
	}
	mx /= n
	var sxy, sxx float64
	for i, v := range x {
		d := float64(i) - mi
		sxy += d * (v - mx)
		sxx += d * d
	}
	return sxy / sxx
}
