package timeline

import (
	"hash/maphash"
	"math"
	"strings"
	"unsafe"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/sketch"
)

// Limits on what an Accumulator keeps exactly (memory bounds). Past them
// the counts stop growing and are reported as "at least".
const (
	// MaxSeries caps the series counted (the Grafana Cloud free plan's
	// Prometheus series is 10,000; one more is enough for a verdict).
	MaxSeries = 10001
	// MaxNames caps the request names counted.
	MaxNames = 10000
	// MaxHistNames caps the request names given per-second latency
	// histograms (96 × 4 bytes per name and second while live).
	MaxHistNames = 16
	// MaxStatuses caps the distinct (protocol, status) pairs counted per
	// second; later ones count under "other".
	MaxStatuses = 1024
	// MaxScenarios caps the scenario names kept.
	MaxScenarios = 50
	// MaxMetrics caps the metric names counted.
	MaxMetrics = 10000
)

// trend holds one latency candidate's samples over the whole run, ms.
type trend struct {
	all, ok, failed, limited sketch.Sketch
	// negative counts samples below zero, huge those above a day.
	negative, huge uint64
}

func (t *trend) merge(o *trend) {
	t.all.Merge(&o.all)
	t.ok.Merge(&o.ok)
	t.failed.Merge(&o.failed)
	t.limited.Merge(&o.limited)
	t.negative += o.negative
	t.huge += o.huge
}

// checkCount counts the samples of one k6 check.
type checkCount struct {
	pass, fail  uint64
	firstFailNS int64
}

// statusName is a (protocol index, status) pair.
type statusName struct {
	proto  int8
	status string
	name   string
}

// sourceSpan is one input file's samples of a latency candidate.
type sourceSpan struct {
	n            int64
	minNS, maxNS int64
	// micro is the sum of the values in millionths, wrapping: equal for
	// the same samples in any order, and almost surely not for the
	// different samples of two instances of a distributed run.
	micro int64
}

// totals is what an Accumulator counts over the whole run.
type totals struct {
	rows         int64
	minNS, maxNS int64
	any          bool
	trends       [nCand]trend
	iterDur      sketch.Sketch
	// byStatus counts stream samples by (protocol, status), failures by
	// (protocol, status, name); byCode failures by k6 error_code.
	byStatus     map[statusName]*uint64
	byStatusName map[statusName]uint64
	byCode       map[string]uint64
	checks       map[string]*checkCount
	// hasExpected: an HTTP stream sample had expected_response; seen marks
	// the protocols whose stream had samples.
	hasExpected bool
	// metrics counts the samples of every metric name.
	metrics   map[string]*uint64
	series    map[uint64]struct{}
	names     map[string]struct{}
	scenarios []string
	// scenSpan is, per scenario, the first and last time (ns) of its
	// requests and iterations.
	scenSpan  [][2]int64
	perSource map[srcKey]*sourceSpan
	histOver  uint64
	// badVUs counts vus and vus_max samples below zero (a VU count
	// cannot be): left out of the per-second gauges.
	badVUs uint64
	// lastStatus is the byStatus key counted last and lastStatusN its
	// count; recentNames are the last few names added to names (a run's
	// requests repeat a few statuses and names, and these spare a map
	// lookup each).
	lastStatus   statusName
	lastStatusN  *uint64
	recentNames  [4]string
	nRecentNames int
	// lastSpan is perSource[lastSpanK] (nil: none yet); perSource never
	// replaces an entry.
	lastSpanK srcKey
	lastSpan  *sourceSpan
}

// countStatus adds n to byStatus[k].
func (t *totals) countStatus(k statusName, n uint64) {
	if t.lastStatusN == nil || k != t.lastStatus {
		c := t.byStatus[k]
		if c == nil {
			c = new(uint64)
			t.byStatus[k] = c
		}
		t.lastStatus, t.lastStatusN = k, c
	}
	*t.lastStatusN += n
}

// addName adds a request name to names, up to MaxNames.
func (t *totals) addName(name string) {
	r := &t.recentNames
	for _, v := range r[:t.nRecentNames] {
		if v == name {
			return
		}
	}
	if len(t.names) >= MaxNames {
		return
	}
	t.names[name] = struct{}{}
	copy(r[1:], r[:len(r)-1])
	r[0] = name
	t.nRecentNames = min(t.nRecentNames+1, len(r))
}

