package pipeline

import (
	"fmt"

	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/queueing"
	"github.com/ldanalyze/ldanalyze/pkg/scale"
)

// CheckLittle checks Little's law per decision level of an analysed run
// (LittleSpans, then queueing.CheckLittle), as a closed or open model as
// the run was; tolerance is the relative mismatch |λW/L − 1| still counted
// as agreement (0: queueing's default).
func CheckLittle(an *Analysis, tolerance float64) (queueing.LittleCheck, error) {
	spans, err := LittleSpans(an)
	if err != nil {
		return queueing.LittleCheck{}, err
	}
	return queueing.CheckLittle(spans, queueing.LittleOptions{Closed: an.Knee.Model == knee.Closed, Tolerance: tolerance})
}

// EstimateMMc estimates an M/M/c queue from the decision levels of an
// analysed run (LoadLevels, then queueing.EstimateMMc). opt.Quantile (0–1)
// must be one of the run's Knee.Percentiles; whether the ceiling was
// reached and the workload model come from the run.
func EstimateMMc(an *Analysis, opt queueing.EstimateOptions) (queueing.MMcEstimate, error) {
	levels, ceiling, reached, err := LoadLevels(an, opt.Quantile)
	if err != nil {
		return queueing.MMcEstimate{}, err
	}
	opt.CeilingNotReached, opt.Closed = !reached, an.Knee.Model == knee.Closed
	return queueing.EstimateMMc(levels, ceiling, opt)
}

// QueueRequest is what `queue mm1` and `queue mmc` model: M/M/c queues of
// ServiceSeconds mean service time at each of RatesPerSecond, with Servers
// servers, or (TargetSeconds > 0, one rate) with the fewest servers whose
// Quantile (0–1; 0: the mean) response time is at most TargetSeconds.
type QueueRequest struct {
	RatesPerSecond []float64
	ServiceSeconds float64
	Servers        int
	TargetSeconds  float64
	Quantile       float64
}

// Queues computes the queues of r: one per rate with a steady state (the
// rates at or above the capacity Servers ÷ ServiceSeconds are left out
// and named in a warning), or the one queue that meets the target. It
// returns an error when no rate has a steady state or the target cannot
// be met.
func Queues(r QueueRequest) ([]queueing.MMC, []string, error) {
	if r.TargetSeconds > 0 {
		if len(r.RatesPerSecond) != 1 {
			return nil, nil, fmt.Errorf("queue: a target solves for the servers at one rate, got %d rates", len(r.RatesPerSecond))
		}
		q, err := queueing.ServersFor(r.RatesPerSecond[0], r.ServiceSeconds, r.TargetSeconds, r.Quantile)
		return []queueing.MMC{q}, nil, err
	}
	qs, err := queueing.Curve(r.RatesPerSecond, r.ServiceSeconds, r.Servers)
	if err != nil {
		return nil, nil, err
	}
	if len(qs) == 0 && len(r.RatesPerSecond) == 1 {
		_, err := queueing.MMc(r.RatesPerSecond[0], r.ServiceSeconds, r.Servers)
		return nil, nil, err
	}
	var warn []string
	if len(qs) < len(r.RatesPerSecond) {
		warn = append(warn, fmt.Sprintf("%d of the rates reach the capacity %s of %d server(s) and have no steady state; they are left out",
			len(r.RatesPerSecond)-len(qs), scale.PerSecond.Format(float64(r.Servers)/r.ServiceSeconds), r.Servers))
	}
	return qs, warn, nil
}
