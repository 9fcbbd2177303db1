package prom

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/vugauge"
	"github.com/ldanalyze/ldanalyze/pkg/jsonnum"
)

// K6Step is what Prometheus says about one step of a k6 run streamed with
// `-o experimental-prometheus-rw`: the observations made in the step
// (Start, End]. Counts are per step (not per second); divide by
// End − Start for rates.
type K6Step struct {
	Start, End time.Time
	// Iterations completed and DroppedIterations (arrival-rate executors
	// only) in the step, from k6_iterations_total and
	// k6_dropped_iterations_total.
	Iterations, DroppedIterations float64
	// VUs and VUsMax are the gauges k6_vus and k6_vus_max at End (summed
	// over k6 instances); NaN when absent.
	VUs, VUsMax float64
	// Requests are all HTTP responses in the step (k6_http_reqs_total);
	// OK those with expected_response="true"; ByStatus and ByErrorCode
	// split Requests by the status and error_code labels.
	Requests, OK float64
	ByStatus     map[string]float64
	ByErrorCode  map[string]float64
	// Groups are Requests split by expected_response, status and
	// error_code together.
	Groups []RequestGroup
	// BytesSent and BytesReceived are k6_data_sent_total and
	// k6_data_received_total in the step, bytes.
	BytesSent, BytesReceived float64
	// Latency is the native histogram of the successful responses'
	// http_req_duration observed in the step (seconds; a delta of the
	// cumulative histograms), nil without native histograms.
	Latency *HistogramPoint
	// Durations are the http_req_duration observations of the step per
	// request group (name, status, expected_response, scenario), and
	// IterationDurations the iteration_duration ones per scenario, in
	// seconds: from native histograms the bucket deltas; from trend stats
	// one bucket of width zero at the group's mean over the step
	// (Δ(avg·count) ÷ Δcount) holding its Δcount observations (× 1000 for
	// a time trend), with Mean set. Nil without either.
	Durations, IterationDurations []DurationGroup
	// Scenarios split Iterations, DroppedIterations and the bytes by the
	// scenario label (nil when the series have none).
	Scenarios map[string]*ScenarioStep
	// P50MS, P95MS and P99MS are the successful responses' latency
	// percentiles in the step, milliseconds: from histogram_quantile
	// pushed down to the server when it could be, else from Latency; NaN
	// without native histograms (trend stats cannot give them).
	P50MS, P95MS, P99MS float64
	// Checks are the k6 checks of the step by name, scenario and group,
	// derived from the running ratio k6_checks_rate (readChecks); nil
	// without it.
	Checks []CheckGroup `json:",omitempty"`
	// MeanMS is the successful responses' mean latency in the step,
	// milliseconds: Latency's sum ÷ count, or, from trend stats,
	// Δ(avg·count) ÷ Δcount over the step (see TrendStats); NaN when
	// neither exists or no response completed.
	MeanMS float64
}

// RequestGroup is the responses of one step with one expected_response,
// status, error_code, request name and scenario.
type RequestGroup struct {
	ExpectedResponse, Status, ErrorCode, Name, Scenario string
	Count                                               float64
}

// DurationGroup is a Trend's observations in one step for one request
// group (labels empty where the series have none).
type DurationGroup struct {
	Name, Status, ExpectedResponse, Scenario string
	// Histogram holds the observations, in seconds: Count, Sum and the
	// buckets of the step (not cumulative).
	Histogram HistogramPoint
	// Mean is set when the histogram is trend stats' mean (one bucket of
	// width zero): the step's distribution is not known.
	Mean bool
}

// ScenarioStep is one scenario's counts in one step.
type ScenarioStep struct {
	Iterations, DroppedIterations float64
	// BytesSent and BytesReceived are bytes.
	BytesSent, BytesReceived float64
}

// scenario returns step k's counts of scenario name, made on first use.
func (k *K6Step) scenario(name string) *ScenarioStep {
	if k.Scenarios == nil {
		k.Scenarios = map[string]*ScenarioStep{}
	}
	sc := k.Scenarios[name]
	if sc == nil {
		sc = &ScenarioStep{}
		k.Scenarios[name] = sc
	}
	return sc
}

