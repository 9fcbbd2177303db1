package ingest

import (
	"fmt"
	"time"
)

// BackStepNS is how far, ns, a sample's time may lie behind the time of
// the sample before it in its file before the reader counts a step back
// in time: 10 s. k6 stamps a request's samples with its end
// (lib/netext/httpext/tracer.go, Trail.SaveSamples: Time: tr.EndTime) and
// writes them in the order they reach the output, flushed every second
// (output/helpers.go PeriodicFlusher; research/k6-formats.md §1), so one
// run's file steps back by about a second at most (1 s in the corpus's
// WebSocket run, none in the others); a step of ten flush periods is a
// second run, or the same run again, written after the first (outputs
// concatenated), whose samples would be added to the first's second by
// second. A second copy of a run shorter than 10 s is not told apart.
const BackStepNS = int64(10 * time.Second)

// TimeStep is a step back in time in a file: a sample whose time lies
// more than BackStepNS behind that of the sample before it.
type TimeStep struct {
	// File and Line locate the sample (Line from 1).
	File string
	Line int64
	// FromNS is the time of the sample before it and ToNS its own, ns
	// since the epoch (ToNS < FromNS − BackStepNS).
	FromNS, ToNS int64
}

// timeOrder follows the times of the samples of a chunk (or of a whole
// file) in file order and counts the steps back in time. A step compares
// a sample with the one before it only, so that a chunk's steps are found
// on its own and the steps of a file are those of its chunks and of the
// joins between them, whatever the chunk size.
type timeOrder struct {
	set         bool
	first, last int64 // the first and last times, ns
	firstLine   int64 // the line of the first
	steps       int64
	step        TimeStep // the first step (Line within the chunk)
}

// see notes a sample's time ns, at line (from 1 within the chunk).
// Readers call it only when a sample's time differs from the sample's
// before (the time strings they cache), which is all a step needs.
func (o *timeOrder) see(ns, line int64) {
	if !o.set {
		o.set, o.first, o.firstLine, o.last = true, ns, line, ns
		return
	}
	if ns < o.last-BackStepNS {
		if o.steps == 0 {
			o.step = TimeStep{Line: line, FromNS: o.last, ToNS: ns}
		}
		o.steps++
	}
	o.last = ns
}

// absorb follows the next chunk's times, o2, whose lines start after
// base lines of the file named name: a step back at the join (the
// chunk's first time against the last of the chunks before) and the
// steps inside it.
func (o *timeOrder) absorb(o2 *timeOrder, base int64, name string) {
	if !o2.set {
		return
	}
	if !o.set {
		o.set, o.first, o.firstLine = true, o2.first, base+o2.firstLine
	} else if o2.first < o.last-BackStepNS {
		if o.steps == 0 {
			o.step = TimeStep{File: name, Line: base + o2.firstLine, FromNS: o.last, ToNS: o2.first}
		}
		o.steps++
	}
	if o2.steps > 0 {
		if o.steps == 0 {
			o.step = o2.step
			o.step.File, o.step.Line = name, base+o2.step.Line
		}
		o.steps += o2.steps
	}
	o.last = o2.last
}

// finish puts o's steps back into st, the stats of the file named name
// (TimeSteps, TimeStep and a Warning), once the file is read.
func (o *timeOrder) finish(st *Stats, name string) {
	if o.steps == 0 {
		return
	}
	if o.step.File == "" {
		o.step.File = name
	}
	st.TimeSteps, st.TimeStep = o.steps, o.step
	st.Warnings = append(st.Warnings, o.note())
}

// note returns the Stats warning of o's steps back.
func (o *timeOrder) note() string {
	s := o.step
	what := fmt.Sprintf("time steps back %v", time.Duration(s.FromNS-s.ToNS).Round(time.Millisecond))
	if o.steps > 1 {
		what = fmt.Sprintf("time steps back %d times, first %v", o.steps, time.Duration(s.FromNS-s.ToNS).Round(time.Millisecond))
	}
	at := func(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }
	return fmt.Sprintf("%s:%d: %s (from %s to %s): a second run, or the same run again, written after the first (outputs concatenated)? Their samples are added together second by second, so rates and counts may be doubled; give each run as its own file (ldanalyze then tells one run given twice from the instances of a distributed run)",
		s.File, s.Line, what, at(s.FromNS), at(s.ToNS))
}
