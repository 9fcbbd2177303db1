package prom

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// counterSeries is a k6 counter pushed every 5 s from t0 for n pushes,
// growing by per at each push.
func counterSeries(name string, labels map[string]string, t0 time.Time, n int, per float64) Series {
	ls := map[string]string{"__name__": name}
	for k, v := range labels {
		ls[k] = v
	}
	s := Series{Labels: ls}
	for i := range n {
		s.Points = append(s.Points, Point{TimeNS: t0.Add(time.Duration(i) * 5 * time.Second).UnixNano(), Value: per * float64(i+1)})
	}
	return s
}

// A run longer than MaxK6Steps push intervals is read at whole multiples
// of the interval: 6 hours of 5 s pushes (4,320) at 10 s steps (2,160),
// with a warning; its iterations all counted (4,320 × 50).
func TestK6RunLongRunStep(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	f := NewFiles([]Series{counterSeries("k6_iterations_total", map[string]string{"scenario": "soak"}, t0, 4320, 50)})
	run, err := ReadK6Run(context.Background(), f, K6Options{})
	if err != nil {
		t.Fatal(err)
	}
	if run.Step != 10*time.Second {
		t.Errorf("step %s, want 10 s", run.Step)
	}
	total := 0.0
	for _, s := range run.Steps {
		total += s.Iterations
	}
	if total != 4320*50 {
		t.Errorf("%v iterations, want %v", total, 4320*50)
	}
	if w := strings.Join(run.Warnings, "\n"); !strings.Contains(w, "read at 10s steps (2 push intervals of 5s) to stay within 4096 steps") {
		t.Errorf("warnings:\n%s", w)
	}
	if _, err := ReadK6Run(context.Background(), f, K6Options{Step: time.Second}); err == nil || !strings.Contains(err.Error(), "more than 16384: give a coarser --step (at least 2s)") {
		t.Errorf("a 1 s step over 6 hours: %v", err)
	}
}

// A script whose request names are its URLs: 600 names are summed
// without the name (one series per status instead), with a warning, and
// every request is still counted.
func TestK6RunManyNames(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	ss := []Series{counterSeries("k6_iterations_total", nil, t0, 10, 600)}
	for i := range 600 {
		ss = append(ss, counterSeries("k6_http_reqs_total", map[string]string{"name": fmt.Sprintf("/item/%d", i), "status": "200", "expected_response": "true"}, t0, 10, 1))
	}
	run, err := ReadK6Run(context.Background(), NewFiles(ss), K6Options{})
	if err != nil {
		t.Fatal(err)
	}
	reqs := 0.0
	for _, s := range run.Steps {
		reqs += s.OK
		for _, g := range s.Groups {
			if g.Name != "" {
				t.Fatalf("group %+v has a name", g)
			}
		}
	}
	if reqs != 6000 {
		t.Errorf("%v successful requests, want 6000", reqs)
	}
	if w := strings.Join(run.Warnings, "\n"); !strings.Contains(w, "k6_http_reqs_total: 600 series summed by expected_response, status, error_code, name, scenario, more than 500: summed without the request name") {
		t.Errorf("warnings:\n%s", w)
	}
}

// The caveat on a time trend's _count says what the read did with it (×
// 1000 for the counts it reads) and which counts it leaves unused, not
// what the user should do.
func TestTrendStatsCountCaveat(t *testing.T) {
	ts := DetectTrendStats([]string{"k6_http_req_duration_avg", "k6_http_req_duration_count", "k6_http_req_waiting_count", "k6_http_req_waiting_p95"})
	got := ts.Caveats()[2]
	want := "the _count of a time trend (http_req_duration, http_req_waiting) is the number of observations ÷ 1000 (k6 converts every stat of a time trend from ms to s): ldanalyze multiplies the _count of http_req_duration by 1000 to count their observations; it does not use the _count of http_req_waiting"
	if got != want {
		t.Errorf("caveat\n%q, want\n%q", got, want)
	}
}

// sumIterations is the run's iterations, all steps.
func sumIterations(run *K6Run) (its, reqs float64) {
	for _, s := range run.Steps {
		its += s.Iterations
		reqs += s.Requests
	}
	return its, reqs
}

