package knee

import (
	"github.com/ldanalyze/ldanalyze/pkg/outcome"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// perSecond is the dense per-second view of the run's main span of data
// (timeline.Timeline.Main), from its first second to its last.
type perSecond struct {
	tl    *timeline.Timeline
	start int64 // unix second of index 0
	n     int   // seconds of the span
	reqs  perSec
	// completed is the completed units per second: successful responses
	// of the request stream, WebSocket messages received (msgs), or
	// iterations when the run has no request stream.
	completed  perSec
	msgs       bool
	iterations perSec
	dropped    perSec
	vus        perSec // carried forward over seconds without a sample
	vusMax     perSec
	hasVUs     bool
	// missing marks the seconds of the span without any sample (k6
	// writes vus every second, so a stalled generator or an edited file);
	// nil when there are none.
	missing []bool
	// The failures, 429s and bytes of a level are summed from the
	// Timeline's own per-second table (Timeline.Range) when asked.
}

// carried returns the gauge c over n seconds, each second without a
// sample (has false) holding the last sampled value before it (0 before
// the first): what dense's Range pass gives.
func carried(c timeline.Column, has timeline.Flags, n int) []float64 {
	out := make([]float64, n)
	last := 0.0
	for i := range out {
		if has.At(i) {
			last = c.At(i)
		}
		out[i] = last
	}
	return out
}

// copySeries makes dense lay every span out in its own arrays, as it does
// for a span with gaps (a test compares the two).
var copySeries = false

// perSec is one per-second series of the span: a view of the timeline's
// table (timeline.MainColumns) when the span has every second, else its
// own values laid out by dense.
type perSec struct {
	f    []float64
	c    timeline.Column
	view bool
}

// at is second i of the span.
func (s perSec) at(i int) float64 {
	if s.view {
		return s.c.At(i)
	}
	return s.f[i]
}

// slice returns the series' n values as a slice (a copy of a view).
func (s perSec) slice(n int) []float64 {
	if !s.view {
		return s.f[:n]
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = s.c.At(i)
	}
	return out
}

// dataIn returns the seconds of [i0, i1) that hold data.
func (p *perSecond) dataIn(i0, i1 int) int {
	n := max(0, i1-i0)
	if p.missing != nil {
		for i := i0; i < i1; i++ {
			if p.missing[i] {
				n--
			}
		}
	}
	return n
}

// runSeconds is the run's length for whole-run rates: the seconds that
// hold data, or, for a short one-span input with sub-second timestamps,
// its exact span (last − first sample + the resolution): a 5.23 s run
// touches up to 7 whole seconds, and counted as 7 its rates were 25 % low.
// The two partial seconds at the ends overstate a run of n seconds by up
// to 2/n; from exactSpanBelow seconds on that is under 5 %, and the whole
// seconds are kept, so that a run's CSV (whole-second timestamps) and its
// JSON (sub-second) give the same rates.
func (p *perSecond) runSeconds() float64 {
	n := float64(p.dataSeconds())
	if res := p.tl.ResolutionNS(); res < 1e9 && len(p.tl.Spans()) <= 1 && n < exactSpanBelow {
		if exact := float64(p.tl.EndNS()-p.tl.StartNS()+res) / 1e9; exact >= 1 && exact < n {
			return exact
		}
	}
	return n
}

// exactSpanBelow: see runSeconds (2 / 40 s = 5 %).
const exactSpanBelow = 40

// dataSeconds is the run's duration for whole-run rates: the seconds from
// its first to its last, or with several spans of data, the seconds that
// hold data (the gaps between spans are not the run's).
func (p *perSecond) dataSeconds() int {
	if len(p.tl.Spans()) > 1 {
		return p.tl.DataSeconds()
	}
	return p.n
}

// dense lays out the main span of tl second by second.
func dense(tl *timeline.Timeline) *perSecond {
	p := &perSecond{tl: tl}
	best := tl.Main()
	if best.Seconds == 0 {
		return p
	}
	p.start = best.First
	n := best.Len()
	p.n = n
	proto := tl.Protocol()
	p.msgs = proto == outcome.WebSocket
	if p.msgs {
		// completed counts the messages received when there are any.
		p.msgs = false
		tl.Range(p.start, p.start+int64(n), func(_ int64, s *timeline.Second) { p.msgs = p.msgs || s.MessagesReceived > 0 })
	}
	if cols, ok := tl.MainColumns(); ok && !copySeries {
		// Every second is there and the gauges need no carrying: read the
		// timeline's table instead of copying it (six day-long float64
		// arrays at a 24-hour run).
		v := func(c timeline.Column) perSec { return perSec{c: c, view: true} }
		p.reqs, p.iterations, p.dropped = v(cols.Requests), v(cols.Iterations), v(cols.Dropped)
		p.vus, p.vusMax, p.hasVUs = v(cols.VUs), v(cols.VUsMax), cols.HasVUs
		// A gauge sampled in some seconds only is carried over the others
		// (k6 writes no vus in a run's last partial second, say).
		if cols.HasVUs && !cols.EveryVUs {
			p.vus = perSec{f: carried(cols.VUs, cols.SampledVUs, n)}
		}
		if cols.HasVUsMax && !cols.EveryVUsMax {
			p.vusMax = perSec{f: carried(cols.VUsMax, cols.SampledVUsMax, n)}
		}
		switch {
		case p.msgs:
			p.completed = v(cols.MessagesReceived)
		case proto != outcome.None:
			p.completed = v(cols.OK)
		default:
			p.completed = v(cols.Iterations)
		}
		return p
	}
	reqs, completed := make([]float64, n), make([]float64, n)
	iterations, dropped := make([]float64, n), make([]float64, n)
	vus, vusMax := make([]float64, n), make([]float64, n)
	f := func(x []float64) perSec { return perSec{f: x} }
	p.reqs, p.completed, p.iterations, p.dropped, p.vus, p.vusMax = f(reqs), f(completed), f(iterations), f(dropped), f(vus), f(vusMax)
	lastV, lastM := 0.0, 0.0
	next := 0 // the first second not yet laid out
	gapTo := func(to int) {
		for i := next; i < to; i++ {
			vus[i], vusMax[i] = lastV, lastM
			if p.missing == nil {
				p.missing = make([]bool, n)
			}
			p.missing[i] = true
		}
	}
	tl.Range(p.start, p.start+int64(n), func(sec int64, s *timeline.Second) {
		i := int(sec - p.start)
		gapTo(i)
		next = i + 1
		reqs[i] = float64(s.Requests)
		switch {
		case p.msgs:
			completed[i] = s.MessagesReceived
		case proto != outcome.None:
			completed[i] = float64(s.OK)
		default:
			completed[i] = float64(s.Iterations)
		}
		iterations[i], dropped[i] = float64(s.Iterations), float64(s.Dropped)
		if s.HasVUs {
			lastV = s.VUs
			p.hasVUs = true
		}
		if s.HasVUsMax {
			lastM = s.VUsMax
		}
		vus[i], vusMax[i] = lastV, lastM
	})
	gapTo(n)
	return p
}
