package checks

import (
	"fmt"
	"strings"
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
	if in.Corrupt {
		ch.Evidence.add("corrupt", 1)
		why = append(why, "a compressed file failed its checksum (damaged on disk or in a copy): it was read to its end, but some of its rows decoded wrong, and those that still parse are in the figures with damaged values or timestamps; get an intact copy")
	} else if in.Truncated {
		end := ""
		if e.s1 > e.s0 {
			end = " after " + plus(float64(e.s1-1-e.o)) + " s"
		}
		why = append(why, "the input ended early"+end+" (a compressed file without its end: k6 killed, or a copy cut short): the run's later load levels are missing, so the ceiling and a knee \"not reached\" may be where the file was cut")
	}
	if in.Skipped > 0 {
		why = append(why, fmt.Sprintf("%d malformed lines were skipped (%s of the lines read): their samples are not in the figures", in.Skipped, fmtPct(float64(in.Skipped)/float64(in.Rows+in.Skipped))))
	}
	if n := e.tl.NegativeVUs(); n > 0 {
		ch.Evidence.add("negative_vus_samples", float64(n))
		why = append(why, fmt.Sprintf("%d vus/vus_max samples are negative, which a VU count cannot be (a damaged file, or not k6's gauge): they are left out of the VU figures", n))
	}
	if in.Corrupt || in.Skipped > in.Rows {
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