// K6Run is a k6 run read from Prometheus at one step.
type K6Run struct {
	// Start and End are the run's window: from the first to the last
	// sample of k6_vus or k6_iterations_total, or as given.
	Start, End time.Time
	// Step is the resolution; Steps[i] covers (Start + i·Step, Start +
	// (i+1)·Step], except the last, which ends at End: at k6's final
	// flush when that came less than half a push interval after the last
	// step's end.
	Step  time.Duration
	Steps []K6Step
	// Model is "open" (arrival-rate executors) or "closed", and
	// ModelEvidence says why, by the rule pkg/knee applies to k6 files.
	Model, ModelEvidence string
	// LatencySource is "native-histograms", "trend-stats" or "" (no
	// latency series).
	LatencySource string
	// PushedDown says the percentiles came from histogram_quantile on the
	// server, not from the bucket deltas here.
	PushedDown bool
	// TrendStats are the trend-stat gauges found, with their caveat.
	TrendStats *TrendStats
	// Queries are the PromQL expressions sent (empty for files).
	Queries []string
	// Warnings are caveats: gaps, series missing, trend stats.
	Warnings []string
}

// Offered is the offered load of step i, iterations per second for the
// open model (iterations completed + dropped + growth of in-flight VUs,
// pkg/knee's rule) or VUs for the closed model.
func (r *K6Run) Offered(i int) float64 {
	s := r.Steps[i]
	if r.Model != "open" {
		return s.VUs
	}
	growth := 0.0
	if i > 0 && !math.IsNaN(s.VUs) && !math.IsNaN(r.Steps[i-1].VUs) {
		growth = s.VUs - r.Steps[i-1].VUs
	}
	return math.Max(0, s.Iterations+s.DroppedIterations+growth) / s.End.Sub(s.Start).Seconds()
}

// CompletedRPS is the goodput of step i, successful responses per second.
func (r *K6Run) CompletedRPS(i int) float64 {
	s := r.Steps[i]
	return s.OK / s.End.Sub(s.Start).Seconds()
}

// K6Options configure ReadK6Run. The zero value finds the run's window
// from the data and uses k6's push interval as the step.
type K6Options struct {
	// Selector narrows every query (e.g. {testid="run-42"}).
	Selector Selector
	// Start and End bound the run; zero values are found from k6_vus and
	// k6_iterations_total.
	Start, End time.Time
	// Step is the resolution (default: the push interval found in the
	// data, else 5 s, k6's default K6_PROMETHEUS_RW_PUSH_INTERVAL).
	Step time.Duration
	// NoPushDown computes percentiles here from the bucket deltas even
	// when the source could run histogram_quantile.
	NoPushDown bool
}

// Source is where ReadK6Run gets its series: a live server (Client) or
// saved API JSON (Files). Every method evaluates at the times of r.
type Source interface {
	// Names lists the metric names with series matching sel.
	Names(ctx context.Context, sel Selector) ([]string, error)
	// Span is the first and last sample time of the named metrics'
	// series matching sel, and the typical interval between samples
	// (0 when unknown).
	Span(ctx context.Context, names []string, sel Selector, r Range) (first, last time.Time, interval time.Duration, err error)
	// Sum is sum by (by) (name{sel}) at each evaluation time, one series
	// per group (labels = the by labels).
	Sum(ctx context.Context, name string, sel Selector, by []string, r Range) ([]Series, error)
	// SumProduct is sum by (by) (a{sel} * b{sel}) at each evaluation
	// time, the series of a and b matched on their labels but the name;
	// one series per group (labels = the by labels).
	SumProduct(ctx context.Context, a, b string, sel Selector, by []string, r Range) ([]Series, error)
	// SumHistogram is sum by (by) (name{sel}) of native histograms at each
	// evaluation time, one series per group (labels = the by labels,
	// Histograms the sums).
	SumHistogram(ctx context.Context, name string, sel Selector, by []string, r Range) ([]Series, error)
	// Quantile is histogram_quantile(q, sum(rate(name{sel}[window]))) at
	// each evaluation time; ErrNotPushedDown when the source cannot.
	Quantile(ctx context.Context, q float64, name string, sel Selector, window time.Duration, r Range) ([]Point, error)
}

// SeriesCounter is a Source that can count the series of a sum: count by
// (by) (name{sel}) at each evaluation time. ReadK6Run asks it when a
// counter's sum drops, to tell a series leaving the sum (stale, 5 m after
// its last push) from a counter reset.
type SeriesCounter interface {
	CountSeries(ctx context.Context, name string, sel Selector, by []string, r Range) ([]Series, error)
}

// ErrNotPushedDown says a Source cannot evaluate an expression itself.
var ErrNotPushedDown = errors.New("not supported by this source")

// Range is a set of evaluation times Start + k·Step up to End.
type Range struct {
	Start, End time.Time
	Step       time.Duration
}

// Times lists the evaluation times.
func (r Range) Times() []time.Time {
	var out []time.Time
	for t := r.Start; !t.After(r.End); t = t.Add(r.Step) {
		out = append(out, t)
	}
	return out
}

