package pipeline

import (
	"fmt"
	"path/filepath"

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

// Analyzer analyses one run: Run, or a command's wrapper of it (progress
// bar, warnings on stderr).
type Analyzer func(paths []string, opt Options) (*Analysis, error)

// Suite is the table of `suite`: every input found among args (files and
// directories, suite.Discover) analysed with SuiteOptions(opt) by
// analyze, a row each (and per scenario). A run or summary that cannot be
// read is a row with its error (suite.Failed), and the error is in Errors
// too; Skipped are the files of a directory that are neither runs nor
// summaries. It returns an error only when nothing is found or an
// argument cannot be read.
func Suite(args []string, opt Options, analyze Analyzer) (rows []suite.Row, skipped []suite.Skipped, errs []error, err error) {
	ins, skipped, err := suite.Discover(args)
	if err != nil {
		return nil, nil, nil, err
	}
	opt = SuiteOptions(opt)
	rows, skipped = []suite.Row{}, append([]suite.Skipped{}, skipped...)
	for _, in := range ins {
		var an *Analysis
		if in.Kind == suite.KindRun {
			if an, err = analyze([]string{in.Path}, opt); err != nil {
				errs = append(errs, err)
				rows = append(rows, suite.Failed(in.Path, in.Kind, err))
				continue
			}
		}
		rs, err := SuiteRows(in, an)
		if err != nil {
			errs = append(errs, err)
			rows = append(rows, suite.Failed(in.Path, in.Kind, err))
			continue
		}
		rows = append(rows, rs...)
	}
	return rows, skipped, errs, nil
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

// SuitePair is a run of two suites: its name (its path under the
// directories) and its file in each.
type SuitePair struct {
	Name          string
	Before, After string
}

// SuitePairs pairs the runs found under two directories by name
// (suite.Pair) for `compare DIR DIR`. Warnings name what was left out:
// files that are not runs, runs with no partner, and summaries (they
// have no load levels to compare). It returns an error when a directory
// cannot be read or no run has a partner.
func SuitePairs(before, after string) ([]SuitePair, []string, error) {
	var warn []string
	var ins [2][]suite.Input
	for i, dir := range []string{before, after} {
		in, skipped, err := suite.Discover([]string{dir})
		if err != nil {
			return nil, nil, err
		}
		for _, s := range skipped {
			warn = append(warn, fmt.Sprintf("%s: skipped: %s", s.Path, s.Reason))
		}
		ins[i] = in
	}
	pairs, onlyB, onlyA, err := suite.Pair(before, ins[0], after, ins[1])
	if err != nil {
		return nil, nil, err
	}
	for _, in := range onlyB {
		warn = append(warn, fmt.Sprintf("%s: only in %s: not compared", in.Path, before))
	}
	for _, in := range onlyA {
		warn = append(warn, fmt.Sprintf("%s: only in %s: not compared", in.Path, after))
	}
	var out []SuitePair
	for _, p := range pairs {
		name := suite.Name(before, p[0].Path)
		if p[0].Kind != suite.KindRun {
			warn = append(warn, fmt.Sprintf("%s: a k6 summary has no load levels to compare: skipped", name))
			continue
		}
		out = append(out, SuitePair{Name: name, Before: p[0].Path, After: p[1].Path})
	}
	if len(out) == 0 {
		return nil, warn, fmt.Errorf("compare: no run of %s has a partner of the same name in %s", filepath.Clean(before), filepath.Clean(after))
	}
	return out, warn, nil
}
