package sim

import (
	"math"
	"math/rand/v2"
	"time"
)

// rateSeg is one stage of an arrival rate: from → to iterations per ns,
// linearly over [start, start+dur) ns of scenario time.
type rateSeg struct {
	start, dur int64
	from, to   float64 // iterations per ns
}

// rateSegments returns an arrival-rate scenario's rate as stages, in
// iterations per nanosecond of scenario time (0 = the scenario's start).
func rateSegments(s *Scenario) []rateSeg {
	unit := float64(s.TimeUnit)
	if s.Executor == ConstantArrivalRate {
		r := s.Rate / unit
		return []rateSeg{{0, int64(s.Duration), r, r}}
	}
	var segs []rateSeg
	from := s.StartRate / unit
	var at int64
	for _, st := range s.Stages {
		to := st.Target / unit
		segs = append(segs, rateSeg{at, int64(st.Duration), from, to})
		at += int64(st.Duration)
		from = to
	}
	return segs
}

// rateAt returns the rate (iterations per ns) at scenario time t, 0 outside
// the stages.
func rateAt(segs []rateSeg, t int64) float64 {
	for _, g := range segs {
		if t >= g.start && t < g.start+g.dur {
			return g.from + (g.to-g.from)*float64(t-g.start)/float64(g.dur)
		}
	}
	return 0
}

// arrivals yields an arrival-rate scenario's iteration start times (ns of
// scenario time), as k6 schedules them:
//
//   - constant-arrival-rate: i·P for i = 0, 1, …, while < duration, where
//     P = timeUnit/rate truncated to whole ns (k6's getTickerPeriod);
//   - ramping-arrival-rate: the time at which the area under the rate
//     reaches i = 1, 2, …, found per stage in closed form (k6's
//     RampingArrivalRateConfig.cal: x = (r₀d − √(d(r₀²d + 2(i−n₀)(r₁−r₀))))/(r₀−r₁)
//     on a ramp, (i−n₀)/r on a hold), so starts are evenly spaced in area,
//     not Poisson.
//
// With Poisson set, the areas are the points of a unit-rate Poisson process
// (i grows by Exp(1) draws) mapped through the same formulas: a Poisson
// process of the scheduled rate.
type arrivals struct {
	segs    []rateSeg
	end     int64 // regular duration, ns
	even    bool  // constant-arrival-rate k6 spacing
	period  int64 // constant-arrival-rate ticker period, ns
	poisson bool
	rng     *rand.Rand

	n         int64   // starts so far (even constant)
	i         float64 // next area
	seg       int
	doneSoFar float64
	endCount  float64
	entered   bool // endCount includes segs[seg]
}

func newArrivals(s *Scenario, rng *rand.Rand) *arrivals {
	a := &arrivals{segs: rateSegments(s), poisson: s.Poisson, rng: rng}
	for _, g := range a.segs {
		a.end = max(a.end, g.start+g.dur)
	}
	if s.Executor == ConstantArrivalRate && !s.Poisson {
		a.even = true
		a.period = int64(float64(s.TimeUnit) / s.Rate)
		if a.period < 1 {
			a.period = 1
		}
		return a
	}
	a.i = 1
	if a.poisson {
		a.i = rng.ExpFloat64()
	}
	return a
}

// next returns the next start time and true, or false when the schedule is
// over.
func (a *arrivals) next() (int64, bool) {
	if a.even {
		t := a.n * a.period
		if t >= a.end {
			return 0, false
		}
		a.n++
		return t, true
	}
	for a.seg < len(a.segs) {
		g := a.segs[a.seg]
		dur := float64(g.dur)
		if !a.entered {
			if g.from != g.to {
				a.endCount += dur * ((g.to-g.from)/2 + g.from)
			} else {
				a.endCount += dur * g.to
			}
			a.entered = true
		}
		if a.i <= a.endCount {
			var x float64
			if g.from != g.to {
				x = (g.from*dur - noNegativeSqrt(dur*(g.from*g.from*dur+2*(a.i-a.doneSoFar)*(g.to-g.from)))) / (g.from - g.to)
			} else {
				x = (a.i - a.doneSoFar) / g.to
			}
			if a.poisson {
				a.i += a.rng.ExpFloat64()
			} else {
				a.i++
			}
			t := int64(time.Duration(x)) + g.start
			if t >= a.end {
				continue
			}
			return t, true
		}
		a.doneSoFar = a.endCount
		a.seg++
		a.entered = false
	}
	return 0, false
}

func noNegativeSqrt(f float64) float64 {
	if !math.Signbit(f) {
		return math.Sqrt(f)
	}
	return 0
}

// vuStep is a ramping-vus plan step: from At (ns of scenario time) the
// executor runs VUs VUs.
type vuStep struct {
	At  int64
	VUs int
}

// vuSteps returns ramping-vus's raw execution steps as k6 computes them
// (RampingVUsConfig.getRawExecutionSteps with zeroEnd, one instance): on a
// ramp up, VU u starts when the line reaches u; on a ramp down, the VU
// count drops to u−1 when the line reaches u−1, so the count is the floor
// of the line going up and its ceiling going down. The last step is 0 VUs
// at the end of the stages.
func vuSteps(s *Scenario) []vuStep {
	if s.Executor == ConstantVUs {
		return []vuStep{{0, s.VUs}, {int64(s.Duration), 0}}
	}
	steps := []vuStep{{0, s.StartVUs}}
	add := func(at int64, n int) {
		if steps[len(steps)-1].VUs != n {
			steps = append(steps, vuStep{at, n})
		}
	}
	from := int64(s.StartVUs)
	var till int64
	for _, st := range s.Stages {
		to := int64(st.Target)
		dur := int64(st.Duration)
		till += dur
		diff := to - from
		if diff == 0 {
			continue
		}
		if dur == 0 {
			add(till, int(to))
			from = to
			continue
		}
		if from > to {
			for u := from; u > to; u-- {
				add(till-dur*(to-u+1)/diff, int(u-1))
			}
		} else {
			for u := from; u <= to; u++ {
				add(till-dur*(to-u)/diff, int(u))
			}
		}
		from = to
	}
	if steps[len(steps)-1].VUs != 0 {
		steps = append(steps, vuStep{till, 0})
	}
	return steps
}

// maxPlannedVUs is the largest VU count of the steps.
func maxPlannedVUs(steps []vuStep) int {
	m := 0
	for _, s := range steps {
		m = max(m, s.VUs)
	}
	return m
}

// plannedVUsAt is the VU count of the steps at scenario time t.
func plannedVUsAt(steps []vuStep, t int64) int {
	n := 0
	for _, s := range steps {
		if s.At > t {
			break
		}
		n = s.VUs
	}
	return n
}

// regularEnd is the scenario's regular duration (ns): when no new
// iteration starts any more.
func regularEnd(s *Scenario) int64 {
	switch s.Executor {
	case ConstantArrivalRate, ConstantVUs:
		return int64(s.Duration)
	}
	return int64(stagesDuration(s.Stages))
}