// ReadK6Run reads a k6 run from src at one step. The work is pushed to the
// source where it can aggregate: sums across series per step (so many k6
// instances or one make the same few series), and histogram_quantile over
// native histograms. Counters are summed raw at each step and differenced
// here, not rate()d: a k6 series is born when its first sample is pushed
// (a status that first appears at t = 80 s starts at its count of the
// first push interval), and rate()/increase() would drop that first value
// and extrapolate at the series' edges (promql/functions.go,
// extrapolatedRate), while the difference of sums counts it. A sum that
// drops is a counter reset (a k6 runner restarted) and counted as
// increase() counts one, the value after the drop, unless the source (a
// SeriesCounter) says the sum lost a series then (one k6 instance's series
// going stale, 5 m after its last push, while others go on: that step
// counts nothing); a sum that is
// absent at a step (a gap past the lookback) counts nothing there; a sum
// that is NaN, ±Inf or negative is skipped and counted in a warning.
//
// Evaluation times sit half a push interval after the pushes, so that
// each step sees exactly the pushes up to it, whatever their jitter; step
// i then covers the observations between two pushes Step apart, and the
// pushed-down histogram_quantile uses a range of Step + one push interval
// to take in the push at the step's start.
func ReadK6Run(ctx context.Context, src Source, opt K6Options) (*K6Run, error) {
	run := &K6Run{}
	names, err := src.Names(ctx, opt.Selector)
	if err != nil {
		return nil, err
	}
	if w, ok := src.(interface{ Warnings() []string }); ok {
		// Samples the source left out (Files: NaN, ±Inf, negative).
		run.Warnings = append(run.Warnings, w.Warnings()...)
	}
	has := map[string]bool{}
	for _, n := range names {
		has[n] = true
	}
	if !has["k6_vus"] && !has["k6_iterations_total"] {
		return nil, fmt.Errorf("no k6_vus or k6_iterations_total series%s: not a k6 run streamed with -o experimental-prometheus-rw", selNote(opt.Selector))
	}
	search := Range{Start: opt.Start, End: opt.End}
	// k6 stamps each pushed series with the time of its latest sample in
	// the push (remotewrite.go, seriesWithMeasure.Latest): a dense series
	// such as k6_iterations_total is stamped within milliseconds of the
	// push itself, k6_vus (sampled once a second) up to a second before.
	// The pushes set the steps' phase, so the dense series is asked first.
	spanNames := []string{"k6_iterations_total"}
	if !has["k6_iterations_total"] {
		spanNames = []string{"k6_vus"}
	}
	first, last, interval, err := src.Span(ctx, spanNames, opt.Selector, search)
	if err != nil {
		return nil, err
	}
	// Samples on a grid of whole seconds, a whole number of intervals
	// apart, are query_range answers (evaluated at start + k·step), not
	// k6's pushes (stamped to the millisecond, jittering around the push
	// period): the pushes' times are then not known.
	grid := interval >= time.Second && interval%time.Second == 0 && first.UnixNano()%1e9 == 0 && last.UnixNano()%1e9 == 0 && last.Sub(first)%interval == 0
	if interval <= 0 {
		interval = 5 * time.Second
	}
	if interval >= time.Second {
		// The gaps between k6's pushes jitter by milliseconds around its
		// ticker's period (5.002 s for 5 s): the period is what the steps
		// keep in phase with.
		interval = interval.Round(100 * time.Millisecond)
	}
	start, end := first, last
	if !opt.Start.IsZero() {
		start = opt.Start
	}
	if !opt.End.IsZero() {
		end = opt.End
	}
	if !end.After(start) {
		return nil, fmt.Errorf("the run's window %s to %s is empty", start.Format(time.RFC3339), end.Format(time.RFC3339))
	}
	step := opt.Step
	if step <= 0 {
		step = interval
		if n := end.Sub(start) / step; n > MaxK6Steps {
			// A long run: whole push intervals, at most MaxK6Steps steps.
			k := (end.Sub(start)/MaxK6Steps + interval - 1) / interval
			step = k * interval
			run.Warnings = append(run.Warnings, fmt.Sprintf("the run lasts %s: read at %s steps (%d push intervals of %s) to stay within %d steps; give --step for another resolution", end.Sub(start).Round(time.Second), step, k, interval, MaxK6Steps))
		}
	}
	if n := end.Sub(start) / step; n > 4*MaxK6Steps {
		return nil, fmt.Errorf("the run's window %s to %s at %s steps is %d steps, more than %d: give a coarser --step (at least %s)", start.Format(time.RFC3339), end.Format(time.RFC3339), step, n, 4*MaxK6Steps, (end.Sub(start)/(4*MaxK6Steps)).Round(time.Second)+time.Second)
	}
	if step < interval {
		run.Warnings = append(run.Warnings, fmt.Sprintf("step %s is shorter than the push interval %s: some steps have no new push", step, interval))
	}
	// The first evaluation time is half an interval after the first push;
	// the step before it starts one step earlier (sums there are 0).
	half := interval / 2
	eval := Range{Start: first.Add(half - step), Step: step}
	if !opt.Start.IsZero() {
		eval.Start = start.Add(half)
	}
	n := int(end.Sub(eval.Start)/step) + 1
	if eval.Start.Add(time.Duration(n-1) * step).Before(end) {
		n++
	}
	eval.End = eval.Start.Add(time.Duration(n-1) * step)
	run.Start, run.End, run.Step = eval.Start.Add(-half), eval.End.Add(-half), step
	times := eval.Times()
	if len(times) < 2 {
		return nil, fmt.Errorf("the run's window %s to %s holds less than one step of %s", start.Format(time.RFC3339), end.Format(time.RFC3339), step)
	}
	run.Steps = make([]K6Step, len(times)-1)
	for i := range run.Steps {
		run.Steps[i] = K6Step{Start: times[i].Add(-half), End: times[i+1].Add(-half), VUs: math.NaN(), VUsMax: math.NaN(),
			P50MS: math.NaN(), P95MS: math.NaN(), P99MS: math.NaN(), MeanMS: math.NaN(),
			ByStatus: map[string]float64{}, ByErrorCode: map[string]float64{}}
	}
	// When the test ends k6 flushes once more, a fraction of a push
	// interval after its last regular push (prom_rw_native: 0.58 s after
	// it). The last evaluation, half an interval past the last step's end,
	// takes that flush in: the last step then holds the observations up
	// to the flush, and its rates are over that longer time (counted over
	// Step they would exceed the offered load: 412.9 it/s for a ramp that
	// never offered 400).
	if last := run.Steps[len(run.Steps)-1].End; opt.End.IsZero() && end.After(last) {
		run.Steps[len(run.Steps)-1].End = end
		run.End = end
	}
	if grid && opt.End.IsZero() {
		run.Warnings = append(run.Warnings, fmt.Sprintf("%s is read from query_range answers on a %s grid, not raw samples: the times of k6's pushes are not known, so the last step (to %s) may hold k6's final flush as well as its last push, up to two push intervals of observations, while its rates are taken over one; export the raw samples (%s[<range>] with /api/v1/query) or read the server live for exact step bounds",
			spanNames[0], interval, run.End.Format(time.RFC3339), spanNames[0]))
	}
	sel := opt.Selector
	var badSums, resets, leftSums tally
	counter := func(name string, by []string, put func(k6 *K6Step, groups map[string]string, v float64)) error {
		if !has[name] {
			return nil
		}
		var used []string
		ss, err := run.capped(name, by, func(by []string) ([]Series, error) {
			used = by
			return src.Sum(ctx, name, sel, by, eval)
		})
		if err != nil {
			return err
		}
		// left says whether the group of labels had fewer series at
		// times[i+1] than at times[i]: a sum that drops then lost a
		// series (stale, 5 m after its last push: a k6 instance that
		// stopped early), which is no reset. Asked of the source on the
		// first drop only.
		var counts map[string][]float64
		left := func(labels map[string]string, i int) bool {
			sc, ok := src.(SeriesCounter)
			if !ok {
				return false
			}
			if counts == nil {
				counts = map[string][]float64{}
				cs, err := sc.CountSeries(ctx, name, sel, used, eval)
				if err != nil {
					return false
				}
				for _, c := range cs {
					k, _ := groupKey(c.Labels, used)
					counts[k] = valuesAt(c.Points, times, 0)
				}
			}
			k, _ := groupKey(labels, used)
			c := counts[k]
			return c != nil && c[i+1] < c[i]
		}
		for _, s := range ss {
			vals := valuesAt(s.Points, times, math.NaN())
			series := seriesName(name, s.Labels)
			// The value before the first step: 0 before the run's first
			// push, the counter's value when the window starts mid-run.
			prev := 0.0
			if v := vals[0]; !math.IsNaN(v) && !badCounter(v) {
				prev = v
			}
			for i := range run.Steps {
				v := vals[i+1]
				switch {
				case math.IsNaN(v) && !hasPointAt(s.Points, times[i+1]):
					// No series at this time (a gap past the lookback):
					// nothing observed, the count carries on.
					continue
				case badCounter(v):
					badSums.add(series, times[i+1].UnixNano(), v)
					continue
				case v < prev && left(s.Labels, i):
					// A series left the sum: the others' growth in this
					// step is not known; the count goes on from here.
					leftSums.add(series, times[i+1].UnixNano(), v)
				case v < prev:
					// k6 restarted (a runner restarted): its counter
					// began again from 0, so the step's increase is the
					// value after the drop (Prometheus' increase()).
					resets.add(series, times[i+1].UnixNano(), v)
					if v > 0 {
						put(&run.Steps[i], s.Labels, v)
					}
				case v > prev:
					put(&run.Steps[i], s.Labels, v-prev)
				}
				prev = v
			}
		}
		return nil
	}
	byScenario := []string{"scenario"}
	if err := counter("k6_iterations_total", byScenario, func(k *K6Step, g map[string]string, v float64) {
		k.Iterations += v
		if sc := g["scenario"]; sc != "" {
			k.scenario(sc).Iterations += v
		}
	}); err != nil {
		return nil, err
	}
	if err := counter("k6_dropped_iterations_total", byScenario, func(k *K6Step, g map[string]string, v float64) {
		k.DroppedIterations += v
		if sc := g["scenario"]; sc != "" {
			k.scenario(sc).DroppedIterations += v
		}
	}); err != nil {
		return nil, err
	}
	if err := counter("k6_http_reqs_total", RequestLabels, func(k *K6Step, g map[string]string, v float64) {
		k.Requests += v
		if g["expected_response"] == "true" {
			k.OK += v
		}
		k.ByStatus[g["status"]] += v
		if c := g["error_code"]; c != "" {
			k.ByErrorCode[c] += v
		}
		k.Groups = append(k.Groups, RequestGroup{ExpectedResponse: g["expected_response"], Status: g["status"], ErrorCode: g["error_code"],
			Name: g["name"], Scenario: g["scenario"], Count: v})
	}); err != nil {
		return nil, err
	}
	if err := counter("k6_data_sent_total", byScenario, func(k *K6Step, g map[string]string, v float64) {
		k.BytesSent += v
		if sc := g["scenario"]; sc != "" {
			k.scenario(sc).BytesSent += v
		}
	}); err != nil {
		return nil, err
	}
	if err := counter("k6_data_received_total", byScenario, func(k *K6Step, g map[string]string, v float64) {
		k.BytesReceived += v
		if sc := g["scenario"]; sc != "" {
			k.scenario(sc).BytesReceived += v
		}
	}); err != nil {
		return nil, err
	}
	gauge := func(name string, put func(k *K6Step, v float64)) error {
		if !has[name] {
			return nil
		}
		ss, err := src.Sum(ctx, name, sel, nil, eval)
		if err != nil {
			return err
		}
		for _, s := range ss {
			vals := valuesAt(s.Points, times, math.NaN())
			for i := range run.Steps {
				put(&run.Steps[i], vals[i+1])
			}
		}
		return nil
	}
	if err := gauge("k6_vus", func(k *K6Step, v float64) { k.VUs = v }); err != nil {
		return nil, err
	}
	if err := gauge("k6_vus_max", func(k *K6Step, v float64) { k.VUsMax = v }); err != nil {
		return nil, err
	}
	if err := run.latency(ctx, src, sel, has, eval, times, interval, opt); err != nil {
		return nil, err
	}
	if err := run.readChecks(ctx, src, sel, has, eval, times); err != nil {
		return nil, err
	}
	if m := badSums.message("counter values that are NaN, ±Inf or negative", ": skipped, each step counted from the counter's last valid value"); m != "" {
		run.Warnings = append(run.Warnings, m)
	}
	if m := leftSums.message("drops of a counter's sum where a series left it (stale, 5 m after its last push: a k6 instance that stopped early)", ": no reset, but the other series' increase in those steps is not known and counted as 0"); m != "" {
		run.Warnings = append(run.Warnings, m)
	}
	if m := resets.message("counter resets (drops)", ": counted as k6 restarting from 0, as Prometheus' increase() does (the step's increase is the value after the drop)"); m != "" {
		run.Warnings = append(run.Warnings, m)
	}
	run.detectModel(has)
	if !has["k6_http_reqs_total"] {
		run.Warnings = append(run.Warnings, fmt.Sprintf("no k6_http_reqs_total series%s: completed load (goodput), errors and per-status counts cannot be known, and the zeros shown for them are not measurements; k6 series found: %s", selNote(sel), strings.Join(names, ", ")))
	}
	return run, nil
}

