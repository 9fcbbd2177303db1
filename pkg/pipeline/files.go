package pipeline

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
)

// DistinctFiles refuses a file given twice (by any path): its samples
// would be counted twice. "-" may appear once.
func DistinctFiles(paths []string) error {
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

// SharedFile returns the first file of a that is also a file of b, by
// any path (os.SameFile), as named in each: the two sides of a comparison
// that share a file. Files that cannot be read are ignored.
func SharedFile(a, b []string) (inA, inB string, ok bool) {
	for _, x := range a {
		fx, err := os.Stat(x)
		if x == "-" || err != nil {
			continue
		}
		for _, y := range b {
			if fy, err := os.Stat(y); y != "-" && err == nil && os.SameFile(fx, fy) {
				return x, y, true
			}
		}
	}
	return "", "", false
}

// Span reads the files and returns the times of their earliest and latest
// sample, ns since the Unix epoch (ok false when they hold none), and what
// was read: the window of a run, for `prom pull --run`.
func Span(paths []string, stdin io.Reader) (firstNS, lastNS int64, ok bool, st ingest.Stats, err error) {
	n := max(1, runtime.GOMAXPROCS(0))
	type span struct {
		a, b int64
		any  bool
	}
	spans := make([]span, n)
	sinks := make([]func(*ingest.Sample), n)
	for i := range sinks {
		sp := &spans[i]
		sinks[i] = func(s *ingest.Sample) {
			if !sp.any || s.TimeNS < sp.a {
				sp.a = s.TimeNS
			}
			if !sp.any || s.TimeNS > sp.b {
				sp.b = s.TimeNS
			}
			sp.any = true
		}
	}
	st, err = ingest.ReadAll(paths, stdin, sinks, nil)
	for _, sp := range spans {
		if !sp.any {
			continue
		}
		if !ok || sp.a < firstNS {
			firstNS = sp.a
		}
		if !ok || sp.b > lastNS {
			lastNS = sp.b
		}
		ok = true
	}
	return firstNS, lastNS, ok, st, err
}

// ErrSameRunTwice is wrapped by Run's error when two inputs hold the same
// samples of the analysed Trend over the same span (a file and its own
// Parquet copy, one run's CSV and JSON outputs): analysed together their
// figures would be added, every rate doubled.
var ErrSameRunTwice = errors.New("same run given twice")
