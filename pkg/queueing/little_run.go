package queueing

import (
	"fmt"
	"math"
	"time"
)

// Span is a stretch of a run at one load level, such as a hold or a ramp
// step: whole seconds [Start, End), the mean of the vus gauge over them
// (summed over the instances of a distributed run), and the iterations
// that ended in them.
type Span struct {
	// Start and End bound the span, whole seconds, End exclusive.
	Start, End time.Time
	// VUs is the mean of the vus gauge over the span.
	VUs float64
	// Iterations is the sum of the iterations counter over the span (0:
	// the run has no such counter, and each iteration_duration sample
	// counts as one iteration).
	Iterations float64
	// Durations is the number of iteration_duration samples in the span,
	// DurationSumMS their sum, ms.
	Durations     float64
	DurationSumMS float64
}

// Verdicts of a LittleLevel.
const (
	// LittleHolds: mean VUs and λ·W agree within the tolerance.
	LittleHolds = "holds"
	// LittleIdle: λ·W is below the mean VUs: VUs spent time outside
	// iterations.
	LittleIdle = "idle"
	// LittleExcess: λ·W is above the mean VUs: more time was spent in
	// iterations than the VUs had.
	LittleExcess = "excess"
	// LittleNoData: no iteration completed in the span.
	LittleNoData = "no iterations"
)

// LittleOptions tune CheckLittle. The zero value works.
type LittleOptions struct {
	// Closed is true for a closed-model run (VU executors), false for an
	// open model (arrival-rate executors); it changes only the reasons
	// given for a mismatch.
	Closed bool
	// Tolerance is the relative mismatch |λW/L − 1| still counted as
	// agreement (default 0.10, methods.md §3: "a mismatch > ~10 %").
	Tolerance float64
}

// LittleLevel is Little's law checked on one span: L (mean VUs) against
// λ·W (completed iterations per second × mean iteration duration).
type LittleLevel struct {
	// Start and End are the span's (End exclusive).
	Start, End time.Time
	// Seconds is the span's length.
	Seconds float64
	// VUs is L, the mean of the vus gauge over the span.
	VUs float64
	// Iterations is the number of iterations that ended in the span.
	Iterations float64
	// IterationsPerSecond is λ, Iterations ÷ Seconds.
	IterationsPerSecond float64
	// IterationSeconds is W, the mean iteration_duration of those
	// iterations, in seconds; 0 when none ended.
	IterationSeconds float64
	// BusyVUs is λ·W, the VUs the completed iterations kept busy.
	BusyVUs float64
	// Gap is VUs − BusyVUs: VUs not inside a counted iteration (negative
	// when λ·W exceeds the gauge).
	Gap float64
	// Ratio is BusyVUs ÷ VUs, the busy share of the VUs (1 when Little's
	// law holds exactly); 0 when VUs is 0.
	Ratio float64
	// Band is the largest |Gap| in VUs counted as agreement: Tolerance ×
	// VUs, widened in an open model to 3·√(BusyVUs ÷ Seconds) for the
	// sampling noise of the vus gauge (see CheckLittle).
	Band float64
	// Verdict is LittleHolds, LittleIdle, LittleExcess or LittleNoData;
	// Reason says what it means.
	Verdict string
	Reason  string
}

// LittleCheck is the result of CheckLittle.
type LittleCheck struct {
	// Levels are the spans checked, in input order.
	Levels []LittleLevel
	// Overall pools every span: VUs weighted by seconds, all iterations
	// that ended in them and their mean duration. Spans that touch or
	// overlap are not merged, so keep them disjoint. Its Start and End are
	// those of the first and last span; its Seconds is the sum of the
	// spans' seconds.
	Overall LittleLevel
	// Tolerance is the relative mismatch counted as agreement.
	Tolerance float64
	// Warnings are caveats in plain words (short spans, missing metrics).
	Warnings []string
}

