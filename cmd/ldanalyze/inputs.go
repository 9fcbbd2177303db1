package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
	"strings"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
)

// readAll streams every sample of the inputs to each consumer and returns
// the read statistics. A read error (I/O, an unreadable header) stops it;
// malformed lines are counted in the stats.
func readAll(paths []string, stdin io.Reader, consumers ...func(*ingest.Sample)) (ingest.Stats, error) {
	r, err := ingest.OpenAll(paths, stdin)
	if err != nil {
		return ingest.Stats{}, err
	}
	defer r.Close()
	for r.Next() {
		s := r.Sample()
		for _, c := range consumers {
			c(s)
		}
	}
	st := r.Stats()
	if err := r.Err(); err != nil {
		return st, err
	}
	return st, nil
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

// inputSummary is the JSON form of ingest.Stats.
type inputSummary struct {
	Files     []string `json:"files"`
	Rows      int64    `json:"rows"`
	Skipped   int64    `json:"skipped"`
	Errors    []string `json:"errors"`
	Truncated bool     `json:"truncated"`
}

func summarizeInput(paths []string, st ingest.Stats) inputSummary {
	s := inputSummary{Files: paths, Rows: st.Rows, Skipped: st.Skipped, Truncated: st.Truncated, Errors: []string{}}
	for _, e := range st.Errors {
		s.Errors = append(s.Errors, e.Error())
	}
	return s
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

// readParallel reads the inputs with one accumulator per core (a k6 CSV is
// parsed and accumulated on every core; other formats feed the first) and
// merges them into the first. newAcc makes an empty accumulator, add
// returns its sample consumer, merge folds one accumulator into another.
//
// setInput, when not nil, is told before each file which input the next
// samples come from.
func readParallel[T any](paths []string, stdin io.Reader, stderr io.Writer, newAcc func() T, add func(T) func(*ingest.Sample), merge func(dst, src T), setInput func(acc T, path string)) (T, ingest.Stats, error) {
	n := max(1, runtime.GOMAXPROCS(0))
	accs := make([]T, n)
	sinks := make([]func(*ingest.Sample), n)
	for i := range accs {
		accs[i] = newAcc()
		sinks[i] = add(accs[i])
	}
	bar := progress(paths, stderr)
	var onRead func(int)
	if bar != nil {
		onRead = func(n int) { bar.Add(n) }
	}
	var st ingest.Stats
	var err error
	if setInput == nil {
		st, err = ingest.ReadAll(paths, stdin, sinks, onRead)
	} else {
		// One input at a time, so that the accumulators know which file
		// their samples come from.
		for _, p := range paths {
			for _, a := range accs {
				setInput(a, p)
			}
			var s ingest.Stats
			s, err = ingest.ReadAll([]string{p}, stdin, sinks, onRead)
			st.Merge(s)
			if err != nil {
				break
			}
		}
	}
	if bar != nil {
		bar.Finish()
		bar.Exit()
	}
	for _, a := range accs[1:] {
		merge(accs[0], a)
	}
	return accs[0], st, err
}

// distinctFiles refuses a file given twice (by any path): its samples
// would be counted twice. "-" may appear once.
func distinctFiles(paths []string) error {
	var seen []os.FileInfo
	var names []string
	stdin := false
	for _, p := range paths {
		if p == "-" {
			if stdin {
				return fmt.Errorf("- (standard input) given twice")
			}
			stdin = true
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			continue // Open reports it
		}
		for i, o := range seen {
			if os.SameFile(fi, o) {
				return fmt.Errorf("%s and %s are the same file: its samples would be counted twice", names[i], p)
			}
		}
		seen = append(seen, fi)
		names = append(names, p)
	}
	return nil
}

// warnSpans repeats on stderr, for commands that print no knee warnings,
// the warning of a run split by gaps (only its longest span gives the load
// levels): its figures would otherwise mislead silently.
func warnSpans(stderr io.Writer, name string, res *knee.Result) {
	if res == nil {
		return
	}
	for _, w := range res.Warnings {
		if strings.HasPrefix(w, knee.SpansWarningPrefix) {
			fmt.Fprintf(stderr, "ldanalyze: %s: warning: %s\n", name, w)
		}
	}
}
