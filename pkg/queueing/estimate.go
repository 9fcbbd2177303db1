package queueing

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// LoadLevel is one measured load level of a run, such as a hold or a ramp
// step of pkg/knee. Rates are per second, times in seconds.
type LoadLevel struct {
	// Start and End bound the level (End exclusive); they are carried to
	// the result, not used.
	Start, End time.Time
	// OfferedPerSecond is the offered request rate of an open-model run
	// (arrivals whatever the system did); 0 when unknown, as in a closed
	// model.
	OfferedPerSecond float64
	// ThroughputPerSecond is the rate of responses, errors included.
	ThroughputPerSecond float64
	// MeanSeconds and QuantileSeconds are the measured mean and quantile
	// (at EstimateOptions.Quantile) response time of the successful
	// requests; Samples is how many there were (0: none).
	MeanSeconds, QuantileSeconds float64
	Samples                      uint64
}

// arrival is the rate the model is offered at the level: the offered rate
// when known (open model), else the measured throughput (closed model).
func (l LoadLevel) arrival() float64 {
	if l.OfferedPerSecond > 0 {
		return l.OfferedPerSecond
	}
	return l.ThroughputPerSecond
}

// EstimateOptions tune EstimateMMc. The zero value estimates everything.
type EstimateOptions struct {
	// ServiceSeconds, when > 0, is used instead of the estimate.
	ServiceSeconds float64
	// Servers, when > 0, is used instead of the estimate.
	Servers int
	// Quantile of the response time to predict beside the mean (default
	// 0.95).
	Quantile float64
	// LowLoad is the share of the ceiling below which a level counts as
	// low load for the service-time estimate (default 0.3).
	LowLoad float64
	// Closed is true for a closed-model run: a warning then says where
	// the open M/M/c model stops applying.
	Closed bool
	// CeilingNotReached says the run's completed load still followed the
	// offered load at its highest level: the ceiling, and so the servers,
	// are lower bounds.
	CeilingNotReached bool
}

// MMcLevel is a measured level beside the M/M/c model's prediction.
type MMcLevel struct {
	// LoadLevel is the measured level.
	LoadLevel
	// ArrivalPerSecond is the rate the model was offered: the level's
	// offered rate when known, else its throughput.
	ArrivalPerSecond float64
	// Utilisation is λS/c, a ratio; 1 or more means the model has no
	// steady state at this rate (Stable false) and predicts no latency.
	Utilisation float64
	// Stable is true when Utilisation < 1 and the predictions are set.
	Stable bool
	// PredictedMeanSeconds and PredictedQuantileSeconds are the model's
	// mean and quantile response time; 0 when not Stable.
	PredictedMeanSeconds     float64
	PredictedQuantileSeconds float64
	// PWait is the Erlang C probability of waiting, 0–1 (0 when not
	// Stable).
	PWait float64
}

// MMcEstimate is an M/M/c queue estimated from a run's load levels, as
// returned by EstimateMMc.
type MMcEstimate struct {
	// ServiceSeconds S is the mean service time, s.
	ServiceSeconds float64
	// ServiceLevels is how many low-load levels S was averaged over (0
	// when given).
	ServiceLevels int
	// CeilingPerSecond is the measured ceiling X_max (successful
	// responses per second); 0 when Servers was given and no ceiling.
	CeilingPerSecond float64
	// CeilingNotReached repeats EstimateOptions.CeilingNotReached: the run
	// never saturated, so CeilingPerSecond (and the servers and capacity
	// taken from it) are lower bounds.
	CeilingNotReached bool
	// ServersExact is X_max·S, the effective parallelism (utilisation law
	// at the ceiling, where every server is busy: X_max = c/S); 0 when
	// Servers was given.
	ServersExact float64
	// Servers c is ServersExact rounded to a whole number ≥ 1, or the
	// given number.
	Servers int
	// CapacityPerSecond is the model's capacity c/S.
	CapacityPerSecond float64
	// Quantile is the quantile of PredictedQuantileSeconds, e.g. 0.95.
	Quantile float64
	// Levels are the input levels with the model's predictions, in input
	// order.
	Levels []MMcLevel
	// Warnings are caveats in plain words.
	Warnings []string
}

