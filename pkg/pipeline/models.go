package pipeline

import (
	"errors"
	"fmt"
	"math"

	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/queueing"
	"github.com/ldanalyze/ldanalyze/pkg/scale"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// The adapters below hand an Analysis to the model packages, which take
// plain structs (queueing, scale): the one place where a knee result and
// a timeline become their inputs.

// ErrNoLevels is returned when a run has no load level to model.
var ErrNoLevels = errors.New("no load levels")

// LittleSpans returns the load levels of an analysed run (its holds and
// ramp steps in time order, the way down too: Little's law holds over any
// span) as Little's law spans (queueing.CheckLittle): mean VUs,
// iterations and their durations per level. It returns an error when the run has no
// iteration_duration samples, no load level, or no vus gauge.
func LittleSpans(an *Analysis) ([]queueing.Span, error) {
	tl := an.Timeline
	if tl.IterationDuration().Count() == 0 {
		return nil, fmt.Errorf("%s: no iteration_duration samples: the run has no completed iterations to measure", an.Name())
	}
	if _, err := decisionLevels(an); err != nil {
		return nil, err
	}
	levels := an.Knee.AllLevels()
	spans := make([]queueing.Span, 0, len(levels))
	for _, l := range levels {
		v := float64(l.VUs)
		if math.IsNaN(v) {
			return nil, fmt.Errorf("%s: no vus gauge in the input: Little's law needs the VUs", an.Name())
		}
		a, b := l.Start.Unix(), l.End.Unix()
		var iters float64
		tl.Range(a, b, func(_ int64, s *timeline.Second) { iters += float64(s.Iterations) })
		d := tl.IterationDurations(a, b)
		spans = append(spans, queueing.Span{Start: l.Start, End: l.End, VUs: v, Iterations: iters,
			Durations: float64(d.Count()), DurationSumMS: d.Sum()})
	}
	return spans, nil
}

func decisionLevels(an *Analysis) ([]knee.Level, error) {
	if an.Knee == nil {
		return nil, fmt.Errorf("%s: %w", an.Name(), an.KneeErr)
	}
	levels := an.Knee.DecisionLevels()
	if len(levels) == 0 {
		return nil, fmt.Errorf("%s: %w: %v", an.Name(), ErrNoLevels, an.Knee.Warnings)
	}
	return levels, nil
}

// LoadLevels returns the decision levels of an analysed run as
// queueing.LoadLevel (queueing.EstimateMMc): throughput (all responses,
// else the goodput), offered rate in an open model, mean and quantile q
// (0–1; it must be one of the run's Knee.Percentiles) of the latency in
// seconds; and the ceiling's goodput (0 without one) and whether it was
// reached.
func LoadLevels(an *Analysis, q float64) (levels []queueing.LoadLevel, ceiling float64, reached bool, err error) {
	ls, err := decisionLevels(an)
	if err != nil {
		return nil, 0, false, err
	}
	res := an.Knee
	pname := knee.PercentileName(100 * q)
	fin := func(v knee.F) float64 {
		if f := float64(v); !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f
		}
		return 0
	}
	for _, l := range ls {
		ll := queueing.LoadLevel{Start: l.Start, End: l.End, ThroughputPerSecond: fin(l.RequestsRPS),
			MeanSeconds: fin(l.MeanMS) / 1000, QuantileSeconds: fin(l.Percentiles[pname]) / 1000, Samples: l.Count}
		// A closed model offers the servers what they completed: its
		// fast rejections (429s past the ceiling) take next to no service
		// time, and counted as arrivals they drive λS/c past 1 at a rate
		// the servers never worked at.
		if ll.ThroughputPerSecond == 0 || res.Model == knee.Closed && fin(l.CompletedRPS) > 0 {
			ll.ThroughputPerSecond = fin(l.CompletedRPS)
		}
		if res.Model == knee.Open {
			ll.OfferedPerSecond = fin(l.OfferedRPS)
		}
		levels = append(levels, ll)
	}
	reached = true
	if res.Ceiling != nil {
		ceiling = fin(res.Ceiling.CompletedRPS)
		reached = res.Ceiling.Reached
	}
	return levels, ceiling, reached, nil
}

// RunLevels returns an analysed run's holds and ramp steps as
// scale.RunLevels (scale.SteadyThroughput).
func RunLevels(an *Analysis) (scale.RunLevels, error) {
	if an.Knee == nil {
		return scale.RunLevels{}, fmt.Errorf("%s: %w", an.Name(), an.KneeErr)
	}
	res := an.Knee
	conv := func(ls []knee.Level) []scale.LevelRate {
		out := make([]scale.LevelRate, len(ls))
		for i, l := range ls {
			out[i] = scale.LevelRate{Start: l.Start, End: l.End, Seconds: l.Seconds, CompletedRPS: float64(l.CompletedRPS),
				RequestsRPS: float64(l.RequestsRPS), ErrorRate: float64(l.ErrorRate), VUs: float64(l.VUs),
				BytesReceivedPerS: float64(l.BytesReceivedPerS), BytesSentPerS: float64(l.BytesSentPerS), BytesPerRequest: float64(l.BytesPerRequest),
				P95MS: float64(l.P95MS)}
		}
		return out
	}
	return scale.RunLevels{Closed: res.Model == knee.Closed, Holds: conv(res.Holds), Steps: conv(res.RampSteps), Why: res.ModelEvidence}, nil
}

// QueryStats returns query i of the run (Options.Queries) over the whole
// run as scale.RunStats: the matching samples' count, sum and values, and
// the run's length from its first to its last sample plus one resolution,
// less the silences between its spans of data (timeline.Span: a stray
// timestamp an hour away adds its own second, not the hour, so that a
// rate is per second of the test).
func QueryStats(an *Analysis, i int) scale.RunStats {
	tl := an.Timeline
	st := scale.RunStats{}
	if tl.Rows() > 0 {
		st.DurationSeconds = float64(tl.EndNS()-tl.StartNS()+max(tl.ResolutionNS(), 1)) / 1e9
		spans := tl.Spans()
		for k := 1; k < len(spans); k++ {
			st.DurationSeconds -= float64(spans[k].First - spans[k-1].Last - 1)
		}
		g, ok := tl.Query(i, secFloor(tl.StartNS()), secFloor(tl.EndNS())+1)
		if ok {
			st.Samples, st.Sum, st.Values = g.Count, g.Sum, &g.Values
		}
	}
	return st
}

func secFloor(ns int64) int64 {
	k := ns / 1e9
	if ns < 0 && ns%1e9 != 0 {
		k--
	}
	return k
}
