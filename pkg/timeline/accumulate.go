package timeline

import (
	"hash/maphash"
	"math"

	"github.com/ldanalyze/ldanalyze/internal/secstore"
	"github.com/ldanalyze/ldanalyze/internal/vugauge"
	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/outcome"
	"github.com/ldanalyze/ldanalyze/pkg/sketch"
	"github.com/ldanalyze/ldanalyze/pkg/threshold"
)

// Options configure an Accumulator. The zero value works.
type Options struct {
	// Metric is the Trend whose latency is analysed (any Trend, custom ones
	// too), in its own unit (ms for k6's time trends). Empty: the run's
	// own protocol's request Trend, chosen at Close (see the package doc).
	Metric string
	// Thresholds are k6 thresholds whose statistic the Timeline can give
	// over any span of seconds (ThresholdValue): the checks re-evaluate
	// them per load level.
	Thresholds []threshold.Threshold
	// Queries select metrics (optionally by tags) whose aggregate the
	// Timeline can give over any span of seconds (Timeline.Query): a
	// metric and statistic of a run for `scale --run`.
	Queries []Query
	// SeriesSlots bounds the per-second latency sketches kept (0:
	// sketch.DefaultSeriesSlots); longer runs coarsen to 2, 4, … s slots.
	SeriesSlots int
}

// candidates returns the latency Trends an Accumulator keeps.
func (o *Options) candidates() []string {
	if o.Metric != "" {
		return []string{o.Metric}
	}
	out := make([]string, 0, len(outcome.Protocols))
	for _, p := range outcome.Protocols {
		out = append(out, p.LatencyMetric())
	}
	return out
}

// shared is what the forks of one Accumulator share: the per-second
// records and sketches, and the numberings their records refer to.
type shared struct {
	secs     *secstore.Store[second]
	sources  *vugauge.Index // vus sources (input files)
	names    *vugauge.Index // request names with latency histograms
	statuses *vugauge.Index // (protocol, status) pairs of failures
	lat      [nCand]*sketch.Series
	dur      *sketch.Series
	seed     maphash.Seed
}

// Accumulator collects one run's samples. Add samples from one goroutine;
// Fork it for each other goroutine that reads a part of the same run, and
// Merge the forks back before Close. The zero value is not usable; call
// New.
type Accumulator struct {
	opt   Options
	cands []string
	candP [nCand]outcome.Protocol // the protocol of each candidate
	sh    *shared
	live  *secstore.Local[second]
	latW  [nCand]*sketch.Writer
	durW  *sketch.Writer
	tot   totals
	card  cardinality
	qs    []*queryAgg // Options.Queries, then one per threshold
	// histLocal and statusLocal cache the shared numberings; recentHist
	// holds the last few names looked up in histLocal.
	histLocal   map[string]int
	statusLocal map[statusName]uint32
	recentHist  [4]nameNumber
	nRecentHist int
	input       string
	err         error
	// memo is AddBatch's, by metric id of the batch; memoIDs the ids set.
	memo    []batchMemo
	memoIDs []int32
	col     colTags // AddBatch's view of a batch's tag columns
}

// New returns an empty Accumulator.
func New(opt Options) *Accumulator {
	secs := secstore.NewEncoded(func(d, s *second) { d.merge(s, nil, nil, new(uint64), func(error) {}) }, secondCodec)
	sh := &shared{
		secs: secs, sources: &vugauge.Index{}, names: &vugauge.Index{Max: MaxHistNames},
		statuses: &vugauge.Index{Max: MaxStatuses}, dur: sketch.NewSeries(0), seed: maphash.MakeSeed(),
	}
	a := &Accumulator{opt: opt, cands: opt.candidates(), sh: sh}
	for i, m := range a.cands {
		sh.lat[i] = sketch.NewSeries(opt.SeriesSlots)
		a.candP[i] = outcome.Of(m)
	}
	a.init()
	return a
}