type srcKey struct {
	cand int
	src  string
}

func newTotals() totals {
	return totals{
		byStatus: map[statusName]*uint64{}, byStatusName: map[statusName]uint64{}, byCode: map[string]uint64{},
		checks: map[string]*checkCount{}, metrics: map[string]*uint64{}, series: map[uint64]struct{}{},
		names: map[string]struct{}{}, perSource: map[srcKey]*sourceSpan{},
	}
}

func (t *totals) merge(o *totals) {
	if o.any {
		if !t.any || o.minNS < t.minNS {
			t.minNS = o.minNS
		}
		if !t.any || o.maxNS > t.maxNS {
			t.maxNS = o.maxNS
		}
		t.any = true
	}
	t.rows += o.rows
	t.badVUs += o.badVUs
	for i := range t.trends {
		t.trends[i].merge(&o.trends[i])
	}
	t.iterDur.Merge(&o.iterDur)
	for k, n := range o.byStatus {
		t.countStatus(k, *n)
	}
	for k, n := range o.byStatusName {
		t.byStatusName[k] += n
	}
	for k, n := range o.byCode {
		t.byCode[k] += n
	}
	for name, oc := range o.checks {
		cc := t.checks[name]
		if cc == nil {
			cp := *oc
			t.checks[name] = &cp
			continue
		}
		if oc.fail > 0 && (cc.fail == 0 || oc.firstFailNS < cc.firstFailNS) {
			cc.firstFailNS = oc.firstFailNS
		}
		cc.pass += oc.pass
		cc.fail += oc.fail
	}
	t.hasExpected = t.hasExpected || o.hasExpected
	for m, n := range o.metrics {
		if d := t.metrics[m]; d != nil {
			*d += *n
		} else if len(t.metrics) < MaxMetrics {
			c := *n
			t.metrics[m] = &c
		}
	}
	for h := range o.series {
		if len(t.series) >= MaxSeries {
			break
		}
		t.series[h] = struct{}{}
	}
	for n := range o.names {
		if len(t.names) >= MaxNames {
			break
		}
		t.names[n] = struct{}{}
	}
	for i, sc := range o.scenarios {
		t.addScenario(sc, o.scenSpan[i][0])
		t.addScenario(sc, o.scenSpan[i][1])
	}
	for k, osp := range o.perSource {
		sp := t.perSource[k]
		if sp == nil {
			cp := *osp
			t.perSource[k] = &cp
			continue
		}
		sp.n += osp.n
		sp.micro += osp.micro
		sp.minNS = min(sp.minNS, osp.minNS)
		sp.maxNS = max(sp.maxNS, osp.maxNS)
	}
	t.histOver += o.histOver
}

// addScenario counts a sample of scenario sc at time ns.
func (t *totals) addScenario(sc string, ns int64) {
	if sc == "" {
		return
	}
	for i, s := range t.scenarios {
		if s == sc {
			sp := &t.scenSpan[i]
			sp[0], sp[1] = min(sp[0], ns), max(sp[1], ns)
			return
		}
	}
	if len(t.scenarios) < MaxScenarios {
		t.scenarios = append(t.scenarios, sc)
		t.scenSpan = append(t.scenSpan, [2]int64{ns, ns})
	}
}

func (t *totals) addCheck(s *ingest.Sample) {
	name, _ := s.Tags.Get("check")
	cc := t.checks[name]
	if cc == nil {
		cc = &checkCount{}
		t.checks[name] = cc
	}
	if s.Value != 0 {
		cc.pass++
		return
	}
	if cc.fail == 0 || s.TimeNS < cc.firstFailNS {
		cc.firstFailNS = s.TimeNS
	}
	cc.fail++
}

func (t *totals) span(k srcKey, s *ingest.Sample) {
	sp := t.lastSpan
	if sp == nil || k != t.lastSpanK {
		if sp = t.perSource[k]; sp == nil {
			sp = &sourceSpan{minNS: s.TimeNS, maxNS: s.TimeNS}
			t.perSource[k] = sp
		}
		t.lastSpanK, t.lastSpan = k, sp
	}
	sp.n++
	sp.micro += int64(math.Round(s.Value * 1e6))
	sp.minNS = min(sp.minNS, s.TimeNS)
	sp.maxNS = max(sp.maxNS, s.TimeNS)
}

