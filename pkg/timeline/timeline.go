package timeline

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/ldanalyze/ldanalyze/internal/varenc"
	"github.com/ldanalyze/ldanalyze/pkg/outcome"
	"github.com/ldanalyze/ldanalyze/pkg/sketch"
)

// MaxGapS is the shortest run of seconds without any sample that splits
// a run into spans of data: k6 writes every second (vus at least) while a
// test runs, so a longer silence is a clock step, a paused generator,
// several runs in one file or a stray timestamp.
const MaxGapS = 30

// Span is a stretch of seconds with data between gaps of MaxGapS seconds
// or more without any sample.
type Span struct {
	// First and Last are the span's first and last Unix seconds
	// (inclusive).
	First, Last int64
	// Seconds counts the seconds of the span that hold data.
	Seconds int
	// Samples counts the analysed Trend's samples in the span.
	Samples uint64
}

// Len is the span's length in seconds, Last − First + 1.
func (s Span) Len() int { return int(s.Last-s.First) + 1 }

// Timeline is a run, read-only: what an Accumulator collected, with the
// analysed Trend and the request stream's protocol chosen. Its methods may
// be called from several goroutines.
type Timeline struct {
	opt          Options
	cand         int // the chosen latency candidate
	metric       string
	proto        outcome.Protocol
	sh           *shared
	tot          totals
	qs           []*queryAgg
	resolutionNS int64
	spans        []Span
	main         Span
	err          error
	statusNames  []string
	// tab is every second decoded (buildTable); rateRows and unknown are
	// FailedRateRows and UnknownOutcomes, noted while it is built.
	tab      *table
	rateRows bool
	unknown  uint64
}

// Close seals what a collected and returns the run as a Timeline; a must
// not be used afterwards. resolutionNS is the input's timestamp
// resolution (ingest.Stats.ResolutionNS; 1e9 for k6's default CSV).
func (a *Accumulator) Close(resolutionNS int64) *Timeline {
	a.flush()
	t := &Timeline{opt: a.opt, sh: a.sh, tot: a.tot, qs: a.qs, resolutionNS: max(resolutionNS, 1), err: a.err}
	t.cand = 0
	for i := range a.cands {
		if t.tot.trends[i].all.Count() > 0 {
			t.cand = i
			break
		}
	}
	t.metric = a.cands[t.cand]
	t.proto = t.chooseProtocol(a.candP[t.cand])
	t.statusNames = a.sh.statuses.Names()
	t.buildTable()
	t.spans = t.findSpans()
	for _, sp := range t.spans {
		if sp.Seconds > t.main.Seconds {
			t.main = sp
		}
	}
	return t
}

// chooseProtocol picks the request stream: the metric's own protocol when
// its stream has samples, else the stream with the most.
func (t *Timeline) chooseProtocol(own outcome.Protocol) outcome.Protocol {
	// Each stream sample is counted by status as it is added to its
	// second (Accumulator.addRequest), so the totals by status are the
	// seconds' counts summed, without a walk of the seconds.
	n := [nProto]uint64{}
	for k, c := range t.tot.byStatus {
		if k.proto >= 0 && int(k.proto) < nProto {
			n[k.proto] += *c
		}
	}
	if own != outcome.None && n[protoIndex(own)] > 0 {
		return own
	}
	best := outcome.None
	for _, p := range outcome.Protocols {
		if n[protoIndex(p)] > 0 && (best == outcome.None || n[protoIndex(p)] > n[protoIndex(best)]) {
			best = p
		}
	}
	return best
}

func (t *Timeline) findSpans() []Span {
	var spans []Span
	tb := t.tab
	for i := range tb.n {
		sec, n := tb.sec(i), uint64(tb.metricN.at(i))
		if k := len(spans) - 1; k >= 0 && sec-spans[k].Last-1 < MaxGapS {
			spans[k].Last = sec
			spans[k].Seconds++
			spans[k].Samples += n
			continue
		}
		spans = append(spans, Span{First: sec, Last: sec, Seconds: 1, Samples: n})
	}
	return spans
}

// Metric is the analysed Trend (Options.Metric, or the one Close chose).
func (t *Timeline) Metric() string { return t.metric }

// MetricSamples is the number of samples of the analysed Trend.
func (t *Timeline) MetricSamples() uint64 { return t.tot.trends[t.cand].all.Count() }

// Protocol is the protocol of the run's request stream (outcome.None when
// the run has no request of any protocol).
func (t *Timeline) Protocol() outcome.Protocol { return t.proto }