// Counter samples that are NaN, +Inf or negative in saved answers are
// skipped and counted, naming the first: 10 pushes of 100 iterations
// (1,000 in all, hand count) with pushes 3, 5 and 7 corrupted still count
// 1,000, the next valid push carrying the skipped ones' iterations.
func TestK6RunBadCounterSamples(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	its := counterSeries("k6_iterations_total", map[string]string{"scenario": "a"}, t0, 10, 100)
	its.Points[2].Value = math.NaN()
	its.Points[4].Value = math.Inf(1)
	its.Points[6].Value = -7
	reqs := counterSeries("k6_http_reqs_total", map[string]string{"status": "200", "expected_response": "true"}, t0, 10, 100)
	run, err := ReadK6Run(context.Background(), NewFiles([]Series{its, reqs}), K6Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n, r := sumIterations(run); n != 1000 || r != 1000 {
		t.Errorf("%v iterations and %v requests, want 1000 and 1000", n, r)
	}
	want := `3 counter samples that are NaN, ±Inf or negative in 1 series (the first k6_iterations_total{scenario="a"} at 2027-01-15T08:00:10.000Z: NaN): skipped, the counters read from their other samples`
	if w := strings.Join(run.Warnings, "\n"); !strings.Contains(w, want) {
		t.Errorf("warnings:\n%s\nwant %q", w, want)
	}
}

// badSums is a Source whose sums of one counter are corrupted at some
// evaluation times, as a live server's sum of a NaN or Inf sample is.
type badSums struct {
	*Files
	name string
	at   map[int]float64
}

func (b badSums) Sum(ctx context.Context, name string, sel Selector, by []string, r Range) ([]Series, error) {
	ss, err := b.Files.Sum(ctx, name, sel, by, r)
	if name != b.name || err != nil {
		return ss, err
	}
	for i, v := range b.at {
		for k := range ss {
			if i < len(ss[k].Points) {
				ss[k].Points[i].Value = v
			}
		}
	}
	return ss, nil
}

// A live server's sums that are +Inf or negative are skipped with a
// warning and never panic; the iterations are counted from the valid
// sums around them (1,000, hand count).
func TestK6RunBadCounterSums(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	its := counterSeries("k6_iterations_total", map[string]string{"scenario": "a"}, t0, 10, 100)
	reqs := counterSeries("k6_http_reqs_total", map[string]string{"status": "200", "expected_response": "true"}, t0, 10, 100)
	src := badSums{Files: NewFiles([]Series{its, reqs}), name: "k6_iterations_total", at: map[int]float64{3: math.Inf(1), 5: -3}}
	run, err := ReadK6Run(context.Background(), src, K6Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := sumIterations(run); n != 1000 {
		t.Errorf("%v iterations, want 1000", n)
	}
	want := `2 counter values that are NaN, ±Inf or negative in 1 series (the first k6_iterations_total{scenario="a"} at 2027-01-15T08:00:17.500Z: +Inf): skipped, each step counted from the counter's last valid value`
	if w := strings.Join(run.Warnings, "\n"); !strings.Contains(w, want) {
		t.Errorf("warnings:\n%s\nwant %q", w, want)
	}
}

// A counter that drops (a k6 runner restarted) is counted as Prometheus'
// increase() counts it, the value after the drop being the increase: 4
// pushes of 100 then a restart at 50, 150, 250 are 400 + 50 + 100 + 100
// = 650 iterations (hand count; 600 when the drop counted 0), and one
// warning counts the resets and their series.
func TestK6RunCounterReset(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	restart := func(name string, labels map[string]string) Series {
		s := counterSeries(name, labels, t0, 7, 100)
		for i := 4; i < 7; i++ {
			s.Points[i].Value = 50 + 100*float64(i-4)
		}
		return s
	}
	its := restart("k6_iterations_total", map[string]string{"scenario": "a"})
	reqs := restart("k6_http_reqs_total", map[string]string{"status": "200", "expected_response": "true"})
	run, err := ReadK6Run(context.Background(), NewFiles([]Series{its, reqs}), K6Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n, r := sumIterations(run); n != 650 || r != 650 {
		t.Errorf("%v iterations and %v requests, want 650 and 650", n, r)
	}
	var resets []string
	for _, w := range run.Warnings {
		if strings.Contains(w, "counter resets") {
			resets = append(resets, w)
		}
	}
	want := `2 counter resets (drops) in 2 series (the first k6_iterations_total{scenario="a"} at 2027-01-15T08:00:22.500Z: 50): counted as k6 restarting from 0, as Prometheus' increase() does (the step's increase is the value after the drop)`
	if len(resets) != 1 || resets[0] != want {
		t.Errorf("reset warnings %q, want one: %q", resets, want)
	}
}

// Without k6_http_reqs_total the read says that completed load and errors
// cannot be known, and which k6 series it found.
func TestK6RunNoRequestCounter(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	run, err := ReadK6Run(context.Background(), NewFiles([]Series{
		counterSeries("k6_iterations_total", nil, t0, 10, 100),
		counterSeries("k6_vus", nil, t0, 10, 0),
	}), K6Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "no k6_http_reqs_total series: completed load (goodput), errors and per-status counts cannot be known, and the zeros shown for them are not measurements; k6 series found: k6_iterations_total, k6_vus"
	if w := strings.Join(run.Warnings, "\n"); !strings.Contains(w, want) {
		t.Errorf("warnings:\n%s\nwant %q", w, want)
	}
}

// Trend-stat samples that cannot be durations (a NaN _avg, a negative
// _p95, an _avg of 5·10⁶ s) are skipped, named and counted; the steps'
// means come from the other samples: 20 ms throughout (hand value).
func TestK6RunAbsurdTrendStats(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	ls := map[string]string{"name": "menu", "status": "200", "expected_response": "true"}
	avg := counterSeries("k6_http_req_duration_avg", ls, t0, 10, 0)
	for i := range avg.Points {
		avg.Points[i].Value = 0.020
	}
	avg.Points[3].Value = math.NaN()
	avg.Points[6].Value = 5e6
	p95 := counterSeries("k6_http_req_duration_p95", ls, t0, 10, 0)
	p95.Points[1].Value = -1
	cnt := counterSeries("k6_http_req_duration_count", ls, t0, 10, 0.1) // 100 requests a push (÷ 1000)
	run, err := ReadK6Run(context.Background(), NewFiles([]Series{
		counterSeries("k6_iterations_total", nil, t0, 10, 100),
		counterSeries("k6_http_reqs_total", ls, t0, 10, 100), avg, p95, cnt,
	}), K6Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `3 k6 trend-stat samples that are NaN, ±Inf, negative or over 10⁹ ms in 2 series (the first k6_http_req_duration_p95{expected_response="true", name="menu", status="200"} at 2027-01-15T08:00:05.000Z: -1): skipped, the trend stats read from their other samples`
	if w := strings.Join(run.Warnings, "\n"); !strings.Contains(w, want) {
		t.Errorf("warnings:\n%s\nwant %q", w, want)
	}
	for i, s := range run.Steps {
		if !math.IsNaN(s.MeanMS) && math.Abs(s.MeanMS-20) > 1e-6 {
			t.Errorf("step %d: mean %v ms, want 20", i, s.MeanMS)
		}
	}
}

// Two k6 instances, one stopping early: its series goes stale 5 m after
// its last push and the sum drops by its 1,000 iterations, which is no
// counter reset (the source counts one series fewer): the iterations are
// 10 × 100 + 100 × 100 = 11,000 (hand count) less the other instance's
// 100 of the step where the sum lost a series (not known there: counted
// as 0, with a warning), 10,900; no reset is reported. As a reset it
// would count the other instance's whole total at that time again.
func TestK6RunStaleInstanceIsNoReset(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	a := counterSeries("k6_iterations_total", map[string]string{"instance": "a"}, t0, 10, 100)
	b := counterSeries("k6_iterations_total", map[string]string{"instance": "b"}, t0, 100, 100)
	run, err := ReadK6Run(context.Background(), NewFiles([]Series{a, b}), K6Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := sumIterations(run); n != 10900 {
		t.Errorf("%v iterations, want 10900", n)
	}
	w := strings.Join(run.Warnings, "\n")
	if strings.Contains(w, "counter resets") || !strings.Contains(w, "1 drops of a counter's sum where a series left it") {
		t.Errorf("a stale series reported as a reset, or not reported:\n%s", w)
	}
}
