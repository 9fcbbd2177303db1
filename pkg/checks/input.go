package checks

import (
	"fmt"
	"math"
	"strings"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
)

// IDInput is the check of the input itself: cut short, lines skipped.
const IDInput ID = "input"

// Input is what the readers said of the files (ingest.Stats, as plain
// data): samples read, malformed lines skipped, whether a compressed file
// ended early.
type Input struct {
	Rows, Skipped int64
	Truncated     bool
	// Corrupt marks a compressed file that failed its checksum (with
	// Truncated): read to its end, but with damaged bytes.
	Corrupt bool
	// TimeSteps counts the steps back in time of more than
	// ingest.BackStepNS within a file, and Steps are the first
	// ingest.MaxTimeSteps of them (ingest.Stats).
	TimeSteps int64
	Steps     []ingest.TimeStep
	// Set marks an Input filled in by the caller (the zero value leaves
	// the check n/a).
	Set bool
}

// input judges the files the run came from: a compressed file that ended
// early (a k6 that was killed, a copy cut short) lost the end of the run,
// so its last levels, its ceiling and "not reached" may be the cut's; and
// skipped lines lost samples; negative VU gauge samples are damage too.
// Each warns, with the counts. Two fail, because no figure of the run can
// be trusted: a compressed file that failed its checksum (its damaged rows
// that still parse are in the figures with wrong values), and more
// malformed lines than samples read (most of the run is not there).
func (e *eval) input() Check {
	ch := Check{ID: IDInput}
	in := e.opt.Input
	if !in.Set {
		ch.Status, ch.Message = NA, "the readers' counts were not given."
		return ch
	}
	ch.Evidence.add("samples", float64(in.Rows))
	ch.Evidence.add("skipped_lines", float64(in.Skipped))
	ch.Evidence.add("truncated", b2f(in.Truncated))
	var why []string
	overlap := false // runs concatenated in one file: their seconds add up
	if in.Corrupt {
		ch.Evidence.add("corrupt", 1)
		why = append(why, "a compressed file failed its checksum (damaged on disk or in a copy): it was read to its end, but some of its rows decoded wrong, and those that still parse are in the figures with damaged values or timestamps; get an intact copy")
	} else if in.Truncated {
		end := ""
		if e.s1 > e.s0 {
			end = " after " + plus(float64(e.s1-1-e.o)) + " s"
		}
		why = append(why, "the input ended early"+end+" (a compressed file without its end, or a plain file whose last line is cut: k6 killed, or a copy cut short): the run's later load levels are missing, so the ceiling and a knee \"not reached\" may be where the file was cut")
	}
	if in.Skipped > 0 {
		why = append(why, fmt.Sprintf("%d malformed lines were skipped (%s of the lines read): their samples are not in the figures", in.Skipped, fmtPct(float64(in.Skipped)/float64(in.Rows+in.Skipped))))
	}
	if in.TimeSteps > 0 {
		ch.Evidence.add("time_steps_back", float64(in.TimeSteps))
		if w, n := e.overlapStep(in); w != "" {
			ch.Evidence.add("overlapping_steps", float64(n))
			why = append(why, w)
			overlap = true
		}
	}
	if n := e.tl.NegativeVUs(); n > 0 {
		ch.Evidence.add("negative_vus_samples", float64(n))
		why = append(why, fmt.Sprintf("%d vus/vus_max samples are negative, which a VU count cannot be (a damaged file, or not k6's gauge): they are left out of the VU figures", n))
	}
	if in.Corrupt || in.Skipped > in.Rows || overlap {
		ch.Status = Fail
		ch.Message = strings.Join(why, "; ") + "."
		return ch
	}
	if len(why) == 0 {
		ch.Status = OK
		ch.Message = fmt.Sprintf("%d samples read, no line skipped, every file read to its end.", in.Rows)
		return ch
	}
	ch.Status = Warn
	ch.Message = strings.Join(why, "; ") + "."
	return ch
}

// overlapStep describes the steps back in time whose both ends lie in the
// run's main span (the span the load levels come from): the samples after
// such a step overlap those before it, so a second run (or the same one
// again) was written after the first, and the two are added second by
// second. A step from or to a time outside the main span is a stray
// timestamp or a run apart from the main one, which the spans warning of
// the knee names and which adds nothing to the main span's seconds. It
// returns "" when no kept step overlaps, and the number of such steps.
// Such a run fails the input check: its rates, counts and levels are of
// two runs added up.
func (e *eval) overlapStep(in Input) (string, int) {
	m := e.tl.Main()
	inside := func(ns int64) bool { s := secOf(ns); return s >= m.First && s <= m.Last }
	var first *ingest.TimeStep
	n := 0
	for i := range in.Steps {
		if s := &in.Steps[i]; inside(s.FromNS) && inside(s.ToNS) {
			if first == nil {
				first = s
			}
			n++
		}
	}
	if first == nil {
		return "", 0
	}
	more := ""
	if n > 1 {
		more = fmt.Sprintf(" (%d such steps)", n)
	}
	return fmt.Sprintf("time steps back in %s at line %d, from %s s to %s s%s, and the samples after it overlap those before: a second run, or the same run again, written after the first in one file (outputs concatenated), added to it second by second, so rates, counts and load levels may be doubled; give each run as its own file (ldanalyze then tells one run given twice from the instances of a distributed run)",
		first.File, first.Line, plus(math.Floor(e.rel(first.FromNS))), plus(math.Floor(e.rel(first.ToNS))), more), n
}
