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

// pastKneeResult is what pastKnee found: OK when the run's failures
// came past its knee; From, the start (unix s) of the first level past
// the knee's load without headroom; FirstLacking, the start of the first
// level of any load without headroom (failures that began before it began
// while every level had headroom); Clean, the failures' share pooled over
// the levels with headroom; Before and All, the failures before From and
// in all.
type pastKneeResult struct {
	OK                 bool
	From, FirstLacking int64
	Clean              float64
	Before, All        uint64
}

// pastKnee tells whether the run's failures (pick: failed requests, 429s)
// came past its knee: the knee was reached, the levels with headroom
// pooled at most CleanShare of such failures, and at least PastKneeShare
// of them fell at or after the start of the first level without headroom
// offered more than the knee.
func (e *eval) pastKnee(pick func(*timeline.Second) uint64) pastKneeResult {
	var r pastKneeResult
	if e.res == nil || e.res.Knee == nil || !e.res.Knee.Reached {
		return r
	}
	r.From, r.FirstLacking = -1, -1
	var reqs, bad uint64
	for _, l := range e.levels {
		a, b := span(&l)
		if l.Verdict != knee.Headroom && l.Verdict != knee.Generator {
			if r.FirstLacking < 0 || a < r.FirstLacking {
				r.FirstLacking = a
			}
			// A level that lacked headroom below the knee's load (a stall
			// in a warm-up) is not past the knee: its failures count
			// against the share that came after it.
			if l.Offered > e.res.Knee.Offered && (r.From < 0 || a < r.From) {
				r.From = a
			}
			continue
		}
		e.tl.Range(a, b, func(_ int64, sc *timeline.Second) {
			reqs += sc.Requests
			bad += pick(sc)
		})
	}
	if r.From < 0 || reqs == 0 {
		return pastKneeResult{}
	}
	r.Clean = float64(bad) / float64(reqs)
	var after uint64
	e.tl.Each(func(sec int64, sc *timeline.Second) {
		n := pick(sc)
		r.All += n
		if sec >= r.From {
			after += n
		}
	})
	r.Before = r.All - after
	r.OK = r.Clean <= CleanShare && r.All > 0 && float64(after) >= PastKneeShare*float64(r.All)
	return r
}

// pastKneeNote is what a verdict softened by pastKnee adds to its
// message: where past the knee starts, the levels with headroom's share,
// and the few that came before it (below the knee, at levels that lacked
// headroom: a stall in a warm-up).
func (e *eval) pastKneeNote(r pastKneeResult, what string) string {
	before := ""
	if r.Before > 0 {
		before = fmt.Sprintf("; %d of the %d came before it, at lower-load levels that lacked headroom", r.Before, r.All)
	}
	return fmt.Sprintf(" They came past the knee (from %s s, where the first level past the knee without headroom starts; the levels with headroom had %s %s%s): expected of a test run beyond capacity — the figures up to the knee stand, and these say where capacity ends.",
		plus(float64(r.From-e.o)), fmtPct(r.Clean), what, before)
}