// init makes a's own writers and counts (New and Fork).
func (a *Accumulator) init() {
	a.live = a.sh.secs.Local()
	for i := range a.cands {
		a.latW[i] = a.sh.lat[i].Writer()
	}
	a.durW = a.sh.dur.Writer()
	a.tot = newTotals()
	a.card = cardinality{seed: a.sh.seed}
	a.qs = a.qs[:0]
	for _, q := range a.opt.Queries {
		a.qs = append(a.qs, newQueryAgg(q))
	}
	for _, t := range a.opt.Thresholds {
		a.qs = append(a.qs, newQueryAgg(Query{Metric: t.Metric, Filter: t.Filter}))
	}
	a.histLocal = map[string]int{}
	a.statusLocal = map[statusName]uint32{}
	a.nRecentHist = 0
}

// nameNumber is a request name and its number in the shared numbering
// (-1: past MaxHistNames).
type nameNumber struct {
	name string
	i    int
}

// Fork returns an empty Accumulator with a's options that shares a's
// per-second records and sketches (one copy of them however many cores
// read), to be fed a disjoint part of the same input from another
// goroutine and merged back into a with Merge.
func (a *Accumulator) Fork() *Accumulator {
	f := &Accumulator{opt: a.opt, cands: a.cands, candP: a.candP, sh: a.sh, input: a.input}
	f.init()
	return f
}

// SetInput names the input file the next samples come from. A Parquet
// file written by convert keeps the source names of the files it was
// converted from, so the input, not the sample's Source, tells a run given
// twice (as CSV and as its own Parquet copy). Empty means use Source.
func (a *Accumulator) SetInput(name string) { a.input = name }

func secOf(ns int64) int64 {
	k := ns / 1e9
	if ns < 0 && ns%1e9 != 0 {
		k--
	}
	return k
}

func (a *Accumulator) sec(ns int64) *second {
	s := a.live.At(secOf(ns))
	s.any = true
	return s
}

// count is a counter sample's count: its value rounded to a whole
// number, 0 for a value that is not positive (or NaN), at most
// math.MaxUint32. k6 writes 1 per request, iteration and dropped
// iteration; a row of value 0 (a producer that writes a zero delta) is
// no request, and one of value 3 three of them.
func count(v float64) uint32 {
	if !(v > 0) {
		return 0
	}
	return uint32(min(math.Round(v), math.MaxUint32))
}

// metricOp is what Add does with the samples of a metric that is neither
// a latency candidate's nor a request stream's.
type metricOp uint8

const (
	opNone metricOp = iota
	opIterations
	opIterDur
	opDropped
	opVus
	opVusMax
	opDataSent
	opDataReceived
	opWSSent
	opWSReceived
	opChecks
	opHTTPFailed
	opBrowserFailed
)

// metricKind is what Add does with the samples of one metric name, worked
// out once per name (cardinality caches it by name).
type metricKind struct {
	cand   int8             // the latency candidate, -1: none
	stream outcome.Protocol // the request stream (outcome.None: not one)
	op     metricOp
}

// kindOf works out metric's kind.
func (a *Accumulator) kindOf(metric string) metricKind {
	k := metricKind{cand: -1, stream: outcome.Stream(metric)}
	for i, m := range a.cands {
		if metric == m {
			k.cand = int8(i) // candidates are distinct metrics
			break
		}
	}
	switch metric {
	case "iterations":
		k.op = opIterations
	case "iteration_duration":
		k.op = opIterDur
	case "dropped_iterations":
		k.op = opDropped
	case "vus":
		k.op = opVus
	case "vus_max":
		k.op = opVusMax
	case "data_sent":
		k.op = opDataSent
	case "data_received":
		k.op = opDataReceived
	case "ws_msgs_sent":
		k.op = opWSSent
	case "ws_msgs_received":
		k.op = opWSReceived
	case "checks":
		k.op = opChecks
	case "http_req_failed":
		k.op = opHTTPFailed
	case "browser_http_req_failed":
		k.op = opBrowserFailed
	}
	return k
}