// hasPointAt says whether ps has a point at t (within a millisecond), NaN
// or not.
func hasPointAt(ps []Point, t time.Time) bool {
	ns := t.UnixNano()
	i := sort.Search(len(ps), func(i int) bool { return ps[i].TimeNS >= ns-int64(time.Millisecond) })
	return i < len(ps) && absNS(ps[i].TimeNS-ns) <= int64(time.Millisecond)
}

func selNote(s Selector) string {
	if len(s) == 0 {
		return ""
	}
	return " matching " + s.PromQL("")
}

// MaxK6Steps is the most steps ReadK6Run reads at the default step: a
// longer run is read at a multiple of the push interval (4096 steps: 5.7
// hours at 5 s, a day at 25 s). An explicit step may give up to four times
// as many.
const MaxK6Steps = 4096

// MaxK6Groups caps the series of one summed query (request groups of
// name × status × error code × scenario): past it the request name is
// left out of the sums, with a warning, so that a script whose names are
// URLs does not bring back one series per URL for every step.
const MaxK6Groups = 500

// capped runs query with the by labels; when it returns more than
// MaxK6Groups series and by holds "name", it runs again without it and
// says so.
func (run *K6Run) capped(name string, by []string, query func(by []string) ([]Series, error)) ([]Series, error) {
	ss, err := query(by)
	if err != nil || len(ss) <= MaxK6Groups {
		return ss, err
	}
	var fewer []string
	for _, l := range by {
		if l != "name" {
			fewer = append(fewer, l)
		}
	}
	if len(fewer) == len(by) {
		return ss, nil
	}
	run.Warnings = append(run.Warnings, fmt.Sprintf("%s: %d series summed by %s, more than %d: summed without the request name (per-name failures and histograms are left out)", name, len(ss), strings.Join(by, ", "), MaxK6Groups))
	return query(fewer)
}

