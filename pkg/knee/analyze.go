package knee

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/vugauge"
	"github.com/ldanalyze/ldanalyze/pkg/k6metric"
	"github.com/ldanalyze/ldanalyze/pkg/outcome"
	"github.com/ldanalyze/ldanalyze/pkg/sketch"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// Model is a workload model (k6 docs, "Open and closed models"): Open or
// Closed.
type Model string

// The workload models.
const (
	// Open is an arrival-rate executor: iterations start on a schedule
	// whatever the system does.
	Open Model = "open"
	// Closed is a VU executor: each VU starts its next iteration only when
	// the last one ended, so a slow system is sent less work.
	Closed Model = "closed"
)

// Options tune Analyze. The zero value works: every field has a default.
type Options struct {
	// WindowNS is the output window width in ns (default 30 s). Windows are
	// aligned to multiples of the width since the Unix epoch.
	WindowNS int64
	// RampStepNS is the width of the steps a ramp of offered load is cut
	// into; 0 chooses it per ramp (about 20 steps, at least 8 when the ramp
	// is long enough, each with at least 40 requests).
	RampStepNS int64
	// MinHoldNS is the shortest plateau counted as a hold (default 5 s).
	MinHoldNS int64
	// Percentiles adds these percentiles (in percent) to every level.
	Percentiles []float64
	// Follow is the share of the offered load that must complete for a
	// level to "follow" it (default 0.95; closed model: 0.90 of the
	// throughput extrapolated linearly from the lowest levels).
	Follow float64
	// LatencyFactor: a level's p95 above this multiple of the low-load p95
	// is a latency jump (default 3).
	LatencyFactor float64
	// ErrorLimit is the growth of the error rate over its low-load value
	// (a 0–1 difference) above which a level sheds load (default 0.05): a
	// constant error rate, present at every load, is not saturation.
	ErrorLimit float64
	// SLO, when set, asks for the highest load level meeting it.
	SLO *SLO
	// SharedGauges says the vus and vus_max gauges also count the VUs of
	// other scenarios (k6 does not tag them by scenario): the analysis of
	// one scenario of several. The model is then told by dropped
	// iterations and the shape of the vus gauge, not by vus_max.
	SharedGauges bool
	// UsersPerVU, when > 0, says one VU drives that many users (a class of
	// 20 players and its host is 21): a closed model's offered load, knee,
	// ceiling level and SLO capacity are then in users (the levels' VUs
	// stay VUs).
	UsersPerVU float64
	// MetricContains is what the metric's values are when the input
	// declares it (a k6 JSON Metric line: time, data or default); empty:
	// k6's own declaration of a built-in metric, else time.
	MetricContains k6metric.Contains
}

func (o *Options) defaults() {
	if o.WindowNS <= 0 {
		o.WindowNS = 30e9
	}
	if o.MinHoldNS <= 0 {
		o.MinHoldNS = 5e9
	}
	if o.Follow <= 0 {
		o.Follow = 0.95
	}
	if o.LatencyFactor <= 0 {
		o.LatencyFactor = 3
	}
	if o.ErrorLimit <= 0 {
		o.ErrorLimit = 0.05
	}
}

