// Package window aggregates one metric's samples into fixed, epoch-aligned
// time windows, per tag set: count, rate, mean, min, max and percentiles
// from a mergeable sketch (package sketch), plus the failed requests of the
// same window and tag set.
//
// Failures follow package outcome's rule for the metric's protocol: for
// HTTP and browser metrics (and metrics of no protocol, such as a custom
// Trend) the rows of the protocol's failed-rate metric with value 1
// (http_req_failed, browser_http_req_failed); for gRPC and WebSocket
// metrics, which have no such rows, the metric's own samples whose tags
// classify as a failure (a gRPC status other than OK, a handshake other
// than 101). An Aggregator without a metric aggregates the run's own
// request Trend, chosen as the timeline chooses it (timeline.Options).
//
// It is an accumulator in the style of vegeta's Metrics: Add every sample,
// then Close computes the rows once.
//
// # Many tag sets
//
// Memory is bounded whatever the number of distinct tag sets (a name tag
// holding URLs with ids), and Close gives rows to the Options.MaxGroups
// tag sets with the most samples of the metric and sums every other
// sample in one "(other)" row per window (Row.Other; Warnings says so).
//
// The choice is made on the stream, in one pass: a second pass over the
// input to count every tag set exactly is impossible on a pipe, and
// counting them all is the unbounded memory this avoids. There are two
// regimes.
//
// The exact regime holds while the run has at most max(ExactGroups, 2 ×
// MaxGroups) distinct tag sets (DefaultExactGroups, 4096, by default) and
// at most ExactCells (window, tag set) cells with samples of the metric
// (DefaultExactCells, 65,536: each cell is a sketch, so this is what
// bounds memory). In it nothing is approximate and nothing depends on how
// the samples were split: every tag set is kept apart from its first
// sample with its exact count, so the rows of a read split over any
// number of Aggregators (a parallel reader's workers, each seeing
// whichever chunks it was handed) and merged in any order are those of one
// Aggregator given every sample: sketches and failure counts merge exactly
// (package sketch's sums do not depend on order), and Close keeps the
// MaxGroups tag sets with the most samples, ties going to the smaller tag
// values (compared as their NUL-joined text, byte by byte). The rows are
// then a function of the samples alone, the same for a CSV, a JSON-lines
// or a Parquet form of the run and for any GOMAXPROCS. Whether a run is in
// the regime is itself a function of its samples: a worker sees a subset
// of the run's tag sets and cells, so it leaves the regime only if the
// run does, and Merge leaves it when the union passes a bound, so the
// last Merge does when the run does.
//
// Why exact counts up to a bound rather than a per-worker summary that
// does not depend on chunk assignment: the rows of a kept tag set need its
// samples from the first, and no bounded one-pass summary can know at a
// tag set's first sample whether it will end in the top MaxGroups; a
// summary whose choice is a function of the tag sets alone (say the ones
// of smallest hash) is order-free but loses the busy ones. Counting
// exactly while the run is small enough costs a sketch per cell, which is
// what ExactCells bounds; a run of a few hundred to a few thousand names
// of a handful of samples each (the case that used to vary) stays well
// inside it.
//
// One exception in the exact regime, said in Warnings: a failure
// (http_req_failed = 1) read before any sample of the metric with its tag
// set waits under that tag set, but only for up to the capacity such tag
// sets at once (failures of tag sets the metric never has, e.g. a custom
// Trend's run with many failed URLs, can fill them); past that it goes to
// the other rows.
//
// Past either bound the exact regime ends: the capacity falls to 2 ×
// MaxGroups (the tag sets with the smallest counts are let go, their cells
// joining the other rows, so memory is then what it was before the bounds
// were widened), and the tag sets kept apart are those of a space-saving
// heavy-hitters counter (Metwally, Agrawal and El Abbadi, "Efficient
// computation of frequent and top-k elements in data streams", ICDT
// 2005): a new tag set replaces the one with the smallest count (ties:
// the smaller tag values) and starts from that count plus one. Then:
//
//   - every tag set with more than n ÷ capacity of the n samples is kept
//     apart, and its count is over its true one by at most what it
//     inherited;
//   - a kept tag set's rows hold exactly its samples since it was last
//     taken in, and Close ranks them by that; at most Warnings' "missed"
//     figure of its earlier samples are in the other rows (which hold
//     every sample not in a kept row, so each window's total is exact), and
//     tag sets with fewer samples than that may be kept by chance (when
//     fewer than MaxGroups tag sets are heavy, the rest of the rows are
//     some of the light ones);
//   - which samples each Aggregator saw, and in what order, then matters:
//     with several readers (Merge) the borderline tag sets kept, and the
//     split of samples between their rows and the other rows, may differ
//     from one parallel read to the next (the heavy ones, and every
//     window's total, do not). Warnings says so. A one-pass, bounded
//     choice of the exact top tag sets cannot exist in general (a tag set
//     that becomes heavy late needs its early samples, which a bounded
//     summary must have let go), so this is the price of the bound;
//     larger ExactGroups and ExactCells move it.
package window

