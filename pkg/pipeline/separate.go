package pipeline

import (
	"fmt"

	"github.com/ldanalyze/ldanalyze/pkg/knee"
)

// mergeSeparateRuns replaces the warnings of input files that do not
// overlap in time, one per pair (15 for the six runs of a sweep), by one
// that says what the files look like and which command reads them apart.
func mergeSeparateRuns(res *knee.Result, paths []string) {
	n := 0
	for _, w := range res.Warnings {
		if w.Code == knee.WarnSeparateRuns {
			n++
		}
	}
	if n < 2 {
		return
	}
	out := res.Warnings[:0]
	done := false
	for _, w := range res.Warnings {
		if w.Code != knee.WarnSeparateRuns {
			out = append(out, w)
			continue
		}
		if !done {
			done = true
			out = append(out, knee.Warning{Code: knee.WarnSeparateRuns, Message: fmt.Sprintf(
				"%d pairs of the %d input files do not overlap in time: they look like separate runs (a sweep or a suite), analysed here as one run (the files of a distributed run cover the same time); "+
					"`ldanalyze suite FILE...` gives one row per run, `ldanalyze scale --usl --run N=FILE ...` fits a sweep of concurrencies, `ldanalyze compare A B` compares two runs", n, len(paths))})
		}
	}
	res.Warnings = out
}