// Result is the knee analysis of one run. See the JSON contract in the
// project README; field names there are the json tags here.
type Result struct {
	Metric string `json:"metric"`
	// MetricUnit is the unit of the metric's values, the figures named
	// …_ms included: "ms" (time), "bytes" (data) or "" (a plain number,
	// such as the CLS score) — k6metric.Unit.
	MetricUnit string `json:"metric_unit"`
	// WebVital, for a browser web vital metric, is Google's thresholds
	// for it; every level then has its p75 and the shares of page loads
	// that were good, needed improvement or were poor (Level.WebVital).
	WebVital *k6metric.WebVital `json:"web_vital,omitempty"`
	// Model is Open or Closed; ModelEvidence says why.
	Model         Model  `json:"model"`
	ModelEvidence string `json:"model_evidence"`
	// OfferedUnit is "iterations/s" (open), "VUs" (closed) or "users"
	// (closed, with Options.UsersPerVU).
	OfferedUnit string `json:"offered_unit"`
	// CompletedUnit is the unit of every completed rate (completed_rps,
	// the ceiling): "req/s" (HTTP responses), "calls/s" (gRPC),
	// "msgs/s" (WebSocket messages received), "sessions/s" (WebSocket
	// sessions, without message counts) or "iterations/s" (no request
	// stream).
	CompletedUnit string `json:"completed_unit"`
	// RequestsPerIteration is http_reqs ÷ iterations over the analysed
	// (main) span: the whole run unless gaps split it.
	RequestsPerIteration F `json:"requests_per_iteration"`
	// Start and End are the first and last samples of the analysed span
	// of data (timeline.Timeline.Main): the whole run unless gaps of
	// timeline.MaxGapS or more split it (a stray timestamp, two runs in
	// one file; WarnSpans names the other spans). Every offset "+N s" of
	// the levels, the checks and the reports is measured from Start's
	// second. Where another span lies before (after) the main one, Start
	// (End) is the main span's first (last) second.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// DurationS is the run's span in seconds at the file's resolution
	// (last second − first second + 1 for whole-second files; last − first
	// sample + the resolution for sub-second ones).
	DurationS F `json:"duration_s"`
	// ResolutionS is the coarsest timestamp resolution of the input, s.
	ResolutionS F `json:"resolution_s"`
	// WindowS is the window width, s.
	WindowS float64 `json:"window_s"`
	Windows []Level `json:"windows"`
	Holds   []Level `json:"holds"`
	// Levels names what the knee was decided on: "holds", or "ramp" when
	// the run had fewer than three holds (unless one or two holds cover
	// half of it: a steady run) and was cut into RampSteps.
	Levels    string     `json:"levels"`
	RampSteps []Level    `json:"ramp_steps,omitempty"`
	Knee      *Knee      `json:"knee"`
	Ceiling   *Ceiling   `json:"ceiling"`
	SLO       *SLOResult `json:"slo"`
	// NoVerdict, when not empty, says why the run has no knee, ceiling or
	// SLO capacity (Knee, Ceiling and SLO are nil): its main span is
	// shorter than MinRunS, too short to judge them (its levels are still
	// listed), or than two seconds (no levels at all).
	NoVerdict string `json:"no_verdict,omitempty"`
	// Caveat, when not empty, is a short sentence that qualifies the
	// verdict: the other spans of a run split by gaps (WarnSpans) hold at
	// least CaveatShare of the analysed Trend's samples, which the levels,
	// knee and ceiling leave out (two runs in one file, most often); the
	// pipeline adds runs concatenated over one another (the input check).
	Caveat  string  `json:"caveat,omitempty"`
	Overall Overall `json:"overall"`
	// Scenario names the scenario whose analysis is the answer (model,
	// levels, knee, ceiling) when the run has two or more, each analysed
	// on its own in Scenarios (SetScenarios); empty otherwise.
	Scenario  string     `json:"scenario,omitempty"`
	Scenarios []Scenario `json:"scenarios,omitempty"`
	// inspect are the fixed steps a run with fewer than three levels on
	// its way up is looked at by the per-level checks (InspectedLevels).
	inspect []Level
	// PercentileMethod states how percentiles were computed.
	PercentileMethod string    `json:"percentile_method"`
	Warnings         []Warning `json:"warnings"`
}

// Knee is the last load level where the system still kept up.
type Knee struct {
	Offered      F      `json:"offered"`
	CompletedRPS F      `json:"completed_rps"`
	P95MS        F      `json:"p95_ms"`
	Method       string `json:"method"`
	// Low and High bound the knee in offered units: the last level with
	// headroom and the first without (narrowed by the hinge fit when it
	// bends between them; when it bends past the first level without, High
	// is the first level above the bend without headroom, else the bend
	// itself). Not reached: Low is the highest load tested and
	// High is NaN (the knee is above it).
	Low  F `json:"low"`
	High F `json:"high"`
	// Reached is false when every level had headroom (or the load
	// generator set the limit): the knee is above the highest load tested,
	// and Offered is that highest load.
	Reached bool `json:"reached"`
	// Next is what broke at the level after the knee.
	Next string `json:"next,omitempty"`
}

// Ceiling is the highest sustained goodput while the system did not shed
// much of its load.
type Ceiling struct {
	// CompletedRPS is the median goodput (completed units per second) of
	// the plateau levels, each taken at its offered mix of requests: a
	// level that sheds serves a mix tilted to cheap requests and is scaled
	// by the utilisation law (ServedMixRPS keeps the served figure).
	CompletedRPS F `json:"completed_rps"`
	// Low and High bound CompletedRPS: a 95 % t interval of the mean of
	// the per-second goodput pooled over the plateau levels, widened to
	// the exact Poisson interval of their count when they hold fewer than
	// 3 seconds (never one second's value alone).
	Low  F `json:"low"`
	High F `json:"high"`
	// Offered is the offered load at the median plateau level.
	Offered F `json:"offered"`
	// ErrorRate at the ceiling level.
	ErrorRate F `json:"error_rate"`
	// Reached is false when completed load still followed the offered load
	// at the highest level, or the load generator set the limit: the
	// ceiling is then at least this.
	Reached bool `json:"reached"`
	// LimitedBy names what set the ceiling: "server" when it was reached,
	// "rate-limiter" when refusals (429) took the headroom while latency
	// stayed flat, "generator" when the load generator ran out of VUs
	// (iterations dropped with every VU busy and latency flat), null when
	// none did (the run ended before a limit).
	LimitedBy Limit `json:"limited_by"`
	// PeakCompletedRPS is the highest goodput of any level, errors or not;
	// when it exceeds the ceiling only while the system rejects a large
	// share, the served mix shifted to cheap requests: it is not capacity.
	// ServedMixRPS is the ceiling as served, before the correction to the
	// offered mix (set only when that correction lowered it by more than
	// 0.5 %: the levels past the knee shed the expensive requests).
	ServedMixRPS     F      `json:"served_mix_rps,omitempty"`
	PeakCompletedRPS F      `json:"peak_completed_rps"`
	PeakErrorRate    F      `json:"peak_error_rate"`
	Note             string `json:"note,omitempty"`
}