import (
	"cmp"
	"container/heap"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/outcome"
	"github.com/ldanalyze/ldanalyze/pkg/sketch"
)

// Options configure an Aggregator.
type Options struct {
	// Metric is the metric to aggregate, e.g. "http_req_duration"; empty:
	// the run's own request Trend, the latency metric of the first of
	// outcome.Protocols (HTTP, gRPC, WebSocket, browser) that has samples,
	// as the timeline picks it (Aggregator.Metric says which).
	Metric string
	// WidthNS is the window width in nanoseconds (> 0). Windows start at
	// multiples of WidthNS since the Unix epoch.
	WidthNS int64
	// By lists the tag keys that split the windows, e.g. ["name"]; empty
	// means one group per window.
	By []string
	// Percentiles are the quantiles to report, in percent (e.g. 95 for
	// p95). Empty means DefaultPercentiles.
	Percentiles []float64
	// MaxGroups is the number of tag sets given rows of their own; the
	// samples of the others are summed in "(other)" rows (see the package
	// doc). 0 means DefaultMaxGroups, < 0 no bound (memory then grows with
	// the tag sets).
	MaxGroups int
	// ExactGroups is the number of distinct tag sets up to which the rows
	// are exact and do not depend on how the samples were split over
	// Aggregators (see the package doc): the tag sets kept apart while
	// reading are max(ExactGroups, 2 × MaxGroups). 0 means
	// DefaultExactGroups. Memory grows with it: a sketch per window per
	// kept tag set.
	ExactGroups int
	// ExactCells bounds the exact regime's memory: the (window, tag set)
	// cells holding samples of the metric, each a sketch, kept before the
	// regime ends (see the package doc). 0 means DefaultExactCells; no
	// bound when MaxGroups < 0 (every tag set is kept then).
	ExactCells int
	// LimitHint says how a user raises MaxGroups, for the warning of
	// tag sets folded into the other rows (e.g. "--by-limit N"); empty:
	// not said.
	LimitHint string
}

// DefaultPercentiles are p50, p90, p95 and p99.
var DefaultPercentiles = []float64{50, 90, 95, 99}

// DefaultMaxGroups is the MaxGroups of the zero Options: 100 tag sets.
const DefaultMaxGroups = 100

// DefaultExactGroups is the ExactGroups of the zero Options: 4096 tag
// sets.
const DefaultExactGroups = 4096

// DefaultExactCells is the ExactCells of the zero Options: 65,536
// cells, at worst about 45 MB of sketches per Aggregator (≈ 700 bytes a
// cell measured on a run of 4,000 names × 120 windows), so per reader
// worker of a parallel read.
const DefaultExactCells = 1 << 16

// OtherTag is the tag value of the rows that sum the tag sets not kept.
const OtherTag = "(other)"

// otherID is the group id of the other rows; kept tag sets have ids ≥ 1.
const otherID = 0

// minFold is the fewest cells of dropped tag sets folded into the other
// rows at once (see fold).
const minFold = 1024

