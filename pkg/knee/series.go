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
	reqs  []float64
	// completed is the completed units per second: successful responses
	// of the request stream, WebSocket messages received (msgs), or
	// iterations when the run has no request stream.
	completed  []float64
	msgs       bool
	iterations []float64
	dropped    []float64
	vus        []float64 // carried forward over seconds without a sample
	vusMax     []float64
	hasVUs     bool
	// missing marks the seconds of the span without any sample (k6
	// writes vus every second, so a stalled generator or an edited file);
	// nil when there are none.
	missing []bool
	// The failures, 429s and bytes of a level are summed from the
	// Timeline's own per-second table (Timeline.Range) when asked.
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
	return len(p.reqs)
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
	p.reqs, p.completed = make([]float64, n), make([]float64, n)
	p.iterations, p.dropped = make([]float64, n), make([]float64, n)
	p.vus, p.vusMax = make([]float64, n), make([]float64, n)
	proto := tl.Protocol()
	p.msgs = proto == outcome.WebSocket
	if p.msgs {
		// completed counts the messages received when there are any.
		p.msgs = false
		tl.Range(p.start, p.start+int64(n), func(_ int64, s *timeline.Second) { p.msgs = p.msgs || s.MessagesReceived > 0 })
	}
	lastV, lastM := 0.0, 0.0
	next := 0 // the first second not yet laid out
	gapTo := func(to int) {
		for i := next; i < to; i++ {
			p.vus[i], p.vusMax[i] = lastV, lastM
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
		p.reqs[i] = float64(s.Requests)
		switch {
		case p.msgs:
			p.completed[i] = s.MessagesReceived
		case proto != outcome.None:
			p.completed[i] = float64(s.OK)
		default:
			p.completed[i] = float64(s.Iterations)
		}
		p.iterations[i], p.dropped[i] = float64(s.Iterations), float64(s.Dropped)
		if s.HasVUs {
			lastV = s.VUs
			p.hasVUs = true
		}
		if s.HasVUsMax {
			lastM = s.VUsMax
		}
		p.vus[i], p.vusMax[i] = lastV, lastM
	})
	gapTo(n)
	return p
}
