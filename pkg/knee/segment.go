package knee

import (
	"math"
	"slices"
)

// segments splits x into pieces of constant mean by optimal partitioning
// with PELT pruning (Killick, Fearnhead & Eckley 2012, "Optimal detection
// of changepoints with a linear computational cost", JASA 107:500), cost =
// sum of squared deviations from the piece's mean, penalty per change
// pen. It returns the start index of every piece (the first is 0).
func segments(x []float64, pen float64, minLen int) []int {
	n := len(x)
	if n == 0 {
		return nil
	}
	cs := make([]float64, n+1)
	cs2 := make([]float64, n+1)
	for i, v := range x {
		cs[i+1] = cs[i] + v
		cs2[i+1] = cs2[i] + v*v
	}
	cost := func(a, b int) float64 { // x[a:b]
		m := float64(b - a)
		s := cs[b] - cs[a]
		return (cs2[b] - cs2[a]) - s*s/m
	}
	f := make([]float64, n+1)
	last := make([]int, n+1)
	f[0] = -pen
	for i := 1; i < minLen && i <= n; i++ {
		f[i] = math.Inf(1)
	}
	cand := []int{0}
	for t := minLen; t <= n; t++ {
		best, arg := math.Inf(1), 0
		for _, s := range cand {
			if t-s < minLen {
				continue
			}
			if v := f[s] + cost(s, t) + pen; v < best {
				best, arg = v, s
			}
		}
		if math.IsInf(best, 1) { // only while t < 2·minLen
			best, arg = cost(0, t), 0
		}
		f[t], last[t] = best, arg
		// Prune candidates that can never be optimal again.
		keep := cand[:0]
		for _, s := range cand {
			if t-s < minLen || f[s]+cost(s, t) <= f[t] {
				keep = append(keep, s)
			}
		}
		cand = append(keep, t-minLen+1)
	}
	var starts []int
	for t := n; t > 0; t = last[t] {
		starts = append(starts, last[t])
	}
	slices.Reverse(starts)
	return starts
}

// noiseSigma estimates the standard deviation of the noise around a
// piecewise-constant signal from its first differences: 1.4826 ×
// median|Δx| / √2 (a MAD estimate, robust to the steps themselves).
func noiseSigma(x []float64) float64 {
	if len(x) < 3 {
		return 0
	}
	d := make([]float64, len(x)-1)
	for i := 1; i < len(x); i++ {
		d[i-1] = math.Abs(x[i] - x[i-1])
	}
	slices.Sort(d)
	return 1.4826 * median(d) / math.Sqrt2
}

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
