package checks

import (
	"github.com/ldanalyze/ldanalyze/internal/secstore"
	"github.com/ldanalyze/ldanalyze/internal/vugauge"
	"hash/maphash"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/sketch"
)

// Options tune the Collector and Evaluate. The zero value works.
type Options struct {
	// Metric is the latency Trend the checks read (default
	// "http_req_duration"), in ms.
	Metric string
	// WindowNS is the width, in ns, of the windows used to say when
	// errors happened (default 10 s). Windows start at the run's first
	// second.
	WindowNS int64
	// Thresholds are k6 thresholds re-evaluated per load level by the
	// summary-vs-knee check (from --threshold flags or a summary file).
	Thresholds []Threshold
	// Generator is the load generator's Prometheus data for the generator
	// check (GeneratorFromExport); nil leaves the check n/a with a hint.
	Generator *GeneratorData
}

func (o *Options) defaults() {
	if o.Metric == "" {
		o.Metric = "http_req_duration"
	}
	if o.WindowNS <= 0 {
		o.WindowNS = 10e9
	}
}

// Limits on what the Collector keeps exactly (memory bounds). Past them the
// cardinality counts stop growing and are reported as "at least".
const (
	// maxSeries caps the series counted: one more than the warning limit
	// is enough for the verdict, and a large set would cost memory and
	// time on every request.
	maxSeries = MaxSeries + 1
	maxNames  = 10000
	// maxHistNames caps the request names given latency histograms
	// (96 × 4 bytes per name and second).
	maxHistNames = 16
)

// Collector accumulates what the checks need that knee.Collector does not
// keep: per-second iteration durations, dropped iterations, the vus and
// vus_max gauges, requests by outcome; run totals of the checks metric per
// check name, of statuses and error codes (per name too), latency of
// successful, failed and 429 responses; and the cardinality of metrics,
// series and request names.
//
// Memory grows with the run's length in seconds and the number of distinct
// statuses, error codes, names and checks, not with its rows.
type Collector struct {
	opt Options
	// secs holds the per-second records, live their writer (Fork shares
	// secs, sources and hist).
	secs *secstore.Store[second]
	live *secstore.Local[second]
	// dur holds the iteration durations per second (sealed, shared with
	// forks); durW is this Collector's writer to it.
	dur  *sketch.Series
	durW *sketch.Writer

	minNS, maxNS int64
	any          bool

	sources *vugauge.Index

	// latency of the metric, ms
	all, ok, failed, limited sketch.Sketch
	iterDur                  sketch.Sketch
	metricSeen, hasHTTP      bool

	byStatus     map[string]uint64
	byCode       map[string]uint64
	byStatusName map[[2]string]uint64
	checks       map[string]*checkCount

	metrics map[string]struct{}
	series  map[uint64]struct{}
	// seenMetric caches the string pointers of metric names already
	// counted, with whether their series are counted (see cardinality).
	seenMetric [64]metricSlot
	names      map[string]struct{}
	seed       maphash.Seed

	thr []*thrAgg

	// hist numbers the request names (name tag, else url) whose
	// successful latencies are kept per second in log histograms for the
	// bimodal test of rate-limited, up to maxHistNames; histLocal caches
	// it; histOver counts the samples of the names past the cap.
	hist      *vugauge.Index
	histLocal map[string]int
	histOver  uint64
	// err is the first per-second histogram that failed to decode.
	err error
}

// fail records err (if not nil) as the Collector's first error.
func (c *Collector) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// Err returns why the checks' figures cannot be trusted: a sealed
// per-second record or sketch that failed to decode (a bug, see
// sketch.Series.Err), or nil. Callers check it after Evaluate.
func (c *Collector) Err() error {
	if c.err != nil {
		return c.err
	}
	return c.dur.Err()
}