// Add adds one sample. It keeps nothing of s beyond the call but interned
// strings (tag values and metric names).
func (a *Accumulator) Add(s *ingest.Sample) {
	t := &a.tot
	t.rows++
	if !t.any || s.TimeNS < t.minNS {
		t.minNS = s.TimeNS
	}
	if !t.any || s.TimeNS > t.maxNS {
		t.maxNS = s.TimeNS
	}
	t.any = true
	var k metricKind
	if slot := a.card.add(t, s); slot != nil {
		if !slot.kindSet {
			slot.kind, slot.kindSet = a.kindOf(s.Metric), true
		}
		k = slot.kind
	} else {
		k = a.kindOf(s.Metric)
	}
	for _, q := range a.qs {
		q.add(s)
	}
	sc := a.sec(s.TimeNS)
	if k.cand >= 0 {
		a.addLatency(int(k.cand), sc, s)
	}
	if k.stream != outcome.None {
		a.addRequest(k.stream, sc, s)
		return
	}
	switch k.op {
	case opIterations:
		sc.iterations += count(s.Value)
		a.scenario(s)
	case opIterDur:
		a.durW.Add(secOf(s.TimeNS), 0, s.Value)
		t.iterDur.Add(s.Value)
	case opDropped:
		sc.dropped += count(s.Value)
	case opVus, opVusMax:
		if s.Value < 0 {
			t.badVUs++
			return
		}
		g := &sc.vus
		if k.op == opVusMax {
			g = &sc.vusMax
		}
		g.Add(a.sh.sources.Of(s.Source), s.Value)
	case opDataSent:
		sc.bytesSent += s.Value
	case opDataReceived:
		sc.bytesReceived += s.Value
	case opWSSent:
		sc.msgsSent += s.Value
	case opWSReceived:
		sc.msgsReceived += s.Value
	case opChecks:
		t.addCheck(s)
	case opHTTPFailed:
		r := &sc.req[protoIndex(outcome.HTTP)]
		r.rateN++
		if s.Value != 0 {
			r.rateSum++
		}
	case opBrowserFailed:
		r := &sc.req[protoIndex(outcome.Browser)]
		r.rateN++
		if s.Value != 0 {
			r.rateSum++
		}
	}
}

func (a *Accumulator) scenario(s *ingest.Sample) {
	if v, ok := s.Tags.Get("scenario"); ok {
		a.tot.addScenario(v, s.TimeNS)
	}
}

// addLatency adds a sample of latency candidate i.
func (a *Accumulator) addLatency(i int, sc *second, s *ingest.Sample) {
	tr := &a.tot.trends[i]
	if s.Value < 0 {
		tr.negative++
	} else if s.Value > 86_400_000 {
		tr.huge++
	}
	key := a.input
	if key == "" {
		key = s.Source
	}
	a.tot.span(srcKey{i, key}, s)
	sc.metricN[i]++
	tr.all.Add(s.Value)
	o := outcome.Classify(a.candP[i], &s.Tags)
	if o.Failed() {
		tr.failed.Add(s.Value)
		if st, _ := s.Tags.Get("status"); limitedStatus(a.candP[i], st) {
			tr.limited.Add(s.Value)
		}
		if j := a.nameIndex(s); j >= 0 {
			for len(sc.nameFail) <= j {
				sc.nameFail = append(sc.nameFail, 0)
			}
			sc.nameFail[j]++
		}
		return
	}
	tr.ok.Add(s.Value)
	a.latW[i].Add(secOf(s.TimeNS), 0, s.Value)
	a.addHist(sc, s)
}

// limitedStatus reports whether a failure status says "too many requests":
// HTTP 429, gRPC ResourceExhausted.
func limitedStatus(p outcome.Protocol, st string) bool {
	if p == outcome.GRPC {
		return st == "8"
	}
	return st == "429"
}

// addRequest adds a sample of protocol p's request stream.
func (a *Accumulator) addRequest(p outcome.Protocol, sc *second, s *ingest.Sample) {
	pi := protoIndex(p)
	r := &sc.req[pi]
	n := uint32(1)
	if p == outcome.HTTP {
		n = count(s.Value) // http_reqs is a counter; the others one row a request
	}
	r.n += n
	a.scenario(s)
	st, _ := s.Tags.Get("status")
	o := outcome.Classify(p, &s.Tags)
	if o.Failed() && st == "" && p != outcome.GRPC {
		st = "0" // no response: k6 writes status 0, or leaves it empty
	}
	if p == outcome.HTTP {
		if _, ok := s.Tags.Get("expected_response"); ok {
			a.tot.hasExpected = true
		}
	}
	if len(a.tot.names) < MaxNames {
		a.tot.addName(requestName(&s.Tags))
	}
	a.tot.countStatus(statusName{proto: int8(pi), status: st}, uint64(n))
	switch o {
	case outcome.Success:
		r.ok += n
		return
	case outcome.Unknown:
		r.unknown += n
		return
	case outcome.Transport:
		r.transport += n
	case outcome.Timeout:
		r.timeout += n
	}
	if limitedStatus(p, st) {
		r.limited += n
	}
	if code, has := s.Tags.Get("error_code"); has {
		a.tot.byCode[code] += uint64(n)
	}
	name := requestName(&s.Tags)
	a.tot.byStatusName[statusName{proto: int8(pi), status: st, name: name}] += uint64(n)
	sc.addFail(a.statusIndex(statusName{proto: int8(pi), status: st}), n)
}