// Limit names what set a ceiling: LimitServer, LimitGenerator, or
// LimitNone (JSON null) when neither did.
type Limit string

// The limits of a ceiling.
const (
	LimitNone      Limit = ""
	LimitServer    Limit = "server"
	LimitGenerator Limit = "generator"
	// LimitRateLimiter: refusals ("too many requests": HTTP 429, gRPC
	// ResourceExhausted) took the headroom while latency stayed flat, so
	// a rate limiter, not the servers' capacity, set the ceiling.
	LimitRateLimiter Limit = "rate-limiter"
)

// MarshalJSON writes the limit, or null for LimitNone.
func (l Limit) MarshalJSON() ([]byte, error) {
	if l == LimitNone {
		return []byte("null"), nil
	}
	return json.Marshal(string(l))
}

// UnmarshalJSON reads a limit; null is LimitNone.
func (l *Limit) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*l = LimitNone
		return nil
	}
	return json.Unmarshal(b, (*string)(l))
}

// Overall is the whole run of the metric, all samples, as k6's end-of-test
// summary computes it.
type Overall struct {
	// Of, when not empty, says what the percentiles, mean, min and max
	// are of when they are not of the samples themselves: "per-step
	// means" for a run read from Prometheus trend stats (set by the
	// pipeline from its source).
	Of     string `json:"of,omitempty"`
	Count  uint64 `json:"count"`
	MeanMS F      `json:"mean_ms"`
	MinMS  F      `json:"min_ms"`
	MaxMS  F      `json:"max_ms"`
	P50MS  F      `json:"p50_ms"`
	P90MS  F      `json:"p90_ms"`
	P95MS  F      `json:"p95_ms"`
	P99MS  F      `json:"p99_ms"`
	// Percentiles holds the --percentiles values over the run, keyed as
	// Level.Percentiles ("p99.9"), when they are not just p50, p90, p95
	// and p99 (the fields above); nil otherwise.
	Percentiles map[string]F `json:"percentiles,omitempty"`
	// Successful-only percentiles (expected_response=true).
	OKCount uint64 `json:"ok_count"`
	OKP95MS F      `json:"ok_p95_ms"`
	// Requests, Failed and rates over the run (NaN for a run shorter than
	// its resolution).
	Requests   uint64 `json:"requests"`
	Failed     uint64 `json:"failed"`
	ErrorRate  F      `json:"error_rate"`
	RPS        F      `json:"rps"`
	Iterations uint64 `json:"iterations"`
	Dropped    uint64 `json:"dropped_iterations"`
	MaxVUs     F      `json:"max_vus"`
	// Exact is true when the percentiles are exact, false when they come
	// from the histogram (relative error ≤ sketch.RelativeError).
	Exact bool `json:"exact"`
}

// trendList names the metrics of tl that can be Trends (k6's built-in
// Trends, and custom metrics, whose type a CSV does not say), busiest
// first with their sample counts, for the error of a metric without
// samples.
func trendList(tl *timeline.Timeline) string {
	type mc struct {
		name string
		n    uint64
	}
	var c []mc
	for name, n := range tl.Metrics() {
		if i, ok := k6metric.Builtin(name); ok && i.Type != k6metric.Trend {
			continue
		}
		c = append(c, mc{name, n})
	}
	if len(c) == 0 {
		return "the file has no Trend: a k6 output without request or custom Trend samples"
	}
	slices.SortFunc(c, func(a, b mc) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.name, b.name)) })
	parts := make([]string, 0, 8)
	for _, m := range c[:min(len(c), 8)] {
		parts = append(parts, fmt.Sprintf("%s (%d samples)", m.name, m.n))
	}
	more := ""
	if len(c) > 8 {
		more = fmt.Sprintf(" and %d more", len(c)-8)
	}
	return "the file's Trends (use one with --metric): " + strings.Join(parts, ", ") + more
}

// CaveatShare is the share (0–1) of the analysed Trend's samples outside
// the main span from which Result.Caveat qualifies the verdict: 5 %, so a
// stray timestamp or a few late samples do not, and a second run does.
const CaveatShare = 0.05

// notTrend names k6's built-in metrics that are not Trends
// (metrics/builtin.go; research/k6-formats.md §3): their percentiles mean
// nothing as latency.
var notTrend = map[string]string{
	"http_reqs": "counter", "iterations": "counter", "dropped_iterations": "counter",
	"data_sent": "counter", "data_received": "counter", "ws_sessions": "counter",
	"ws_msgs_sent": "counter", "ws_msgs_received": "counter", "grpc_streams": "counter",
	"grpc_streams_msgs_sent": "counter", "grpc_streams_msgs_received": "counter",
	"http_req_failed": "rate", "checks": "rate",
	"vus": "gauge", "vus_max": "gauge",
}

// ErrNoSamples is returned when the input has no sample of the metric.
var ErrNoSamples = errors.New("no samples")

