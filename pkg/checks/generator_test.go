package checks

import (
	"math"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// series is one series of pod lt/POD (of container when not "") with
// points every 5 s from t0+5 to t0+120: v1 up to t0+60, v2 after.
func series(pod, container string, t0 int64, v1, v2 float64) PodSeries {
	s := PodSeries{Pod: "lt/" + pod, Container: container}
	for k := int64(1); k <= 24; k++ {
		v := v1
		if k > 12 {
			v = v2
		}
		s.Points = append(s.Points, Point{TimeNS: (t0 + 5*k) * 1e9, Value: v})
	}
	return s
}

// TestCheckGeneratorCPU: one pod k6-0 at 1.7 cores of a 2-core limit all run,
// no throttle series. No levels: the run [T, T+120) is the only span, CPU
// 1.7/2 = 0.85 > 0.80 → fail. At 1.0 core (0.5) with throttle 0.03
// (≤ 0.05) → ok. No data at all → n/a.
func TestCheckGeneratorCPU(t *testing.T) {
	const T = 1_000_000
	g := &GeneratorData{StepNS: 5e9, Pattern: "k6.*", Pods: []string{"lt/k6-0"},
		CPUCores: []PodSeries{series("k6-0", "", T, 1.7, 1.7)}, CPULimitCores: []PodSeries{series("k6-0", "", T, 2, 2)}}
	c := GeneratorCheck(g, nil, T*1e9, (T+120)*1e9)
	if c.Status != Fail || !near(ev(t, &c, "cpu_share_peak"), 0.85, 1e-9) || !math.IsNaN(ev(t, &c, "throttle_ratio_peak")) {
		t.Errorf("cpu: %s %v (%s)", c.Status, c.Evidence, c.Message)
	}
	g.CPUCores = []PodSeries{series("k6-0", "", T, 1, 1)}
	g.ThrottleRatio = []PodSeries{series("k6-0", "k6", T, 0.03, 0.03)}
	c = GeneratorCheck(g, nil, T*1e9, (T+120)*1e9)
	if c.Status != OK || !near(ev(t, &c, "cpu_share_peak"), 0.5, 1e-9) || !near(ev(t, &c, "throttle_ratio_peak"), 0.03, 1e-9) {
		t.Errorf("healthy: %s %v (%s)", c.Status, c.Evidence, c.Message)
	}
	if c := GeneratorCheck(nil, nil, T*1e9, (T+120)*1e9); c.Status != NA || !strings.Contains(c.Message, "--prom") {
		t.Errorf("no data: %s %s", c.Status, c.Message)
	}
}

// TestCheckGeneratorEvaluate wires the data through Options.Generator and
// WithGenerator: openRun(20, 120) from t0; a k6 pod throttled 0.10 from
// t0+60 (0 before) → fail in Evaluate; WithGenerator turns the n/a of a
// data-less Evaluate into the same fail.
func TestCheckGeneratorEvaluate(t *testing.T) {
	g := &GeneratorData{StepNS: 5e9, Pattern: "k6.*", Pods: []string{"lt/k6-0"},
		ThrottleRatio: []PodSeries{series("k6-0", "k6", t0, 0, 0.10)}}
	r := openRun(20, 120)
	c := get(t, r.evaluate(t, Options{Generator: g}), IDGenerator)
	if c.Status != Fail || !near(ev(t, c, "throttle_ratio_peak"), 0.10, 1e-9) {
		t.Errorf("evaluate: %s %v (%s)", c.Status, c.Evidence, c.Message)
	}
	acc := timeline.New(timeline.Options{Metric: "http_req_duration"})
	for i := range r.samples {
		acc.Add(&r.samples[i])
	}
	res, err := knee.Analyze(acc.Close(1e9), knee.Options{})
	if err != nil {
		t.Fatal(err)
	}
	list := r.evaluate(t, Options{}).Checks
	if c := (&Report{Checks: list}).Find(IDGenerator); c.Status != NA {
		t.Fatalf("without data: %s", c.Status)
	}
	list = WithGenerator(list, g, res)
	if c := (&Report{Checks: list}).Find(IDGenerator); c.Status != Fail {
		t.Errorf("WithGenerator: %s %v", c.Status, c.Evidence)
	}
}

// TestPodSeriesMean: points 1 at t=5 s and 3 at t=10 s, each standing for
// the 5 s before it. By hand: over [0, 10) s (5·1 + 5·3)/10 = 2; over
// [5, 10) only the second point, 3; over [2, 7) (3·1 + 2·3)/5 = 1.8; a
// span no point covers, NaN. A NaN point is skipped.
func TestPodSeriesMean(t *testing.T) {
	s := PodSeries{Pod: "lt/k6-0", Points: []Point{{TimeNS: 5e9, Value: 1}, {TimeNS: 10e9, Value: 3}, {TimeNS: 15e9, Value: math.NaN()}}}
	for _, c := range []struct {
		a, b int64
		want float64
	}{{0, 10e9, 2}, {5e9, 10e9, 3}, {2e9, 7e9, 1.8}, {0, 15e9, 2}} {
		if got := s.Mean(c.a, c.b, 5e9); !near(got, c.want, 1e-12) {
			t.Errorf("Mean(%d, %d) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if got := s.Mean(20e9, 30e9, 5e9); !math.IsNaN(got) {
		t.Errorf("outside: %v, want NaN", got)
	}
}
