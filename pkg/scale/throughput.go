package scale

import (
	"fmt"
	"math"
	"time"
)

// Throughput is the completed rate of one run of a sweep, the X of a
// Universal Scalability Law point, as returned by SteadyThroughput.
type Throughput struct {
	// PerSecond is successful requests per second (http_reqs with
	// expected_response=true, or status 1–399 without that tag); for a
	// run without HTTP requests, completed iterations per second.
	PerSecond float64
	// Span is "hold" when PerSecond is the longest hold's rate, "run" when
	// the run had no hold and PerSecond is the mean over the whole run.
	Span string
	// Start and End bound the span (UTC, whole seconds, End exclusive).
	Start, End time.Time
	// Seconds is the span's length in seconds.
	Seconds float64
	// VUs is the mean of the vus gauge over the span; 0 when the run has
	// no vus gauge.
	VUs float64
	// HasVUs is false when the run has no vus gauge.
	HasVUs bool
	// ErrorRate is failed ÷ all requests over the span, 0–1.
	ErrorRate float64
	// BytesReceivedPerS and BytesSentPerS are data_received and data_sent
	// over the span, bytes per second; BytesPerRequest is data_received ÷
	// all responses (÷ iterations without requests), bytes; NaN when the
	// span has neither.
	BytesReceivedPerS, BytesSentPerS, BytesPerRequest float64
	// P95MS is the p95 of the analysed Trend over the hold, ms (NaN over
	// a whole run without a hold: its levels' p95s do not add up).
	P95MS float64
	// Warnings are caveats in plain words.
	Warnings []string
}

// Spans of a Throughput.
const (
	// SpanHold: the rate of the run's longest hold.
	SpanHold = "hold"
	// SpanRun: the mean rate over the whole run (it had no hold).
	SpanRun = "run"
)

// LevelRate is one load level of a run (a hold or a ramp step, as the knee
// analysis found them): its span, its length in seconds of data, its
// goodput and all responses per second, its error rate (0–1), its
// mean VUs (NaN without a vus gauge), and its data_received and data_sent
// per second and data_received per response (bytes), and its p95 (ms;
// knee.Level's).
type LevelRate struct {
	Start, End                         time.Time
	Seconds, CompletedRPS, RequestsRPS float64
	ErrorRate, VUs                     float64
	BytesReceivedPerS, BytesSentPerS   float64
	BytesPerRequest, P95MS             float64
}

// RunLevels are the load levels of one run: its holds and its ramp steps,
// whether its executors were VU ones (closed model), and why the run has
// no level when it has none.
type RunLevels struct {
	Closed bool
	Holds  []LevelRate
	Steps  []LevelRate
	// Why says why a run has no level (too short).
	Why string
}

// SteadyThroughput returns the completed rate of a run's levels, for a
// sweep point labelled with concurrency n (VUs).
//
// X is taken over the run's longest hold (knee's plateau of offered load,
// its first and last second dropped), because a run's start-up, ramp-down
// and graceful stop are not the steady state the USL describes (Gunther
// 2007 ch. 5 asks for steady-state measurements; methods.md §2). A run
// with no hold falls back to the mean over all its seconds, with a
// warning. In a closed model a warning also says when the hold's mean VUs
// differ from n by more than 10 %: the label may not be the concurrency.
// It returns an error when the run is too short to have any level.
func SteadyThroughput(r RunLevels, n float64) (Throughput, error) {
	var best *LevelRate
	for i := range r.Holds {
		if best == nil || r.Holds[i].Seconds > best.Seconds {
			best = &r.Holds[i]
		}
	}
	t := Throughput{}
	if best != nil {
		t.Span = SpanHold
		t.Start, t.End, t.Seconds = best.Start, best.End, best.Seconds
		t.PerSecond = best.CompletedRPS
		t.VUs, t.HasVUs = best.VUs, finite(best.VUs)
		t.ErrorRate = best.ErrorRate
		t.BytesReceivedPerS, t.BytesSentPerS, t.BytesPerRequest = best.BytesReceivedPerS, best.BytesSentPerS, best.BytesPerRequest
		t.P95MS = best.P95MS
	} else {
		if len(r.Steps) == 0 {
			return t, fmt.Errorf("scale: the run is too short to measure a throughput (%s)", r.Why)
		}
		t.Span = SpanRun
		var secs, done, vus, errs, reqs, recv, sent, perReq float64
		t.HasVUs = true
		for _, l := range r.Steps {
			secs += l.Seconds
			recv += l.BytesReceivedPerS * l.Seconds
			sent += l.BytesSentPerS * l.Seconds
			if rr := l.RequestsRPS; finite(rr) {
				perReq += rr * l.Seconds
			} else if finite(l.CompletedRPS) {
				perReq += l.CompletedRPS * l.Seconds // iterations, without requests
			}
			done += l.CompletedRPS * l.Seconds
			if rr := l.RequestsRPS; finite(rr) {
				reqs += rr * l.Seconds
				errs += rr * l.Seconds * l.ErrorRate
			}
			if finite(l.VUs) {
				vus += l.VUs * l.Seconds
			} else {
				t.HasVUs = false
			}
		}
		t.Start, t.End, t.Seconds = r.Steps[0].Start, r.Steps[len(r.Steps)-1].End, secs
		t.PerSecond = done / secs
		t.BytesReceivedPerS, t.BytesSentPerS, t.BytesPerRequest = recv/secs, sent/secs, math.NaN()
		t.P95MS = math.NaN()
		if perReq > 0 {
			t.BytesPerRequest = recv / perReq
		}
		if t.HasVUs {
			t.VUs = vus / secs
		}
		if reqs > 0 {
			t.ErrorRate = errs / reqs
		}
		t.Warnings = append(t.Warnings, fmt.Sprintf("N=%g: no hold found, so X is the mean over the whole run (%.0f s) including its ramps; run each point as a constant-vus hold", n, secs))
	}
	if !finite(t.PerSecond) {
		return Throughput{}, fmt.Errorf("scale: N=%g: no completed rate in the run", n)
	}
	if !t.HasVUs {
		t.VUs = 0
	}
	if !finite(t.ErrorRate) {
		t.ErrorRate = 0
	}
	if r.Closed && t.HasVUs && n > 0 && math.Abs(t.VUs-n) > 0.1*n {
		t.Warnings = append(t.Warnings, fmt.Sprintf("N=%g: the %s's mean VUs is %.1f, %.0f%% away from the label: is the label the run's VU count?", n, t.Span, t.VUs, 100*math.Abs(t.VUs-n)/n))
	}
	if t.ErrorRate > 0.05 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("N=%g: %.0f%% of the requests failed during the %s; X counts only successes", n, 100*t.ErrorRate, t.Span))
	}
	if t.Span == SpanHold && t.Seconds < 30 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("N=%g: the hold lasts only %.0f s; a steady-state X needs at least 30 s, better a minute or more", n, t.Seconds))
	}
	return t, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