type analysis struct {
	tl          *timeline.Timeline
	p           *perSecond
	opt         Options
	model       Model
	hasHTTP     bool
	vital       *k6metric.WebVital // the metric's web vital, if it is one
	reqsPerIter float64
	res         *Result
	// baseErr is the low-load error rate of the decision levels (judge).
	baseErr float64
	// oneLoad: the levels of the way up are of one load (oneLoad), so
	// the baseline counts no failures (baselineOf).
	oneLoad bool
	// pastPeak: judge is judging the levels after the highest offered
	// load (a ramp down).
	pastPeak bool
	// wideRamp is the longest ramp up, s, that a --ramp-step wider than it
	// left as one step (rampSteps); 0 when none.
	wideRamp int
}

// Analyze computes the knee analysis of a run's Timeline. It returns an
// error wrapping ErrNoSamples when the analysed Trend never occurs, and an
// error when the window is finer than the input's resolution, or when the
// timeline's sealed latency sketches could not be read back
// (timeline.Timeline.Err).
func Analyze(tl *timeline.Timeline, opt Options) (*Result, error) {
	r, err := analyze(tl, opt)
	if err == nil {
		if err = tl.Err(); err != nil {
			return nil, fmt.Errorf("knee: %w", err)
		}
	}
	return r, err
}

