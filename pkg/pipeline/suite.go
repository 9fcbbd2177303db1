package pipeline

import (
	"github.com/ldanalyze/ldanalyze/pkg/suite"
	"github.com/ldanalyze/ldanalyze/pkg/summary"
)

// SuiteOptions are the options a suite's runs are analysed with: opt, and
// the whole-run rows of the analysed Trend by scenario tag that the
// scenario rows of a run with several read (suite.Run.Scenarios).
func SuiteOptions(opt Options) Options {
	opt.Endpoints = "scenario"
	opt.EndpointPercentiles = []float64{50, 95, 99}
	return opt
}

// SuiteRows are the rows of one input of a suite: for a run, analysed
// with SuiteOptions into an, the rows of suite.RunRows with the
// thresholds of the summary beside it (in.Summary); for a summary, its
// own row. A summary that cannot be read is an error naming it.
func SuiteRows(in suite.Input, an *Analysis) ([]suite.Row, error) {
	if in.Kind == suite.KindSummary {
		s, err := summary.ReadFile(in.Path)
		if err != nil {
			return nil, err
		}
		return []suite.Row{suite.SummaryRow(in.Path, s)}, nil
	}
	r := suite.Run{File: in.Path, Knee: an.Knee, Checks: an.Checks, K6Checks: an.Timeline.Checks(), Scenarios: an.Endpoints}
	if in.Summary != "" {
		s, err := summary.ReadFile(in.Summary)
		if err != nil {
			return nil, err
		}
		r.Summary = s
	}
	return suite.RunRows(r), nil
}
