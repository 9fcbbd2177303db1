package pipeline

import (
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/saturation"
)

// saturationLevels are the load levels of a knee result as plain levels
// for saturation.Attribute (its decision levels, else its windows) and the
// index of the ceiling level (the level whose offered load is the
// ceiling's; −1 without a ceiling: saturation then takes the highest
// completed load).
func saturationLevels(res *knee.Result) ([]saturation.Level, int) {
	src := res.DecisionLevels()
	if len(src) == 0 {
		src = res.Windows
	}
	out := make([]saturation.Level, len(src))
	for i, l := range src {
		kind := string(l.Kind)
		if kind == "" {
			kind = "window"
		}
		out[i] = saturation.Level{Kind: kind, Start: l.Start, End: l.End, Offered: float64(l.Offered), CompletedRPS: float64(l.CompletedRPS), Verdict: l.Verdict}
	}
	ci := -1
	if res.Ceiling != nil && res.Ceiling.Offered.Valid() {
		ci = saturation.CeilingLevel(out, float64(res.Ceiling.Offered))
	}
	return out, ci
}