func analyze(tl *timeline.Timeline, opt Options) (*Result, error) {
	opt.defaults()
	resolutionNS := tl.ResolutionNS()
	if resolutionNS > 0 && opt.WindowNS < resolutionNS {
		return nil, fmt.Errorf("window %v is finer than the input's time resolution %v: choose --window %v or more",
			time.Duration(opt.WindowNS), time.Duration(resolutionNS), time.Duration(resolutionNS))
	}
	if opt.WindowNS%1e9 != 0 {
		return nil, fmt.Errorf("window %v: want a whole number of seconds (the analysis works on 1 s series)", time.Duration(opt.WindowNS))
	}
	metric := tl.Metric()
	if kind, ok := notTrend[metric]; ok {
		return nil, fmt.Errorf("metric %q is a k6 %s, not a Trend: choose a Trend such as http_req_duration, iteration_duration or a custom Trend", metric, kind)
	}
	if tl.Rows() == 0 {
		return nil, fmt.Errorf("the input has a header but no data rows (%w)", ErrNoSamples)
	}
	if tl.MetricSamples() == 0 {
		return nil, fmt.Errorf("metric %q: %w; %s", metric, ErrNoSamples, trendList(tl))
	}
	a := &analysis{tl: tl, p: dense(tl), opt: opt, hasHTTP: tl.HasRequests()}
	if v, ok := k6metric.WebVitalOf(metric); ok {
		a.vital = &v
	}
	r := &Result{Metric: metric, MetricUnit: k6metric.Unit(metric, opt.MetricContains), WebVital: a.vital, WindowS: float64(opt.WindowNS) / 1e9, Holds: []Level{}, Windows: []Level{}, Warnings: []Warning{}}
	a.res = r
	r.Start, r.End = mainBounds(tl)
	r.ResolutionS = F(float64(resolutionNS) / 1e9)
	r.Overall = a.overall()
	r.PercentileMethod = fmt.Sprintf("k6's definition (linear interpolation between order statistics at q·(n−1)); exact up to %d values per window, beyond that a log-linear histogram with relative error ≤ %.3f %%", sketch.ExactLimit, sketch.RelativeError*100)
	tr := tl.Trend()
	if !tr.OK.Exact() || !tr.All.Exact() {
		r.Overall.Exact = false
	}

	span := float64(tl.EndNS()-tl.StartNS()) / 1e9
	if span < float64(resolutionNS)/1e9 || a.p.n < 2 {
		// The last sample stands for its resolution too: samples of one
		// whole second span 0 s but cover 1 s.
		span += float64(resolutionNS) / 1e9
		r.DurationS = F(span)
		r.Model, r.OfferedUnit = Closed, "VUs"
		r.ModelEvidence = "run too short to tell"
		r.Levels = "none"
		r.NoVerdict = fmt.Sprintf("the run lasts %.3g s, less than two seconds of data at the file's %v resolution: no rates, windows or knee, only whole-run figures", span, time.Duration(resolutionNS))
		r.Warnings = append(r.Warnings, Warning{WarnShortRun, r.NoVerdict})
		return r, nil
	}
	r.DurationS = F(a.p.runSeconds())
	a.detectModel()
	r.Model = a.model
	if a.model == Open {
		r.OfferedUnit = "iterations/s"
	} else {
		r.OfferedUnit = "VUs"
		if opt.UsersPerVU > 0 {
			r.OfferedUnit = "users"
		}
	}
	if opt.UsersPerVU > 0 && a.model == Open {
		r.Warnings = append(r.Warnings, Warning{WarnUsersPerVU, fmt.Sprintf("--users-per-vu %g applies to VU executors (a closed model); this run is open, offered load stays in iterations/s", opt.UsersPerVU)})
	}
	r.CompletedUnit = a.completedUnit()
	r.RequestsPerIteration = F(a.reqsPerIter)
	if spans := tl.Spans(); len(spans) > 1 {
		var maxGap int64
		for i := 1; i < len(spans); i++ {
			maxGap = max(maxGap, spans[i].First-spans[i-1].Last-1)
		}
		m := tl.Main()
		// What lies outside the main span: when, and the analysed Trend's
		// samples in it.
		var total uint64
		for _, sp := range spans {
			total += sp.Samples
		}
		outside := total - m.Samples
		share := 0.0
		if total > 0 {
			share = 100 * float64(outside) / float64(total)
		}
		r.Warnings = append(r.Warnings, Warning{WarnSpans, fmt.Sprintf("the samples fall in %d spans separated by up to %v without any sample (a clock step, a paused generator, several runs in one file or a stray timestamp): the load levels come from the span with the most data, %s to %s (%d s of data), and every offset (+N s) is measured from its start; the %d other span(s) (%s) hold %d of the %d %s samples (%.2g%%), counted only in the whole-run figures. Split the file, or give separate runs as separate files",
			len(spans), time.Duration(maxGap)*time.Second, time.Unix(m.First, 0).UTC().Format(time.RFC3339), time.Unix(m.Last, 0).UTC().Format(time.RFC3339), m.Seconds,
			len(spans)-1, otherSpans(spans, m), outside, total, tl.Metric(), share)})
		if share >= 100*CaveatShare {
			r.Caveat = fmt.Sprintf("the levels, knee and ceiling are of one span of %d (%s to %s); the other %d span(s), after gaps of up to %v, hold %.2g%% of the %s samples, in the whole-run figures only: split the file or give separate runs as separate files",
				len(spans), time.Unix(m.First, 0).UTC().Format(time.RFC3339), time.Unix(m.Last, 0).UTC().Format(time.RFC3339), len(spans)-1, time.Duration(maxGap)*time.Second, share, tl.Metric())
		}
	}
	for _, d := range tl.Duplicates() {
		code := WarnSeparateRuns
		if d.SameRun {
			code = WarnSameRunTwice
		}
		r.Warnings = append(r.Warnings, Warning{code, d.Message})
	}
	if tr.Huge > 0 {
		r.Warnings = append(r.Warnings, Warning{WarnHugeValues, fmt.Sprintf("%d samples of %s exceed a day (%.3g ms at most), longer than any k6 timeout: the file is damaged or the metric is not in ms; they are kept in the figures", tr.Huge, metric, float64(r.Overall.MaxMS))})
	}
	if tr.Negative > 0 {
		r.Warnings = append(r.Warnings, Warning{WarnNegativeValues, fmt.Sprintf("%d samples of %s are negative, which a duration cannot be: the file is damaged or the metric is not a time; they are kept in the figures", tr.Negative, metric)})
	}
	if w := tl.LatencyWidth(); w > 1 {
		r.Warnings = append(r.Warnings, Warning{WarnCoarseLatency, fmt.Sprintf("latency is kept per %d-second slot in this %s run (memory is bounded at %d slots): a level's percentiles count each slot in the level that holds its middle; counts and rates stay per second", w, time.Duration(span*1e9).Round(time.Second), sketch.DefaultSeriesSlots)})
	}
	if tl.Protocol() == outcome.HTTP && !tl.HasExpectedResponse() {
		if tl.UnknownOutcomes() > 0 && tl.FailedRateRows() {
			r.Warnings = append(r.Warnings, Warning{WarnOutcomeFromRate, "no status or expected_response tag on the requests (restricted --system-tags): failures are counted from the http_req_failed rows of each second, and latency percentiles are of all responses"})
		} else if tl.UnknownOutcomes() > 0 {
			r.Warnings = append(r.Warnings, Warning{WarnNoOutcome, "no status, expected_response or http_req_failed to tell failures (restricted --system-tags): every request is counted as a success"})
		} else {
			r.Warnings = append(r.Warnings, Warning{WarnNoExpected, "no expected_response tag (k6 < v0.31 or tag disabled): success is status 1–399"})
		}
	} else if p := tl.Protocol(); p != outcome.HTTP && p != outcome.None && tl.UnknownOutcomes() > 0 {
		r.Warnings = append(r.Warnings, Warning{WarnNoOutcome, fmt.Sprintf("%d %s have no status tag (restricted --system-tags): they are counted as successes, so failures go unseen", tl.UnknownOutcomes(), p.Noun())})
	}

	// The fixed windows and the load levels read the same per-second data
	// and nothing either writes: the windows are built on another core.
	a.markLoneZeros()
	windows := make(chan []Level, 1)
	go func() { windows <- a.windows() }()
	holds, steps := a.findLevels()
	r.Windows = <-windows
	r.Holds, r.RampSteps = holds, steps
	if a.wideRamp > 0 {
		r.Warnings = append(r.Warnings, Warning{WarnFewRampSteps, fmt.Sprintf("--ramp-step %v is longer than the run's ramp of %d s, which is one step: the levels inside it are averaged away; give a --ramp-step well under the ramp, or 0 to cut it into about 20 steps", time.Duration(opt.RampStepNS), a.wideRamp)})
	}
	if r.Holds == nil {
		r.Holds = []Level{}
	}
	levels := wayUp(holds, steps)
	nh, ns := 0, 0
	for _, l := range levels {
		if l.Kind == Hold {
			nh++
		} else {
			ns++
		}
	}
	switch {
	case nh > 0 && ns == 0:
		r.Levels = "holds"
	case nh == 0 && ns > 0:
		r.Levels = "ramp"
	case nh > 0:
		r.Levels = "mixed"
	default:
		r.Levels = "none"
	}
	if len(levels) > 0 && len(levels) < 4 && ns > 0 {
		r.Warnings = append(r.Warnings, Warning{WarnFewRampSteps, fmt.Sprintf("only %d load level(s) on the way up: too few to find a knee reliably; ramp more slowly or longer, or choose a shorter --ramp-step", len(levels))})
	}
	// Every level gets a verdict against the baseline of the way up; the
	// levels past the peak are judged after, in time order.
	a.oneLoad = oneLoad(levels)
	base := a.baselineOf(levels)
	a.judge(levels, base)
	var rest []Level
	up := map[int]Level{}
	for _, l := range levels {
		up[l.i0] = l
	}
	for _, l := range append(slices.Clone(holds), steps...) {
		if _, ok := up[l.i0]; !ok {
			rest = append(rest, l)
		}
	}
	slices.SortStableFunc(rest, func(x, y Level) int { return x.i0 - y.i0 })
	a.pastPeak = true
	a.judge(rest, base)
	a.pastPeak = false
	for _, l := range rest {
		up[l.i0] = l
	}
	for i := range r.Holds {
		r.Holds[i] = up[r.Holds[i].i0]
	}
	for i := range r.RampSteps {
		r.RampSteps[i] = up[r.RampSteps[i].i0]
	}
	if len(levels) < 3 {
		r.inspect = a.fixedSteps()
		a.judge(r.inspect, base)
	}
	if d := min(float64(r.DurationS), float64(a.p.n)); d < MinRunS {
		r.NoVerdict = fmt.Sprintf("the run lasts %.3g s, under %d s: too short to judge a knee, a ceiling or an SLO capacity; run longer", d, MinRunS)
		return r, nil
	}
	r.Knee = a.knee(levels)
	r.Ceiling = a.ceiling(a.pooledSteps(levels, base))
	if opt.SLO != nil {
		r.SLO = a.slo(levels, opt.SLO)
	}
	return r, nil
}