// Aggregator accumulates samples into windows. Its zero value is not
// usable; call New.
type Aggregator struct {
	opt Options
	// subs, for an Options.Metric left empty, are an Aggregator per
	// candidate metric (outcome.Protocols' latency metrics, in order);
	// chosen is the one Close took. Every other field is then unused.
	subs   []*Aggregator
	chosen *Aggregator
	// failedMetric is the failed-rate metric whose rows with value 1 are
	// failures; classify, when not None, the protocol by which the
	// metric's own samples are classified instead (package doc).
	failedMetric string
	classify     outcome.Protocol
	// n counts the samples of the metric.
	n uint64
	// capacity is the number of tag sets kept apart while reading:
	// max(ExactGroups, 2 × MaxGroups) in the exact regime, floorCap (2 ×
	// MaxGroups) after it; shown those given rows at Close.
	capacity, floorCap, shown int
	// exactCap is the exact regime's capacity, for Warnings.
	exactCap int
	// cellSet holds, in the exact regime, the (window, group) cells of
	// the metric's samples, at most cellBudget (Options.ExactCells); nil
	// after it.
	cellSet    map[key]struct{}
	cellBudget int
	// minNS and maxNS bound the samples seen, so that the first and last
	// windows' rates are per second of data, not of window width.
	minNS, maxNS int64
	any          bool
	// cells holds the sketches per window (slot = window index, start /
	// WidthNS) and group id, sealed once the reader is past the window;
	// w is the Aggregator's writer to it.
	cells *sketch.Series
	w     *sketch.Writer
	// failed counts http_req_failed = 1 per window and group id; a key
	// present with 0 marks a cell with no failure.
	failed map[key]uint64
	// pending counts, per window and tag-set string, the failures of tag
	// sets not (yet) kept: a parallel read can hand an http_req_failed row
	// to a core before the http_req_duration row of its request. They go
	// to their tag set when it is kept (Merge, Close), else to the other
	// rows; at most capacity tag sets are pending, the rest go to the
	// other rows at once.
	pending     map[pendKey]uint64
	pendingTags map[string]struct{}
	// tracked are the tag sets kept apart, by group string; byID by group
	// id; counts is a min-heap of them by count.
	tracked map[string]*entry
	byID    map[int]*entry
	// byFound marks the keys of Options.By some sample of the metric has
	// (a value not empty); tagKeys are the tag keys of samples that lack
	// one of them (at most maxTagKeys), for the warning that names what
	// the samples have instead.
	byFound []bool
	tagKeys map[string]struct{}
	counts  minHeap
	nextID  int
	// dropped are the ids of tag sets no longer kept whose cells are still
	// in cells and failed under their own id; droppedCells estimates those
	// cells, liveCells the cells after the last fold.
	dropped                 map[int]bool
	droppedCells, liveCells int
	// evicted is set once a tag set was dropped for another: from then on
	// the counts are a heavy-hitters estimate, not exact. pendLost is set
	// once a failure went to the other rows because capacity tag sets were
	// pending (see pending): its tag set may have rows.
	evicted, pendLost bool
	// missed is the largest inherited count of a shown tag set, otherN
	// the samples in the other rows and hasOther whether there are any,
	// all set by Close.
	missed, otherN uint64
	hasOther       bool
	// folded counts the tag sets folded into the other rows at Close (a
	// bound below the count once evicted: tag sets dropped earlier are not
	// known).
	folded int
	vals   []string
	sb     strings.Builder
}

// entry is a tag set kept apart.
type entry struct {
	key  string
	tags []string
	id   int
	// count is the space-saving count: the samples since the tag set was
	// taken in plus over, what it inherited then; its true count lies in
	// [count − over, count].
	count, over uint64
	// lastWindow and cells count the windows it has values in (samples
	// come nearly in time order, so this is close), for fold.
	lastWindow int64
	cells      int
	// inSet and setWindow say that the cell of setWindow is in
	// Aggregator.cellSet (a shortcut: samples come nearly in time order).
	inSet     bool
	setWindow int64
	hi        int // index in the heap
}

type key struct {
	window int64 // window index: start / WidthNS
	group  int
}

type pendKey struct {
	window int64
	tags   string
}

