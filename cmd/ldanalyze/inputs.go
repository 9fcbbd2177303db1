package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/ldanalyze/ldanalyze/internal/cliapp"
	"github.com/ldanalyze/ldanalyze/internal/present"
	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
)

// analyze runs the pipeline on paths with the command's options: standard
// input, a progress bar on a terminal, and what was skipped or damaged on
// stderr.
func (e *env) analyze(paths []string, opt pipeline.Options) (*pipeline.Analysis, error) {
	opt.Stdin = e.stdin
	onRead, done := cliapp.Progress(paths, e.stderr)
	opt.OnRead = onRead
	an, err := pipeline.Run(paths, opt)
	if done != nil {
		done()
	}
	if an != nil {
		reportStats(e.stderr, an.Input)
		e.warn(an.Warnings...)
	}
	return an, err
}

// reportStats writes what was skipped or damaged to w (stderr), so that a
// user sees counts of everything not analysed.
func reportStats(w io.Writer, st ingest.Stats) {
	for _, l := range present.InputNotes(st) {
		fmt.Fprintln(w, l)
	}
}

// warnSpans repeats on stderr, for commands that print no knee warnings,
// the warning of a run split by gaps (only its longest span gives the load
// levels): its figures would otherwise mislead silently.
func warnSpans(stderr io.Writer, name string, res *knee.Result) {
	if res == nil {
		return
	}
	for _, w := range res.Warnings {
		if w.Code == knee.WarnSpans || w.Code == pipeline.WarnSource || w.Code == knee.WarnHandshakeOnly {
			fmt.Fprintf(stderr, "ldanalyze: %s: warning: %s\n", name, w)
		}
	}
}

// warn prints each warning on standard error, where every warning goes
// (table output and scripts reading JSON on standard output stay clean).
func (e *env) warn(ws ...string) {
	for _, w := range ws {
		fmt.Fprintln(e.stderr, "ldanalyze: warning:", w)
	}
}

// render prints the warnings of a result on stderr and, once the
// analysis is done, writes the result with write to the output chosen by
// -o and --format.
func (e *env) render(c *cli.Context, warnings []string, write func(io.Writer, render.Format) error) error {
	e.warn(warnings...)
	return e.emit(c, write)
}