// RequestLabels are the labels k6_http_reqs_total is summed by: what the
// outcome rule, the per-status, per-code and per-name failures and the
// scenarios read.
var RequestLabels = []string{"expected_response", "status", "error_code", "name", "scenario"}

// DurationLabels are the labels a request Trend's observations are summed
// by (native histograms or trend stats): the outcome and the request name
// of each, and its scenario.
var DurationLabels = []string{"name", "status", "expected_response", "scenario"}

// latency fills the per-step latency from native histograms or trend
// stats.
func (run *K6Run) latency(ctx context.Context, src Source, sel Selector, has map[string]bool, eval Range, times []time.Time, interval time.Duration, opt K6Options) error {
	const nh = "k6_http_req_duration_seconds"
	okSel := sel.With(map[string]string{"expected_response": "true"})
	if has[nh] {
		run.LatencySource = "native-histograms"
		groups, err := run.histogramDeltas(ctx, src, nh, sel, DurationLabels, eval, times)
		if err != nil {
			return err
		}
		for i := range run.Steps {
			k := &run.Steps[i]
			k.Durations = groups[i]
			var ok []HistogramPoint
			for _, g := range groups[i] {
				if g.ExpectedResponse == "true" {
					ok = append(ok, g.Histogram)
				}
			}
			if d := AddHistograms(ok...); d.Count > 0 {
				d.TimeNS = k.End.UnixNano()
				k.Latency = &d
				k.MeanMS = 1000 * HistogramMean(d)
				k.P50MS, k.P95MS, k.P99MS = 1000*HistogramQuantile(0.5, d), 1000*HistogramQuantile(0.95, d), 1000*HistogramQuantile(0.99, d)
			}
		}
		if has["k6_iteration_duration_seconds"] {
			groups, err := run.histogramDeltas(ctx, src, "k6_iteration_duration_seconds", sel, []string{"scenario"}, eval, times)
			if err != nil {
				return err
			}
			for i := range run.Steps {
				run.Steps[i].IterationDurations = groups[i]
			}
		}
		if opt.NoPushDown {
			return nil
		}
		for _, q := range []struct {
			q   float64
			dst func(k *K6Step) *float64
		}{{0.5, func(k *K6Step) *float64 { return &k.P50MS }}, {0.95, func(k *K6Step) *float64 { return &k.P95MS }}, {0.99, func(k *K6Step) *float64 { return &k.P99MS }}} {
			ps, err := src.Quantile(ctx, q.q, nh, okSel, run.Step+interval, eval)
			if errors.Is(err, ErrNotPushedDown) {
				return nil
			}
			if err != nil {
				return err
			}
			vals := valuesAt(ps, times, math.NaN())
			for i := range run.Steps {
				*q.dst(&run.Steps[i]) = 1000 * vals[i+1]
			}
		}
		run.PushedDown = true
		return nil
	}
	ts := DetectTrendStats(hasList(has))
	if ts == nil {
		return nil
	}
	run.TrendStats = ts
	run.Warnings = append(run.Warnings, ts.Caveats()...)
	if tr, ok := ts.Trends["iteration_duration"]; ok && tr.Stats["avg"] && tr.Stats["count"] {
		groups, err := run.trendStatGroups(ctx, src, "iteration_duration", sel, []string{"scenario"}, eval, times)
		if err != nil {
			return err
		}
		for i := range run.Steps {
			run.Steps[i].IterationDurations = groups[i]
		}
	}
	tr, ok := ts.Trends["http_req_duration"]
	if !ok || !tr.Stats["avg"] || !tr.Stats["count"] {
		return nil
	}
	run.LatencySource = "trend-stats"
	groups, err := run.trendStatGroups(ctx, src, "http_req_duration", sel, DurationLabels, eval, times)
	if err != nil {
		return err
	}
	for i := range run.Steps {
		k := &run.Steps[i]
		k.Durations = groups[i]
		var n, sum float64
		for _, g := range groups[i] {
			if g.ExpectedResponse == "true" {
				n += g.Histogram.Count
				sum += g.Histogram.Sum
			}
		}
		if n > 0 {
			k.MeanMS = 1000 * sum / n
		}
	}
	return nil
}

