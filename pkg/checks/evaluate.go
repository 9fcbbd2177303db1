package checks

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/outcome"
	"github.com/ldanalyze/ldanalyze/pkg/sketch"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// Decision limits. Each is named in the message of the check it drives.
const (
	// MinDurationS and MinIterations: a shorter run is too short to
	// analyse (issue 5); the knee analysis judges no knee below
	// MinDurationS either (knee.Result.NoVerdict).
	MinDurationS  = knee.MinRunS
	MinIterations = 100
	// COGrowth is the growth of the median iteration duration over its
	// low-load value, and COShare the share of iterations not sent, past
	// which coordinated omission is reported.
	COGrowth = 1.2
	COShare  = 0.05
	// DroppedFailShare: dropped iterations at or above this share of the
	// offered iterations fail the run; fewer warn.
	DroppedFailShare = 0.01
	// ErrorFailRate: a whole-run error rate at or above this fails the
	// errors check, as does a window at or above ErrorWindowFailRate.
	ErrorFailRate       = 0.01
	ErrorWindowFailRate = 0.05
	// LimitedFailShare: 429 responses at or above this share of all
	// requests fail the rate-limited check (the limiter shaped the
	// results); fewer warn.
	LimitedFailShare = 0.05
	// HiddenErrorGap and HiddenP95Factor: a load level whose error rate
	// exceeds the whole run's by this much (absolute, 0–1), or whose p95
	// exceeds the whole run's by this factor, is hidden by the summary.
	HiddenErrorGap  = 0.05
	HiddenP95Factor = 1.5
	// MaxNames is the number of distinct request names (url without a name
	// tag) above which Grafana Cloud k6 flags a test; MaxSeries is the
	// Grafana Cloud free plan's Prometheus series; MaxMetrics is
	// ldanalyze's own limit.
	MaxNames   = 500
	MaxSeries  = 10000
	MaxMetrics = 200
)

// Options tune Evaluate. The zero value works.
type Options struct {
	// WindowNS is the width, in ns, of the windows used to say when
	// errors happened (0: DefaultWindowNS). Windows start at the run's
	// first second.
	WindowNS int64
	// Generator is the load generator's data for the generator check; nil
	// leaves the check n/a with a hint.
	Generator *GeneratorData
	// Input is what the readers said of the files, for the input check.
	Input Input
}

// DefaultWindowNS is the width, in ns, of the checks' error windows when
// Options.WindowNS is 0: 10 s, long enough to hold whole seconds of a
// 1 s-resolution run, short enough to show a burst of errors inside a
// 30 s load level.
const DefaultWindowNS = 10e9

func (o *Options) defaults() {
	if o.WindowNS <= 0 {
		o.WindowNS = DefaultWindowNS
	}
}

// Evaluate runs every check on a run's Timeline and its knee analysis (nil
// when it could not be made, e.g. the latency metric is absent: the checks
// that need it are then n/a). The thresholds the timeline was given
// (timeline.Options.Thresholds) are re-evaluated per load level by the
// summary-vs-knee check. Check tl.Err() afterwards.
func Evaluate(tl *timeline.Timeline, res *knee.Result, opt Options) *Report {
	opt.defaults()
	e := &eval{tl: tl, res: res, opt: opt}
	e.prepare()
	// The checks only read e, the timeline and the analysis once prepare
	// has run: the errors check, the one that walks the run's seconds the
	// most (a 24-hour run has 86,400), runs on another core beside the
	// rest, and the report keeps their order.
	errs := make(chan Check, 1)
	go func() { errs <- e.errors() }()
	r := &Report{}
	r.Checks = append(r.Checks,
		e.model(), e.duration(), e.resolution(), e.coordinatedOmission(), e.droppedIterations(),
		e.checksMetric())
	rest := []Check{e.rateLimited(), e.summaryVsKnee(), e.generator(), e.cardinality(), e.backlog(), e.thresholds(), e.input()}
	r.Checks = append(append(r.Checks, <-errs), rest...)
	return r
}

type eval struct {
	tl     *timeline.Timeline
	opt    Options
	res    *knee.Result
	s0, s1 int64 // run seconds [s0, s1)
	// o is the origin of every offset (+N s): the first second of the
	// main span (knee.Result.Start), which is s0 unless gaps split the run.
	o      int64
	levels []knee.Level

	iterations, dropped, reqs, okReqs uint64
	vusPeak, vusMaxPeak               float64
	hasVUs                            bool
}

func (e *eval) prepare() {
	tl := e.tl
	if tl.Rows() > 0 {
		e.s0, e.s1 = secOf(tl.StartNS()), secOf(tl.EndNS())+1
	}
	e.o = e.s0
	if m := tl.Main(); m.Seconds > 0 {
		e.o = m.First
	}
	tl.Each(func(_ int64, sc *timeline.Second) {
		e.iterations += sc.Iterations
		e.dropped += sc.Dropped
		e.reqs += sc.Requests
		e.okReqs += sc.OK
		if sc.HasVUs {
			e.hasVUs = true
			e.vusPeak = math.Max(e.vusPeak, sc.VUs)
		}
		if sc.HasVUsMax {
			e.vusMaxPeak = math.Max(e.vusMaxPeak, sc.VUsMax)
		}
	})
	e.levels = levelsOf(e.res)
}

