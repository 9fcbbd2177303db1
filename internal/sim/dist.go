package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Mean returns the distribution's mean in milliseconds: MeanMS for
// deterministic, exponential and lognormal, (MinMS+MaxMS)/2 for uniform.
func (d Dist) Mean() float64 {
	if d.Kind == DistUniform {
		return (d.MinMS + d.MaxMS) / 2
	}
	return d.MeanMS
}

// SecondMomentMS2 returns E[X²] in ms²: m² (deterministic), 2m²
// (exponential), (a²+ab+b²)/3 (uniform on [a,b]), m²(1+cv²) (lognormal).
func (d Dist) SecondMomentMS2() float64 {
	m := d.Mean()
	switch d.Kind {
	case DistExponential:
		return 2 * m * m
	case DistUniform:
		a, b := d.MinMS, d.MaxMS
		return (a*a + a*b + b*b) / 3
	case DistLognormal:
		return m * m * (1 + d.CV*d.CV)
	}
	return m * m
}

// validate reports what is wrong with the distribution, or nil.
func (d Dist) validate() error {
	switch d.Kind {
	case DistDeterministic, DistExponential:
		if !(d.MeanMS >= 0) || math.IsInf(d.MeanMS, 0) {
			return fmt.Errorf("%s mean must be a finite time ≥ 0 ms, not %g", d.Kind, d.MeanMS)
		}
	case DistUniform:
		if !(d.MinMS >= 0) || !(d.MaxMS >= d.MinMS) || math.IsInf(d.MaxMS, 0) {
			return fmt.Errorf("uniform needs 0 ≤ min ≤ max (finite ms), not [%g, %g]", d.MinMS, d.MaxMS)
		}
	case DistLognormal:
		if !(d.MeanMS > 0) || math.IsInf(d.MeanMS, 0) {
			return fmt.Errorf("lognormal mean must be a finite time > 0 ms, not %g", d.MeanMS)
		}
		if !(d.CV >= 0) || math.IsInf(d.CV, 0) {
			return fmt.Errorf("lognormal cv must be finite and ≥ 0, not %g", d.CV)
		}
	case "":
		return fmt.Errorf("distribution kind is missing (one of %s, %s, %s, %s)",
			DistDeterministic, DistExponential, DistUniform, DistLognormal)
	default:
		return fmt.Errorf("unknown distribution kind %q (one of %s, %s, %s, %s)", d.Kind,
			DistDeterministic, DistExponential, DistUniform, DistLognormal)
	}
	return nil
}

// sampler draws a distribution in integer nanoseconds.
type sampler struct {
	kind     string
	mean     float64 // ns
	lo, span float64 // uniform, ns
	mu, sig  float64 // lognormal parameters of ln X (X in ns)
}

// newSampler prepares d for drawing. A lognormal with mean m and
// coefficient of variation v has σ² = ln(1+v²) and μ = ln m − σ²/2
// (Johnson, Kotz & Balakrishnan, Continuous Univariate Distributions 1,
// ch. 14).
func newSampler(d Dist) sampler {
	s := sampler{kind: d.Kind, mean: d.Mean() * 1e6}
	switch d.Kind {
	case DistUniform:
		s.lo, s.span = d.MinMS*1e6, (d.MaxMS-d.MinMS)*1e6
	case DistLognormal:
		s2 := math.Log1p(d.CV * d.CV)
		s.sig = math.Sqrt(s2)
		s.mu = math.Log(s.mean) - s2/2
	}
	return s
}

// draw returns one value in nanoseconds (≥ 0).
func (s *sampler) draw(r *rand.Rand) int64 {
	var x float64
	switch s.kind {
	case DistExponential:
		x = r.ExpFloat64() * s.mean
	case DistUniform:
		x = s.lo + r.Float64()*s.span
	case DistLognormal:
		x = math.Exp(s.mu + s.sig*r.NormFloat64())
	default:
		x = s.mean
	}
	return int64(x + 0.5)
}