// histogramDeltas is, per step, the observations of the native histogram
// name in the step per group of the by labels: the server sums the
// cumulative histograms of each group at the evaluation times, the
// deltas are taken here (HistogramDelta).
func (run *K6Run) histogramDeltas(ctx context.Context, src Source, name string, sel Selector, by []string, eval Range, times []time.Time) ([][]DurationGroup, error) {
	ss, err := run.capped(name, by, func(by []string) ([]Series, error) { return src.SumHistogram(ctx, name, sel, by, eval) })
	if err != nil {
		return nil, err
	}
	out := make([][]DurationGroup, len(run.Steps))
	for _, s := range ss {
		cum := histogramsAt(s.Histograms, times)
		for i := range run.Steps {
			d := HistogramDelta(cum[i], cum[i+1])
			if d.Count <= 0 {
				continue
			}
			d.TimeNS = run.Steps[i].End.UnixNano()
			out[i] = append(out[i], DurationGroup{Name: s.Labels["name"], Status: s.Labels["status"], ExpectedResponse: s.Labels["expected_response"],
				Scenario: s.Labels["scenario"], Histogram: d})
		}
	}
	return out, nil
}

// trendStatGroups recovers, per step and group of the by labels, what the
// trend stats of the time trend k6_<trend>_avg and _count say of the
// observations in the step: their number, Δcount × 1000 (k6's adaptUnit
// divides a time trend's count by 1000), and their mean in seconds,
// Δ(avg·count) ÷ Δcount (the sums are cumulative; the factors of 1000 on
// the count cancel), as one bucket of width zero at the mean.
func (run *K6Run) trendStatGroups(ctx context.Context, src Source, trend string, sel Selector, by []string, eval Range, times []time.Time) ([][]DurationGroup, error) {
	cname := "k6_" + trend + "_count"
	cnt, err := run.capped(cname, by, func(b []string) ([]Series, error) {
		by = b
		return src.Sum(ctx, cname, sel, b, eval)
	})
	if err != nil {
		return nil, err
	}
	prod, err := src.SumProduct(ctx, "k6_"+trend+"_avg", cname, sel, by, eval)
	if err != nil {
		return nil, err
	}
	pv := map[string][]float64{}
	for _, p := range prod {
		k, _ := groupKey(p.Labels, by)
		pv[k] = valuesAt(p.Points, times, 0)
	}
	out := make([][]DurationGroup, len(run.Steps))
	var bad tally
	defer func() {
		if m := bad.message("step means of k6_"+trend+" (Δ(avg·count) ÷ Δcount, ms) that are NaN, ±Inf, negative or over 10⁹ ms", ": skipped, those steps have no "+trend+" observations for the group"); m != "" {
			run.Warnings = append(run.Warnings, m)
		}
	}()
	for _, c := range cnt {
		k, g := groupKey(c.Labels, by)
		p := pv[k]
		if p == nil {
			continue
		}
		cv := valuesAt(c.Points, times, 0)
		for i := range run.Steps {
			dc := cv[i+1] - cv[i]
			mean := (p[i+1] - p[i]) / dc
			n := math.Round(1000 * dc)
			if !(dc > 0) || n < 1 {
				continue
			}
			if !(mean >= 0) || mean > maxTrendSeconds {
				// NaN, ±Inf, negative or over 10⁹ ms: a corrupt _avg
				// or _count, not a duration.
				bad.add(seriesName("k6_"+trend+"_avg", g), times[i+1].UnixNano(), 1000*mean)
				continue
			}
			h := HistogramPoint{TimeNS: run.Steps[i].End.UnixNano(), Count: n, Sum: n * mean, Buckets: []Bucket{{Boundaries: 3, Lower: mean, Upper: mean, Count: n}}}
			out[i] = append(out[i], DurationGroup{Name: g["name"], Status: g["status"], ExpectedResponse: g["expected_response"], Scenario: g["scenario"], Histogram: h, Mean: true})
		}
	}
	return out, nil
}

