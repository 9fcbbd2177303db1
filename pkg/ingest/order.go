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

// MaxTimeSteps is how many steps back in time Stats keeps (all are
// counted).
const MaxTimeSteps = 8

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
	kept        []TimeStep // the first MaxTimeSteps steps (Line within the chunk)
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
		o.add(TimeStep{Line: line, FromNS: o.last, ToNS: ns})
	}
	o.last = ns
}

// add counts step s, and keeps it if there is room.
func (o *timeOrder) add(s TimeStep) {
	o.steps++
	if len(o.kept) < MaxTimeSteps {
		o.kept = append(o.kept, s)
	}
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
		o.add(TimeStep{File: name, Line: base + o2.firstLine, FromNS: o.last, ToNS: o2.first})
	}
	for _, s := range o2.kept {
		s.File, s.Line = name, base+s.Line
		o.add(s)
	}
	o.steps += o2.steps - int64(len(o2.kept))
	o.last = o2.last
}

// finish puts o's steps back into st, the stats of the file named name
// (TimeSteps, Steps and a Warning), once the file is read.
func (o *timeOrder) finish(st *Stats, name string) {
	if o.steps == 0 {
		return
	}
	for i := range o.kept {
		if o.kept[i].File == "" {
			o.kept[i].File = name
		}
	}
	st.TimeSteps += o.steps
	for _, s := range o.kept {
		if len(st.Steps) < MaxTimeSteps {
			st.Steps = append(st.Steps, s)
		}
	}
	st.Warnings = append(st.Warnings, o.note())
}

// note returns the Stats warning of o's steps back.
func (o *timeOrder) note() string {
	s := o.kept[0]
	more := ""
	if o.steps > 1 {
		more = fmt.Sprintf(", and %d more time(s)", o.steps-1)
	}
	at := func(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }
	return fmt.Sprintf("%s:%d: time steps back %v, from %s to %s%s: two runs written one after the other (outputs concatenated), or a stray timestamp; ldanalyze check says which (its input check)",
		s.File, s.Line, time.Duration(s.FromNS-s.ToNS).Round(time.Millisecond), at(s.FromNS), at(s.ToNS), more)
}