// New returns an Aggregator. It returns an error when the options cannot
// work (no metric, a width ≤ 0, a percentile outside (0, 100]).
func New(opt Options) (*Aggregator, error) {
	if opt.Metric == "" {
		a := &Aggregator{opt: opt}
		for _, p := range outcome.Protocols {
			o := opt
			o.Metric = p.LatencyMetric()
			b, err := New(o)
			if err != nil {
				return nil, err
			}
			a.subs = append(a.subs, b)
		}
		return a, nil
	}
	if opt.WidthNS <= 0 {
		return nil, fmt.Errorf("window: width must be positive, got %dns", opt.WidthNS)
	}
	if len(opt.Percentiles) == 0 {
		opt.Percentiles = DefaultPercentiles
	}
	for _, p := range opt.Percentiles {
		if !(p > 0 && p <= 100) {
			return nil, fmt.Errorf("window: percentile %v outside (0, 100]", p)
		}
	}
	a := &Aggregator{opt: opt, failed: map[key]uint64{}, pending: map[pendKey]uint64{}, pendingTags: map[string]struct{}{},
		tracked: map[string]*entry{}, byID: map[int]*entry{},
		dropped: map[int]bool{}, nextID: otherID + 1, vals: make([]string, len(opt.By)),
		byFound: make([]bool, len(opt.By)), tagKeys: map[string]struct{}{}}
	switch {
	case opt.MaxGroups < 0:
		a.capacity, a.shown = int(^uint(0)>>1), int(^uint(0)>>1)
	case opt.MaxGroups == 0:
		a.capacity, a.shown = 2*DefaultMaxGroups, DefaultMaxGroups
	default:
		a.capacity, a.shown = 2*opt.MaxGroups, opt.MaxGroups
	}
	exact := opt.ExactGroups
	if exact <= 0 {
		exact = DefaultExactGroups
	}
	a.floorCap = a.capacity
	a.capacity = max(a.capacity, exact)
	a.exactCap = a.capacity
	a.cellBudget = opt.ExactCells
	if a.cellBudget <= 0 {
		a.cellBudget = DefaultExactCells
	}
	if opt.MaxGroups >= 0 { // unbounded: every tag set is kept, no regime to leave
		a.cellSet = map[key]struct{}{}
	}
	a.cells = sketch.NewSeries(-1) // windows never coarsen
	a.w = a.cells.Writer()
	switch p := outcome.Of(opt.Metric); p {
	case outcome.GRPC, outcome.WebSocket:
		a.classify = p
	case outcome.Browser:
		a.failedMetric = p.FailedRateMetric()
	default:
		a.failedMetric = outcome.HTTP.FailedRateMetric()
	}
	return a, nil
}

// Metric is the metric aggregated: Options.Metric, or for an Aggregator
// without one, after Close, the run's own request Trend it chose ("" until
// then).
func (a *Aggregator) Metric() string {
	if a.subs != nil {
		if a.chosen == nil {
			return ""
		}
		return a.chosen.opt.Metric
	}
	return a.opt.Metric
}

// one is the Aggregator whose rows Close gives: a itself, or the chosen
// candidate (the first before Close).
func (a *Aggregator) one() *Aggregator {
	switch {
	case a.subs == nil:
		return a
	case a.chosen != nil:
		return a.chosen
	}
	return a.subs[0]
}

// Add adds a sample. Samples of the metric go to their window and group;
// failures (package doc) count as failed in theirs; other samples are
// ignored.
func (a *Aggregator) Add(s *ingest.Sample) {
	if a.subs != nil {
		a.addSubs(s)
		return
	}
	failed, alsoFailed := false, false
	switch {
	case s.Metric == a.opt.Metric:
		a.n++
		alsoFailed = a.classify != outcome.None && outcome.Classify(a.classify, &s.Tags).Failed()
	case s.Metric == a.failedMetric && s.Value != 0:
		failed = true
	default:
		return
	}
	if !a.any || s.TimeNS < a.minNS {
		a.minNS = s.TimeNS
	}
	if !a.any || s.TimeNS > a.maxNS {
		a.maxNS = s.TimeNS
	}
	a.any = true
	w := floorDiv(s.TimeNS, a.opt.WidthNS)
	g := otherID
	// Only samples of the metric count for the choice of the tag sets; a
	// failure of a tag set not kept goes to the other rows.
	if e := a.entry(s, !failed); e != nil {
		g = e.id
		if e.cells == 0 || e.lastWindow != w {
			e.cells++
			e.lastWindow = w
		}
		if !failed && a.cellSet != nil && (!e.inSet || e.setWindow != w) {
			e.inSet, e.setWindow = true, w
			a.cellSet[key{w, e.id}] = struct{}{}
			if len(a.cellSet) > a.cellBudget {
				a.leaveExact()
				if a.byID[g] == nil { // let go: the sample joins the other rows
					g = otherID
				}
			}
		}
	}
	if failed {
		if g == otherID {
			a.pend(w, s)
			return
		}
		a.failed[key{w, g}]++
		return
	}
	if alsoFailed {
		a.failed[key{w, g}]++
	}
	a.w.Add(w, g, s.Value)
}

// addSubs adds s to the candidates. Once a candidate has a sample of its
// metric, the ones after it can no longer be chosen (Close takes the first
// with samples) and are dropped: an HTTP run pays for one candidate.
func (a *Aggregator) addSubs(s *ingest.Sample) {
	if b := a.subs[0]; b.n > 0 {
		b.Add(s)
		return
	}
	for i, b := range a.subs {
		if b == nil {
			break
		}
		b.Add(s)
		if b.n == 1 && s.Metric == b.opt.Metric {
			clear(a.subs[i+1:])
			break
		}
	}
}

