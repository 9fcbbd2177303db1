// Package steps holds a time series as a Prometheus range query returns
// it, and its time-weighted mean: shared by pkg/prom (the series it
// reads) and pkg/checks (the generator pods' series it judges), which do
// not import each other.
package steps

import (
	"math"
	"time"
)

// Point is one sample of a series: TimeNS in Unix nanoseconds, Value in the
// unit of the query that produced it (NaN and ±Inf are kept).
type Point struct {
	TimeNS int64   `json:"t_ns"`
	Value  float64 `json:"v"`
}

// Mean is the time-weighted mean of points (in time order) over [startNS,
// endNS): each point at t stands for (t − step, t], step being the distance
// to the previous point (defStepNS for the first; 1 s when that is not
// positive), as a Prometheus range query's samples do. NaN and ±Inf points
// are skipped; the result is NaN when no finite point overlaps the span.
// Times in ns since the epoch.
func Mean(points []Point, startNS, endNS, defStepNS int64) float64 {
	var sum, w float64
	for i, p := range points {
		st := defStepNS
		if i > 0 {
			st = p.TimeNS - points[i-1].TimeNS
		}
		if st <= 0 {
			st = int64(time.Second)
		}
		lo, hi := max(p.TimeNS-st, startNS), min(p.TimeNS, endNS)
		if hi <= lo || math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
			continue
		}
		sum += p.Value * float64(hi-lo)
		w += float64(hi - lo)
	}
	if w == 0 {
		return math.NaN()
	}
	return sum / w
}
