package checks

import (
	"encoding/json"
	"github.com/ldanalyze/ldanalyze/pkg/threshold"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
)

// keys are the tag columns of the synthetic samples.
var keys = []string{"status", "name", "expected_response", "check", "error_code"}

// run is a synthetic k6 sample stream, built second by second.
type run struct{ samples []ingest.Sample }

const t0 = 1_800_000_000 // unix s of the synthetic runs' first second

func (r *run) add(metric string, sec int, v float64, kv ...string) {
	vals := make([]string, len(keys))
	for i := 0; i+1 < len(kv); i += 2 {
		for j, k := range keys {
			if k == kv[i] {
				vals[j] = kv[i+1]
			}
		}
	}
	r.samples = append(r.samples, ingest.Sample{Metric: metric, TimeNS: int64(t0+sec) * 1e9, Value: v,
		Tags: ingest.NewTags(keys, vals, "", ""), Source: "synthetic"})
}

// req adds one HTTP request with its k6 samples: http_reqs, the latency,
// http_req_failed and a check on the status (k6-formats.md §3, §4).
func (r *run) req(sec int, status, name string, ms float64) {
	ok := status >= "100" && status < "400" && status != "0"
	exp, code := "true", ""
	if !ok {
		exp = "false"
		code = "1050"
		if status != "0" {
			code = "1" + status
		}
	}
	tags := []string{"status", status, "name", name, "expected_response", exp, "error_code", code}
	r.add("http_reqs", sec, 1, tags...)
	r.add("http_req_duration", sec, ms, tags...)
	r.add("http_req_failed", sec, map[bool]float64{true: 0, false: 1}[ok], tags...)
	r.add("checks", sec, map[bool]float64{true: 1, false: 0}[ok], "check", "status is 200")
}

func (r *run) iter(sec int, ms float64) {
	r.add("iterations", sec, 1)
	r.add("iteration_duration", sec, ms)
}

func (r *run) gauges(sec int, vus, vusMax float64) {
	r.add("vus", sec, vus)
	r.add("vus_max", sec, vusMax)
}