// HasRequests reports whether the run has request-stream samples.
func (t *Timeline) HasRequests() bool { return t.proto != outcome.None }

// Rows is the number of samples added.
func (t *Timeline) Rows() int64 { return t.tot.rows }

// StartNS and EndNS are the times of the earliest and latest sample, ns
// since the Unix epoch (0 when there is none).
func (t *Timeline) StartNS() int64 { return t.tot.minNS }

// EndNS: see StartNS.
func (t *Timeline) EndNS() int64 { return t.tot.maxNS }

// ResolutionNS is the input's timestamp resolution, ns (at least 1).
func (t *Timeline) ResolutionNS() int64 { return t.resolutionNS }

// Spans are the run's spans of data, in time order; several when gaps of
// MaxGapS seconds or more split it.
func (t *Timeline) Spans() []Span { return t.spans }

// Main is the span with the most seconds of data (the first of equals):
// the one the load analysis works on.
func (t *Timeline) Main() Span { return t.main }

// DataSeconds counts the seconds that hold data, in every span.
func (t *Timeline) DataSeconds() int { return t.sh.secs.Len() }

// Err reports a sealed record or sketch that failed to decode (a bug; see
// sketch.Series.Err): the figures cannot be trusted. Check it after the
// analyses.
func (t *Timeline) Err() error {
	if t.err != nil {
		return t.err
	}
	for i := range t.sh.lat {
		if t.sh.lat[i] != nil {
			if err := t.sh.lat[i].Err(); err != nil {
				return err
			}
		}
	}
	if err := t.sh.secs.Err(); err != nil {
		return err
	}
	return t.sh.dur.Err()
}

// StatusCount is a count of the request stream's samples of one status.
type StatusCount struct {
	// Status is the status tag as written ("" when absent); for gRPC the
	// code number (outcome.StatusName names it).
	Status string
	N      uint64
}

// Second is what the Timeline knows of one second of the run. Counts are
// of the run's request stream (Protocol), each sample counted as the
// number of requests it stands for.
type Second struct {
	// Requests, OK and Failed count the stream's samples (OK + Failed =
	// Requests; outcome.Unknown resolved as the package doc of outcome
	// says). Transport and Timeouts are failures without a response,
	// Limited the "too many requests" ones (HTTP 429, gRPC
	// ResourceExhausted).
	Requests, OK, Failed         uint64
	Transport, Timeouts, Limited uint64
	// Iterations and Dropped are the iterations and dropped_iterations
	// counters.
	Iterations, Dropped uint64
	// VUs and VUsMax are the vus and vus_max gauges (the sum over the
	// instances of a distributed run of each one's mean in the second);
	// HasVUs and HasVUsMax say whether the second had a sample of them.
	VUs, VUsMax       float64
	HasVUs, HasVUsMax bool
	// BytesSent and BytesReceived are the data_sent and data_received
	// counters, bytes.
	BytesSent, BytesReceived float64
	// MessagesSent and MessagesReceived are the ws_msgs_sent and
	// ws_msgs_received counters: WebSocket messages.
	MessagesSent, MessagesReceived float64
	// MetricSamples counts the analysed Trend's samples.
	MetricSamples uint64
	// Failures counts the stream's failures by status (nil without any).
	Failures []StatusCount
}

// view sets *s to what r tells, reusing s.Failures.
func (t *Timeline) view(r *second, s *Second) {
	*s = Second{Failures: s.Failures[:0]}
	if t.proto != outcome.None {
		c := &r.req[protoIndex(t.proto)]
		s.Requests = uint64(c.n)
		s.OK, s.Failed = c.resolved()
		s.Transport, s.Timeouts, s.Limited = uint64(c.transport), uint64(c.timeout), uint64(c.limited)
		tagged := uint64(c.n - c.ok - c.unknown)
		if s.Failed > tagged {
			// Failures known only from the failed-rate rows: no status.
			s.Failures = append(s.Failures, StatusCount{Status: "", N: s.Failed - tagged})
		}
	}
	s.Iterations, s.Dropped = uint64(r.iterations), uint64(r.dropped)
	s.VUs, s.HasVUs = r.vus.Total()
	s.VUsMax, s.HasVUsMax = r.vusMax.Total()
	s.BytesSent, s.BytesReceived = r.bytesSent, r.bytesReceived
	s.MessagesSent, s.MessagesReceived = r.msgsSent, r.msgsReceived
	s.MetricSamples = uint64(r.metricN[t.cand])
	pi := byte('0' + protoIndex(t.proto))
	for _, f := range r.fails {
		if f.key == otherStatus {
			s.Failures = append(s.Failures, StatusCount{Status: "other", N: uint64(f.n)})
			continue
		}
		if n := t.statusNames[f.key]; n[0] == pi {
			s.Failures = append(s.Failures, StatusCount{Status: n[1:], N: uint64(f.n)})
		}
	}
	if len(s.Failures) == 0 {
		s.Failures = nil
	}
}

