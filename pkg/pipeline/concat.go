package pipeline

import (
	"github.com/ldanalyze/ldanalyze/pkg/checks"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
)

// concatCaveat qualifies res's verdict when the input check found runs
// concatenated in one file (time steps back inside the main span and the
// samples after overlap those before: `cat run.csv run.csv`): the levels,
// knee and ceiling are of the runs added second by second, so rates are
// up to doubled. The caveat joins one res already has (knee.Result.Caveat).
func concatCaveat(res *knee.Result, rep *checks.Report) {
	for _, c := range rep.Checks {
		if c.ID != checks.IDInput {
			continue
		}
		if n, ok := c.Evidence.Get("overlapping_steps"); ok && n > 0 {
			const m = "the file holds runs written one after another (time steps back and the samples after overlap those before): the levels, knee and ceiling are of them added second by second, so their rates can be doubled; give each run as its own file (see the input check)"
			if res.Caveat != "" {
				res.Caveat += "; and " + m
			} else {
				res.Caveat = m
			}
		}
	}
}