// metricSlot is one entry of cardinality's cache of metric names.
type metricSlot struct {
	name   string // "" marks an empty slot
	series bool   // http_reqs or a custom metric
	counts *uint64
	// kind is what Accumulator.Add does with the metric's samples, set by
	// Add on the metric's first sample (kindSet).
	kind    metricKind
	kindSet bool
}

// metricSlots is the size of cardinality's cache (a power of two), and
// maxCached the names it takes before later ones go to the map each time.
const (
	metricSlots = 64
	maxCached   = 48
)

// knownSeries is the size of cardinality's direct-mapped cache of series
// keys already in totals.series (a power of two): a run's requests come
// back to the same few hundred series (endpoints × statuses) over and
// over, and the cache spares each a map assignment.
const knownSeries = 1 << knownBits

const knownBits = 9

// cardinality counts metrics, series (metric + indexed tags; metadata is
// not indexed by k6 outputs) and request names, up to fixed limits.
type cardinality struct {
	// seen caches the metric names already counted, found by the address
	// of their bytes (readers intern metric names, so the few distinct
	// names arrive as a few distinct pointers: an open-addressed table by
	// pointer skips the map and its string hash). Each slot holds its name,
	// so a pointer cannot be reused for another name while it is cached.
	seen   [metricSlots]metricSlot
	cached int
	seed   maphash.Seed
	// known caches series keys already in totals.series, each in the slot
	// its top bits name (0: empty; a key of 0 is never cached).
	known [knownSeries]uint64
}

// slot returns the cache slot of name: its own, an empty one to fill, or
// nil when the cache takes no more names (or name is empty).
func (c *cardinality) slot(name string) *metricSlot {
	if name == "" {
		return nil
	}
	p := unsafe.StringData(name)
	i := (uint64(uintptr(unsafe.Pointer(p))) * 0x9E3779B97F4A7C15) >> (64 - 6)
	for range metricSlots {
		sl := &c.seen[i]
		if sl.name == "" {
			if c.cached >= maxCached {
				return nil
			}
			return sl
		}
		if unsafe.StringData(sl.name) == p && len(sl.name) == len(name) {
			return sl
		}
		i = (i + 1) & (metricSlots - 1)
	}
	return nil
}

// add counts s under its metric and, for http_reqs and custom metrics,
// its series. It returns the metric's cache slot, or nil when the metric
// is not cached (past maxCached names, or past MaxMetrics).
func (c *cardinality) add(t *totals, s *ingest.Sample) *metricSlot {
	slot := c.slot(s.Metric)
	if slot == nil || slot.name == "" {
		n := t.metrics[s.Metric]
		if n == nil {
			if len(t.metrics) >= MaxMetrics {
				return nil
			}
			n = new(uint64)
			t.metrics[s.Metric] = n
		}
		// Series are counted on http_reqs and on custom metrics: the
		// other built-in metrics of a request or an iteration carry the
		// same tags (research/k6-formats.md §4), and decoding every tag of
		// every row would defeat the CSV reader's lazy columns.
		series := s.Metric == "http_reqs" || !builtin(s.Metric)
		if slot == nil {
			*n++
			if series && len(t.series) < MaxSeries {
				c.addSeries(t, c.seriesKey(s))
			}
			return nil
		}
		*slot = metricSlot{name: s.Metric, series: series, counts: n}
		c.cached++
	}
	*slot.counts++
	if slot.series && len(t.series) < MaxSeries {
		c.addSeries(t, c.seriesKey(s))
	}
	return slot
}

// seriesKey is the key of s's series in totals.series.
func (c *cardinality) seriesKey(s *ingest.Sample) uint64 {
	h := maphash.String(c.seed, s.Metric)
	sum := s.Tags.SeriesHash(c.seed)
	return h ^ (sum * 0x9E3779B97F4A7C15)
}

// addSeries adds series key k to t.series, unless the cache knows it is
// there already.
func (c *cardinality) addSeries(t *totals, k uint64) {
	slot := &c.known[k>>(64-knownBits)]
	if *slot == k && k != 0 {
		return
	}
	t.series[k] = struct{}{}
	*slot = k
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