// levelsOf returns the load levels the per-level checks work on
// (knee.Result.InspectedLevels), none without an analysis.
func levelsOf(res *knee.Result) []knee.Level {
	if res == nil {
		return nil
	}
	return res.InspectedLevels()
}

// span returns the seconds [a, b) of a level.
func span(l *knee.Level) (int64, int64) { return l.Start.Unix(), l.End.Unix() }

// rel is a time in seconds since the origin (the main span's first
// second).
func (e *eval) rel(ns int64) float64 { return float64(ns-e.o*1e9) / 1e9 }

// plus writes an offset from the origin as "+73" (an event in a span of
// data before the main one is "-5").
func plus(s float64) string {
	if s < 0 {
		return fmtNum(s)
	}
	return "+" + fmtNum(s)
}

// durationS is the run's length in seconds of data.
func (e *eval) durationS() float64 {
	if e.res != nil && float64(e.res.DurationS) > 0 {
		return float64(e.res.DurationS)
	}
	return float64(e.s1 - e.s0)
}

// levelStats sums a level's seconds: iterations, mean VUs over the seconds
// that have the gauge, and the iteration-duration sketch.
func (e *eval) levelStats(a, b int64) (iters uint64, vus float64, dur *sketch.Sketch) {
	dur = e.tl.IterationDurations(a, b)
	n := 0
	e.tl.Range(a, b, func(_ int64, sc *timeline.Second) {
		iters += sc.Iterations
		if sc.HasVUs {
			vus += sc.VUs
			n++
		}
	})
	if n > 0 {
		vus /= float64(n)
	} else {
		vus = math.NaN()
	}
	return iters, vus, dur
}

