package prom

import (
	"context"
	"fmt"
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
