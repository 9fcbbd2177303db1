package pipeline

import (
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/queueing"
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
