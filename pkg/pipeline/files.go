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
	stdin := 0
	for _, p := range paths {
		if p == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return fmt.Errorf("- (standard input) given twice")
	}
	fis := statAll(paths)
	for i, fi := range fis {
		for j := range i {
			if fi != nil && fis[j] != nil && os.SameFile(fi, fis[j]) {
				return fmt.Errorf("%s and %s are the same file: its samples would be counted twice", paths[j], paths[i])
			}
		}
	}
	return nil
}

// SharedFile returns the first file of a that is also a file of b, by
// any path (os.SameFile), as named in each: the two sides of a comparison
// that share a file. Files that cannot be read are ignored.
func SharedFile(a, b []string) (inA, inB string, ok bool) {
	fa, fb := statAll(a), statAll(b)
	for i, x := range fa {
		for j, y := range fb {
			if x != nil && y != nil && os.SameFile(x, y) {
				return a[i], b[j], true
			}
		}
	}
	return "", "", false
}

// statAll stats each path: nil for "-" (standard input) and for a file
// that cannot be read (Open reports it).
func statAll(paths []string) []os.FileInfo {
	out := make([]os.FileInfo, len(paths))
	for i, p := range paths {
		if p == "-" {
			continue
		}
		if fi, err := os.Stat(p); err == nil {
			out[i] = fi
		}
	}
	return out
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
