package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/cliapp"
	"github.com/ldanalyze/ldanalyze/internal/present"
	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/compare"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
	"github.com/urfave/cli/v2"
)

func compareCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "compare",
		Usage: "did the change help? per matched load level, before vs after: each figure with its interval and a test (~ when not significant)",
		Description: "BEFORE and AFTER are k6 outputs of one run each, optionally labelled (before=a.csv); several files of one\n" +
			"distributed run are joined with commas. Levels (holds, or ramp steps) are matched by offered load. At each,\n" +
			"latency percentiles and goodput are the level's own figures with a block-bootstrap interval over the\n" +
			"windows, tested with a Mann–Whitney U test over the per-window values; the error rate is compared as counts\n" +
			"(the level's pooled requests) with Fisher's exact test and Wilson/Newcombe score intervals. The knee and the\n" +
			"ceiling are compared with their intervals. Two directories compare two suites: their runs are paired by\n" +
			"file name, one table for all. --fail-on regress exits 1 when anything got significantly worse.",
		ArgsUsage: "BEFORE AFTER (files, or two directories of runs)",
		Flags: append(append(runFlags(time.Second, "window width: each window is one sample of the test (whole seconds)"),
			&cli.Float64Flag{Name: "alpha", Value: 0.05, Usage: "significance level of the tests"},
			&cli.Float64Flag{Name: "tolerance", Value: 0.05, Usage: "largest relative difference of offered load at which two levels match"},
			&cli.IntFlag{Name: "resamples", Value: 1000, Usage: "bootstrap resamples per level and run"},
			&cli.StringFlag{Name: "fail-on", Usage: "`regress`: exit 1 when a figure, the knee or the ceiling got significantly worse (CI gating)"},
		), outputFlags()...),
		Action: func(c *cli.Context) error { return e.compare(c) },
	}
}

func (e *env) compare(c *cli.Context) error {
	if c.NArg() != 2 {
		return usageError{fmt.Errorf("compare: want two runs, BEFORE AFTER (got %d argument(s))", c.NArg())}
	}
	if a := c.Float64("alpha"); !(a > 0 && a < 1) {
		return usageError{fmt.Errorf("compare: --alpha must be in (0, 1), got %v", a)}
	}
	if n := c.Int("resamples"); n < 100 {
		return usageError{fmt.Errorf("compare: --resamples %d: want at least 100", n)}
	}
	if f := c.String("fail-on"); f != "" && f != "regress" {
		return usageError{fmt.Errorf("compare: --fail-on %q: want regress", f)}
	}
	opt, err := runOptions(c, time.Second)
	if err != nil {
		return err
	}
	copt := compare.Options{Alpha: c.Float64("alpha"), Tolerance: c.Float64("tolerance"), Resamples: c.Int("resamples")}
	var labels [2]string
	var paths [2][]string
	for i, arg := range c.Args().Slice() {
		labels[i], paths[i] = cliapp.Label(arg, [2]string{"before", "after"}[i])
	}
	var docs []*present.CompareDoc
	if dirs, err := compareDirs(paths); err != nil {
		return err
	} else if dirs {
		if err := cliapp.OutputNotInDirs(c.String("output"), []string{paths[0][0], paths[1][0]}); err != nil {
			return err
		}
		if docs, err = e.compareSuites(labels, paths, opt, copt); err != nil {
			return err
		}
	} else {
		var runs [2]compare.Run
		for i := range runs {
			if runs[i], err = e.compareRun(labels[i], paths[i], opt); err != nil {
				return err
			}
		}
		if x, y, ok := pipeline.SharedFile(paths[0], paths[1]); ok {
			e.warn(fmt.Sprintf("%s and %s are the same file (%s and %s): the comparison can show no change", labels[0], labels[1], x, y))
			runs[1].Samples = nil // said already
		}
		res, err := compare.Compare(runs[0], runs[1], copt)
		if err != nil {
			return err
		}
		docs = []*present.CompareDoc{{Before: labels[0], After: labels[1], Result: res}}
	}
	for _, d := range docs {
		for _, w := range d.Warnings {
			if d.Run != "" {
				w = d.Run + ": " + w
			}
			e.warn(w)
		}
	}
	if err := e.emit(c, func(w io.Writer, f render.Format) error {
		return present.WriteCompare(w, f, docs)
	}); err != nil {
		return err
	}
	if c.String("fail-on") == "regress" {
		var worse []string
		for _, d := range docs {
			for _, r := range d.Regressions() {
				if d.Run != "" {
					r = d.Run + ": " + r
				}
				worse = append(worse, r)
			}
		}
		if len(worse) > 0 {
			return errFinding{fmt.Sprintf("%s → %s: significantly worse: %s", labels[0], labels[1], strings.Join(worse, "; "))}
		}
	}
	return nil
}

// compareRun analyses one side of a comparison.
func (e *env) compareRun(label string, paths []string, opt pipeline.Options) (compare.Run, error) {
	an, err := e.analyze(paths, opt)
	if err != nil {
		return compare.Run{}, err
	}
	warnSpans(e.stderr, label, an.Knee)
	fp := an.Timeline.Fingerprint()
	return compare.Run{Knee: an.Knee, Latency: an.Timeline.Latency, Samples: &fp}, nil
}

// compareDirs reports whether BEFORE and AFTER are two directories (two
// suites); one directory and one run is a usage error.
func compareDirs(paths [2][]string) (bool, error) {
	var dir [2]bool
	for i, p := range paths {
		if len(p) == 1 {
			if fi, err := os.Stat(p[0]); err == nil && fi.IsDir() {
				dir[i] = true
			}
		}
	}
	if dir[0] != dir[1] {
		return false, usageError{errors.New("compare: give two runs or two directories of runs, not one of each")}
	}
	return dir[0], nil
}

// compareSuites compares the runs of two directories, paired by file
// name (pipeline.SuitePairs); what was left out is warned about.
func (e *env) compareSuites(labels [2]string, paths [2][]string, opt pipeline.Options, copt compare.Options) ([]*present.CompareDoc, error) {
	pairs, warn, err := pipeline.SuitePairs(paths[0][0], paths[1][0])
	e.warn(warn...)
	if err != nil {
		return nil, err
	}
	var docs []*present.CompareDoc
	for _, p := range pairs {
		var runs [2]compare.Run
		for i, f := range []string{p.Before, p.After} {
			if runs[i], err = e.compareRun(labels[i]+" "+p.Name, []string{f}, opt); err != nil {
				return nil, err
			}
		}
		res, err := compare.Compare(runs[0], runs[1], copt)
		if errors.Is(err, compare.ErrNoLevels) {
			// One short run does not stop the suite: like a summary, it
			// has nothing to compare level by level.
			e.warn(fmt.Sprintf("%s: %v: skipped", p.Name, err))
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
		docs = append(docs, &present.CompareDoc{Run: p.Name, Before: labels[0], After: labels[1], Result: res})
	}
	if len(docs) == 0 && len(pairs) > 0 {
		return nil, fmt.Errorf("compare: no pair of runs had load levels to compare (%w)", compare.ErrNoLevels)
	}
	return docs, nil
}