// pend keeps the failure of s, whose tag set is not kept, under its tag
// set while fewer than capacity are pending, else in the other rows.
func (a *Aggregator) pend(w int64, s *ingest.Sample) {
	k := a.keyOf(s)
	if _, ok := a.pendingTags[k]; !ok {
		if len(a.pendingTags) >= a.capacity {
			a.failed[key{w, otherID}]++
			a.pendLost = true
			return
		}
		a.pendingTags[k] = struct{}{}
	}
	a.pending[pendKey{w, k}]++
}

// settle moves the pending failures of the tag sets now kept to them;
// with all, the others too, to the other rows.
func (a *Aggregator) settle(all bool) {
	for pk, n := range a.pending {
		e := a.tracked[pk.tags]
		switch {
		case e != nil:
			a.failed[key{pk.window, e.id}] += n
		case all:
			a.failed[key{pk.window, otherID}] += n
		default:
			continue
		}
		delete(a.pending, pk)
	}
	for k := range a.pendingTags {
		if all || a.tracked[k] != nil {
			delete(a.pendingTags, k)
		}
	}
}

// keyOf is the tag-set string of s (its Options.By values, NUL
// separated), with a.vals set to the values when there are several.
func (a *Aggregator) keyOf(s *ingest.Sample) string {
	switch len(a.opt.By) {
	case 0:
		return ""
	case 1:
		k, _ := s.Tags.Get(a.opt.By[0])
		return k
	}
	a.sb.Reset()
	for i, t := range a.opt.By {
		v, _ := s.Tags.Get(t)
		a.vals[i] = v
		if i > 0 {
			a.sb.WriteByte(0)
		}
		a.sb.WriteString(v)
	}
	return a.sb.String()
}

// entry returns the kept tag set of s, counting the sample when hit;
// nil when s's tag set is not kept (and, unless hit, is not taken in).
func (a *Aggregator) entry(s *ingest.Sample, hit bool) *entry {
	k := a.keyOf(s)
	if e := a.tracked[k]; e != nil {
		if hit {
			e.count++
			heap.Fix(&a.counts, e.hi)
		}
		return e
	}
	if !hit {
		return nil
	}
	e := &entry{key: k, count: 1}
	switch len(a.opt.By) {
	case 0:
		e.tags = []string{}
	case 1:
		e.tags = []string{k}
	default:
		e.tags = slices.Clone(a.vals)
	}
	a.noteTags(s, e.tags)
	if len(a.tracked) >= a.capacity && a.cellSet != nil {
		a.leaveExact()
	}
	if len(a.tracked) >= a.capacity {
		// Space-saving: the tag set with the smallest count makes room,
		// and the new one inherits its count.
		m := a.counts[0]
		a.drop(m)
		e.count, e.over = m.count+1, m.count
		a.evicted = true
		a.add(e)
		a.maybeFold()
		return e
	}
	a.add(e)
	return e
}

// leaveExact ends the exact regime (package doc): from now on a.capacity
// is 2 × MaxGroups, and the tag sets with the smallest counts (ties: the
// smaller tag values) are let go down to it.
func (a *Aggregator) leaveExact() {
	a.evicted = true
	a.cellSet = nil
	a.capacity = a.floorCap
	for len(a.tracked) > a.capacity {
		a.drop(a.counts[0])
	}
	a.fold()
}

// add keeps e apart under a new id.
func (a *Aggregator) add(e *entry) {
	e.id = a.nextID
	a.nextID++
	a.tracked[e.key] = e
	a.byID[e.id] = e
	heap.Push(&a.counts, e)
}

// drop stops keeping e apart: its cells join the other rows at the next
// fold.
func (a *Aggregator) drop(e *entry) {
	heap.Remove(&a.counts, e.hi)
	delete(a.tracked, e.key)
	delete(a.byID, e.id)
	a.dropped[e.id] = true
	a.droppedCells += max(e.cells, 1)
}

// maybeFold folds the dropped tag sets' cells into the other rows once
// they are as many as the kept cells (and at least minFold): each fold
// costs the cells held, so this is a constant amount of work per dropped
// cell, and the dropped cells never take more memory than the kept ones.
func (a *Aggregator) maybeFold() {
	if a.droppedCells >= max(minFold, a.liveCells) {
		a.fold()
	}
}