// CheckLittle checks Little's law, L = λW (Little 1961; LZGS ch. 3), on
// each span of a k6 run: L is the span's mean vus gauge, λ the iterations
// that ended in the span per second and W their mean iteration_duration
// (methods.md §3, "Checking it on k6 data").
//
// In a closed model every VU is always inside an iteration (sleep and
// think time included), so VUs ≈ λW. In an open model the vus gauge counts
// the VUs running an iteration, so busy VUs ≈ λW as well. λW well below
// the VUs (verdict LittleIdle) means the VUs idled: time outside the
// default function (think time not inside the iteration), VUs ramping down
// or waiting for work, or iterations interrupted or dropped and never
// counted. λW above the VUs (LittleExcess) usually means iterations longer
// than the span started before it: lengthen the holds. Each span's
// boundary shifts the estimate by up to about W ÷ span; a warning says
// when W exceeds a tenth of a span. While VUs ramp up, completions lag the
// VUs by about one iteration, so λW ≈ L − (VUs added per second)·W.
//
// The vus gauge is a snapshot k6 takes once a second. In a closed model it
// follows the schedule, so a span's mean is exact; in an open model the
// number of busy VUs at an instant varies like a Poisson count of mean λW
// (M/G/∞, Kleinrock 1975 ch. 3), so the mean of a span's T snapshots has a
// standard error of about √(λW/T). An open model's agreement band is
// therefore max(Tolerance·L, 3·√(λW/T)) VUs; a closed model's is
// Tolerance·L.
//
// It returns an error when no span has iteration_duration samples or a
// span has End ≤ Start.
func CheckLittle(spans []Span, opt LittleOptions) (LittleCheck, error) {
	tol := opt.Tolerance
	if !(tol > 0) {
		tol = 0.10
	}
	out := LittleCheck{Tolerance: tol, Levels: []LittleLevel{}}
	var anyDur bool
	for _, s := range spans {
		if s.Durations > 0 {
			anyDur = true
			break
		}
	}
	if !anyDur {
		return out, errorf("no iteration_duration samples: Little's law on a run needs the iteration rate and duration")
	}
	short := 0
	var all LittleLevel
	var allN, allSum, allVUs float64
	for _, sp := range spans {
		if !sp.End.After(sp.Start) {
			return out, errorf("span %s–%s has no length", sp.Start.Format(time.RFC3339), sp.End.Format(time.RFC3339))
		}
		if err := nonNegative("mean VUs", sp.VUs); err != nil {
			return out, err
		}
		iters, durN, durSum := sp.Iterations, sp.Durations, sp.DurationSumMS
		if iters == 0 {
			// No iterations counter (dropped from the output): one
			// iteration_duration sample per iteration.
			iters = durN
		}
		l := level(sp.Start, sp.End, sp.VUs, iters, durN, durSum, tol, opt.Closed)
		if l.Verdict != LittleNoData && l.IterationSeconds > l.Seconds/10 {
			short++
		}
		out.Levels = append(out.Levels, l)
		if all.Start.IsZero() || sp.Start.Before(all.Start) {
			all.Start = sp.Start
		}
		if sp.End.After(all.End) {
			all.End = sp.End
		}
		all.Seconds += l.Seconds
		all.Iterations += iters
		allN += durN
		allSum += durSum
		allVUs += sp.VUs * l.Seconds
	}
	if len(spans) > 0 {
		out.Overall = level(all.Start, all.Start.Add(time.Duration(all.Seconds*1e9)), allVUs/all.Seconds, all.Iterations, allN, allSum, tol, opt.Closed)
		out.Overall.End = all.End
	}
	if short > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("in %d of %d span(s) the mean iteration lasts more than a tenth of the span: iterations straddling its edges shift λ·W by up to W ÷ span; compare over longer holds", short, len(spans)))
	}
	return out, nil
}

// level checks Little's law on a span of the given length.
func level(start, end time.Time, vus, iters, durN, durSumMS, tol float64, closed bool) LittleLevel {
	l := LittleLevel{Start: start, End: end, VUs: vus, Iterations: iters}
	l.Seconds = end.Sub(start).Seconds()
	l.IterationsPerSecond = iters / l.Seconds
	if durN == 0 || iters == 0 {
		l.Verdict = LittleNoData
		l.Reason = "no iteration ended in this span: its VUs were all inside iterations longer than the span, or idle"
		l.Gap = l.VUs
		return l
	}
	l.IterationSeconds = durSumMS / durN / 1000
	l.BusyVUs = l.IterationsPerSecond * l.IterationSeconds
	l.Gap = l.VUs - l.BusyVUs
	if l.VUs > 0 {
		l.Ratio = l.BusyVUs / l.VUs
	}
	l.Band = tol * l.VUs
	if !closed {
		l.Band = math.Max(l.Band, 3*math.Sqrt(l.BusyVUs/l.Seconds))
	}
	l.Verdict, l.Reason = littleVerdict(l, tol, closed)
	return l
}

func littleVerdict(l LittleLevel, tol float64, closed bool) (verdict, reason string) {
	pct := func(v float64) string { return fmt.Sprintf("%.0f%%", 100*math.Abs(v)) }
	switch {
	case l.VUs == 0 && l.BusyVUs > l.Band:
		return LittleExcess, fmt.Sprintf("iterations kept %.2f VUs busy but the vus gauge reads 0: the gauge is missing for this span (part of a distributed run?)", l.BusyVUs)
	case math.Abs(l.Gap) <= l.Band:
		if closed {
			return LittleHolds, fmt.Sprintf("VUs ≈ λ·W (%s apart): as a closed model must, every VU was inside an iteration", pct(l.Ratio-1))
		}
		return LittleHolds, fmt.Sprintf("busy VUs ≈ λ·W (%.2f apart, within the %.2f the once-a-second vus snapshot allows): the gauge counts VUs running iterations", math.Abs(l.Gap), l.Band)
	case l.Gap > 0:
		if closed {
			return LittleIdle, fmt.Sprintf("λ·W is %s below the VUs: %.1f VUs were outside a counted iteration (VUs ramping up whose first iteration had not ended, think time outside the default function, or interrupted iterations, which k6 does not count)", pct(1-l.Ratio), l.Gap)
		}
		return LittleIdle, fmt.Sprintf("λ·W is %s below the VUs: %.1f VUs idled (VUs waiting for their next start, or iterations dropped or interrupted and never counted)", pct(1-l.Ratio), l.Gap)
	default:
		if closed {
			return LittleExcess, fmt.Sprintf("λ·W is %s above the VUs: iterations that began before this span (W = %.3g s) ended in it, as when VUs ramp down: the gauge drops a stopping VU while it finishes its iteration", pct(l.Ratio-1), l.IterationSeconds)
		}
		return LittleExcess, fmt.Sprintf("λ·W is %s above the VUs: iterations that began before this span (W = %.3g s) ended in it; lengthen the holds or check that every instance's vus gauge is in the input", pct(l.Ratio-1), l.IterationSeconds)
	}
}