// MinRunS is the shortest main span, in seconds, whose knee, ceiling and
// SLO capacity are judged (Result.NoVerdict; the duration check of
// pkg/checks warns below it too).
const MinRunS = 30

func (a *analysis) overall() Overall {
	tr := a.tl.Trend()
	o := Overall{
		Count: tr.All.Count(), MeanMS: F(tr.All.Mean()), MinMS: F(tr.All.Min()), MaxMS: F(tr.All.Max()),
		P50MS: F(tr.All.Quantile(0.5)), P90MS: F(tr.All.Quantile(0.9)), P95MS: F(tr.All.Quantile(0.95)), P99MS: F(tr.All.Quantile(0.99)),
		OKCount: tr.OK.Count(), OKP95MS: F(tr.OK.Quantile(0.95)), Exact: tr.All.Exact(),
	}
	for _, q := range a.opt.Percentiles {
		if q != 50 && q != 90 && q != 95 && q != 99 {
			o.Percentiles = make(map[string]F, len(a.opt.Percentiles))
			for _, q := range a.opt.Percentiles {
				o.Percentiles[PercentileName(q)] = F(tr.All.Quantile(q / 100))
			}
			break
		}
	}
	// Every second with data counts, in every span; but requests per
	// iteration, which turn the levels' offered iterations into requests,
	// are the main span's own: another run in the file with another
	// script must not move this one's levels.
	var reqs, ok, iters, dropped, mainReqs, mainIters float64
	m := a.tl.Main()
	maxV := math.NaN()
	a.tl.Each(func(sec int64, s *timeline.Second) {
		reqs += float64(s.Requests)
		ok += float64(s.OK)
		iters += float64(s.Iterations)
		dropped += float64(s.Dropped)
		if sec >= m.First && sec <= m.Last {
			mainReqs += float64(s.Requests)
			mainIters += float64(s.Iterations)
		}
		if s.HasVUs && !(s.VUs <= maxV) {
			maxV = s.VUs
		}
	})
	o.Requests, o.Failed = uint64(reqs), uint64(reqs-ok)
	o.Iterations, o.Dropped = uint64(iters), uint64(dropped)
	o.ErrorRate = F(math.NaN())
	if reqs > 0 {
		o.ErrorRate = F((reqs - ok) / reqs)
	}
	o.RPS = F(math.NaN())
	if n := a.p.dataSeconds(); n >= 2 {
		o.RPS = F(reqs / a.p.runSeconds())
	}
	o.MaxVUs = F(maxV)
	if mainIters > 0 && mainReqs > 0 {
		a.reqsPerIter = mainReqs / mainIters
	} else {
		a.reqsPerIter = 1
	}
	return o
}

