package checks

import (
	"fmt"

	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// Past the knee: a test run beyond capacity (a breakpoint test, a ramp
// past the ceiling) makes its system fail and shed there by design. Its
// failures, 429s and failed k6 checks then say where capacity ends, not
// that the run measured something else — as long as the levels up to the
// knee were clean. The errors, rate-limited and checks verdicts are then
// warnings, not failures.
const (
	// CleanShare is the most failures (and 429s) a level with headroom may
	// have, pooled over them, for the run to be clean up to its knee.
	CleanShare = 0.01
	// PastKneeShare is the least share of the failures that must fall in
	// the levels past the knee (or after it in time).
	PastKneeShare = 0.9
)

// pastKnee tells whether the run's failures (pick: failed requests, 429s)
// came past its knee: the knee was reached, the levels with headroom
// pooled at most CleanShare of such failures, and at least PastKneeShare
// of them fell at or after the start of the first level without headroom
// offered more than the knee.
// It returns the first such second (unix) and the pooled share below the
// knee.
func (e *eval) pastKnee(pick func(*timeline.Second) uint64) (ok bool, from int64, clean float64) {
	ok, from, _, clean = e.pastKneeFrom(pick)
	return ok, from, clean
}

// pastKneeFrom is pastKnee that also returns the start (unix s) of the
// first level of any load without headroom: failures that begin before it
// began while every level had headroom.
func (e *eval) pastKneeFrom(pick func(*timeline.Second) uint64) (ok bool, from, firstLacking int64, clean float64) {
	if e.res == nil || e.res.Knee == nil || !e.res.Knee.Reached {
		return false, 0, 0, 0
	}
	from, firstLacking = -1, -1
	var reqs, bad uint64
	for _, l := range e.levels {
		a, b := span(&l)
		if l.Verdict != knee.Headroom && l.Verdict != knee.Generator {
			if firstLacking < 0 || a < firstLacking {
				firstLacking = a
			}
			// A level that lacked headroom below the knee's load (a stall
			// in a warm-up) is not past the knee: its failures count
			// against the share that came after it.
			if l.Offered > e.res.Knee.Offered && (from < 0 || a < from) {
				from = a
			}
			continue
		}
		e.tl.Range(a, b, func(_ int64, sc *timeline.Second) {
			reqs += sc.Requests
			bad += pick(sc)
		})
	}
	if from < 0 || reqs == 0 {
		return false, 0, 0, 0
	}
	clean = float64(bad) / float64(reqs)
	var all, after uint64
	e.tl.Each(func(sec int64, sc *timeline.Second) {
		n := pick(sc)
		all += n
		if sec >= from {
			after += n
		}
	})
	return clean <= CleanShare && all > 0 && float64(after) >= PastKneeShare*float64(all), from, firstLacking, clean
}

// pastKneeNote is what a verdict softened by pastKnee adds to its
// message.
func (e *eval) pastKneeNote(from int64, clean float64, what string) string {
	return fmt.Sprintf(" They came past the knee (from +%d s, where the first level past the knee without headroom starts; the levels with headroom had %s %s): expected of a test run beyond capacity — the figures up to the knee stand, and these say where capacity ends.",
		from-e.s0, fmtPct(clean), what)
}