// Second returns second sec of the run, and false when no sample fell in
// it.
func (t *Timeline) Second(sec int64) (Second, bool) {
	var one [1]Second
	i0, i1 := t.tab.rows(sec, sec+1)
	if i0 == i1 {
		return one[0], false
	}
	t.tab.rowsInto(i0, one[:])
	s := one[0]
	s.Failures = slices.Clone(s.Failures)
	return s, true
}

// Each calls fn for every second that holds data, in time order, in every
// span. s, and its Failures, are valid only during the call.
func (t *Timeline) Each(fn func(sec int64, s *Second)) {
	t.Range(math.MinInt64, math.MaxInt64, fn)
}

// Range calls fn for every second in [from, to) that holds data, in time
// order, visiting the records rather than the span when the span is wider
// than the data (a stray timestamp years away costs nothing). s, and its
// Failures, are valid only during the call.
func (t *Timeline) Range(from, to int64, fn func(sec int64, s *Second)) {
	i0, i1 := t.tab.rows(from, to)
	if i0 >= i1 {
		return
	}
	bp := rowBufs.Get().(*[rowBlock]Second)
	defer rowBufs.Put(bp)
	for i := i0; i < i1; i += rowBlock {
		b := bp[:min(rowBlock, i1-i)]
		t.tab.rowsInto(i, b)
		for j := range b {
			fn(t.tab.sec(i+j), &b[j])
		}
	}
}

// rowBufs are Range's row blocks: a Range per level or per window of a
// day-long run would otherwise leave megabytes of them to collect.
var rowBufs = sync.Pool{New: func() any { return new([rowBlock]Second) }}

// walk calls visit with every second in [from, to) that holds data, in
// time order, as the store keeps it (secstore.Store.GetRaw): by block
// over a short range, by a walk of the records over a long one.
func (t *Timeline) walk(from, to int64, visit func(sec int64, r *second, enc []byte)) {
	if to <= from {
		return
	}
	if uint64(to-from) <= uint64(t.sh.secs.Len()) {
		t.sh.secs.RangeRaw(from, to, visit)
		return
	}
	t.sh.secs.EachRaw(func(k int64, r *second, enc []byte) {
		if k >= from && k < to {
			visit(k, r, enc)
		}
	})
}

// decodeCounts returns r, or, for an encoded second, scratch holding its
// counts (nil, the error kept for Err, when it does not decode).
func (t *Timeline) decodeCounts(r *second, enc []byte, scratch *second) *second {
	if r != nil {
		return r
	}
	if rd := decodeCounts(enc, scratch); rd.Err != nil {
		t.sh.secs.Fail(rd.Err)
		return nil
	}
	return scratch
}

// countsIn calls visit with the counts of every second in [from, to)
// that holds data (the names' histograms and failures may be left out),
// in time order; r is valid only during the call.
func (t *Timeline) countsIn(from, to int64, visit func(sec int64, r *second)) {
	var scratch second
	t.walk(from, to, func(k int64, r *second, enc []byte) {
		if r = t.decodeCounts(r, enc, &scratch); r != nil {
			visit(k, r)
		}
	})
}

// Latency returns the successful samples of the analysed Trend in the
// seconds [from, to) as a new Sketch (each coarsened slot counted by the
// second at its middle; see LatencyWidth).
func (t *Timeline) Latency(from, to int64) *sketch.Sketch {
	return t.sh.lat[t.cand].Range(0, from, to)
}

// LatencyInto is Latency into sk (reset first; see
// sketch.Series.RangeInto).
func (t *Timeline) LatencyInto(from, to int64, sk *sketch.Sketch) {
	t.sh.lat[t.cand].RangeInto(0, from, to, sk)
}

// LatencyMean returns the count and mean of the successful samples of the
// analysed Trend in the seconds [from, to): Latency(from, to)'s Count and
// Mean (NaN for none), without building the Sketch.
func (t *Timeline) LatencyMean(from, to int64) (n uint64, mean float64) {
	return t.sh.lat[t.cand].Moments(0, from, to)
}