// detectModel tells open from closed. Arrival-rate executors are the only
// ones that emit dropped_iterations while running, and the only ones whose
// vus_max grows during the run (they allocate VUs up to maxVUs as their
// schedule needs them; VU executors initialise every VU of their largest
// stage before the start); VU executors drive the vus gauge up to vus_max
// (constant-vus has vus = vus_max), while an arrival-rate executor's vus
// counts busy VUs, which stay below the allocated vus_max unless it runs
// out of them.
func (a *analysis) detectModel() {
	p := a.p
	var dropped, maxV, maxM float64
	firstM := math.NaN()
	for i := range p.n {
		dropped += p.dropped.at(i)
		maxV = math.Max(maxV, p.vus.at(i))
		m := p.vusMax.at(i)
		maxM = math.Max(maxM, m)
		if math.IsNaN(firstM) && m > 0 {
			firstM = m
		}
	}
	switch {
	case dropped > 0:
		a.model = Open
		a.res.ModelEvidence = fmt.Sprintf("%.0f dropped_iterations: only arrival-rate executors drop iterations", dropped)
	case a.opt.SharedGauges && p.hasVUs:
		// vus_max counts every scenario's VUs from the start; vus counts
		// the running ones. A VU executor's vus follows its schedule,
		// changing direction only between stages; an arrival-rate
		// executor's vus counts busy VUs and turns with every second's
		// noise.
		changes, turns := vugauge.Turns(p.vus.slice(p.n))
		if vugauge.FollowsSchedule(changes, turns) {
			a.model = Closed
			a.res.ModelEvidence = fmt.Sprintf("vus changed direction %d times in %d changes, following a schedule as VU executors do (beside other scenarios, vus_max is theirs too)", turns, changes)
		} else {
			a.model = Open
			a.res.ModelEvidence = fmt.Sprintf("vus changed direction %d times in %d changes, as the busy VUs of an arrival-rate executor do (beside other scenarios, vus_max is theirs too)", turns, changes)
		}
	case !math.IsNaN(firstM) && maxM > firstM+math.Max(1, 0.02*firstM):
		// VU executors initialise all their VUs before the test starts;
		// arrival-rate executors add VUs (up to maxVUs) as they need them.
		a.model = Open
		a.res.ModelEvidence = fmt.Sprintf("vus_max grew from %.0f to %.0f during the run: an arrival-rate executor allocating VUs as its schedule needed them", firstM, maxM)
	case !p.hasVUs:
		a.model = Closed
		a.res.ModelEvidence = "no vus gauge in the input; assumed closed"
		a.res.Warnings = append(a.res.Warnings, Warning{WarnNoVUs, "no vus samples: the workload model could not be detected and is assumed closed"})
	case maxM > 0 && maxV >= 0.95*maxM:
		// An arrival-rate executor that used up its allocated VUs reaches
		// vus_max too (and allocates more, maxVUs allowing): its busy VUs
		// still turn with every second's noise, where a VU executor's
		// follow the schedule.
		if changes, turns := vugauge.Turns(p.vus.slice(p.n)); changes >= vugauge.MinScheduleChanges && !vugauge.FollowsSchedule(changes, turns) {
			a.model = Open
			a.res.ModelEvidence = fmt.Sprintf("vus reached vus_max (%.0f of %.0f) but changed direction %d times in %d changes, as the busy VUs of an arrival-rate executor that used up its allocated VUs do (a VU executor's follow its schedule)", maxV, maxM, turns, changes)
			return
		}
		a.model = Closed
		a.res.ModelEvidence = fmt.Sprintf("vus reached vus_max (%.0f of %.0f), as VU executors do", maxV, maxM)
	default:
		// vus stayed below vus_max and nothing was dropped: an
		// arrival-rate executor with spare VUs, or a VU executor stopped
		// (aborted, cut, --duration) before its largest stage. The first's
		// busy VUs turn with every second's noise; the second's follow the
		// schedule, turning only between stages. Too few changes to tell
		// keep the arrival-rate reading.
		if changes, turns := vugauge.Turns(p.vus.slice(p.n)); changes >= vugauge.MinScheduleChanges && vugauge.FollowsSchedule(changes, turns) {
			a.model = Closed
			a.res.ModelEvidence = fmt.Sprintf("vus peaked at %.0f of %.0f allocated, no iteration was dropped, and vus changed direction %d times in %d changes, following a schedule: a VU executor stopped before its largest stage", maxV, maxM, turns, changes)
			return
		}
		a.model = Open
		a.res.ModelEvidence = fmt.Sprintf("vus (busy VUs) peaked at %.0f of %.0f allocated and no iteration was dropped: an arrival-rate executor with spare VUs", maxV, maxM)
	}
}

// offeredSeries is the per-second offered load used to find holds.
func (a *analysis) offeredSeries() []float64 {
	p := a.p
	x := make([]float64, p.n)
	for i := range x {
		if a.model == Closed {
			x[i] = p.vus.at(i)
			continue
		}
		growth := 0.0
		if p.hasVUs && i > 0 {
			growth = p.vus.at(i) - p.vus.at(i-1)
		}
		x[i] = p.iterations.at(i) + p.dropped.at(i) + growth
	}
	// A second without any sample is unknown, not a second of zero load:
	// it carries the load before it, so that a short gap does not cut a
	// hold in two.
	for i := range x {
		if p.missing != nil && p.missing[i] && i > 0 {
			x[i] = x[i-1]
		}
	}
	return x
}