// fold moves the cells of the dropped tag sets to the other rows.
func (a *Aggregator) fold() {
	if len(a.dropped) == 0 {
		return
	}
	a.w.Flush()
	to := func(g int) int {
		if a.dropped[g] {
			return otherID
		}
		return g
	}
	a.cells.Regroup(to)
	for k, n := range a.failed {
		if a.dropped[k.group] {
			delete(a.failed, k)
			a.failed[key{k.window, otherID}] += n
		}
	}
	clear(a.dropped)
	a.droppedCells = 0
	a.liveCells = a.cells.Len()
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && (a < 0) {
		q--
	}
	return q
}

// Row is one window of one tag set. Durations are in the metric's unit
// (ms for time trends).
type Row struct {
	// StartNS is the window start in ns since the epoch.
	StartNS int64
	// Tags are the values of Options.By, in order ("" when absent;
	// OtherTag in an Other row).
	Tags []string
	// Other marks the row of the window's samples whose tag sets were not
	// kept apart (see the package doc); it follows the window's other
	// rows.
	Other bool
	// Count is the number of samples of the metric.
	Count uint64
	// Rate is Count per second of data in the window: the window width,
	// except for the run's first and last windows, which count only the
	// seconds (at 1 s granularity) the run covers.
	Rate float64
	// Seconds is the span Rate divides by, s.
	Seconds float64
	// Mean, Min and Max of the values; NaN when Count is 0.
	Mean, Min, Max float64
	// Percentiles are the values at Options.Percentiles, in order.
	Percentiles []float64
	// Failed counts http_req_failed samples with value 1.
	Failed uint64
	// Exact reports whether the percentiles are exact.
	Exact bool
}

// Err returns why the rows of Close cannot be trusted: a sealed window
// sketch that failed to decode (a bug, see sketch.Series.Err), or nil.
func (a *Aggregator) Err() error { return a.one().cells.Err() }

// Groups returns the number of tag sets kept apart now (at most max(
// ExactGroups, 2 × MaxGroups); after Close at most MaxGroups).
func (a *Aggregator) Groups() int { return len(a.one().tracked) }

// Close returns the rows ordered by window, then tag values, the window's
// Other row last; check Err after it. It must be called once, after the
// last Add or Merge.
func (a *Aggregator) Close() []Row {
	if a.subs != nil {
		a.chosen = a.subs[0]
		for _, b := range a.subs {
			if b != nil && b.n > 0 {
				a.chosen = b
				break
			}
		}
		return a.chosen.Close()
	}
	qs := make([]float64, len(a.opt.Percentiles))
	for i, p := range a.opt.Percentiles {
		qs[i] = p / 100
	}
	// Rows for the busiest; the others kept while reading join the other
	// rows.
	es := make([]*entry, 0, len(a.tracked))
	for _, e := range a.tracked {
		es = append(es, e)
	}
	// Ranked by the samples in their rows (count − over, exact), then by
	// the estimate.
	slices.SortFunc(es, func(x, y *entry) int {
		if c := cmp.Compare(y.count-y.over, x.count-x.over); c != 0 {
			return c
		}
		if c := cmp.Compare(y.count, x.count); c != 0 {
			return c
		}
		return strings.Compare(x.key, y.key)
	})
	a.settle(true)
	a.folded = max(0, len(es)-a.shown)
	for _, e := range es[min(len(es), a.shown):] {
		a.drop(e)
	}
	for _, e := range es[:min(len(es), a.shown)] {
		a.missed = max(a.missed, e.over)
	}
	a.fold()
	a.w.Flush()
	// The run covers the whole seconds from its first sample's to its
	// last's.
	runStart := floorDiv(a.minNS, 1e9) * 1e9
	runEnd := (floorDiv(a.maxNS, 1e9) + 1) * 1e9
	otherTags := make([]string, len(a.opt.By))
	for i := range otherTags {
		otherTags[i] = OtherTag
	}
	row := func(k key, sk *sketch.Sketch) Row {
		start := k.window * a.opt.WidthNS
		sec := float64(min(start+a.opt.WidthNS, runEnd)-max(start, runStart)) / 1e9
		if sec <= 0 {
			sec = float64(a.opt.WidthNS) / 1e9
		}
		r := Row{
			StartNS: start, Count: sk.Count(),
			Rate: float64(sk.Count()) / sec, Seconds: sec, Mean: sk.Mean(), Min: sk.Min(), Max: sk.Max(),
			Percentiles: sk.Quantiles(qs), Failed: a.failed[k], Exact: sk.Exact(),
		}
		if k.group == otherID {
			r.Tags, r.Other = otherTags, true
			a.otherN += r.Count
			a.hasOther = true
		} else {
			r.Tags = a.byID[k.group].tags
		}
		return r
	}
	// A row a cell, each cell's sketch decoded in turn into one (a 24-hour
	// run at 30 s windows has tens of thousands of cells), then the cells
	// with failures alone.
	rows := make([]Row, 0, a.cells.Len()+len(a.failed))
	seen := make(map[key]bool, len(a.failed))
	var sc sketch.Sketch
	a.cells.EachInto(&sc, func(w int64, g int, sk *sketch.Sketch) {
		k := key{w, g}
		if _, ok := a.failed[k]; ok {
			seen[k] = true
		}
		rows = append(rows, row(k, sk))
	})
	for k := range a.failed {
		if !seen[k] {
			rows = append(rows, row(k, &sketch.Sketch{}))
		}
	}
	slices.SortFunc(rows, func(x, y Row) int {
		if x.StartNS != y.StartNS {
			return cmp.Compare(x.StartNS, y.StartNS)
		}
		if x.Other != y.Other {
			if x.Other {
				return 1
			}
			return -1
		}
		return slices.Compare(x.Tags, y.Tags)
	})
	return rows
}

