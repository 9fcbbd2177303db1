package main

import (
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/prom"
	"github.com/ldanalyze/ldanalyze/pkg/saturation"
)

// saturationLevels are the load levels of a knee result as plain levels
// (its holds, its ramp steps when it had no holds, else its windows) and
// the index of the ceiling level (the level whose offered load is the
// ceiling's; −1 without a ceiling: the highest completed load).
func saturationLevels(res *knee.Result) ([]saturation.Level, int) {
	kind, src := "hold", res.Holds
	switch res.Levels {
	case "ramp":
		kind, src = "ramp", res.RampSteps
	case "none":
		kind, src = "window", res.Windows
	}
	if len(src) == 0 {
		kind, src = "window", res.Windows
	}
	out := make([]saturation.Level, len(src))
	for i, l := range src {
		out[i] = saturation.Level{Kind: kind, Start: l.Start, End: l.End, Offered: float64(l.Offered), CompletedRPS: float64(l.CompletedRPS), Verdict: l.Verdict}
	}
	ci := -1
	if res.Ceiling != nil && res.Ceiling.Offered.Valid() {
		ci = saturation.CeilingLevel(out, float64(res.Ceiling.Offered))
	}
	return out, ci
}

// attribute runs the saturation attribution of an export against a knee
// result.
func attribute(exp *prom.Export, res *knee.Result, linkMbps float64) (*saturation.Attribution, error) {
	levels, ci := saturationLevels(res)
	return saturation.Attribute(exp, levels, ci, res.Start, res.End, saturation.AttributeOptions{LinkMbps: linkMbps})
}