type second struct {
	reqs, ok, transport, limited uint64
	iterations, dropped          uint64
	vus, vusMax                  vugauge.Sources
	// hist holds, per request name (Collector.hist number), the
	// successful latencies of the metric in this second while the second
	// is live; histEnc the same once sealed (logHist.appendEnc, ~40 bytes
	// instead of 384; encodings concatenate to sum).
	hist    []*logHist
	histEnc [][]byte
}

// add merges o into s: o's source i is s's remap[i] and its name i is
// s's hremap[i] (nil: the same numbering; −1: past the cap, counted in
// c.histOver, which only happens with hremap and then c is not nil). o is
// dropped after.
func (s *second) add(o *second, remap, hremap []int, c *Collector) {
	s.reqs += o.reqs
	s.ok += o.ok
	s.transport += o.transport
	s.limited += o.limited
	s.iterations += o.iterations
	s.dropped += o.dropped
	s.vus.Merge(&o.vus, remap)
	s.vusMax.Merge(&o.vusMax, remap)
	to := func(i int) int {
		if hremap == nil {
			return i
		}
		return hremap[i]
	}
	grow := func(j int) {
		for len(s.histEnc) <= j {
			s.histEnc = append(s.histEnc, nil)
		}
	}
	for i, h := range o.hist {
		if h == nil {
			continue
		}
		j := to(i)
		if j < 0 {
			c.histOver += h.total()
			continue
		}
		grow(j)
		s.histEnc[j] = h.appendEnc(s.histEnc[j])
	}
	for i, enc := range o.histEnc {
		if len(enc) == 0 {
			continue
		}
		j := to(i)
		if j < 0 {
			var h logHist
			c.fail(h.addEnc(enc))
			c.histOver += h.total()
			continue
		}
		grow(j)
		s.histEnc[j] = append(s.histEnc[j], enc...)
	}
}

type checkCount struct {
	pass, fail  uint64
	firstFailNS int64
}

// NewCollector returns an empty Collector for the options.
func NewCollector(opt Options) *Collector {
	opt.defaults()
	dur := sketch.NewSeries(0)
	// Forks share the store and the name numbering: nothing to renumber.
	secs := secstore.New(func(d, s *second) { d.add(s, nil, nil, nil) })
	c := &Collector{
		opt: opt, secs: secs, live: secs.Local(), dur: dur, durW: dur.Writer(),
		sources: &vugauge.Index{}, hist: &vugauge.Index{Max: maxHistNames}, histLocal: map[string]int{},
		byStatus: map[string]uint64{}, byCode: map[string]uint64{}, byStatusName: map[[2]string]uint64{},
		checks: map[string]*checkCount{}, metrics: map[string]struct{}{}, series: map[uint64]struct{}{},
		names: map[string]struct{}{}, seed: maphash.MakeSeed(),
	}
	for _, t := range opt.Thresholds {
		c.thr = append(c.thr, newThrAgg(t))
	}
	return c
}

func secOf(ns int64) int64 {
	k := ns / 1e9
	if ns < 0 && ns%1e9 != 0 {
		k--
	}
	return k
}

func (c *Collector) sec(ns int64) *second { return c.live.At(secOf(ns)) }

// success tells whether a request sample is a successful response:
// expected_response=true, or where that tag is absent (k6 < v0.31), a
// status from 1 to 399 (user-pain.md BL-12).
func success(t *ingest.Tags) bool {
	if v, has := t.Get("expected_response"); has {
		return v == "true"
	}
	st, _ := t.Get("status")
	n, err := strconv.Atoi(st)
	return err == nil && n > 0 && n < 400
}

func count(v float64) uint64 { return uint64(math.Max(1, math.Round(v))) }

