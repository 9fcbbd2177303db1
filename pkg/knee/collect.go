// Package knee finds where a load test's system stopped keeping up: it
// recovers the load schedule (holds) from the data, measures offered and
// completed load and latency per hold or window, and names the knee, the
// ceiling and the SLO capacity, with a verdict per hold.
//
// Method: research/methods.md §1 (load-testing definition, hold recovery,
// per-hold rules, hinge regression for continuous ramps).
package knee

import (
	"github.com/ldanalyze/ldanalyze/internal/secstore"
	"github.com/ldanalyze/ldanalyze/internal/vugauge"
	"math"
	"strconv"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/sketch"
)

// Collector accumulates a run's samples into per-second series: requests by
// outcome, iterations, dropped iterations, the vus/vus_max gauges and a
// latency sketch of the chosen metric. Seconds are the finest level the
// default k6 CSV carries, and holds are found at that resolution whatever
// the window width.
//
// Memory grows with the run's duration in seconds (one small record a
// second, shared by forks), not with its rows; the per-second latency
// sketches are kept sealed in a sketch.Series, which coarsens in time for
// runs longer than sketch.DefaultSeriesSlots seconds.
type Collector struct {
	metric string
	// secs holds the per-second records, live their writer (Fork shares
	// secs and sources).
	secs    *secstore.Store[second]
	live    *secstore.Local[second]
	sources *vugauge.Index
	// lat holds the successful samples of the metric per second; latW is
	// this Collector's writer to it (Fork shares lat).
	lat  *sketch.Series
	latW *sketch.Writer

	overall     sketch.Sketch
	overallOK   sketch.Sketch
	metricSeen  bool
	hasExpected bool
	hasHTTP     bool

	minNS, maxNS int64
	any          bool
	rows         int64

	iterDur sketch.Sketch
	// negative counts samples of the metric below zero, huge those above
	// a day (in ms).
	negative, huge int64
	// perSource counts the metric's samples and their span per input
	// file (SetInput, else the sample's Source), to catch one run given
	// twice.
	perSource map[string]*sourceSpan
	input     string
}

// sourceSpan is one input file's samples of the metric.
type sourceSpan struct {
	n            int64
	minNS, maxNS int64
	// micro is the sum of the values in millionths, wrapping: equal for
	// the same samples in any order, and almost surely not for the
	// different samples of two instances of a distributed run.
	micro int64
}

type second struct {
	reqs, ok   uint64
	byStatus   map[string]uint64
	transport  uint64 // status 0 / empty status with an error
	iterations uint64
	dropped    uint64
	metricN    uint64
	vus        vugauge.Sources // per source
	vusMax     vugauge.Sources
}

// NewCollector returns a Collector for the latency metric (a Trend such as
// "http_req_duration").
func NewCollector(metric string) *Collector {
	lat := sketch.NewSeries(latSlots)
	secs := secstore.New(func(d, s *second) { d.add(s, nil) })
	return &Collector{metric: metric, secs: secs, live: secs.Local(), sources: &vugauge.Index{}, lat: lat, latW: lat.Writer()}
}

// add merges o, whose source i is this one's remap[i] (nil: the same),
// into s.
func (s *second) add(o *second, remap []int) {
	s.reqs += o.reqs
	s.ok += o.ok
	s.transport += o.transport
	s.iterations += o.iterations
	s.dropped += o.dropped
	s.metricN += o.metricN
	if s.byStatus == nil {
		s.byStatus = o.byStatus // o is dropped after
	} else {
		for st, n := range o.byStatus {
			s.byStatus[st] += n
		}
	}
	s.vus.Merge(&o.vus, remap)
	s.vusMax.Merge(&o.vusMax, remap)
}

// latSlots is the slot limit of the per-second latency sketches (0:
// sketch.DefaultSeriesSlots); tests lower it.
var latSlots = 0

// Fork returns an empty Collector for the same metric that shares c's
// per-second latency sketches (one copy of them however many cores read),
// to be fed a disjoint part of the same input from another goroutine and
// merged back into c with Merge.
func (c *Collector) Fork() *Collector {
	return &Collector{metric: c.metric, secs: c.secs, live: c.secs.Local(), sources: c.sources, lat: c.lat, latW: c.lat.Writer()}
}

// secOf returns the Unix second of a time in ns.
func secOf(ns int64) int64 {
	k := ns / 1e9
	if ns < 0 && ns%1e9 != 0 {
		k--
	}
	return k
}

func (c *Collector) sec(ns int64) *second { return c.live.At(secOf(ns)) }

// success tells whether a request sample is a successful response:
// expected_response=true, or where that tag is absent (k6 < v0.31 or a
// custom response callback), a status from 1 to 399.
func (c *Collector) success(t *ingest.Tags) (ok, known bool) {
	if v, has := t.Get("expected_response"); has {
		c.hasExpected = true
		return v == "true", true
	}
	if st, has := t.Get("status"); has {
		n, err := strconv.Atoi(st)
		return err == nil && n > 0 && n < 400, true
	}
	return true, false
}