// EstimateMMc estimates an M/M/c queue from the load levels of a run and
// its ceiling, and predicts each level's response time (methods.md §3,
// "Estimating service time and capacity from a sweep"):
//
//	S = mean response time at the low-load levels (arrival ≤ LowLoad·X_max),
//	    weighted by their samples: with almost no queueing, R ≈ S;
//	c = round(X_max·S): the utilisation law U = X·S at the ceiling, where
//	    all c servers are busy (LZGS ch. 3);
//	R(λ) = S + C(c, λS)·S/(c − λS) per level (Erlang C, see MMc).
//
// The mean is used rather than the median because M/M/c's S is a mean.
// S includes whatever the client measures outside the server (network,
// TLS, client overhead), so c is an upper estimate of the server's
// parallelism. Levels with arrival rate ≥ c/S get Stable false: the model
// has no steady state there, which is what overload looks like.
//
// It returns an error when there is no level with samples, when the
// ceiling is not > 0 and Servers is not given, or when an option is out of
// range.
func EstimateMMc(levels []LoadLevel, ceilingPerSecond float64, opt EstimateOptions) (MMcEstimate, error) {
	est := MMcEstimate{Quantile: opt.Quantile, Levels: []MMcLevel{}}
	if est.Quantile == 0 {
		est.Quantile = 0.95
	}
	if !(est.Quantile > 0 && est.Quantile < 1) {
		return est, errorf("quantile must be in (0, 1), got %g", opt.Quantile)
	}
	low := opt.LowLoad
	if low == 0 {
		low = 0.3
	}
	if !(low > 0 && low <= 1) {
		return est, errorf("low-load share must be in (0, 1], got %g", opt.LowLoad)
	}
	if opt.ServiceSeconds < 0 || math.IsNaN(opt.ServiceSeconds) || math.IsInf(opt.ServiceSeconds, 0) {
		return est, errorf("service time must be finite and > 0, got %g", opt.ServiceSeconds)
	}
	if opt.Servers < 0 {
		return est, errorf("servers must be ≥ 1, got %d", opt.Servers)
	}
	hasCeiling := ceilingPerSecond > 0 && !math.IsInf(ceilingPerSecond, 0)
	if !hasCeiling && opt.Servers == 0 {
		return est, errorf("no ceiling (%g/s): the servers cannot be estimated; give them", ceilingPerSecond)
	}
	var measured []LoadLevel
	for _, l := range levels {
		if l.Samples > 0 && l.MeanSeconds > 0 && l.arrival() > 0 {
			measured = append(measured, l)
		}
	}
	if len(measured) == 0 {
		return est, errorf("no load level with successful responses to measure")
	}
	if hasCeiling {
		est.CeilingPerSecond = ceilingPerSecond
	}

	est.ServiceSeconds = opt.ServiceSeconds
	if est.ServiceSeconds == 0 {
		var sum, n float64
		for _, l := range measured {
			if hasCeiling && l.arrival() <= low*ceilingPerSecond {
				sum += l.MeanSeconds * float64(l.Samples)
				n += float64(l.Samples)
				est.ServiceLevels++
			}
		}
		if est.ServiceLevels == 0 {
			byRate := append([]LoadLevel(nil), measured...)
			sort.SliceStable(byRate, func(i, j int) bool { return byRate[i].arrival() < byRate[j].arrival() })
			l := byRate[0]
			sum, n, est.ServiceLevels = l.MeanSeconds*float64(l.Samples), float64(l.Samples), 1
			what := "no ceiling"
			if hasCeiling {
				what = fmt.Sprintf("no level below %.0f%% of the ceiling", 100*low)
			}
			est.Warnings = append(est.Warnings, fmt.Sprintf("%s: the service time is the mean response at the lowest level (%.4g/s), which includes queueing, so it is overstated", what, l.arrival()))
		}
		est.ServiceSeconds = sum / n
	}

	est.Servers = opt.Servers
	if est.Servers == 0 {
		est.ServersExact = ceilingPerSecond * est.ServiceSeconds
		est.Servers = max(1, int(math.Round(est.ServersExact)))
		if math.Abs(est.ServersExact-float64(est.Servers)) > 0.25 {
			est.Warnings = append(est.Warnings, fmt.Sprintf("the effective parallelism X_max·S = %.2f is not near a whole number: part of the measured response time is spent outside the servers, or the servers are not alike", est.ServersExact))
		}
	}
	est.CeilingNotReached = opt.CeilingNotReached
	switch {
	case opt.CeilingNotReached && opt.Servers == 0:
		est.Warnings = append(est.Warnings, "the run never saturated (its ceiling was not reached): the measured ceiling is a lower bound, and so are the servers and the capacity estimated from it")
	case opt.CeilingNotReached:
		est.Warnings = append(est.Warnings, "the run never saturated (its ceiling was not reached): its highest goodput is a lower bound of the capacity, not a measure of it")
	}
	est.CapacityPerSecond = float64(est.Servers) / est.ServiceSeconds
	if opt.Closed {
		est.Warnings = append(est.Warnings, "closed model: arrivals are not Poisson and stop growing at the ceiling, so the M/M/c curve applies below the knee only; past it the response time follows R = N/X − Z (interactive response-time law)")
	}

	for _, l := range levels {
		m := MMcLevel{LoadLevel: l, ArrivalPerSecond: l.arrival()}
		if !(m.ArrivalPerSecond >= 0) || math.IsInf(m.ArrivalPerSecond, 0) {
			m.ArrivalPerSecond = 0
		}
		m.Utilisation = m.ArrivalPerSecond * est.ServiceSeconds / float64(est.Servers)
		if q, err := MMc(m.ArrivalPerSecond, est.ServiceSeconds, est.Servers); err == nil {
			m.Stable = true
			m.PredictedMeanSeconds, m.PWait = q.ResponseSeconds, q.PWait
			if qt, err := q.ResponseQuantile(est.Quantile); err == nil {
				m.PredictedQuantileSeconds = qt
			}
		}
		est.Levels = append(est.Levels, m)
	}
	return est, nil
}