func secOf(ns int64) int64 {
	k := ns / 1e9
	if ns < 0 && ns%1e9 != 0 {
		k--
	}
	return k
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func (e *eval) model() Check {
	ch := Check{ID: IDModel}
	if e.res == nil {
		ch.Status = NA
		ch.Message = fmt.Sprintf("no %s samples: the workload model and the load levels could not be analysed", e.tl.Metric())
		return ch
	}
	closed := e.res.Model == knee.Closed
	ch.Evidence.add("closed", b2f(closed))
	ch.Evidence.add("dropped_iterations", float64(e.dropped))
	ch.Evidence.add("vus_peak", e.vusPeak)
	ch.Evidence.add("vus_max_peak", e.vusMaxPeak)
	ch.Evidence.add("requests_per_iteration", float64(e.res.RequestsPerIteration))
	ch.Status = OK
	if !e.hasVUs {
		ch.Status = Warn
	}
	if closed {
		ch.Message = fmt.Sprintf("closed model (VU executors; %s): each VU waits for its last response, so a slow system is sent less work; latency past the knee is a lower bound, judge the knee by throughput.", e.res.ModelEvidence)
	} else {
		ch.Message = fmt.Sprintf("open model (arrival-rate executors; %s): iterations start on a schedule whatever the system does, so overload shows as latency, errors and dropped iterations.", e.res.ModelEvidence)
	}
	return ch
}

func (e *eval) duration() Check {
	ch := Check{ID: IDDuration}
	d := e.durationS()
	ch.Evidence.add("duration_s", d)
	ch.Evidence.add("iterations", float64(e.iterations))
	ch.Evidence.add("requests", float64(e.reqs))
	if e.tl.Rows() == 0 {
		ch.Status, ch.Message = NA, "no samples."
		return ch
	}
	// Iterations, or when they are few the most of requests and samples
	// of the analysed Trend (a WebSocket iteration is one long session
	// that receives hundreds of messages, each a sample).
	work, what := e.iterations, "iterations"
	if work < MinIterations && e.reqs > work {
		work, what = e.reqs, "requests"
	}
	if work < MinIterations && e.res != nil && e.res.Overall.Count > work {
		work, what = e.res.Overall.Count, e.res.Metric+" samples"
	}
	switch {
	case d < MinDurationS:
		ch.Status = Warn
		ch.Message = fmt.Sprintf("the run lasts %s s, under %d s: too short to find load levels or a knee; run longer.", fmtNum(d), MinDurationS)
	case work < MinIterations:
		ch.Status = Warn
		ch.Message = fmt.Sprintf("only %d %s, under %d: percentiles and rates are noise; run longer or at a higher rate.", work, what, MinIterations)
	default:
		ch.Status = OK
		ch.Message = fmt.Sprintf("%s s and %d %s: long enough to analyse.", fmtNum(d), work, what)
	}
	return ch
}

func (e *eval) resolution() Check {
	ch := Check{ID: IDResolution}
	if e.res == nil {
		ch.Status, ch.Message = NA, "no analysis of the run: the timestamp resolution is unknown."
		return ch
	}
	r := float64(e.res.ResolutionS)
	w := math.Min(float64(e.opt.WindowNS)/1e9, e.res.WindowS)
	ch.Evidence.add("resolution_s", r)
	ch.Evidence.add("window_s", w)
	switch {
	case r > w:
		ch.Status = Fail
		ch.Message = fmt.Sprintf("timestamps are %s s apart, coarser than the %s s window: windows would be empty or merged; widen the window or record finer timestamps (K6_CSV_TIME_FORMAT=unix_milli).", fmtNum(r), fmtNum(w))
	case r == 1:
		ch.Status = OK
		ch.Message = fmt.Sprintf("whole-second timestamps (k6's default CSV): fine for windows of %s s and more; use K6_CSV_TIME_FORMAT=unix_milli for sub-second detail.", fmtNum(w))
	case r > 1:
		// A Prometheus source, at its query step.
		ch.Status = OK
		ch.Message = fmt.Sprintf("one point every %s s (the source's step): fine for windows of %s s and more; levels and rates are at that step.", fmtNum(r), fmtNum(w))
	default:
		ch.Status = OK
		ch.Message = fmt.Sprintf("timestamps every %s s, finer than the %s s window.", fmtNum(r), fmtNum(w))
	}
	return ch
}

// coordinatedOmission estimates, in a closed model, the iterations the VUs
// did not send because they waited on a slow system (methods.md §4): the
// pacing I is the median iteration duration at the lowest load level; at
// each level the VUs would have completed VUs·seconds/I iterations at that
// pacing; what they completed less is omitted.
func (e *eval) coordinatedOmission() Check {
	ch := Check{ID: IDCoordinatedOmission}
	if e.res == nil || e.res.Model != knee.Closed {
		ch.Status = OK
		if e.res == nil {
			ch.Status = NA
		}
		ch.Message = "open model: iterations start on a schedule, so no request is held back by a slow response; iterations that could not start are counted under dropped-iterations."
		if e.res == nil {
			ch.Message = "workload model unknown."
		}
		return ch
	}
	if e.tl.IterationDuration().Count() == 0 || len(e.levels) == 0 || !e.hasVUs {
		ch.Status = NA
		ch.Message = "closed model, but no iteration_duration samples, vus gauge or load levels to estimate what was not sent."
		return ch
	}
	ls := slices.Clone(e.levels)
	slices.SortStableFunc(ls, func(p, q knee.Level) int { return cmp.Compare(float64(p.Offered), float64(q.Offered)) })
	pacing, pacingVUs := math.NaN(), math.NaN()
	for i := range ls {
		a, b := span(&ls[i])
		_, vus, dur := e.levelStats(a, b)
		if vus > 0 && dur.Count() >= 20 {
			pacing, pacingVUs = dur.Quantile(0.5), vus
			break
		}
	}
	if math.IsNaN(pacing) || pacing <= 0 {
		ch.Status = NA
		ch.Message = "closed model, but no load level with 20 iterations to infer the low-load pacing from."
		return ch
	}
	var sent, omitted float64
	worst, worstVUs := pacing, pacingVUs
	for i := range e.levels {
		a, b := span(&e.levels[i])
		iters, vus, dur := e.levelStats(a, b)
		if !(vus > 0) {
			continue
		}
		expected := vus * float64(b-a) / (pacing / 1000)
		sent += float64(iters)
		omitted += math.Max(0, expected-float64(iters))
		if dur.Count() > 0 && dur.Quantile(0.5) > worst {
			worst, worstVUs = dur.Quantile(0.5), vus
		}
	}
	share := 0.0
	if sent+omitted > 0 {
		share = omitted / (sent + omitted)
	}
	growth := worst / pacing
	rpi := float64(e.res.RequestsPerIteration)
	ch.Evidence.add("pacing_ms", pacing)
	ch.Evidence.add("pacing_vus", pacingVUs)
	ch.Evidence.add("slowest_iteration_ms", worst)
	ch.Evidence.add("slowest_vus", worstVUs)
	ch.Evidence.add("iteration_growth", growth)
	ch.Evidence.add("iterations_sent", sent)
	ch.Evidence.add("iterations_omitted", math.Round(omitted))
	ch.Evidence.add("requests_omitted", math.Round(omitted*rpi))
	ch.Evidence.add("omitted_share", share)
	ch.Evidence.add("p99_ms", e.tl.Trend().OK.Quantile(0.99))
	if growth >= COGrowth && share >= COShare {
		ch.Status = Warn
		ch.Message = fmt.Sprintf("closed model: the median iteration grew from %s ms (at %s VUs) to %s ms (at %s VUs), so the VUs sent about %s fewer iterations (≈%s requests, %s of what low-load pacing would have sent) exactly while the system was slow; the p99 of %s ms is optimistic — use an arrival-rate executor for latency objectives.",
			fmtNum(pacing), fmtNum(pacingVUs), fmtNum(worst), fmtNum(worstVUs), fmtNum(math.Round(omitted)), fmtNum(math.Round(omitted*rpi)), fmtPct(share), fmtNum(e.tl.Trend().OK.Quantile(0.99)))
		return ch
	}
	ch.Status = OK
	ch.Message = fmt.Sprintf("closed model, but iterations kept their low-load pacing (median %s ms, growth ×%s, %s not sent): little coordinated omission.", fmtNum(pacing), fmtNum(growth), fmtPct(share))
	return ch
}

func (e *eval) droppedIterations() Check {
	ch := Check{ID: IDDroppedIterations}
	offered := float64(e.iterations + e.dropped)
	ch.Evidence.add("dropped_iterations", float64(e.dropped))
	if e.dropped == 0 {
		ch.Status = OK
		ch.Message = "no iteration was dropped: every scheduled iteration found a free VU."
		if e.iterations == 0 {
			ch.Status, ch.Message = NA, "no iterations or dropped_iterations samples."
		}
		return ch
	}
	var first, last int64 = -1, -1
	var peak uint64
	secsWith := 0
	e.tl.Each(func(k int64, sc *timeline.Second) {
		if sc.Dropped == 0 {
			return
		}
		secsWith++
		if first < 0 {
			first = k
		}
		last = k
		peak = max(peak, sc.Dropped)
	})
	share := float64(e.dropped) / offered
	d := e.durationS()
	ch.Evidence.add("dropped_share", share)
	ch.Evidence.add("dropped_per_s", float64(e.dropped)/d)
	ch.Evidence.add("peak_dropped_per_s", float64(peak))
	ch.Evidence.add("first_dropped_s", float64(first-e.o))
	ch.Evidence.add("last_dropped_s", float64(last-e.o))
	ch.Evidence.add("first_dropped_unix", float64(first))
	ch.Evidence.add("seconds_with_drops", float64(secsWith))
	// Little's law (L = λW) at the level that dropped most: the VUs busy
	// at once are the start rate times the iteration duration.
	needed, rate, iterMS := math.NaN(), math.NaN(), math.NaN()
	var lv *knee.Level
	for i := range e.levels {
		if lv == nil || e.levels[i].DroppedPerS > lv.DroppedPerS {
			lv = &e.levels[i]
		}
	}
	if lv != nil {
		a, b := span(lv)
		_, _, dur := e.levelStats(a, b)
		rate, iterMS = float64(lv.Offered), dur.Mean()
		needed = rate * iterMS / 1000
	}
	ch.Evidence.add("offered_per_s_at_peak", rate)
	ch.Evidence.add("iteration_ms_at_peak", iterMS)
	ch.Evidence.add("vus_needed", needed)
	ch.Evidence.add("vus_max", e.vusMaxPeak)
	ch.Status = Warn
	if share >= DroppedFailShare {
		ch.Status = Fail
	}
	little := ""
	if !math.IsNaN(needed) {
		if needed > e.vusMaxPeak {
			little = fmt.Sprintf("; by Little's law %s it/s × %s ms needs %s VUs but vus_max was %s: raise maxVUs, or the system is too slow for this rate", fmtNum(rate), fmtNum(iterMS), fmtNum(math.Ceil(needed)), fmtNum(e.vusMaxPeak))
		} else {
			little = fmt.Sprintf("; by Little's law %s it/s × %s ms needs only %s VUs of vus_max %s, so VUs were short only in bursts (VU initialisation, latency spikes): raise preAllocatedVUs", fmtNum(rate), fmtNum(iterMS), fmtNum(math.Ceil(needed)), fmtNum(e.vusMaxPeak))
		}
	}
	ch.Message = fmt.Sprintf("%d iterations (%s of offered) were never started, from %s s to %s s (peak %d in one second): their latency was never measured%s.",
		e.dropped, fmtPct(share), plus(float64(first-e.o)), plus(float64(last-e.o)), peak, little)
	return ch
}

func (e *eval) checksMetric() Check {
	ch := Check{ID: IDChecks}
	checks := e.tl.Checks()
	if len(checks) == 0 {
		ch.Status, ch.Message = NA, "no checks metric: the script makes no check() calls, so wrong responses would look like fast ones; add checks on status and body."
		return ch
	}
	var pass, fail uint64
	firstFail := int64(math.MaxInt64)
	for _, cc := range checks {
		pass += cc.Pass
		fail += cc.Fail
		if cc.Fail > 0 && cc.FirstFailNS < firstFail {
			firstFail = cc.FirstFailNS
		}
	}
	ratio := float64(pass) / float64(pass+fail)
	ch.Evidence.add("checks", float64(pass+fail))
	ch.Evidence.add("failed", float64(fail))
	ch.Evidence.add("pass_ratio", ratio)
	var bad []string
	for _, cc := range checks {
		r := float64(cc.Pass) / float64(cc.Pass+cc.Fail)
		ch.Evidence.add("pass_ratio{check:"+cc.Name+"}", r)
		if cc.Fail > 0 {
			bad = append(bad, fmt.Sprintf("%q %s", cc.Name, fmtPct(r)))
		}
	}
	if fail == 0 {
		ch.Status = OK
		ch.Message = fmt.Sprintf("all %d checks passed.", pass)
		return ch
	}
	ch.Evidence.add("first_fail_s", e.rel(firstFail))
	ch.Status = Fail
	ch.Message = fmt.Sprintf("%d of %d checks failed (pass %s: %s), the first at %s s: below 100 %% the run is wrong, not slow — the timings include responses the script rejected.",
		fail, pass+fail, fmtPct(ratio), strings.Join(bad, ", "), plus(math.Floor(e.rel(firstFail))))
	// The k6 checks of a run past capacity fail with its requests: past the
	// knee when the requests' failures are, and the first failed check
	// came once a level lacked headroom (k6 counts checks by name, not by
	// second).
	if pk := e.pastKnee(func(sc *timeline.Second) uint64 { return sc.Failed }); pk.OK && firstFail >= pk.FirstLacking*1e9 {
		ch.Status = Warn
		ch.Message += e.pastKneeNote(pk, "failed requests")
	}
	return ch
}

// windowRates returns the highest share pick(second)/requests over windows
// of WindowNS from the origin (the main span's first second; windows of
// other spans keep that grid), and that window's start (s since the
// origin). A window under half a window long is skipped unless it is the
// origin's.
func (e *eval) windowRates(pick func(*timeline.Second) uint64) (peakRate, peakStart float64) {
	w := max(1, e.opt.WindowNS/1e9)
	peakRate, peakStart = math.NaN(), math.NaN()
	// Windows start at o, o±w, …; only those with seconds of data are
	// visited (a gap in the data costs nothing).
	type win struct {
		n, bad uint64
		secs   int64 // seconds with data
	}
	var starts []int64
	wins := map[int64]*win{}
	e.tl.Each(func(k int64, sc *timeline.Second) {
		if k < e.s0 || k >= e.s1 {
			return
		}
		a := e.o + floorDiv(k-e.o, w)*w
		x := wins[a]
		if x == nil {
			x = &win{}
			wins[a] = x
			starts = append(starts, a) // ascending: Each is ordered
		}
		x.n += sc.Requests
		x.bad += pick(sc)
		x.secs++
	})
	for _, a := range starts {
		x := wins[a]
		if a != e.o && 2*x.secs < w {
			// Less than half a window of data (the run's last, partial
			// window, or a stray sample past the run): too little to be
			// called the worst window.
			continue
		}
		if x.n == 0 {
			continue
		}
		if r := float64(x.bad) / float64(x.n); !(r <= peakRate) {
			peakRate, peakStart = r, float64(a-e.o)
		}
	}
	return peakRate, peakStart
}

// firstSecond is the first second where pick is not zero, in seconds from
// the origin (negative in a span of data before the main one; NaN when
// there is none).
func (e *eval) firstSecond(pick func(*timeline.Second) uint64) float64 {
	first, found := int64(0), false
	e.tl.Each(func(k int64, sc *timeline.Second) {
		if !found && k >= e.s0 && k < e.s1 && pick(sc) > 0 {
			first, found = k-e.o, true
		}
	})
	if !found {
		return math.NaN()
	}
	return float64(first)
}

// noun is what the run's requests are called: "requests", "calls",
// "sessions".
func (e *eval) noun() string {
	if p := e.tl.Protocol(); p != outcome.None {
		return p.Noun()
	}
	return "requests"
}

// noRequests is the n/a message of the checks that need a request stream.
const noRequests = "no request samples (http_reqs, gRPC calls, WebSocket sessions or browser requests)."

func (e *eval) errors() Check {
	ch := Check{ID: IDErrors}
	if !e.tl.HasRequests() || e.reqs == 0 {
		ch.Status, ch.Message = NA, noRequests
		return ch
	}
	proto := e.tl.Protocol()
	noun := e.noun()
	failed := e.reqs - e.okReqs
	rate := float64(failed) / float64(e.reqs)
	var transport uint64
	e.tl.Each(func(_ int64, sc *timeline.Second) { transport += sc.Transport + sc.Timeouts })
	// Failures by status, and by status and request name.
	byStatus := map[string]uint64{}
	var statuses []string
	add := func(st string, n uint64) {
		if _, ok := byStatus[st]; !ok {
			statuses = append(statuses, st)
		}
		byStatus[st] += n
	}
	byName := e.tl.FailuresByName()
	var tagged uint64
	for _, f := range byName {
		add(f.Status, f.N)
		tagged += f.N
	}
	if failed > tagged {
		add("", failed-tagged) // told only by the failed-rate rows
	}
	slices.Sort(statuses)
	ch.Evidence.add("requests", float64(e.reqs))
	ch.Evidence.add("failed", float64(failed))
	ch.Evidence.add("error_rate", rate)
	ch.Evidence.add(proto.String()+"_errors", float64(failed-transport))
	ch.Evidence.add("transport_errors", float64(transport))
	ch.Evidence.add("timeouts", float64(e.tl.ErrorCodes()["1050"]))
	for _, st := range statuses {
		ch.Evidence.add("status_"+statusKey(st), float64(byStatus[st]))
	}
	var parts []string
	for _, f := range byName {
		label := e.tl.StatusLabel(f.Status)
		if proto == outcome.GRPC && label != f.Status {
			label = f.Status + " " + label
		}
		if f.Name != "" {
			ch.Evidence.add("status_"+statusKey(f.Status)+"{name:"+f.Name+"}", float64(f.N))
			parts = append(parts, fmt.Sprintf("%d × %s on %s", f.N, label, f.Name))
		} else {
			parts = append(parts, fmt.Sprintf("%d × %s", f.N, label))
		}
	}
	if failed > tagged {
		parts = append(parts, fmt.Sprintf("%d without a status (from http_req_failed)", failed-tagged))
	}
	codes := make([]string, 0, len(e.tl.ErrorCodes()))
	for k := range e.tl.ErrorCodes() {
		codes = append(codes, k)
	}
	slices.Sort(codes)
	for _, k := range codes {
		ch.Evidence.add("error_code_"+k, float64(e.tl.ErrorCodes()[k]))
	}
	bad := func(sc *timeline.Second) uint64 { return sc.Failed }
	peak, peakAt := e.windowRates(bad)
	ch.Evidence.add("first_error_s", e.firstSecond(bad))
	ch.Evidence.add("peak_window_error_rate", peak)
	ch.Evidence.add("peak_window_start_s", peakAt)
	tr := e.tl.Trend()
	ch.Evidence.add("p95_ms_all", tr.All.Quantile(0.95))
	ch.Evidence.add("p95_ms_ok", tr.OK.Quantile(0.95))
	ch.Evidence.add("p95_ms_failed", tr.Failed.Quantile(0.95))
	if failed == 0 {
		ch.Status = OK
		ch.Message = fmt.Sprintf("all %d %s succeeded.", e.reqs, noun)
		return ch
	}
	ch.Status = Warn
	if rate >= ErrorFailRate || peak >= ErrorWindowFailRate {
		ch.Status = Fail
	}
	w := e.opt.WindowNS / 1e9
	kinds := fmt.Sprintf("%d HTTP errors, %d transport errors with status 0", failed-transport, transport)
	if proto == outcome.GRPC {
		kinds = fmt.Sprintf("%d calls with a gRPC status other than OK, %d without a response", failed-transport, transport)
	} else if proto == outcome.WebSocket {
		kinds = fmt.Sprintf("%d handshakes other than 101, %d without a response", failed-transport, transport)
	}
	ch.Message = fmt.Sprintf("%d of %d %s failed (%s; %s): %s; from %s s, worst %d s window at %s s with %s; percentiles here are of successful responses (p95 %s ms, all responses %s ms) because failures (fast rejections or slow timeouts) distort them — fix the errors before reading the latency.",
		failed, e.reqs, noun, fmtPct(rate), kinds, strings.Join(parts, ", "), plus(e.firstSecond(bad)), w, plus(peakAt), fmtPct(peak),
		fmtNum(tr.OK.Quantile(0.95)), fmtNum(tr.All.Quantile(0.95)))
	if pk := e.pastKnee(bad); pk.OK && ch.Status == Fail {
		ch.Status = Warn
		ch.Evidence.add("past_knee_from_s", float64(pk.From-e.o))
		ch.Message += e.pastKneeNote(pk, "failed")
	}
	return ch
}

// statusKey is a status as an evidence name: "unknown" for failures told
// only by the failed-rate rows.
func statusKey(st string) string {
	if st == "" {
		return "unknown"
	}
	return st
}

// rateLimited looks for a rate limiter measured instead of the system: 429
// responses (their share decides warn or fail), or without them successful
// latencies split into a fast and a slow group at the same load (the
// bimodal test, see BimodalFactor; a warning, as a cache can look alike).
func (e *eval) rateLimited() Check {
	ch := Check{ID: IDRateLimited}
	if !e.tl.HasRequests() || e.reqs == 0 {
		ch.Status, ch.Message = NA, noRequests
		return ch
	}
	limited := "429"
	if e.tl.Protocol() == outcome.GRPC {
		limited = "8"
	}
	var n uint64
	perName := map[string]uint64{}
	for _, f := range e.tl.FailuresByName() {
		if f.Status == limited {
			n += f.N
			if f.Name != "" {
				perName[f.Name] += f.N
			}
		}
	}
	share := float64(n) / float64(e.reqs)
	ch.Evidence.add("status_429", float64(n))
	ch.Evidence.add("share_429", share)
	unit := "load"
	if e.res != nil {
		unit = e.res.OfferedUnit
	}
	bm := e.bimodal()
	if n == 0 {
		groups := bm.addBimodal(&ch, unit)
		if groups != "" {
			ch.Status = Warn
			ch.Message = fmt.Sprintf("no %s, but %s (a cache that only misses under load looks alike): the slow group's latency is the limiter's, not the service's — find the limit (gateway, ingress, client retries) and test below it or exempt the load generator.", e.limitedName(), groups)
			return ch
		}
		ch.Status = OK
		ch.Message = "no " + e.limitedName() + " and no load level whose successful latencies split into a fast and a slow group: no rate limiter answered for the system."
		if len(bm.everywhere) > 0 {
			ch.Message = fmt.Sprintf("no %s; %s split into a fast and a slow group already at the lowest load, which points to a cache or different requests under one name rather than a limiter.", e.limitedName(), strings.Join(quoteNames(bm.everywhere), ", "))
		}
		return ch
	}
	var names []string
	for nm := range perName {
		names = append(names, nm)
	}
	slices.Sort(names)
	var where []string
	for _, nm := range names {
		v := perName[nm]
		ch.Evidence.add("status_429{name:"+nm+"}", float64(v))
		where = append(where, fmt.Sprintf("%d on %s", v, nm))
	}
	lim := func(sc *timeline.Second) uint64 { return sc.Limited }
	first := e.firstSecond(lim)
	peak, peakAt := e.windowRates(lim)
	ch.Evidence.add("first_429_s", first)
	ch.Evidence.add("peak_window_share_429", peak)
	ch.Evidence.add("peak_window_start_s", peakAt)
	ch.Evidence.add("limited_p50_ms", e.tl.Trend().Limited.Quantile(0.5))
	ch.Evidence.add("ok_p50_ms", e.tl.Trend().OK.Quantile(0.5))
	groups := bm.addBimodal(&ch, unit)
	if groups != "" {
		groups = "; besides, " + groups
	}
	ch.Status = Warn
	if share >= LimitedFailShare {
		ch.Status = Fail
	}
	ch.Message = fmt.Sprintf("%d %s (%s of %s) were %s (%s), from %s s, up to %s of a %d s window: a rate limiter (or the server's own load shedding) answered instead of the service — the limited group took p50 %s ms against %s ms for successes%s; exempt the load generator or test below the limit before reading capacity.",
		n, e.responses(), fmtPct(share), e.noun(), e.limitedName(), strings.Join(where, ", "), plus(first), fmtPct(peak), e.opt.WindowNS/1e9, fmtNum(e.tl.Trend().Limited.Quantile(0.5)), fmtNum(e.tl.Trend().OK.Quantile(0.5)), groups)
	if pk := e.pastKnee(func(sc *timeline.Second) uint64 { return sc.Limited }); pk.OK && ch.Status == Fail {
		ch.Status = Warn
		ch.Evidence.add("past_knee_from_s", float64(pk.From-e.o))
		ch.Message += e.pastKneeNote(pk, "refused")
	}
	return ch
}

// limitedName is how the run's protocol says "too many requests".
func (e *eval) limitedName() string {
	if e.tl.Protocol() == outcome.GRPC {
		return "ResourceExhausted (gRPC status 8)"
	}
	return "429 Too Many Requests"
}

// responses is the noun of the run's answers: responses, or calls.
func (e *eval) responses() string {
	if e.tl.Protocol() == outcome.GRPC {
		return "calls"
	}
	return "responses"
}

// summaryVsKnee asks whether the whole-run summary hides the knee
// (user-pain.md BL-11). With thresholds, each is evaluated over the whole
// run and over every load level: one that the run passes but a level fails
// is a failure the summary hid. Without thresholds, a level whose error
// rate or p95 is far worse than the whole run's (HiddenErrorGap,
// HiddenP95Factor) while the knee analysis found saturated or overloaded
// levels is a warning.
func (e *eval) summaryVsKnee() Check {
	ch := Check{ID: IDSummaryVsKnee}
	if e.res == nil || len(e.levels) == 0 {
		ch.Status, ch.Message = NA, "no load levels to compare the whole-run summary with."
		return ch
	}
	o := e.res.Overall
	wholeErr, wholeP95 := float64(o.ErrorRate), float64(o.OKP95MS)
	var worstErr, worstP95 *knee.Level
	bad := 0
	for i := range e.levels {
		l := &e.levels[i]
		if l.Verdict == knee.Saturated || l.Verdict == knee.Overloaded {
			bad++
		}
		if l.ErrorRate.Valid() && (worstErr == nil || l.ErrorRate > worstErr.ErrorRate) {
			worstErr = l
		}
		if l.P95MS.Valid() && (worstP95 == nil || l.P95MS > worstP95.P95MS) {
			worstP95 = l
		}
	}
	ch.Evidence.add("levels", float64(len(e.levels)))
	ch.Evidence.add("levels_past_knee", float64(bad))
	ch.Evidence.add("run_error_rate", wholeErr)
	ch.Evidence.add("run_p95_ms", wholeP95)
	we, wp := math.NaN(), math.NaN()
	weOff, wpOff := math.NaN(), math.NaN()
	if worstErr != nil {
		we, weOff = float64(worstErr.ErrorRate), float64(worstErr.Offered)
	}
	if worstP95 != nil {
		wp, wpOff = float64(worstP95.P95MS), float64(worstP95.Offered)
	}
	ch.Evidence.add("worst_level_error_rate", we)
	ch.Evidence.add("worst_level_error_offered", weOff)
	ch.Evidence.add("worst_level_p95_ms", wp)
	ch.Evidence.add("worst_level_p95_offered", wpOff)
	if e.res.Knee != nil {
		ch.Evidence.add("knee_offered", float64(e.res.Knee.Offered))
	}
	unit := e.res.OfferedUnit

	if thr := e.tl.Thresholds(); len(thr) > 0 {
		var hidden, failedRun, unmatched []string
		for i, t := range thr {
			run, ok := e.tl.ThresholdValue(i, e.s0, e.s1)
			if !ok {
				unmatched = append(unmatched, t.Source)
			}
			ch.Evidence.add(fmt.Sprintf("threshold_%d_run", i+1), run)
			nFail, firstOff := 0, math.NaN()
			for j := range e.levels {
				a, b := span(&e.levels[j])
				v, ok := e.tl.ThresholdValue(i, a, b)
				if ok && !t.Holds(v) {
					nFail++
					if math.IsNaN(firstOff) || float64(e.levels[j].Offered) < firstOff {
						firstOff = float64(e.levels[j].Offered)
					}
				}
			}
			ch.Evidence.add(fmt.Sprintf("threshold_%d_failed_levels", i+1), float64(nFail))
			ch.Evidence.add(fmt.Sprintf("threshold_%d_first_failed_offered", i+1), firstOff)
			switch {
			case ok && !t.Holds(run):
				failedRun = append(failedRun, t.Source)
			case nFail > 0:
				hidden = append(hidden, fmt.Sprintf("%s (whole run %s, fails %d of %d levels from %s %s)", t.Source, fmtNum(run), nFail, len(e.levels), fmtNum(firstOff), unit))
			}
		}
		if len(hidden) > 0 {
			ch.Status = Fail
			ch.Message = fmt.Sprintf("the whole-run summary passed %s but load levels failed it: the summary hid the knee — report capacity as the highest level that passes.", strings.Join(hidden, "; "))
			return ch
		}
		if len(failedRun) > 0 {
			ch.Status = OK
			ch.Message = fmt.Sprintf("the whole run already fails %s (the thresholds check fails the run), so the summary does not hide the failure; see the levels for where it starts.", strings.Join(failedRun, ", "))
			return ch
		}
		ch.Status = OK
		switch {
		case len(unmatched) == len(thr):
			ch.Message = fmt.Sprintf("no sample of the run matches %s (the thresholds check fails the run): nothing to judge per load level.", strings.Join(unmatched, ", "))
		case len(unmatched) > 0:
			ch.Message = fmt.Sprintf("every threshold with samples holds over the whole run and at every load level; no sample of the run matches %s (the thresholds check fails the run).", strings.Join(unmatched, ", "))
		default:
			ch.Message = "every threshold holds over the whole run and at every load level."
		}
		return ch
	}

	var why []string
	if bad > 0 && worstErr != nil && we-wholeErr >= HiddenErrorGap {
		why = append(why, fmt.Sprintf("errors %s at %s %s against %s over the run", fmtPct(we), fmtNum(weOff), unit, fmtPct(wholeErr)))
	}
	if bad > 0 && worstP95 != nil && wp >= HiddenP95Factor*wholeP95 {
		why = append(why, fmt.Sprintf("p95 %s ms at %s %s against %s ms over the run", fmtNum(wp), fmtNum(wpOff), unit, fmtNum(wholeP95)))
	}
	if len(why) > 0 {
		ch.Status = Warn
		kn := " unlike each other"
		if e.res.Knee != nil && e.res.Knee.Reached {
			kn = fmt.Sprintf(" below and past the knee at %s %s", fmtNum(float64(e.res.Knee.Offered)), unit)
		}
		ch.Message = fmt.Sprintf("the whole-run summary averages load levels%s: %s; thresholds that pass on the summary can fail at a level — judge per level, or re-evaluate the thresholds per level with `ldanalyze check --threshold EXPR`.", kn, strings.Join(why, "; "))
		return ch
	}
	ch.Status = OK
	ch.Message = "no load level is far worse than the whole-run figures: the summary does not hide a knee."
	return ch
}

// generator judges the load generator from Options.Generator (n/a with a
// hint without it); see GeneratorCheck.
func (e *eval) generator() Check {
	return GeneratorCheck(e.opt.Generator, e.levels, e.s0*1e9, e.s1*1e9)
}

func (e *eval) cardinality() Check {
	ch := Check{ID: IDCardinality}
	m, s, n := len(e.tl.Metrics()), e.tl.SeriesCount(), e.tl.NameCount()
	ch.Evidence.add("metrics", float64(m))
	ch.Evidence.add("series", float64(s))
	ch.Evidence.add("request_names", float64(n))
	var why []string
	if n > MaxNames {
		why = append(why, fmt.Sprintf("%d distinct request names/URLs (over %d): tag dynamic URLs with a name tag or http.url``", n, MaxNames))
	}
	if s > MaxSeries {
		why = append(why, fmt.Sprintf("more than %d series (counting stops there): drop high-cardinality tags", MaxSeries))
	}
	if m > MaxMetrics {
		why = append(why, fmt.Sprintf("%d metrics (over %d)", m, MaxMetrics))
	}
	if len(why) > 0 {
		ch.Status = Warn
		ch.Message = strings.Join(why, "; ") + ": per-endpoint statistics are spread too thin to read and outputs slow down."
		return ch
	}
	ch.Status = OK
	ch.Message = fmt.Sprintf("%d metrics, %d series, %d request names: within limits.", m, s, n)
	return ch
}

func fmtNum(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "?"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func fmtPct(v float64) string {
	if math.IsNaN(v) {
		return "?"
	}
	return strconv.FormatFloat(100*v, 'f', 2, 64) + " %"
}

// floorDiv is x ÷ y rounded towards −∞ (y > 0).
func floorDiv(x, y int64) int64 {
	q := x / y
	if x%y != 0 && (x < 0) != (y < 0) {
		q--
	}
	return q
}