// maxTagKeys bounds the tag keys kept for the warning about a --by key
// no sample has.
const maxTagKeys = 64

// noteTags records, for a new tag set with values vals (Options.By's),
// which keys have a value, and when one has none, the keys s has.
func (a *Aggregator) noteTags(s *ingest.Sample, vals []string) {
	lacks := false
	for i, v := range vals {
		if v != "" {
			a.byFound[i] = true
		} else {
			lacks = true
		}
	}
	if !lacks || len(a.tagKeys) >= maxTagKeys {
		return
	}
	s.Tags.Each(func(k, _ string, meta bool) {
		if !meta && len(a.tagKeys) < maxTagKeys {
			a.tagKeys[k] = struct{}{}
		}
	})
}

// missingKeys are the warnings for the keys of Options.By that no sample
// of the metric has, naming the tag keys the samples have.
func (a *Aggregator) missingKeys() []string {
	if a.n == 0 {
		return nil
	}
	keys := slices.Sorted(maps.Keys(a.tagKeys))
	have := "no tags"
	if len(keys) > 0 {
		have = "the tags " + strings.Join(keys, ", ")
	}
	var out []string
	for i, k := range a.opt.By {
		if !a.byFound[i] {
			out = append(out, fmt.Sprintf("tag %q: no %s sample has it, so its rows hold every sample under an empty value; the samples have %s", k, a.opt.Metric, have))
		}
	}
	return out
}

// Warnings returns, after Close, what the reader must know about the rows:
// that tag sets were summed in the other rows, how many samples, and when
// the choice was a heavy-hitters estimate, how far a kept tag set's rows
// may fall short. Nil when every tag set has rows of its own.
func (a *Aggregator) Warnings() []string {
	if a.subs != nil {
		return a.one().Warnings()
	}
	missing := a.missingKeys()
	if !a.hasOther {
		return missing
	}
	folded := fmt.Sprintf("%d", a.folded)
	if a.evicted {
		folded = "more than " + folded
	}
	msg := fmt.Sprintf("%s: more than the cap of %d distinct values: rows are kept for the %d with the most %s samples; %s other values (%d samples) are folded into %q rows",
		strings.Join(a.opt.By, ","), a.shown, a.shown, a.opt.Metric, folded, a.otherN, OtherTag)

	if a.evicted {
		// A kept value may have missed samples only when some value was
		// let go while it was counted; with none missed the rows of the
		// kept values are whole and only the choice is approximate.
		missed := "every kept value's rows hold all its samples"
		if a.missed > 0 {
			missed = fmt.Sprintf("a kept value's rows may miss up to %d of its samples, which are in %q, values with fewer samples than that may be kept by chance", a.missed, OtherTag)
		}
		msg += fmt.Sprintf(" (more than %d distinct, or more than %d windows × values with samples, so they were chosen on the stream by a heavy-hitters count of %d counters: %s, and which values are kept and how their samples split between their rows and %q may differ from one parallel read to the next; each window's total is exact)",
			a.exactCap, a.cellBudget, a.capacity, missed, OtherTag)
	}
	if a.pendLost {
		msg += fmt.Sprintf("; more than %d distinct values had failures before any %s sample where they were read, so some failures are counted in %q though their value has rows, which ones depending on the parallel read",
			a.exactCap, a.opt.Metric, OtherTag)
	}
	if a.opt.LimitHint != "" {
		msg += "; " + a.opt.LimitHint + " raises the cap"
	}
	return append(missing, msg)
}

