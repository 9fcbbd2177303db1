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
}

func (c *Collector) dense() *perSecond {
	c.latW.Flush()
	c.live.Flush()
	var keys []int64 // the first and last seconds with a record
	c.secs.Each(func(sec int64, _ *second) {
		if len(keys) < 2 {
			keys = append(keys, sec)
		} else {
			keys[1] = sec
		}
	})
	p := &perSecond{lat: c.lat}
	if len(keys) == 0 {
		return p
	}
	p.start = keys[0]
	n := int(keys[len(keys)-1]-keys[0]) + 1
	p.reqs, p.ok, p.errs, p.transport = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	p.iterations, p.dropped = make([]float64, n), make([]float64, n)
	p.vus, p.vusMax = make([]float64, n), make([]float64, n)
	p.status = make([]map[string]uint64, n)
	lastV, lastM := 0.0, 0.0
	for i := range n {
		s := c.secs.Get(p.start + int64(i))
		if s == nil {
			p.vus[i], p.vusMax[i] = lastV, lastM
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