// Add adds one sample. It keeps nothing of s beyond the call but interned
// strings (tag values and metric names).
func (c *Collector) Add(s *ingest.Sample) {
	if !c.any || s.TimeNS < c.minNS {
		c.minNS = s.TimeNS
	}
	if !c.any || s.TimeNS > c.maxNS {
		c.maxNS = s.TimeNS
	}
	c.any = true
	c.cardinality(s)
	for _, t := range c.thr {
		t.add(s)
	}
	if s.Metric == c.opt.Metric {
		c.metricSeen = true
		c.all.Add(s.Value)
		if success(&s.Tags) {
			c.ok.Add(s.Value)
			c.addHist(s)
		} else {
			c.failed.Add(s.Value)
			if st, _ := s.Tags.Get("status"); st == "429" {
				c.limited.Add(s.Value)
			}
		}
	}
	switch s.Metric {
	case "http_reqs":
		c.hasHTTP = true
		sc := c.sec(s.TimeNS)
		n := count(s.Value)
		sc.reqs += n
		st, _ := s.Tags.Get("status")
		if st == "" {
			st = "0"
		}
		c.byStatus[st] += n
		if success(&s.Tags) {
			sc.ok += n
			return
		}
		if st == "0" {
			sc.transport += n
		}
		if st == "429" {
			sc.limited += n
		}
		if code, has := s.Tags.Get("error_code"); has {
			c.byCode[code] += n
		}
		name, _ := s.Tags.Get("name")
		c.byStatusName[[2]string{st, name}] += n
	case "iterations":
		c.sec(s.TimeNS).iterations += count(s.Value)
	case "iteration_duration":
		c.durW.Add(secOf(s.TimeNS), 0, s.Value)
		c.iterDur.Add(s.Value)
	case "dropped_iterations":
		c.sec(s.TimeNS).dropped += count(s.Value)
	case "vus", "vus_max":
		sc := c.sec(s.TimeNS)
		i := c.sources.Of(s.Source)
		g := &sc.vus
		if s.Metric == "vus_max" {
			g = &sc.vusMax
		}
		g.Add(i, s.Value)
	case "checks":
		name, _ := s.Tags.Get("check")
		cc := c.checks[name]
		if cc == nil {
			cc = &checkCount{}
			c.checks[name] = cc
		}
		if s.Value != 0 {
			cc.pass++
		} else {
			if cc.fail == 0 || s.TimeNS < cc.firstFailNS {
				cc.firstFailNS = s.TimeNS
			}
			cc.fail++
		}
	}
}

// addHist adds a successful latency sample to its second's histogram of
// its request name.
func (c *Collector) addHist(s *ingest.Sample) {
	n, ok := s.Tags.Get("name")
	if !ok {
		n, _ = s.Tags.Get("url")
	}
	i, ok := c.histLocal[n]
	if !ok {
		i = c.hist.Of(n)
		c.histLocal[n] = i
	}
	if i < 0 {
		c.histOver++
		return
	}
	sc := c.sec(s.TimeNS)
	for len(sc.hist) <= i {
		sc.hist = append(sc.hist, nil)
	}
	if sc.hist[i] == nil {
		sc.hist[i] = &logHist{}
	}
	sc.hist[i][histBin(s.Value)]++
}

// cardinality counts metrics, series (metric + indexed tags; metadata is
// not indexed by k6 outputs) and request names, up to fixed limits.
func (c *Collector) cardinality(s *ingest.Sample) {
	// Readers intern metric names, so the few distinct names arrive as a
	// few distinct pointers: a direct-mapped cache of them skips the map.
	p := uintptr(unsafe.Pointer(unsafe.StringData(s.Metric)))
	slot := &c.seenMetric[(p>>4)%uintptr(len(c.seenMetric))]
	if slot.p != p {
		if _, ok := c.metrics[s.Metric]; !ok {
			c.metrics[s.Metric] = struct{}{}
		}
		// Series are counted on http_reqs and on custom metrics: the
		// other built-in metrics of a request or an iteration carry the
		// same tags (research/k6-formats.md §4), and decoding every tag of
		// every row would defeat the CSV reader's lazy columns.
		*slot = metricSlot{p: p, series: s.Metric == "http_reqs" || !builtin(s.Metric)}
	}
	if slot.series && len(c.series) < maxSeries {
		h := maphash.String(c.seed, s.Metric)
		sum := s.Tags.SeriesHash(c.seed)
		c.series[h^(sum*0x9E3779B97F4A7C15)] = struct{}{}
	}
	if s.Metric == "http_reqs" && len(c.names) < maxNames {
		n, ok := s.Tags.Get("name")
		if !ok {
			n, _ = s.Tags.Get("url")
		}
		if _, seen := c.names[n]; !seen {
			c.names[n] = struct{}{}
		}
	}
}