// Merge adds o's windows to a, as if a had been given o's samples too
// (sketches merge exactly; past 2 × MaxGroups tag sets the kept ones are
// merged as space-saving summaries merge, see the package doc). o must
// have the same options and must not be used afterwards.
func (a *Aggregator) Merge(o *Aggregator) {
	if a.subs != nil {
		// A candidate either side dropped has a better one with samples
		// before it: it cannot be chosen.
		for i, b := range a.subs {
			if b == nil || o.subs[i] == nil {
				clear(a.subs[i:])
				break
			}
			b.Merge(o.subs[i])
		}
		return
	}
	a.n += o.n
	if o.any {
		if !a.any || o.minNS < a.minNS {
			a.minNS = o.minNS
		}
		if !a.any || o.maxNS > a.maxNS {
			a.maxNS = o.maxNS
		}
		a.any = true
	}
	for i, f := range o.byFound {
		a.byFound[i] = a.byFound[i] || f
	}
	for k := range o.tagKeys {
		if len(a.tagKeys) < maxTagKeys {
			a.tagKeys[k] = struct{}{}
		}
	}
	// A tag set missing from a full summary may have had up to its
	// smallest count there (none from one that never let a tag set go).
	aMin, oMin := a.minCount(), o.minCount()
	a.evicted = a.evicted || o.evicted
	a.pendLost = a.pendLost || o.pendLost
	for _, e := range a.tracked {
		if oe := o.tracked[e.key]; oe != nil {
			e.count += oe.count
			e.over += oe.over
		} else {
			e.count += oMin
			e.over += oMin
		}
	}
	ids := map[int]int{} // o's id → a's id
	for _, oe := range o.tracked {
		if e := a.tracked[oe.key]; e != nil {
			ids[oe.id] = e.id
			e.cells += oe.cells
			continue
		}
		e := &entry{key: oe.key, tags: oe.tags, count: oe.count + aMin, over: oe.over + aMin, cells: oe.cells, lastWindow: oe.lastWindow}
		a.add(e)
		ids[oe.id] = e.id
	}
	heap.Init(&a.counts)
	if a.evicted || len(a.tracked) > a.capacity {
		// Either side or the union is past the exact regime.
		a.evicted, a.cellSet, a.capacity = true, nil, a.floorCap
	}
	for len(a.tracked) > a.capacity {
		a.drop(a.counts[0])
	}
	// o's tag sets go to theirs in a (those a just dropped fold into the
	// other rows below with a's own); o's dropped ones and its other rows
	// to a's other rows.
	to := func(g int) int {
		if id, ok := ids[g]; ok {
			return id
		}
		return otherID
	}
	o.w.Flush()
	o.cells.Each(func(w int64, g int, sk *sketch.Sketch) { a.cells.AddSketch(w, to(g), sk) })
	for k, n := range o.failed {
		a.failed[key{k.window, to(k.group)}] += n
	}
	for pk, n := range o.pending {
		if _, ok := a.pendingTags[pk.tags]; !ok {
			if len(a.pendingTags) >= a.capacity && a.tracked[pk.tags] == nil {
				a.failed[key{pk.window, otherID}] += n
				a.pendLost = true
				continue
			}
			a.pendingTags[pk.tags] = struct{}{}
		}
		a.pending[pk] += n
	}
	if a.cellSet != nil {
		for k := range o.cellSet {
			a.cellSet[key{k.window, ids[k.group]}] = struct{}{}
		}
		if len(a.cellSet) > a.cellBudget {
			a.leaveExact()
		}
	}
	a.settle(false)
	a.fold()
}

// minCount is the smallest count of a full summary, 0 when it has room or
// never let a tag set go (a tag set it lacks then had no sample in it).
func (a *Aggregator) minCount() uint64 {
	if !a.evicted || len(a.tracked) < a.capacity || len(a.counts) == 0 {
		return 0
	}
	return a.counts[0].count
}

// minHeap orders kept tag sets by count, smallest first.
type minHeap []*entry

func (h minHeap) Len() int { return len(h) }
func (h minHeap) Less(i, j int) bool {
	if h[i].count != h[j].count {
		return h[i].count < h[j].count
	}
	return h[i].key < h[j].key
}
func (h minHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].hi, h[j].hi = i, j
}
func (h *minHeap) Push(x any) {
	e := x.(*entry)
	e.hi = len(*h)
	*h = append(*h, e)
}
func (h *minHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
}
