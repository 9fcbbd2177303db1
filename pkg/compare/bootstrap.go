package compare

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/sketch"
	"gonum.org/v1/gonum/stat"
)

// side is one run's windows wholly inside a matched level, with their
// latency sketches (nil without a latency source).
type side struct {
	wins []knee.Level
	lat  []*sketch.Sketch
}

// replicates are the bootstrap replicates of one side's level figures:
// the pooled quantiles of latency (one slice per quantile of qs) and the
// pooled goodput, per replicate; NaN where a replicate has no value.
type replicates struct {
	q   [][]float64
	rps []float64
}

// blockLen is the block length of the circular block bootstrap over k
// windows: ⌈k^(1/3)⌉, the order Hall, Horowitz and Jing ("On blocking
// rules for the bootstrap with dependent data", Biometrika 82:561, 1995)
// give for variances and distribution functions of smooth statistics.
func blockLen(k int) int { return max(1, int(math.Ceil(math.Cbrt(float64(k))))) }

// bootstrap draws b circular block bootstrap resamples of s's windows
// (Politis and Romano, "A circular block-resampling procedure for
// stationary data", 1992): blocks of blockLen consecutive windows,
// wrapping at the end, until there are as many windows as s has. Each
// resample's latency quantiles qs are those of the merged sketches of its
// windows, and its goodput is Σ completed ÷ Σ seconds: the same pooled
// figures as the level's own.
func bootstrap(s *side, b int, qs []float64, rng *rand.Rand) replicates {
	k := len(s.wins)
	r := replicates{q: make([][]float64, len(qs)), rps: make([]float64, b)}
	for i := range r.q {
		r.q[i] = make([]float64, b)
	}
	bl := blockLen(k)
	var merged sketch.Sketch
	for i := range b {
		merged.Reset()
		var ok, secs float64
		for n := 0; n < k; {
			start := rng.IntN(k)
			for j := 0; j < bl && n < k; j++ {
				w := (start + j) % k
				if s.lat != nil {
					merged.Merge(s.lat[w])
				}
				if v := float64(s.wins[w].CompletedRPS); !math.IsNaN(v) {
					ok += v * s.wins[w].Seconds
					secs += s.wins[w].Seconds
				}
				n++
			}
		}
		for j, q := range qs {
			r.q[j][i] = math.NaN()
			if s.lat != nil {
				r.q[j][i] = merged.Quantile(q)
			}
		}
		r.rps[i] = math.NaN()
		if secs > 0 {
			r.rps[i] = ok / secs
		}
	}
	return r
}

// percentileInterval is the percentile-method interval of the replicates
// at the two-sided confidence level (Efron and Tibshirani, An
// Introduction to the Bootstrap, 1993, §13.3), by gonum's empirical
// quantile; ok is false when more than 1 % of the replicates have no
// value (windows without successful responses).
func percentileInterval(reps []float64, confidence float64) (low, high float64, ok bool) {
	v := make([]float64, 0, len(reps))
	for _, x := range reps {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 || len(v) < len(reps)-len(reps)/100 {
		return math.NaN(), math.NaN(), false
	}
	slices.Sort(v)
	a := (1 - confidence) / 2
	return stat.Quantile(a, stat.Empirical, v, nil), stat.Quantile(1-a, stat.Empirical, v, nil), true
}

// diff is after − before, replicate by replicate (the two sides are
// resampled independently).
func diff(before, after []float64) []float64 {
	out := make([]float64, len(before))
	for i := range before {
		out[i] = after[i] - before[i]
	}
	return out
}
