package compare

import (
	"math"

	"gonum.org/v1/gonum/stat/combin"
	"gonum.org/v1/gonum/stat/distuv"
)

// FisherExact is the two-sided p-value of Fisher's exact test of the 2×2
// table of x1 failures in n1 requests against x2 failures in n2: the sum
// of the hypergeometric probabilities, given the margins, of every table
// no more probable than the one observed (Agresti, Categorical Data
// Analysis, 3rd ed. §3.5.1; R's fisher.test with its relative tolerance
// 1e−7 for ties). Counts must satisfy 0 ≤ x ≤ n; it returns 1 when no
// other table is possible (no failure, or no success, on either side).
func FisherExact(x1, n1, x2, n2 int64) float64 {
	if n1 < 0 || n2 < 0 || x1 < 0 || x2 < 0 || x1 > n1 || x2 > n2 {
		return math.NaN()
	}
	n := n1 + n2
	k := x1 + x2 // failures in both
	lo, hi := max(0, n1-(n-k)), min(k, n1)
	if lo == hi {
		return 1
	}
	logP := func(x int64) float64 {
		return combin.LogGeneralizedBinomial(float64(k), float64(x)) +
			combin.LogGeneralizedBinomial(float64(n-k), float64(n1-x)) -
			combin.LogGeneralizedBinomial(float64(n), float64(n1))
	}
	obs := logP(x1)
	p := 0.0
	for x := lo; x <= hi; x++ {
		if lp := logP(x); lp <= obs+1e-7*math.Abs(obs)+1e-12 {
			p += math.Exp(lp)
		}
	}
	return min(p, 1)
}

// Wilson is the Wilson score interval of a proportion x/n at the two-sided
// confidence level (Wilson, JASA 22:209, 1927; Newcombe, Stat Med
// 17:857, 1998, method 3): its bounds stay within [0, 1] and exist for
// x = 0 and x = n. It returns NaN bounds for n = 0.
func Wilson(x, n int64, confidence float64) (low, high float64) {
	if n <= 0 {
		return math.NaN(), math.NaN()
	}
	z := distuv.UnitNormal.Quantile(1 - (1-confidence)/2)
	p, nf := float64(x)/float64(n), float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z / den * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	low, high = max(0, mid-half), min(1, mid+half)
	// At x = 0 (x = n) the bound is 0 (1) exactly; mid − half leaves a
	// rounding error of 1e-17 there.
	if x == 0 {
		low = 0
	}
	if x == n {
		high = 1
	}
	return low, high
}

// Newcombe is the hybrid score interval of the difference of two
// proportions x2/n2 − x1/n1 at the two-sided confidence level, built from
// the two Wilson intervals (Newcombe, "Interval estimation for the
// difference between independent proportions: comparison of eleven
// methods", Stat Med 17:873, 1998, method 10): with d = p2 − p1 and
// Wilson bounds (l1, u1), (l2, u2),
//
//	low  = d − √((p2 − l2)² + (u1 − p1)²)
//	high = d + √((u2 − p2)² + (p1 − l1)²).
//
// It keeps its coverage for zero counts, where the Wald interval
// collapses. NaN bounds when either n is 0.
func Newcombe(x1, n1, x2, n2 int64, confidence float64) (low, high float64) {
	if n1 <= 0 || n2 <= 0 {
		return math.NaN(), math.NaN()
	}
	l1, u1 := Wilson(x1, n1, confidence)
	l2, u2 := Wilson(x2, n2, confidence)
	p1, p2 := float64(x1)/float64(n1), float64(x2)/float64(n2)
	d := p2 - p1
	return d - math.Hypot(p2-l2, u1-p1), d + math.Hypot(u2-p2, p1-l1)
}

// intervalZ is the two-sided p-value of the difference b − a of two
// estimates whose confidence intervals at level confidence are [aLow,
// aHigh] and [bLow, bHigh], read as normal: each standard error is the
// interval's half-width over z, and z = (b − a) ÷ √(se_a² + se_b²). NaN
// when an interval is missing or both are of zero width.
func intervalZ(a, aLow, aHigh, b, bLow, bHigh, confidence float64) float64 {
	z := distuv.UnitNormal.Quantile(1 - (1-confidence)/2)
	sa, sb := (aHigh-aLow)/(2*z), (bHigh-bLow)/(2*z)
	se := math.Hypot(sa, sb)
	if math.IsNaN(se) || math.IsInf(se, 0) || se == 0 {
		return math.NaN()
	}
	return 2 * distuv.UnitNormal.Survival(math.Abs(b-a)/se)
}
