package queueing

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Sweep labels: what adding concurrency did at each step of a ladder.
const (
	// LabelHeadroom: throughput still grew by at least HeadroomGain of
	// linear scaling from the step before (the first step is headroom).
	LabelHeadroom = "headroom"
	// LabelSaturation: throughput grew by less than that, or stayed
	// within RetrogradeTolerance of the best so far: more concurrency
	// mostly queues.
	LabelSaturation = "saturation"
	// LabelContention: throughput fell by more than RetrogradeTolerance
	// below the best of a smaller concurrency: the retrograde region the
	// USL's κ (coherency) predicts past N*.
	LabelContention = "contention"
)

// HeadroomGain is the share of linear scaling a step must add to be
// headroom: ΔX ÷ (ΔN · X(N₀)/N₀) ≥ 0.5. RetrogradeTolerance is the fall
// below the best X so far, a ratio, that counts as retrograde (5 %: the
// levels of one closed ramp past its knee wander by 2–4 % around their
// plateau, testdata/k6/closed_ramp.csv.gz).
const (
	HeadroomGain        = 0.5
	RetrogradeTolerance = 0.05
)

// SweepStep is one point of a ladder with its label.
type SweepStep struct {
	// N is the concurrency and X the throughput (its unit, per second).
	N, X float64
	// Efficiency is X(N) ÷ (N · X(1)), a ratio: X(1) is the measured
	// throughput at N = 1, or, without an N = 1 point, X(N₀)/N₀ of the
	// smallest N measured (BaseN).
	Efficiency float64
	// Gain is the step's marginal scaling, ΔX ÷ (ΔN · X(1)) from the
	// next smaller N (1 for the first step): 1 is linear, 0 flat,
	// negative retrograde.
	Gain float64
	// Label is LabelHeadroom, LabelSaturation or LabelContention; Reason
	// says why in numbers.
	Label  string
	Reason string
}

// Sweep labels each point of a ladder of runs (or of the levels of one
// run) with what adding concurrency did, from the measured points (not a
// fit, which smooths over a retrograde step): the lowest N is headroom;
// a later one is contention when its X is more than RetrogradeTolerance
// below the best X of a smaller N, headroom when its marginal gain is at
// least HeadroomGain of linear, saturation otherwise (Gunther, Guerrilla
// Capacity Planning, 2007, ch. 5–6: the linear, sub-linear and retrograde
// regions). Points come back in order of N; baseN is the N that X(1)
// was taken at. It returns an error for fewer than two points, a length
// mismatch, or an N or X that is not positive and finite, or N repeated.
// ErrSweepBadPoint is the Err of Sweep's PointError: the sweep's labels
// need an N and an X that are positive and finite.
var ErrSweepBadPoint = errors.New("the concurrency N and the throughput X must be positive and finite")

func Sweep(n, x []float64) (steps []SweepStep, baseN float64, err error) {
	if len(n) != len(x) {
		return nil, 0, fmt.Errorf("sweep: %d concurrencies but %d throughputs", len(n), len(x))
	}
	if len(n) < 2 {
		return nil, 0, errors.New("sweep: want at least two points")
	}
	idx := make([]int, len(n))
	for i := range idx {
		idx[i] = i
		if !(n[i] > 0) || !(x[i] > 0) || math.IsInf(n[i], 0) || math.IsInf(x[i], 0) {
			return nil, 0, &PointError{Index: i, N: n[i], X: x[i], Err: ErrSweepBadPoint}
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return n[idx[a]] < n[idx[b]] })
	for k := 1; k < len(idx); k++ {
		if n[idx[k]] == n[idx[k-1]] {
			return nil, 0, fmt.Errorf("sweep: N=%g appears twice: give one point per concurrency", n[idx[k]])
		}
	}
	baseN = n[idx[0]]
	unit := x[idx[0]] / baseN // X(1), or X(N₀)/N₀
	best := 0.0
	for k, i := range idx {
		s := SweepStep{N: n[i], X: x[i], Efficiency: x[i] / (n[i] * unit), Gain: 1}
		switch {
		case k == 0:
			s.Label = LabelHeadroom
			s.Reason = fmt.Sprintf("the lowest concurrency measured: X(1) is taken as X/N = %.4g", unit)
		default:
			p := idx[k-1]
			s.Gain = (x[i] - x[p]) / ((n[i] - n[p]) * unit)
			switch {
			case x[i] < (1-RetrogradeTolerance)*best:
				s.Label = LabelContention
				s.Reason = fmt.Sprintf("X fell to %.1f%% of the best so far (%.4g): retrograde", 100*x[i]/best, best)
			case s.Gain >= HeadroomGain:
				s.Label = LabelHeadroom
				s.Reason = fmt.Sprintf("N %g → %g added %.0f%% of linear scaling", n[p], n[i], 100*s.Gain)
			case s.Gain < 0:
				// X fell, within the retrograde tolerance.
				s.Label = LabelSaturation
				s.Reason = fmt.Sprintf("N %g → %g added nothing (%.0f%% of linear scaling: X fell, but less than the %.0f%% below the best that is retrograde)", n[p], n[i], 100*s.Gain, 100*RetrogradeTolerance)
			default:
				s.Label = LabelSaturation
				s.Reason = fmt.Sprintf("N %g → %g added only %.0f%% of linear scaling, under %.0f%%", n[p], n[i], 100*s.Gain, 100*HeadroomGain)
			}
		}
		best = math.Max(best, x[i])
		steps = append(steps, s)
	}
	return steps, baseN, nil
}
