package main

import (
	"errors"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/cliapp"
	"github.com/ldanalyze/ldanalyze/internal/present"
	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
	"github.com/urfave/cli/v2"
)

func suiteCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "suite",
		Usage: "one row per run (and scenario) of many: VUs or rate, req/s, p50, p95, p99, max, errors, checks, thresholds, validity, knee, ceiling",
		Description: "DIR|FILE...: k6 outputs (CSV, JSON lines, Parquet, Arrow) and summaries; directories are walked. Each run is\n" +
			"analysed as `knee` does; a summary beside its run (run.csv.gz and run.summary.json) gives it k6's threshold\n" +
			"results, a summary alone is a row of its own figures. A run is valid when none of `ldanalyze check`'s checks\n" +
			"failed (for a summary: its k6 checks all passed). Other files of a directory are listed as skipped.",
		ArgsUsage: "DIR|FILE...",
		Flags:     append(runFlags(30*time.Second, "window width, as knee's (whole seconds)"), outputFlags()...),
		Action:    func(c *cli.Context) error { return e.suite(c, c.Args().Slice()) },
	}
}

// suite analyses every run found in args and renders the table.
func (e *env) suite(c *cli.Context, args []string) error {
	if len(args) == 0 {
		return usageError{errors.New("suite: give a directory of k6 outputs or several files")}
	}
	doc, err := e.suiteDoc(c, args)
	if err != nil {
		return err
	}
	return e.emit(c, doc.Write)
}

// suiteDoc makes the rows of every input among args (pipeline.Suite);
// a run that cannot be analysed is a row with its error, warned about.
func (e *env) suiteDoc(c *cli.Context, args []string) (*present.SuiteDoc, error) {
	if _, err := render.ParseFormat(c.String("format")); err != nil {
		return nil, usageError{err}
	}
	if err := cliapp.OutputNotInDirs(c.String("output"), args); err != nil {
		return nil, err
	}
	// `summary` on many files has none of the run flags: knee's
	// defaults.
	opt := pipeline.Options{Knee: knee.Options{WindowNS: int64(30 * time.Second)}}
	if cliapp.Defines(c, "window") {
		var err error
		if opt, err = runOptions(c, 30*time.Second); err != nil {
			return nil, err
		}
	}
	rows, skipped, errs, err := pipeline.Suite(args, opt, e.analyze)
	if err != nil {
		return nil, err
	}
	for _, err := range errs {
		e.warn(err.Error())
	}
	return &present.SuiteDoc{Runs: rows, Skipped: skipped}, nil
}