// windows aggregates epoch-aligned windows of WindowNS; the first and last
// are partial when the run does not start or end on a boundary, and their
// rates are per second of data.
func (a *analysis) windows() []Level {
	w := a.opt.WindowNS / 1e9
	n := int64(a.p.n)
	var out []Level
	var lat sketch.Sketch // each window's latency, in turn
	first := a.p.start - mod(a.p.start, w)
	for ws := first; ws < a.p.start+n; ws += w {
		i0 := max(0, ws-a.p.start)
		i1 := min(n, ws+w-a.p.start)
		l := a.aggregateInto(int(i0), int(i1), a.opt.Percentiles, &lat)
		l.lat = nil // windows are never levels: keep no sketch per window
		l.Start = time.Unix(ws, 0).UTC()
		l.End = time.Unix(ws+w, 0).UTC()
		out = append(out, l)
	}
	return out
}

// loadLevel tells whether l can be judged as a load level: with HTTP
// requests in the run, a level that sent none (VUs asleep, a script's
// setup) says nothing of the system.
func (a *analysis) loadLevel(l *Level) bool {
	return !a.hasHTTP || float64(l.RequestsRPS) > 0
}

func mod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

func trimFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// DecisionLevels are the load levels the knee, the ceiling and the SLO
// capacity were decided on: the ramp steps of a continuous ramp, else the
// holds; none for a run too short to have levels. Every consumer of a
// Result (checks, report, attribution, compare, cost, queue, scale) reads
// the levels through it or PeakLevel.
func (r *Result) DecisionLevels() []Level {
	if r.Levels == "none" || r.Levels == "" {
		return nil
	}
	return wayUp(r.Holds, r.RampSteps)
}

// InspectedLevels are the levels the per-level validity checks look at:
// DecisionLevels, except that a run with fewer than three levels on its
// way up (a steady run, whose one or two holds average away what changed
// within them) is looked at in fixed steps of --ramp-step (default 10 s)
// across its span.
func (r *Result) InspectedLevels() []Level {
	if len(r.inspect) > 0 {
		return r.inspect
	}
	return r.DecisionLevels()
}

// PeakLevel returns the decision level with the highest goodput
// (completed_rps) and true, or false when no level has a completed rate.
// A run without decision levels falls back to its holds, then its ramp
// steps.
func (r *Result) PeakLevel() (Level, bool) {
	levels := r.DecisionLevels()
	if len(levels) == 0 {
		levels = r.Holds
	}
	if len(levels) == 0 {
		levels = r.RampSteps
	}
	peak := -1
	for i, l := range levels {
		if l.CompletedRPS.Valid() && (peak < 0 || l.CompletedRPS > levels[peak].CompletedRPS) {
			peak = i
		}
	}
	if peak < 0 {
		return Level{}, false
	}
	return levels[peak], true
}

// LevelNoun names a decision level for people: "hold" or "ramp step".
func (r *Result) LevelNoun() string {
	if r.Levels == "ramp" {
		return "ramp step"
	}
	return "hold"
}

// mainBounds returns Result.Start and End: the first and last samples of
// the run, or of its main span when gaps split it (at the main span's
// first and last second where other spans lie before and after it).
func mainBounds(tl *timeline.Timeline) (start, end time.Time) {
	start, end = time.Unix(0, tl.StartNS()).UTC(), time.Unix(0, tl.EndNS()).UTC()
	spans := tl.Spans()
	if len(spans) < 2 {
		return start, end
	}
	m := tl.Main()
	if spans[0] != m {
		start = time.Unix(m.First, 0).UTC()
	}
	if spans[len(spans)-1] != m {
		end = time.Unix(m.Last, 0).UTC()
	}
	return start, end
}

// otherSpans names the spans other than the main span m, each by when it
// was and how far from m: "1 s of data at 2001-09-09T01:46:40Z,
// 796004429 s before the main span" (the first three, then how many more).
func otherSpans(spans []timeline.Span, m timeline.Span) string {
	const most = 3
	var parts []string
	n := 0
	for _, sp := range spans {
		if sp == m {
			continue
		}
		if n++; n > most {
			continue
		}
		at := "at " + time.Unix(sp.First, 0).UTC().Format(time.RFC3339)
		if sp.Last != sp.First {
			at = "from " + time.Unix(sp.First, 0).UTC().Format(time.RFC3339) + " to " + time.Unix(sp.Last, 0).UTC().Format(time.RFC3339)
		}
		where := fmt.Sprintf("%d s before the main span", m.First-sp.Last)
		if sp.First > m.Last {
			where = fmt.Sprintf("%d s after the main span", sp.First-m.Last)
		}
		parts = append(parts, fmt.Sprintf("%d s of data %s, %s", sp.Seconds, at, where))
	}
	if n > most {
		parts = append(parts, fmt.Sprintf("and %d more", n-most))
	}
	return strings.Join(parts, "; ")
}