// requestName is a request's name tag, else its url (k6 sets name to the
// URL unless the script names the request).
func requestName(t *ingest.Tags) string {
	if n, ok := t.Get("name"); ok {
		return n
	}
	u, _ := t.Get("url")
	return u
}

// otherStatus is the status index of failures past MaxStatuses distinct
// pairs.
const otherStatus = math.MaxUint32

func (a *Accumulator) statusIndex(k statusName) uint32 {
	if i, ok := a.statusLocal[k]; ok {
		return i
	}
	i := a.sh.statuses.Of(string(rune('0'+k.proto)) + k.status)
	u := uint32(otherStatus)
	if i >= 0 {
		u = uint32(i)
	}
	a.statusLocal[k] = u
	return u
}

// nameIndex is the number of a sample's request name in the shared
// numbering of the names with histograms, −1 past MaxHistNames.
func (a *Accumulator) nameIndex(s *ingest.Sample) int {
	n := requestName(&s.Tags)
	r := &a.recentHist
	for _, e := range r[:a.nRecentHist] {
		if e.name == n {
			return e.i
		}
	}
	i, ok := a.histLocal[n]
	if !ok {
		i = a.sh.names.Of(n)
		a.histLocal[n] = i
	}
	copy(r[1:], r[:len(r)-1])
	r[0] = nameNumber{n, i}
	a.nRecentHist = min(a.nRecentHist+1, len(r))
	return i
}

// addHist adds a successful latency sample to its second's histogram of
// its request name.
func (a *Accumulator) addHist(sc *second, s *ingest.Sample) {
	i := a.nameIndex(s)
	if i < 0 {
		a.tot.histOver++
		return
	}
	sc.histAt(i).add(s.Value)
}

// flush seals the live records and sketches.
func (a *Accumulator) flush() {
	for i := range a.cands {
		a.latW[i].Flush()
	}
	a.durW.Flush()
	a.live.Flush()
}

// Merge adds everything o collected to a, as if a had been given o's
// samples too. o must come from a.Fork or from New with the same Options
// (an Accumulator filled apart: its records are renumbered); it must not
// be used afterwards.
func (a *Accumulator) Merge(o *Accumulator) {
	if o == nil || o == a {
		return
	}
	o.flush()
	a.flush()
	a.tot.merge(&o.tot)
	for i, q := range o.qs {
		a.qs[i].merge(q)
	}
	if a.err == nil {
		a.err = o.err
	}
	if o.sh == a.sh {
		return
	}
	for i := range a.cands {
		a.sh.lat[i].Merge(o.sh.lat[i])
	}
	a.sh.dur.Merge(o.sh.dur)
	remap := a.sh.sources.Remap(o.sh.sources)
	hremap := make([]int, 0, MaxHistNames)
	for _, name := range o.sh.names.Names() {
		hremap = append(hremap, a.sh.names.Of(name))
	}
	// Statuses are renumbered through their names.
	onames := o.sh.statuses.Names()
	sremap := make([]uint32, len(onames))
	for i, n := range onames {
		j := a.sh.statuses.Of(n)
		sremap[i] = uint32(otherStatus)
		if j >= 0 {
			sremap[i] = uint32(j)
		}
	}
	a.sh.secs.MergeFrom(o.sh.secs, func(d, s *second) {
		for i := range s.fails {
			if k := s.fails[i].key; k != otherStatus {
				s.fails[i].key = sremap[k]
			}
		}
		d.merge(s, remap, hremap, &a.tot.histOver, a.fail)
	})
}

func (a *Accumulator) fail(err error) {
	if err != nil && a.err == nil {
		a.err = err
	}
}
