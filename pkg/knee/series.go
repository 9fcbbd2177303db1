package knee

import (
	"github.com/ldanalyze/ldanalyze/pkg/sketch"
)

// perSecond is the dense per-second view of a run, from its first second to
// its last.
type perSecond struct {
	start      int64 // unix second of index 0
	reqs, ok   []float64
	errs       []float64
	transport  []float64
	iterations []float64
	dropped    []float64
	vus        []float64 // carried forward over seconds without a sample
	vusMax     []float64
	hasVUs     bool
	lat        *sketch.Series // successful latencies, group 0
	status     []map[string]uint64
	// spans counts the spans of data (see dense); with more than one,
	// spanSeconds is the chosen one's seconds of data and maxGapS the
	// longest gap between spans.
	spans       int
	spanSeconds int
	maxGapS     int64
	allSeconds  int // seconds with data in every span
	// missing marks the seconds of the span without any sample (k6
	// writes vus every second, so a stalled generator or an edited file);
	// nil when there are none.
	missing []bool
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

// dataSeconds is the run's duration for whole-run rates: the seconds from
// its first to its last, or with several spans of data, the seconds that
// hold data (the gaps between spans are not the run's).
func (p *perSecond) dataSeconds() int {
	if p.spans > 1 {
		return p.allSeconds
	}
	return len(p.reqs)
}

// maxGapS is the shortest run of seconds without any sample that splits a
// run into spans of data: k6 writes every second (vus at least) while a
// test runs.
const maxGapS = 30

func (c *Collector) dense() *perSecond {
	c.latW.Flush()
	c.live.Flush()
	// The run's spans of data: seconds with samples, split where no
	// sample falls for maxGapS seconds or more (a clock step, a paused
	// generator, several runs in one file, one stray timestamp). The load
	// analysis works on the span with the most seconds of data, so that
	// its arrays and searches follow the run, not the gap.
	type span struct {
		a, b int64 // first and last second
		n    int   // seconds with data
	}
	var spans []span
	c.secs.Each(func(sec int64, _ *second) {
		if k := len(spans) - 1; k >= 0 && sec-spans[k].b-1 < maxGapS {
			spans[k].b = sec
			spans[k].n++
			return
		}
		spans = append(spans, span{sec, sec, 1})
	})
	p := &perSecond{lat: c.lat, spans: len(spans)}
	for _, sp := range spans {
		p.allSeconds += sp.n
	}
	if len(spans) == 0 {
		return p
	}
	best := spans[0]
	for _, sp := range spans[1:] {
		if sp.n > best.n {
			best = sp
		}
	}
	if len(spans) > 1 {
		p.spanSeconds = best.n
		for i := 1; i < len(spans); i++ {
			p.maxGapS = max(p.maxGapS, spans[i].a-spans[i-1].b-1)
		}
	}
	p.start = best.a
	n := int(best.b-best.a) + 1
	p.reqs, p.ok, p.errs, p.transport = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	p.iterations, p.dropped = make([]float64, n), make([]float64, n)
	p.vus, p.vusMax = make([]float64, n), make([]float64, n)
	p.status = make([]map[string]uint64, n)
	lastV, lastM := 0.0, 0.0
	for i := range n {
		s := c.secs.Get(p.start + int64(i))
		if s == nil {
			p.vus[i], p.vusMax[i] = lastV, lastM
			if p.missing == nil {
				p.missing = make([]bool, n)
			}
			p.missing[i] = true
			continue
		}
		p.reqs[i], p.ok[i] = float64(s.reqs), float64(s.ok)
		p.errs[i] = float64(s.reqs - s.ok)
		p.transport[i] = float64(s.transport)
		p.iterations[i], p.dropped[i] = float64(s.iterations), float64(s.dropped)
		if v, ok := s.vus.Total(); ok {
			lastV = v
			p.hasVUs = true
		}
		if v, ok := s.vusMax.Total(); ok {
			lastM = v
		}
		p.vus[i], p.vusMax[i] = lastV, lastM
		p.status[i] = s.byStatus
	}
	return p
}