func hasList(has map[string]bool) []string {
	out := make([]string, 0, len(has))
	for n := range has {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// detectModel applies pkg/knee's rule: dropped iterations only come from
// arrival-rate executors; VU executors drive k6_vus up to k6_vus_max.
func (run *K6Run) detectModel(has map[string]bool) {
	var dropped, maxV, maxM float64
	for _, s := range run.Steps {
		dropped += s.DroppedIterations
		if !math.IsNaN(s.VUs) {
			maxV = math.Max(maxV, s.VUs)
		}
		if !math.IsNaN(s.VUsMax) {
			maxM = math.Max(maxM, s.VUsMax)
		}
	}
	switch {
	case dropped > 0:
		run.Model = "open"
		run.ModelEvidence = fmt.Sprintf("%.0f dropped iterations (k6_dropped_iterations_total): only arrival-rate executors drop iterations", dropped)
	case !has["k6_vus"]:
		run.Model = "closed"
		run.ModelEvidence = "no k6_vus series; assumed closed"
		run.Warnings = append(run.Warnings, "no k6_vus series: the workload model could not be detected and is assumed closed")
	case maxM > 0 && maxV >= 0.95*maxM:
		run.Model = "closed"
		run.ModelEvidence = fmt.Sprintf("k6_vus reached k6_vus_max (%.0f of %.0f), as VU executors do", maxV, maxM)
	default:
		// As pkg/knee: a VU executor stopped before its largest stage
		// leaves k6_vus below k6_vus_max too, but its VUs follow the
		// schedule.
		vus := make([]float64, len(run.Steps))
		for i, s := range run.Steps {
			vus[i] = s.VUs
		}
		if changes, turns := vugauge.Turns(vus); changes >= vugauge.MinScheduleChanges && vugauge.FollowsSchedule(changes, turns) {
			run.Model = "closed"
			run.ModelEvidence = fmt.Sprintf("k6_vus peaked at %.0f of %.0f allocated, no iteration was dropped, and k6_vus changed direction %d times in %d changes, following a schedule: a VU executor stopped before its largest stage", maxV, maxM, turns, changes)
			return
		}
		run.Model = "open"
		run.ModelEvidence = fmt.Sprintf("k6_vus (busy VUs) peaked at %.0f of %.0f allocated and no iteration was dropped: an arrival-rate executor with spare VUs", maxV, maxM)
	}
}

// valuesAt is the value of ps at each time (the point at that time, ps
// being evaluated at those times), def where there is none.
func valuesAt(ps []Point, times []time.Time, def float64) []float64 {
	out := make([]float64, len(times))
	j := 0
	for i, t := range times {
		out[i] = def
		ns := t.UnixNano()
		for j < len(ps) && ps[j].TimeNS < ns-int64(time.Millisecond) {
			j++
		}
		if j < len(ps) && absNS(ps[j].TimeNS-ns) <= int64(time.Millisecond) && !math.IsNaN(ps[j].Value) {
			out[i] = ps[j].Value
		}
	}
	return out
}

// histogramsAt is like valuesAt for histograms (an empty histogram where
// there is none).
func histogramsAt(hs []HistogramPoint, times []time.Time) []HistogramPoint {
	out := make([]HistogramPoint, len(times))
	j := 0
	for i, t := range times {
		ns := t.UnixNano()
		out[i] = HistogramPoint{TimeNS: ns}
		for j < len(hs) && hs[j].TimeNS < ns-int64(time.Millisecond) {
			j++
		}
		if j < len(hs) && absNS(hs[j].TimeNS-ns) <= int64(time.Millisecond) {
			out[i] = hs[j]
		}
	}
	return out
}

func absNS(d int64) int64 {
	if d < 0 {
		return -d
	}
	return d
}

// groupKey is the canonical key of the by labels of ls.
func groupKey(ls map[string]string, by []string) (string, map[string]string) {
	g := make(map[string]string, len(by))
	var b strings.Builder
	for _, k := range by {
		g[k] = ls[k]
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(ls[k])
		b.WriteByte(0)
	}
	return b.String(), g
}

// MarshalJSON writes the step with NaN gauges and percentiles as null.
func (s K6Step) MarshalJSON() ([]byte, error) {
	type plain K6Step
	return json.Marshal(struct {
		plain
		VUs, VUsMax, P50MS, P95MS, P99MS, MeanMS jsonnum.Float
	}{plain(s), jsonnum.Float(s.VUs), jsonnum.Float(s.VUsMax), jsonnum.Float(s.P50MS), jsonnum.Float(s.P95MS), jsonnum.Float(s.P99MS), jsonnum.Float(s.MeanMS)})
}
