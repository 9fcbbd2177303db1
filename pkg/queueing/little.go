// Package queueing holds the operational laws and queueing models a
// performance engineer uses to reason about a load test: Little's law, the
// utilisation law, the interactive response-time law, M/M/1, M/M/c with
// Erlang C, and the Universal Scalability Law fitted to a sweep.
//
// Units: rates are per second, times in seconds, utilisations are 0–1
// ratios (not percent). Functions take plain values or slices and return
// named results with an error for bad input; nothing panics or prints, and
// no result holds a NaN. Two work on a k6 run's measured levels, given as
// plain values (pkg/pipeline adapts a run to them): CheckLittle (Little's
// law per hold) and EstimateMMc (service time and servers fitted to the
// levels).
//
// References: Little, "A Proof for the Queuing Formula L = λW", Operations
// Research 9(3), 1961; Lazowska, Zahorjan, Graham & Sevcik, Quantitative
// System Performance, 1984 (LZGS) ch. 3 (operational laws) and ch. 5 (bounds);
// Kleinrock, Queueing Systems Vol. 1, 1975, ch. 3 (M/M/1, M/M/m);
// Gunther, Guerrilla Capacity Planning, Springer 2007, ch. 4–6 (USL).
package queueing

import (
	"errors"
	"fmt"
	"math"
)

// ErrUnstable reports a queue whose arrival rate reaches its capacity
// (utilisation ≥ 1): it has no steady state and the waiting time grows
// without bound.
var ErrUnstable = errors.New("queueing: unstable, arrivals reach capacity (utilisation ≥ 1)")

// InFlight returns L = λ·W, the mean number of requests (or iterations, or
// VUs) in the system, from the completed rate in per second and the mean
// time in the system (latency or iteration duration) in seconds (Little
// 1961; LZGS ch. 3). 600 req/s × 2.8 s = 1680 in flight.
//
// Both arguments must be finite and ≥ 0.
func InFlight(ratePerSecond, latencySeconds float64) (inFlight float64, err error) {
	if err := nonNegative("rate", ratePerSecond); err != nil {
		return 0, err
	}
	if err := nonNegative("latency", latencySeconds); err != nil {
		return 0, err
	}
	return ratePerSecond * latencySeconds, nil
}

// Little is L = λW with every quantity: the mean number in the system,
// the completed rate per second and the mean time in the system, seconds.
type Little struct {
	InFlight, RatePerSecond, LatencySeconds float64
}

// SolveLittle completes l from the two of its quantities that are given
// (not NaN) by InFlight, Rate or Latency, and names the one it solved:
// "in_flight", "rate_per_second" or "latency_seconds". It returns an error
// unless exactly one quantity is NaN, or when the given ones are out of
// the solver's range.
func SolveLittle(l Little) (Little, string, error) {
	var err error
	switch nan := [3]bool{math.IsNaN(l.InFlight), math.IsNaN(l.RatePerSecond), math.IsNaN(l.LatencySeconds)}; nan {
	case [3]bool{true, false, false}:
		l.InFlight, err = InFlight(l.RatePerSecond, l.LatencySeconds)
		return l, "in_flight", err
	case [3]bool{false, true, false}:
		l.RatePerSecond, err = Rate(l.InFlight, l.LatencySeconds)
		return l, "rate_per_second", err
	case [3]bool{false, false, true}:
		l.LatencySeconds, err = Latency(l.InFlight, l.RatePerSecond)
		return l, "latency_seconds", err
	}
	return l, "", errors.New("queueing: Little's law needs exactly two of in-flight, rate and latency")
}

// Rate returns λ = L/W, the throughput in per second that keeps inFlight
// requests busy for latencySeconds each (Little's law solved for λ).
// inFlight must be ≥ 0 and latencySeconds > 0.
func Rate(inFlight, latencySeconds float64) (ratePerSecond float64, err error) {
	if err := nonNegative("in-flight", inFlight); err != nil {
		return 0, err
	}
	if err := positive("latency", latencySeconds); err != nil {
		return 0, err
	}
	return inFlight / latencySeconds, nil
}

// Latency returns W = L/λ, the mean time in the system in seconds (Little's
// law solved for W). inFlight must be ≥ 0 and ratePerSecond > 0.
func Latency(inFlight, ratePerSecond float64) (latencySeconds float64, err error) {
	if err := nonNegative("in-flight", inFlight); err != nil {
		return 0, err
	}
	if err := positive("rate", ratePerSecond); err != nil {
		return 0, err
	}
	return inFlight / ratePerSecond, nil
}

// VUCheck says whether an open-model k6 test had enough VUs: by Little's law
// the busy VUs are rate × mean iteration duration, and when that reaches
// maxVUs k6 drops iterations (k6 docs, "Arrival-rate VU allocation").
type VUCheck struct {
	// Required is the mean number of busy VUs, rate × iteration duration.
	Required float64
	// MaxVUs is the allocation the test allowed (k6 maxVUs).
	MaxVUs int
	// Sufficient is true when Required < MaxVUs.
	Sufficient bool
	// Headroom is MaxVUs/Required − 1, a ratio (0.2 = 20 % spare); negative
	// when the allocation is short.
	Headroom float64
}

// CheckVUs compares the VUs an open-model test needs, rate × iteration
// duration (Little's law), with the maxVUs it allowed. ratePerSecond and
// iterationSeconds must be > 0, maxVUs ≥ 1. Because Required is a mean,
// bursts need more: treat Headroom below ~0.2 as too little.
func CheckVUs(ratePerSecond, iterationSeconds float64, maxVUs int) (VUCheck, error) {
	if err := positive("rate", ratePerSecond); err != nil {
		return VUCheck{}, err
	}
	if err := positive("iteration duration", iterationSeconds); err != nil {
		return VUCheck{}, err
	}
	if maxVUs < 1 {
		return VUCheck{}, fmt.Errorf("queueing: max VUs must be ≥ 1, got %d", maxVUs)
	}
	r := ratePerSecond * iterationSeconds
	return VUCheck{Required: r, MaxVUs: maxVUs, Sufficient: r < float64(maxVUs), Headroom: float64(maxVUs)/r - 1}, nil
}

func nonNegative(name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return fmt.Errorf("queueing: %s must be finite and ≥ 0, got %g", name, v)
	}
	return nil
}

func positive(name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return fmt.Errorf("queueing: %s must be finite and > 0, got %g", name, v)
	}
	return nil
}
