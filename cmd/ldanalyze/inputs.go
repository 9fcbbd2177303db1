package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"strings"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"

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
	bar := progress(paths, e.stderr)
	if bar != nil {
		opt.OnRead = func(n int) { bar.Add(n) }
	}
	an, err := pipeline.Run(paths, opt)
	if bar != nil {
		bar.Finish()
		bar.Exit()
	}
	if an != nil {
		reportStats(e.stderr, an.Input)
		for _, w := range an.Warnings {
			fmt.Fprintln(e.stderr, "ldanalyze: warning:", w)
		}
	}
	return an, err
}

// reportStats writes what was skipped or damaged to w (stderr), so that a
// user sees counts of everything not analysed.
func reportStats(w io.Writer, st ingest.Stats) {
	if st.Skipped > 0 {
		fmt.Fprintf(w, "ldanalyze: skipped %d malformed line(s) of %d read", st.Skipped, st.Rows+st.Skipped)
		if len(st.Errors) > 0 {
			fmt.Fprintf(w, "; first: %v", st.Errors[0])
		}
		fmt.Fprintln(w)
		for _, e := range st.Errors[1:min(len(st.Errors), 5)] {
			fmt.Fprintf(w, "  %v\n", e)
		}
	}
	for _, wn := range st.Warnings {
		fmt.Fprintln(w, "ldanalyze: warning:", wn)
	}
}

// splitList splits repeated and comma-separated flag values.
func splitList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// progress returns a progress bar of the bytes of paths on stderr when
// stderr is a terminal and the input is large enough to wait for (over
// 256 MB), else nil.
func progress(paths []string, stderr io.Writer) *progressbar.ProgressBar {
	f, ok := stderr.(*os.File)
	if !ok || !isatty.IsTerminal(f.Fd()) {
		return nil
	}
	var total int64
	for _, p := range paths {
		fi, err := os.Stat(p)
		if p == "-" || err != nil || !fi.Mode().IsRegular() {
			// A pipe (k6 … | ldanalyze knee -) or a FIFO: no size, so
			// a spinner with the bytes read and the rate.
			total = -1
			break
		}
		total += fi.Size()
	}
	if total >= 0 && total < 256<<20 {
		return nil
	}
	return progressbar.NewOptions64(total, progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription("reading"),
		progressbar.OptionShowBytes(true), progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
}

// warnSpans repeats on stderr, for commands that print no knee warnings,
// the warning of a run split by gaps (only its longest span gives the load
// levels): its figures would otherwise mislead silently.
func warnSpans(stderr io.Writer, name string, res *knee.Result) {
	if res == nil {
		return
	}
	for _, w := range res.Warnings {
		if w.Code == knee.WarnSpans {
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