// LatencyWidth is the seconds per slot of the latency sketches: 1 until a
// run longer than the slot limit coarsened them.
func (t *Timeline) LatencyWidth() int64 { return t.sh.lat[t.cand].Width() }

// IterationDurations returns the iteration_duration samples of the
// seconds [from, to), ms.
func (t *Timeline) IterationDurations(from, to int64) *sketch.Sketch {
	return t.sh.dur.Range(0, from, to)
}

// Trend is the analysed Trend over the whole run, in its unit (ms for time
// trends): every sample, the successful ones, the failed ones and those
// rate limited (HTTP 429, gRPC ResourceExhausted); Negative and Huge count
// the samples below zero and above a day (86,400,000).
type Trend struct {
	All, OK, Failed, Limited *sketch.Sketch
	Negative, Huge           uint64
}

// Trend returns the analysed Trend's whole-run sketches (shared: do not
// change them).
func (t *Timeline) Trend() Trend {
	tr := &t.tot.trends[t.cand]
	return Trend{All: &tr.all, OK: &tr.ok, Failed: &tr.failed, Limited: &tr.limited, Negative: tr.negative, Huge: tr.huge}
}

// IterationDuration is the whole run's iteration_duration, ms (shared: do
// not change it).
func (t *Timeline) IterationDuration() *sketch.Sketch { return &t.tot.iterDur }

// Statuses counts the request stream's samples by status (successes too),
// by status.
func (t *Timeline) Statuses() []StatusCount {
	pi := int8(protoIndex(t.proto))
	var out []StatusCount
	for k, n := range t.tot.byStatus {
		if k.proto == pi {
			out = append(out, StatusCount{k.status, *n})
		}
	}
	slices.SortFunc(out, func(a, b StatusCount) int { return cmp.Compare(a.Status, b.Status) })
	return out
}

// NameFailure counts the stream's failures of one status and request name.
type NameFailure struct {
	Status, Name string
	N            uint64
}