// evaluate feeds the stream to a timeline, as `ldanalyze check` does, with
// the thresholds thr.
func (r *run) evaluate(t *testing.T, opt Options, thr ...threshold.Threshold) *Report {
	t.Helper()
	acc := timeline.New(timeline.Options{Metric: "http_req_duration", Thresholds: thr})
	for i := range r.samples {
		acc.Add(&r.samples[i])
	}
	tl := acc.Close(1e9)
	res, err := knee.Analyze(tl, knee.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep := Evaluate(tl, res, opt)
	if err := tl.Err(); err != nil {
		t.Fatal(err)
	}
	return rep
}

// openRun is an open-model run: rate iterations per second for secs
// seconds, one 200 request of 20 ms per iteration, iterations of 25 ms,
// vus 1 of vus_max 5 (busy VUs of an arrival-rate executor).
func openRun(rate, secs int) *run {
	r := &run{}
	for s := range secs {
		r.gauges(s, 1, 5)
		for range rate {
			r.req(s, "200", "menu", 20)
			r.iter(s, 25)
		}
	}
	return r
}

func get(t *testing.T, rep *Report, id ID) *Check {
	t.Helper()
	c := rep.Find(id)
	if c == nil {
		t.Fatalf("no check %q", id)
	}
	return c
}

func ev(t *testing.T, c *Check, name string) float64 {
	t.Helper()
	v, ok := c.Evidence.Get(name)
	if !ok {
		t.Fatalf("%s: no evidence %q in %v", c.ID, name, c.Evidence)
	}
	return v
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestHealthyRun: 20 it/s for 60 s, every request 200, every check passes,
// no drops, vus 1 of 5. Every check is ok except generator (no data: n/a).
func TestHealthyRun(t *testing.T) {
	rep := openRun(20, 60).evaluate(t, Options{})
	want := map[ID]Status{
		IDModel: OK, IDDuration: OK, IDResolution: OK, IDCoordinatedOmission: OK, IDDroppedIterations: OK,
		IDChecks: OK, IDErrors: OK, IDRateLimited: OK, IDSummaryVsKnee: OK, IDGenerator: NA, IDCardinality: OK,
		IDBacklog: OK, IDThresholds: NA, IDInput: NA,
	}
	if len(rep.Checks) != len(want) || len(IDs) != len(want) {
		t.Errorf("%d checks, %d IDs, want %d", len(rep.Checks), len(IDs), len(want))
	}
	for i, c := range rep.Checks {
		if i < len(IDs) && c.ID != IDs[i] {
			t.Errorf("check %d is %s, want %s (IDs is the report order)", i, c.ID, IDs[i])
		}
		if c.Status != want[c.ID] {
			t.Errorf("%s: status %s, want %s (%s)", c.ID, c.Status, want[c.ID], c.Message)
		}
		if c.Message == "" {
			t.Errorf("%s: no message", c.ID)
		}
	}
	if rep.Failed() {
		t.Error("Failed() on a healthy run")
	}
	m := get(t, rep, IDModel)
	// vus peaked at 1 of vus_max 5 with no drops: open (knee.detectModel).
	if ev(t, m, "closed") != 0 {
		t.Errorf("model: closed, want open")
	}
	d := get(t, rep, IDDuration)
	// 60 seconds × 20 iterations = 1200.
	if ev(t, d, "duration_s") != 60 || ev(t, d, "iterations") != 1200 {
		t.Errorf("duration evidence %v", d.Evidence)
	}
	ch := get(t, rep, IDChecks)
	if ev(t, ch, "checks") != 1200 || ev(t, ch, "pass_ratio") != 1 {
		t.Errorf("checks evidence %v", ch.Evidence)
	}
	// 1 metric name each: http_reqs, http_req_duration, http_req_failed,
	// checks, iterations, iteration_duration, vus, vus_max = 8; one
	// request name.
	card := get(t, rep, IDCardinality)
	if ev(t, card, "metrics") != 8 || ev(t, card, "request_names") != 1 {
		t.Errorf("cardinality evidence %v", card.Evidence)
	}
}

// TestDropped: the healthy run plus dropped iterations at +40 s (1) and
// +41 s (2): 3 dropped of 1203 offered = 0.249 % < 1 % → warn; 30 dropped
// (15 at +40 s, 15 at +41 s) of 1230 = 2.44 % → fail.
func TestDropped(t *testing.T) {
	r := openRun(20, 60)
	r.add("dropped_iterations", 40, 1)
	r.add("dropped_iterations", 41, 1)
	r.add("dropped_iterations", 41, 1)
	c := get(t, r.evaluate(t, Options{}), IDDroppedIterations)
	if c.Status != Warn {
		t.Errorf("status %s, want warn", c.Status)
	}
	for name, want := range map[string]float64{"dropped_iterations": 3, "first_dropped_s": 40, "last_dropped_s": 41, "peak_dropped_per_s": 2, "seconds_with_drops": 2} {
		if got := ev(t, c, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if got := ev(t, c, "dropped_share"); !near(got, 3.0/1203, 1e-12) {
		t.Errorf("dropped_share = %v, want 3/1203", got)
	}
	r = openRun(20, 60)
	for range 15 {
		r.add("dropped_iterations", 40, 1)
		r.add("dropped_iterations", 41, 1)
	}
	if c := get(t, r.evaluate(t, Options{}), IDDroppedIterations); c.Status != Fail {
		t.Errorf("30 of 1230 dropped: status %s, want fail", c.Status)
	}
}

// TestErrorsAndLimiter: the healthy run with 5 requests that timed out
// (status 0, error_code 1050) at +30 s and 3 of status 429 on "search" at
// +50 s. Requests 1208, failed 8: 0.66 % < 1 %; worst 10 s window: 5 of
// 205 = 2.4 % < 5 % → errors warn. 429 share 3/1208 = 0.25 % < 5 % →
// rate-limited warn. Checks: 8 of 1208 failed → fail.
func TestErrorsAndLimiter(t *testing.T) {
	r := openRun(20, 60)
	for range 5 {
		r.req(30, "0", "slow", 500)
	}
	for range 3 {
		r.req(50, "429", "search", 200)
	}
	rep := r.evaluate(t, Options{})
	e := get(t, rep, IDErrors)
	if e.Status != Warn {
		t.Errorf("errors: %s, want warn (%s)", e.Status, e.Message)
	}
	for name, want := range map[string]float64{
		"requests": 1208, "failed": 8, "transport_errors": 5, "http_errors": 3, "timeouts": 5,
		"status_0": 5, "status_429": 3, "status_429{name:search}": 3, "error_code_1429": 3, "first_error_s": 30,
		"peak_window_start_s": 30, "p95_ms_ok": 20,
	} {
		if got := ev(t, e, name); got != want {
			t.Errorf("errors %s = %v, want %v", name, got, want)
		}
	}
	if got := ev(t, e, "peak_window_error_rate"); !near(got, 5.0/205, 1e-12) {
		t.Errorf("peak_window_error_rate = %v, want 5/205", got)
	}
	l := get(t, rep, IDRateLimited)
	if l.Status != Warn || ev(t, l, "status_429") != 3 || ev(t, l, "first_429_s") != 50 || ev(t, l, "limited_p50_ms") != 200 {
		t.Errorf("rate-limited: %s %v", l.Status, l.Evidence)
	}
	c := get(t, rep, IDChecks)
	if c.Status != Fail || ev(t, c, "failed") != 8 || ev(t, c, "first_fail_s") != 30 {
		t.Errorf("checks: %s %v", c.Status, c.Evidence)
	}
	if !rep.Failed() {
		t.Error("Failed() false with a failed check")
	}
}

// TestCoordinatedOmission: a closed model, 10 VUs for 30 s then 40 VUs for
// 30 s (vus_max 40). At 10 VUs an iteration takes 1000 ms, so 10 complete
// per second; at 40 VUs the system is slow, an iteration takes 2000 ms and
// 20 complete per second. The run has two holds, so the knee cuts it into
// six 10 s ramp steps. At the low-load pacing of 1000 ms each 40-VU step
// would have completed 40·10/1 = 400 iterations but completed 200: 3 × 200
// = 600 omitted; sent 3·100 + 3·200 = 900; share 600/1500 = 0.4; growth
// 2000/1000 = 2 → warn.
func TestCoordinatedOmission(t *testing.T) {
	r := &run{}
	for s := range 60 {
		vus, n, ms := 10.0, 10, 1000.0
		if s >= 30 {
			vus, n, ms = 40, 20, 2000
		}
		r.gauges(s, vus, 40)
		for range n {
			r.iter(s, ms)
			r.req(s, "200", "menu", ms-990)
		}
	}
	rep := r.evaluate(t, Options{})
	if m := get(t, rep, IDModel); ev(t, m, "closed") != 1 {
		t.Fatalf("model %v, want closed", m.Evidence)
	}
	c := get(t, rep, IDCoordinatedOmission)
	if c.Status != Warn {
		t.Errorf("status %s, want warn (%s)", c.Status, c.Message)
	}
	for name, want := range map[string]float64{"pacing_ms": 1000, "slowest_iteration_ms": 2000, "iteration_growth": 2,
		"iterations_sent": 900, "iterations_omitted": 600, "requests_omitted": 600, "omitted_share": 0.4} {
		if got := ev(t, c, name); !near(got, want, 1e-9) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}

	// The same closed run without the slowdown: 40 VUs complete 40 per
	// second at 1000 ms. Nothing omitted → ok.
	r = &run{}
	for s := range 60 {
		vus := 10
		if s >= 30 {
			vus = 40
		}
		r.gauges(s, float64(vus), 40)
		for range vus {
			r.iter(s, 1000)
			r.req(s, "200", "menu", 10)
		}
	}
	if c := get(t, r.evaluate(t, Options{}), IDCoordinatedOmission); c.Status != OK || ev(t, c, "iterations_omitted") != 0 {
		t.Errorf("steady pacing: %s %v", c.Status, c.Evidence)
	}
}

// TestSummaryVsKneeThreshold: three holds of 20 s at 20, 40 and 60 it/s;
// at 60 it/s 4 requests a second fail (status 503), 4/60 = 6.67 %. Whole
// run: 80 failed of 2400 = 3.33 % < 5 %, so "http_req_failed:rate<0.05"
// passes on the summary but fails the 60 it/s hold → fail. Without
// thresholds, the worst level's 6.67 % is only 3.33 points above the run's
// 3.33 % (< HiddenErrorGap) → ok.
func TestSummaryVsKneeThreshold(t *testing.T) {
	r := &run{}
	for s := range 60 {
		rate := 20 * (s/20 + 1)
		r.gauges(s, 1, 5)
		for i := range rate {
			st := "200"
			if rate == 60 && i < 4 {
				st = "503"
			}
			r.req(s, st, "order", 20)
			r.iter(s, 25)
		}
	}
	th, err := threshold.Parse("http_req_failed:rate<0.05")
	if err != nil {
		t.Fatal(err)
	}
	c := get(t, r.evaluate(t, Options{}, th), IDSummaryVsKnee)
	if c.Status != Fail {
		t.Errorf("with threshold: %s, want fail (%s)", c.Status, c.Message)
	}
	if got := ev(t, c, "threshold_1_run"); !near(got, 80.0/2400, 1e-12) {
		t.Errorf("threshold_1_run = %v, want 80/2400", got)
	}
	if ev(t, c, "threshold_1_failed_levels") < 1 || !near(ev(t, c, "threshold_1_first_failed_offered"), 60, 1) {
		t.Errorf("levels: %v", c.Evidence)
	}
	if c := get(t, r.evaluate(t, Options{}), IDSummaryVsKnee); c.Status != OK {
		t.Errorf("without threshold: %s, want ok (%s)", c.Status, c.Message)
	}
}

func TestEvidenceJSON(t *testing.T) {
	e := Evidence{{"b", 2}, {"a", math.NaN()}, {"c{name:x}", 0.5}}
	b, err := json.Marshal(Check{ID: "x", Status: OK, Evidence: e, Message: "m"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"x","status":"ok","evidence":{"b":2,"a":null,"c{name:x}":0.5},"message":"m"}`
	if string(b) != want {
		t.Errorf("got %s\nwant %s", b, want)
	}
}

// corpus runs the checks on a file of shared/corpus/k6 (skipped if absent).
func corpus(t *testing.T, name string) *Report {
	t.Helper()
	path := filepath.Join("..", "..", "..", "shared", "corpus", "k6", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("corpus file %s not present", path)
	}
	r, err := ingest.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	acc := timeline.New(timeline.Options{Metric: "http_req_duration"})
	for r.Next() {
		acc.Add(r.Sample())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	tl := acc.Close(r.Stats().ResolutionNS)
	res, err := knee.Analyze(tl, knee.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return Evaluate(tl, res, Options{})
}

// Expected numbers come from shared/corpus/k6/README.md (what an analyst
// should find), computed there from the files; counts are exact.
func TestCorpusClosedRamp(t *testing.T) {
	rep := corpus(t, "closed_ramp.csv")
	if c := get(t, rep, IDModel); c.Status != OK || ev(t, c, "closed") != 1 {
		t.Errorf("model: %s %v", c.Status, c.Evidence)
	}
	// README: 823 429s, all on /search (name search), error_code 1429,
	// starting at about 90 VUs (t ≈ 60–70 s); 13,326 requests.
	e := get(t, rep, IDErrors)
	if ev(t, e, "requests") != 13326 || ev(t, e, "status_429{name:search}") != 823 || ev(t, e, "error_code_1429") != 823 || ev(t, e, "transport_errors") != 0 {
		t.Errorf("errors: %v", e.Evidence)
	}
	l := get(t, rep, IDRateLimited)
	if l.Status != Fail && l.Status != Warn {
		t.Errorf("rate-limited: %s", l.Status)
	}
	if first := ev(t, l, "first_429_s"); first < 55 || first > 75 {
		t.Errorf("first_429_s = %v, want 55..75 (README: 429s start in the 60–70 s window)", first)
	}
	// Coordinated omission: sleep(1) + three requests of ~11 ms at low
	// load gives a pacing near 1.04 s; 119 VUs completed ~55 journeys/s
	// (README ceiling), so about half of what low-load pacing would give
	// at the top; omissions must be a substantial share.
	co := get(t, rep, IDCoordinatedOmission)
	if co.Status != Warn {
		t.Errorf("coordinated-omission: %s (%s)", co.Status, co.Message)
	}
	if p := ev(t, co, "pacing_ms"); p < 1020 || p > 1080 {
		t.Errorf("pacing_ms = %v, want 1020..1080 (1 s sleep + ~3×11 ms)", p)
	}
	if s := ev(t, co, "omitted_share"); s < 0.1 || s > 0.5 {
		t.Errorf("omitted_share = %v, want 0.1..0.5", s)
	}
	if got := ev(t, get(t, rep, IDChecks), "failed"); got != 823 {
		t.Errorf("failed checks = %v, want 823 (one per 429)", got)
	}
	if c := get(t, rep, IDDroppedIterations); c.Status != OK {
		t.Errorf("dropped-iterations: %s", c.Status)
	}
}

func TestCorpusOpenRamp(t *testing.T) {
	rep := corpus(t, "open_ramp.csv.gz")
	if c := get(t, rep, IDModel); ev(t, c, "closed") != 0 {
		t.Errorf("model: %v, want open", c.Evidence)
	}
	// README: 68 dropped iterations in total, from the knee (t ≈ 48–53 s)
	// through the 320 it/s hold (ends t = 110 s); 25,032 iterations.
	d := get(t, rep, IDDroppedIterations)
	if d.Status != Warn && d.Status != Fail {
		t.Errorf("dropped-iterations: %s", d.Status)
	}
	if ev(t, d, "dropped_iterations") != 68 || !near(ev(t, d, "dropped_share"), 68.0/(25032+68), 1e-12) {
		t.Errorf("dropped: %v", d.Evidence)
	}
	if f, l := ev(t, d, "first_dropped_s"), ev(t, d, "last_dropped_s"); f < 45 || f > 60 || l < 90 || l > 112 {
		t.Errorf("dropped from +%v s to +%v s, want first 45..60, last 90..112", f, l)
	}
	if !strings.Contains(d.Message, "68 iterations") {
		t.Errorf("message %q does not give the count", d.Message)
	}
	// README: no transport errors or timeouts; 429 on /search, 503 on
	// /order; http_req_failed 20.1 %.
	e := get(t, rep, IDErrors)
	if ev(t, e, "transport_errors") != 0 || ev(t, e, "timeouts") != 0 || !near(ev(t, e, "error_rate"), 0.201, 0.001) {
		t.Errorf("errors: %v", e.Evidence)
	}
	if c := get(t, rep, IDCoordinatedOmission); c.Status != OK {
		t.Errorf("coordinated-omission in an open model: %s", c.Status)
	}
}

func TestCorpusBreakpoint(t *testing.T) {
	rep := corpus(t, "breakpoint.csv.gz")
	// README: the run breaks at 200 it/s; errors up to ~30 % at the top
	// steps while the whole-run rate is 14.2 %.
	s := get(t, rep, IDSummaryVsKnee)
	if s.Status != Warn && s.Status != Fail {
		t.Errorf("summary-vs-knee: %s (%s)", s.Status, s.Message)
	}
	if !near(ev(t, s, "run_error_rate"), 3298.0/23232, 1e-9) || ev(t, s, "worst_level_error_rate") < 0.25 {
		t.Errorf("summary-vs-knee: %v", s.Evidence)
	}
	// README: 47 dropped iterations, 3,298 failed requests.
	if got := ev(t, get(t, rep, IDDroppedIterations), "dropped_iterations"); got != 47 {
		t.Errorf("dropped = %v, want 47", got)
	}
	if got := ev(t, get(t, rep, IDErrors), "failed"); got != 3298 {
		t.Errorf("failed = %v, want 3298", got)
	}
}

// TestWorstWindowIgnoresStraySample: the run's last window holds 3 s of
// data (a 53-s run, 10-s windows) with 6 failures in 66 requests: too
// little to be the worst window, which is +30 s at 5 of 205 — also when a
// stray line an hour later makes that window no longer the file's last.
func TestWorstWindowIgnoresStraySample(t *testing.T) {
	for _, stray := range []bool{false, true} {
		r := openRun(20, 53)
		for range 5 {
			r.req(30, "0", "slow", 500)
		}
		for range 6 {
			r.req(51, "503", "slow", 5)
		}
		if stray {
			r.req(3600, "200", "slow", 5)
		}
		e := get(t, r.evaluate(t, Options{}), IDErrors)
		if got := ev(t, e, "peak_window_error_rate"); !near(got, 5.0/205, 1e-12) || ev(t, e, "peak_window_start_s") != 30 {
			t.Errorf("stray %v: peak window %v at %v, want 5/205 at 30", stray, got, ev(t, e, "peak_window_start_s"))
		}
	}
}

// TestBacklogWSFanout: the WebSocket fan-out of testdata/k6-v2 (README
// there) drains its backlog after the 16-class hold: 444 fanout_ms samples
// from +127 s on (counted with awk on the CSV: timestamp ≥ first + 127),
// up to 11,897 ms, against a median of 191 ms in the hold. The HTTP runs,
// whose latency after their top level is that level's, are not flagged.
func TestBacklogWSFanout(t *testing.T) {
	rep := fileReport(t, filepath.Join("..", "..", "testdata", "k6-v2", "ws_fanout.csv.gz"), "fanout_ms")
	c := get(t, rep, IDBacklog)
	if c.Status != Warn || ev(t, c, "after_samples") != 444 || ev(t, c, "after_max_ms") != 11897 || ev(t, c, "load_end_s") != 127 {
		t.Errorf("backlog %s %v: %s", c.Status, c.Evidence, c.Message)
	}
	if p50 := ev(t, c, "after_p50_ms"); p50 < 3*ev(t, c, "top_level_p50_ms") {
		t.Errorf("after p50 %v not above 3× the hold's", p50)
	}
	for _, name := range []string{"open_ramp.csv.gz", "breakpoint.csv.gz"} {
		rep := fileReport(t, filepath.Join("..", "..", "testdata", "k6", name), "")
		if c := get(t, rep, IDBacklog); c.Status != OK {
			t.Errorf("%s: backlog %s: %s", name, c.Status, c.Message)
		}
	}
}

// fileReport evaluates the checks of a k6 file as the pipeline does.
func fileReport(t *testing.T, path, metric string) *Report {
	t.Helper()
	r, err := ingest.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	acc := timeline.New(timeline.Options{Metric: metric})
	for r.Next() {
		acc.Add(r.Sample())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	tl := acc.Close(r.Stats().ResolutionNS)
	res, err := knee.Analyze(tl, knee.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return Evaluate(tl, res, Options{})
}

// TestPastKnee: a step test taken beyond capacity (breakpoint: 3,298
// failures, all from the 199 it/s step on, none below) warns of its
// errors, 429s and failed k6 checks instead of failing; the gRPC ramp,
// whose 5 % NotFound is there at every load, still fails its errors.
func TestPastKnee(t *testing.T) {
	bp := fileReport(t, filepath.Join("..", "..", "testdata", "k6", "breakpoint.csv.gz"), "")
	for _, id := range []ID{IDErrors, IDRateLimited, IDChecks} {
		c := get(t, bp, id)
		if c.Status != Warn || !strings.Contains(c.Message, "They came past the knee") {
			t.Errorf("breakpoint %s: %s: %s", id, c.Status, c.Message)
		}
	}
	if from := ev(t, get(t, bp, IDErrors), "past_knee_from_s"); from != 73 {
		t.Errorf("breakpoint: past the knee from +%v s, want +73 (the 199 it/s hold)", from)
	}
	grpc := fileReport(t, filepath.Join("..", "..", "testdata", "k6-v2", "grpc_ramp.csv.gz"), "")
	if c := get(t, grpc, IDErrors); c.Status != Fail || strings.Contains(c.Message, "past the knee") {
		t.Errorf("grpc errors: %s: %s", c.Status, c.Message)
	}
}

// TestNegativeVUs: vus samples below zero are damage the input check
// counts (3 here) and warns of; a clean run's input check stays ok
// (timeline's TestNegativeVUs checks they are left out of the gauge).
func TestNegativeVUs(t *testing.T) {
	r := openRun(20, 60)
	for _, s := range []int{10, 20, 30} {
		r.add("vus", s, -7)
	}
	rep := r.evaluate(t, Options{Input: Input{Rows: int64(len(r.samples)), Set: true}})
	in := get(t, rep, IDInput)
	if in.Status != Warn || ev(t, in, "negative_vus_samples") != 3 || !strings.Contains(in.Message, "3 vus/vus_max samples are negative") {
		t.Errorf("input check: %s %q %v", in.Status, in.Message, in.Evidence)
	}
	clean := openRun(20, 60).evaluate(t, Options{Input: Input{Rows: 1, Set: true}})
	if c := get(t, clean, IDInput); c.Status != OK {
		t.Errorf("clean run: input %s %q", c.Status, c.Message)
	}
}

// TestCorruptInput: a compressed file whose checksum failed was read to
// its end with damaged bytes: the input check fails, saying its data is
// damaged, not that it "ended early" (which a cut file did, and warns).
// More malformed lines than samples read fails too; as many or fewer warn.
func TestCorruptInput(t *testing.T) {
	r := openRun(20, 60)
	rep := r.evaluate(t, Options{Input: Input{Rows: int64(len(r.samples)), Truncated: true, Corrupt: true, Set: true}})
	in := get(t, rep, IDInput)
	if in.Status != Fail || !strings.Contains(in.Message, "checksum") || strings.Contains(in.Message, "ended early") {
		t.Errorf("corrupt input: %s %q; want fail", in.Status, in.Message)
	}
	// More malformed lines than samples fails; fewer warns.
	n := int64(len(r.samples))
	for _, tc := range []struct {
		skipped int64
		want    Status
	}{{n + 1, Fail}, {n, Warn}, {1, Warn}} {
		c := get(t, openRun(20, 60).evaluate(t, Options{Input: Input{Rows: n, Skipped: tc.skipped, Set: true}}), IDInput)
		if c.Status != tc.want || !strings.Contains(c.Message, "malformed lines were skipped") {
			t.Errorf("%d skipped of %d: %s %q; want %s", tc.skipped, n, c.Status, c.Message, tc.want)
		}
	}
	cut := openRun(20, 60).evaluate(t, Options{Input: Input{Rows: 1, Truncated: true, Set: true}})
	if c := get(t, cut, IDInput); c.Status != Warn || !strings.Contains(c.Message, "ended early") {
		t.Errorf("cut input: %s %q", c.Status, c.Message)
	}
}

// TestSummaryVsKneeUnmatchedThreshold: a threshold that matches no sample
// (a misspelt metric) is not said to "hold over the whole run and at every
// load level" — the thresholds check fails it; summary-vs-knee names it as
// unmatched, and still judges the thresholds that have samples.
func TestSummaryVsKneeUnmatchedThreshold(t *testing.T) {
	r := openRun(20, 60)
	miss, err := threshold.Parse("http_req_duraton:p(95)<500")
	if err != nil {
		t.Fatal(err)
	}
	held, err := threshold.Parse("http_req_failed:rate<0.05")
	if err != nil {
		t.Fatal(err)
	}
	for _, thr := range [][]threshold.Threshold{{miss}, {held, miss}} {
		c := get(t, r.evaluate(t, Options{}, thr...), IDSummaryVsKnee)
		if c.Status != OK || strings.Contains(c.Message, "every threshold holds") || !strings.Contains(c.Message, "http_req_duraton:p(95)<500") || !strings.Contains(c.Message, "no sample") {
			t.Errorf("%d thresholds: %s %q; want ok, naming the unmatched threshold", len(thr), c.Status, c.Message)
		}
	}
}

// TestStrayTimestampKeepsOffsets: one vus sample 796,004,429 s before a
// run (the new-user trial's stray line before breakpoint.csv) leaves every
// offset of the checks — in messages and in evidence — as in the run
// without it: they are measured from the main span's start, as the knee's
// levels are (before, from the stray second: "+796004502 s"). Only the
// whole-run figures (duration, samples read) count the stray second.
func TestStrayTimestampKeepsOffsets(t *testing.T) {
	build := func(stray bool) *run {
		r := openRun(20, 60)
		if stray {
			r.add("vus", -796_004_429, 1)
		}
		for range 5 {
			r.req(30, "503", "slow", 5)
		}
		for range 3 {
			r.req(31, "429", "slow", 5)
		}
		r.add("dropped_iterations", 40, 2)
		r.add("checks", 45, 0, "check", "body ok")
		return r
	}
	clean, stray := build(false).evaluate(t, Options{}), build(true).evaluate(t, Options{})
	for i, c := range clean.Checks {
		s := &stray.Checks[i]
		if c.ID == IDDuration || c.ID == IDInput || c.ID == IDDroppedIterations {
			// The whole-run figures: duration, dropped per second and samples read.
			if c.ID == IDDroppedIterations && (ev(t, s, "first_dropped_s") != 40 || !strings.Contains(s.Message, "from +40 s to +40 s")) {
				t.Errorf("%s with a stray sample: %v, %q", c.ID, s.Evidence, s.Message)
			}
			continue
		}
		if c.Message != s.Message {
			t.Errorf("%s with a stray sample:\n%s\nwant\n%s", c.ID, s.Message, c.Message)
		}
		for _, kv := range c.Evidence {
			if !strings.HasSuffix(kv.Name, "_s") {
				continue
			}
			if got := ev(t, s, kv.Name); got != kv.Value && !(math.IsNaN(got) && math.IsNaN(kv.Value)) {
				t.Errorf("%s %s with a stray sample = %v, want %v", c.ID, kv.Name, got, kv.Value)
			}
		}
	}
	if e := get(t, stray, IDErrors); ev(t, e, "first_error_s") != 30 || ev(t, e, "peak_window_start_s") != 30 {
		t.Errorf("errors with a stray sample: %v", e.Evidence)
	}
}