// Add adds one sample.
func (c *Collector) Add(s *ingest.Sample) {
	c.rows++
	if !c.any || s.TimeNS < c.minNS {
		c.minNS = s.TimeNS
	}
	if !c.any || s.TimeNS > c.maxNS {
		c.maxNS = s.TimeNS
	}
	c.any = true
	switch s.Metric {
	case c.metric:
		c.metricSeen = true
		if s.Value < 0 {
			c.negative++
		} else if s.Value > 86_400_000 {
			c.huge++
		}
		c.spanOf(s)
		c.overall.Add(s.Value)
		sc := c.sec(s.TimeNS)
		sc.metricN++
		if ok, _ := c.success(&s.Tags); ok {
			c.latW.Add(secOf(s.TimeNS), 0, s.Value)
			c.overallOK.Add(s.Value)
		}
		if s.Metric != "http_reqs" {
			return
		}
	}
	switch s.Metric {
	case "http_reqs":
		c.hasHTTP = true
		sc := c.sec(s.TimeNS)
		n := uint64(math.Max(1, math.Round(s.Value)))
		sc.reqs += n
		ok, _ := c.success(&s.Tags)
		if ok {
			sc.ok += n
			return
		}
		st, _ := s.Tags.Get("status")
		if st == "" {
			st = "0"
		}
		if st == "0" {
			sc.transport += n
		}
		if sc.byStatus == nil {
			sc.byStatus = map[string]uint64{}
		}
		sc.byStatus[st] += n
	case "iterations":
		c.sec(s.TimeNS).iterations += uint64(math.Max(1, math.Round(s.Value)))
	case "iteration_duration":
		c.iterDur.Add(s.Value)
	case "dropped_iterations":
		c.sec(s.TimeNS).dropped += uint64(math.Max(1, math.Round(s.Value)))
	case "vus":
		c.sec(s.TimeNS).vus.Add(c.sources.Of(s.Source), s.Value)
	case "vus_max":
		c.sec(s.TimeNS).vusMax.Add(c.sources.Of(s.Source), s.Value)
	}
}

// SetInput names the input file the next samples come from. A Parquet
// file written by convert keeps the source names of the files it was
// converted from, so the input, not the sample's Source, tells a run given
// twice (as CSV and as its own Parquet copy). Empty means use Source.
func (c *Collector) SetInput(name string) { c.input = name }

func (c *Collector) spanOf(s *ingest.Sample) {
	if c.perSource == nil {
		c.perSource = map[string]*sourceSpan{}
	}
	key := c.input
	if key == "" {
		key = s.Source
	}
	sp := c.perSource[key]
	if sp == nil {
		sp = &sourceSpan{minNS: s.TimeNS, maxNS: s.TimeNS}
		c.perSource[key] = sp
	}
	sp.n++
	sp.micro += int64(math.Round(s.Value * 1e6))
	sp.minNS = min(sp.minNS, s.TimeNS)
	sp.maxNS = max(sp.maxNS, s.TimeNS)
}

// Merge adds everything o collected to c, as if c had been given o's
// samples too: counts add, sketches merge exactly, VU gauges are matched by
// source file. Collectors fed from disjoint parts of one input (the
// parallel readers of ingest.ReadAll) merge into the collector of the
// whole. o must have been created for the same metric and is not changed.
func (c *Collector) Merge(o *Collector) {
	if o == nil || !o.any {
		return
	}
	if !c.any || o.minNS < c.minNS {
		c.minNS = o.minNS
	}
	if !c.any || o.maxNS > c.maxNS {
		c.maxNS = o.maxNS
	}
	c.any = true
	c.rows += o.rows
	c.negative += o.negative
	c.huge += o.huge
	for src, osp := range o.perSource {
		if c.perSource == nil {
			c.perSource = map[string]*sourceSpan{}
		}
		sp := c.perSource[src]
		if sp == nil {
			cp := *osp
			c.perSource[src] = &cp
			continue
		}
		sp.n += osp.n
		sp.micro += osp.micro
		sp.minNS = min(sp.minNS, osp.minNS)
		sp.maxNS = max(sp.maxNS, osp.maxNS)
	}
	c.metricSeen = c.metricSeen || o.metricSeen
	c.hasExpected = c.hasExpected || o.hasExpected
	c.hasHTTP = c.hasHTTP || o.hasHTTP
	c.overall.Merge(&o.overall)
	c.overallOK.Merge(&o.overallOK)
	c.iterDur.Merge(&o.iterDur)
	o.latW.Flush()
	c.latW.Flush()
	c.lat.Merge(o.lat)
	o.live.Flush()
	c.live.Flush()
	remap := c.sources.Remap(o.sources)
	c.secs.MergeFrom(o.secs, func(d, s *second) { d.add(s, remap) })
}