// FailuresByName counts the stream's failures by status and request name
// (name tag, else url), by status then name.
func (t *Timeline) FailuresByName() []NameFailure {
	pi := int8(protoIndex(t.proto))
	var out []NameFailure
	for k, n := range t.tot.byStatusName {
		if k.proto == pi {
			out = append(out, NameFailure{k.status, k.name, n})
		}
	}
	slices.SortFunc(out, func(a, b NameFailure) int {
		return cmp.Or(cmp.Compare(a.Status, b.Status), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// ErrorCodes counts failed requests by k6 error_code.
func (t *Timeline) ErrorCodes() map[string]uint64 { return t.tot.byCode }

// HasExpectedResponse reports whether HTTP requests carried the
// expected_response tag (k6 ≥ v0.31 with the default system tags).
func (t *Timeline) HasExpectedResponse() bool { return t.tot.hasExpected }

// FailedRateRows reports whether the run has rows of its protocol's
// failed-rate metric (http_req_failed), which tell failures where the tags
// do not.
func (t *Timeline) FailedRateRows() bool { return t.rateRows }

// UnknownOutcomes counts the stream's samples whose tags do not tell their
// outcome (restricted --system-tags).
func (t *Timeline) UnknownOutcomes() uint64 { return t.unknown }

// CheckCount counts the samples of one k6 check (the checks metric).
type CheckCount struct {
	Name       string
	Pass, Fail uint64
	// FirstFailNS is the time of the first failure, ns (0 without one).
	FirstFailNS int64
}

// Checks counts the k6 checks by name, sorted by name.
func (t *Timeline) Checks() []CheckCount {
	out := make([]CheckCount, 0, len(t.tot.checks))
	for n, c := range t.tot.checks {
		out = append(out, CheckCount{n, c.pass, c.fail, c.firstFailNS})
	}
	slices.SortFunc(out, func(a, b CheckCount) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// Metrics counts the samples of every metric name (up to MaxMetrics
// names).
func (t *Timeline) Metrics() map[string]uint64 {
	out := make(map[string]uint64, len(t.tot.metrics))
	for m, n := range t.tot.metrics {
		out[m] = *n
	}
	return out
}

// SeriesCount is the number of series (metric and indexed tags) of
// http_reqs and the custom metrics, up to MaxSeries; NameCount the number
// of request names, up to MaxNames.
func (t *Timeline) SeriesCount() int { return len(t.tot.series) }

// NameCount: see SeriesCount.
func (t *Timeline) NameCount() int { return len(t.tot.names) }

// Scenarios are the scenario names of the requests and iterations, in
// the order first seen by one reader (up to MaxScenarios).
func (t *Timeline) Scenarios() []string { return t.tot.scenarios }

// ScenarioSpan is the first and last time (ns since the Unix epoch) of
// the requests and iterations of scenario name; ok is false for a name
// not in Scenarios.
func (t *Timeline) ScenarioSpan(name string) (firstNS, lastNS int64, ok bool) {
	for i, s := range t.tot.scenarios {
		if s == name {
			return t.tot.scenSpan[i][0], t.tot.scenSpan[i][1], true
		}
	}
	return 0, 0, false
}

// HistNames are the request names with per-second latency histograms
// (up to MaxHistNames), in number order; HistOver counts the successful
// samples of the names past the cap.
func (t *Timeline) HistNames() []string { return t.sh.names.Names() }

// HistOver: see HistNames.
func (t *Timeline) HistOver() uint64 { return t.tot.histOver }

// NegativeVUs counts the vus and vus_max samples below zero, which a VU
// count cannot be (a damaged file or another producer): they are left out
// of Second.VUs and Second.VUsMax, and a second with only such samples has
// no VU gauge.
func (t *Timeline) NegativeVUs() uint64 { return t.tot.badVUs }

// NameHist returns the histogram of the successful latencies of request
// name number i (HistNames) in the seconds [from, to).
func (t *Timeline) NameHist(i int, from, to int64) Hist {
	var h Hist
	t.names(i, from, to, func(enc []byte, _ uint32) {
		if err := h.addEnc(enc); err != nil {
			t.sh.secs.Fail(err)
		}
	})
	return h
}

// names calls visit with name number i's histogram encoding and failures
// of every second in [from, to) that holds data.
func (t *Timeline) names(i int, from, to int64, visit func(hist []byte, failed uint32)) {
	t.walk(from, to, func(_ int64, r *second, enc []byte) {
		if r == nil {
			h, n, err := encNames(enc, i)
			if err != nil {
				t.sh.secs.Fail(err)
				return
			}
			visit(h, n)
			return
		}
		var h []byte
		var n uint32
		if i < len(r.histEnc) {
			h = r.histEnc[i]
		}
		if i < len(r.nameFail) {
			n = r.nameFail[i]
		}
		visit(h, n)
	})
}

// NameMix returns, for every request name with histograms (HistNames, in
// number order), the histogram of its successful latencies and its
// failed samples of the analysed Trend in the seconds [from, to), in one
// walk of the seconds: NameHist and NameFailures of every name.
func (t *Timeline) NameMix(from, to int64) (hists []Hist, failed []uint64) {
	n := len(t.sh.names.Names())
	hists, failed = make([]Hist, n), make([]uint64, n)
	add := func(j int, enc []byte) {
		if j < n {
			if err := hists[j].addEnc(enc); err != nil {
				t.sh.secs.Fail(err)
			}
		}
	}
	t.walk(from, to, func(_ int64, r *second, enc []byte) {
		if r != nil {
			for j, e := range r.histEnc {
				add(j, e)
			}
			for j, f := range r.nameFail {
				if j < n {
					failed[j] += uint64(f)
				}
			}
			return
		}
		if len(enc) == 0 {
			t.sh.secs.Fail(varenc.ErrShort)
			return
		}
		rd := varenc.Reader{B: enc[1:]}
		rd.Skip(rd.Uint())
		for j := range rd.Len() {
			add(j, rd.Bytes())
		}
		for j := range rd.Len() {
			if f := rd.Uint(); j < n {
				failed[j] += f
			}
		}
		t.sh.secs.Fail(rd.Err)
	})
	return hists, failed
}

// NameFailures returns the failed samples of the analysed Trend of
// request name number i (HistNames) in the seconds [from, to): with
// NameHist's total, the requests of that name offered then.
func (t *Timeline) NameFailures(i int, from, to int64) uint64 {
	var n uint64
	t.names(i, from, to, func(_ []byte, failed uint32) { n += uint64(failed) })
	return n
}

// Duplicate is a warning about two input files: SameRun when they hold the
// same samples, else they do not overlap in time.
type Duplicate struct {
	SameRun bool
	Message string
	// Files are the two inputs (source names), Samples the analysed
	// Trend's samples each holds when SameRun.
	Files   [2]string
	Samples uint64
}

// Duplicates returns warnings about input files that hold the same number
// of samples of the analysed Trend, with the same sum, over the same span
// (one run given twice: a file twice, or the CSV and the JSON output of
// one run, whose figures were added together), and about files that do
// not overlap in time (two runs analysed as one). The files of a
// distributed run split the samples, so they differ in count.
func (t *Timeline) Duplicates() []Duplicate {
	var names []string
	spans := map[string]*sourceSpan{}
	for k, sp := range t.tot.perSource {
		if k.cand == t.cand {
			names = append(names, k.src)
			spans[k.src] = sp
		}
	}
	slices.Sort(names)
	res := t.resolutionNS
	var out []Duplicate
	for i, a := range names {
		for _, b := range names[i+1:] {
			x, y := spans[a], spans[b]
			if x.maxNS+res < y.minNS || y.maxNS+res < x.minNS {
				out = append(out, Duplicate{Message: fmt.Sprintf("%s and %s do not overlap in time: they look like two separate runs, analysed here as one (the files of a distributed run cover the same time); give them one at a time, or compare them with ldanalyze compare", a, b)})
			}
			if t.sourcePrint(x).SameSamples(t.sourcePrint(y)) {
				out = append(out, Duplicate{SameRun: true, Files: [2]string{a, b}, Samples: uint64(x.n), Message: fmt.Sprintf("%s and %s hold the same %d samples of %s over the same span: they look like one run given twice (or its CSV and JSON outputs), and their figures were added together — give one of them", a, b, x.n, t.metric)})
			}
		}
	}
	return out
}

// Fingerprint is what tells two runs' samples apart without keeping
// them: of the analysed Trend, the count, the wrapping sum of the values
// in millionths (equal for the same samples in any order and file
// format), the span, and the request stream's counts by status. Two runs with equal fingerprints (SameSamples)
// are almost surely one run given twice.
type Fingerprint struct {
	// Metric is the analysed Trend; Count its samples.
	Metric string
	Count  int64
	// Micro is the sum of the values in millionths, wrapping.
	Micro int64
	// FirstNS and LastNS bound the samples, ns since the Unix epoch;
	// ResolutionNS is the input's time resolution.
	FirstNS, LastNS, ResolutionNS int64
	// Statuses are the request stream's counts by status (Statuses), as
	// text; Failed its failures (Second.Failed summed).
	Statuses string
	Failed   uint64
}

// Fingerprint returns the run's Fingerprint: its input files' together.
func (t *Timeline) Fingerprint() Fingerprint {
	f := Fingerprint{Metric: t.metric, ResolutionNS: t.resolutionNS, Statuses: fmt.Sprint(t.Statuses())}
	for k, sp := range t.tot.perSource {
		if k.cand != t.cand {
			continue
		}
		if f.Count == 0 || sp.minNS < f.FirstNS {
			f.FirstNS = sp.minNS
		}
		if f.Count == 0 || sp.maxNS > f.LastNS {
			f.LastNS = sp.maxNS
		}
		f.Count += sp.n
		f.Micro += sp.micro
	}
	t.Each(func(_ int64, s *Second) { f.Failed += s.Failed })
	return f
}

// sourcePrint is the Fingerprint of one input's samples of the analysed
// Trend: count, sum and span (statuses and failures are not kept per
// input).
func (t *Timeline) sourcePrint(sp *sourceSpan) Fingerprint {
	return Fingerprint{Metric: t.metric, Count: sp.n, Micro: sp.micro, FirstNS: sp.minNS, LastNS: sp.maxNS, ResolutionNS: t.resolutionNS}
}

// SameSamples reports whether f and o are almost surely the same samples:
// the same Trend, count and sum, over the same span within the coarser
// resolution, with the same counts by status and failures. Runs without samples are
// never the same.
func (f Fingerprint) SameSamples(o Fingerprint) bool {
	res := max(f.ResolutionNS, o.ResolutionNS)
	return f.Count > 0 && f.Metric == o.Metric && f.Count == o.Count && f.Micro == o.Micro && f.Statuses == o.Statuses && f.Failed == o.Failed &&
		abs64(f.FirstNS-o.FirstNS) <= res && abs64(f.LastNS-o.LastNS) <= res
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// StatusLabel names a status of the run's protocol for people (see
// outcome.StatusName), "unknown" for failures told only by the
// failed-rate rows.
func (t *Timeline) StatusLabel(status string) string {
	if status == "" && t.proto != outcome.GRPC {
		return "unknown"
	}
	return strings.TrimSpace(outcome.StatusName(t.proto, status))
}