// metricSlot is one entry of Collector.seenMetric.
type metricSlot struct {
	p      uintptr
	series bool // http_reqs or a custom metric
}

// builtin reports whether name is one of k6's built-in metrics other than
// http_reqs (metrics/builtin.go; research/k6-formats.md §3).
func builtin(name string) bool {
	switch name {
	case "vus", "vus_max", "iterations", "iteration_duration", "dropped_iterations",
		"checks", "group_duration", "data_sent", "data_received":
		return true
	}
	for _, p := range []string{"http_req_", "ws_", "grpc_", "browser_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Fork returns an empty Collector with c's options and hash seed that
// shares c's per-second iteration durations, to be fed a disjoint part of
// the same input from another goroutine and merged back with Merge.
func (c *Collector) Fork() *Collector {
	f := NewCollector(c.opt)
	f.seed = c.seed
	f.dur, f.durW = c.dur, c.dur.Writer()
	f.secs, f.live, f.sources, f.hist = c.secs, c.secs.Local(), c.sources, c.hist
	return f
}

// flush seals the per-second sketches and records still live.
func (c *Collector) flush() {
	c.durW.Flush()
	c.live.Flush()
}

// Merge adds everything o collected to c, as if c had been given o's
// samples too. o must come from c.Fork (same options and seed: series
// hashes must agree); it is not changed.
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
	c.metricSeen = c.metricSeen || o.metricSeen
	c.hasHTTP = c.hasHTTP || o.hasHTTP
	c.all.Merge(&o.all)
	c.ok.Merge(&o.ok)
	c.failed.Merge(&o.failed)
	c.limited.Merge(&o.limited)
	c.iterDur.Merge(&o.iterDur)
	o.flush()
	c.flush()
	c.dur.Merge(o.dur)
	for k, n := range o.byStatus {
		c.byStatus[k] += n
	}
	for k, n := range o.byCode {
		c.byCode[k] += n
	}
	for k, n := range o.byStatusName {
		c.byStatusName[k] += n
	}
	for name, oc := range o.checks {
		cc := c.checks[name]
		if cc == nil {
			cp := *oc
			c.checks[name] = &cp
			continue
		}
		if oc.fail > 0 && (cc.fail == 0 || oc.firstFailNS < cc.firstFailNS) {
			cc.firstFailNS = oc.firstFailNS
		}
		cc.pass += oc.pass
		cc.fail += oc.fail
	}
	for m := range o.metrics {
		c.metrics[m] = struct{}{}
	}
	for h := range o.series {
		if len(c.series) >= maxSeries {
			break
		}
		c.series[h] = struct{}{}
	}
	for n := range o.names {
		if len(c.names) >= maxNames {
			break
		}
		c.names[n] = struct{}{}
	}
	for i, t := range o.thr {
		c.thr[i].merge(t)
	}
	c.histOver += o.histOver
	if o.secs == c.secs {
		return
	}
	remap := c.sources.Remap(o.sources)
	var hremap []int
	if o.hist != c.hist {
		hremap = make([]int, 0, maxHistNames)
		for _, name := range o.hist.Names() {
			hremap = append(hremap, c.hist.Of(name))
		}
	}
	c.secs.MergeFrom(o.secs, func(d, s *second) { d.add(s, remap, hremap, c) })
	c.fail(o.err)
}
