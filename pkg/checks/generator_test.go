package checks

import (
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/prom"
)

// genT is the first point of testdata/prom/generator, 2026-11-30T02:07:10Z
// (inside the breakpoint run, 02:07:09Z–02:09:19Z).
const genT = 1796004430

func level(a, b int64, offered float64) knee.Level {
	return knee.Level{Start: time.Unix(a, 0).UTC(), End: time.Unix(b, 0).UTC(), Offered: knee.F(offered)}
}

// series is one series of points every 5 s from t0+5 to t0+120: v1 up to
// t0+60, v2 after.
func series(pod, container string, t0 int64, v1, v2 float64) prom.Series {
	s := prom.Series{Labels: map[string]string{"namespace": "lt", "pod": pod}}
	if container != "" {
		s.Labels["container"] = container
	}
	for k := int64(1); k <= 24; k++ {
		v := v1
		if k > 12 {
			v = v2
		}
		s.Points = append(s.Points, prom.Point{TimeNS: (t0 + 5*k) * 1e9, Value: v})
	}
	return s
}

// TestCheckGeneratorFixture reads testdata/prom/generator: points every 5 s from
// 02:07:10Z (genT) to 02:09:15Z, each standing for the 5 s before it.
// loadtest/k6-breakpoint-1: throttle ratio 0.02 up to genT+60, 0.12 after;
// CPU 1.0 then 1.5 cores of a 2-core limit. k6-breakpoint-2: throttle
// 0.01, CPU 0.6 of 2. shop/api (not a generator: `k6.*` must match the
// whole pod name) is throttled 0.4 at 3.9 of 4 cores and must be ignored.
//
// Levels [genT, genT+60) offered 100 and [genT+60, genT+120) offered 180,
// run [genT, genT+120). Level 1 is covered by the points genT+5…genT+60,
// level 2 by genT+65…genT+120, so by hand:
//
//	pod 1 throttle: level 1 0.02, level 2 0.12, run (12·0.02+12·0.12)/24 = 0.07
//	pod 1 CPU share: level 1 1.0/2 = 0.5, level 2 1.5/2 = 0.75, run 0.625
//	pod 2: throttle 0.01, CPU 0.3 everywhere
//
// Worst: throttle 0.12 > 5 % at the 180 level → fail; CPU 0.75 ≤ 80 % is
// not a reason.
func TestCheckGeneratorFixture(t *testing.T) {
	exp, err := prom.ReadDir(filepath.Join("..", "..", "testdata", "prom", "generator"))
	if err != nil {
		t.Fatal(err)
	}
	g := GeneratorFromExport(exp, nil)
	if len(g.Pods) != 2 || len(g.OtherPods) != 1 || g.Pattern != DefaultGeneratorPods {
		t.Fatalf("pods %v, others %v, pattern %q", g.Pods, g.OtherPods, g.Pattern)
	}
	levels := []knee.Level{level(genT, genT+60, 100), level(genT+60, genT+120, 180)}
	c := GeneratorCheck(g, levels, genT*1e9, (genT+120)*1e9)
	if c.Status != Fail {
		t.Errorf("status %s, want fail (%s)", c.Status, c.Message)
	}
	for name, want := range map[string]float64{
		"generator_pods": 2, "throttle_ratio_run": 0.07, "throttle_ratio_peak": 0.12, "throttle_peak_offered": 180,
		"throttle_peak_start_s": 60, "cpu_share_run": 0.625, "cpu_share_peak": 0.75, "cpu_cores_peak": 1.5,
		"cpu_limit_cores": 2, "cpu_peak_offered": 180,
	} {
		if got := ev(t, &c, name); !near(got, want, 1e-9) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if !strings.Contains(c.Message, "loadtest/k6-breakpoint-1-x7k2p") || strings.Contains(c.Message, "api-") {
		t.Errorf("message names the wrong pod: %s", c.Message)
	}

	// Choosing the api pod instead: throttled 0.4 and 3.9/4 = 97.5 % of
	// its limit → fail on both.
	re, err := GeneratorPods("api-.*")
	if err != nil {
		t.Fatal(err)
	}
	c = GeneratorCheck(GeneratorFromExport(exp, re), levels, genT*1e9, (genT+120)*1e9)
	if c.Status != Fail || !near(ev(t, &c, "throttle_ratio_peak"), 0.4, 1e-9) || !near(ev(t, &c, "cpu_share_peak"), 0.975, 1e-9) {
		t.Errorf("api pod: %s %v", c.Status, c.Evidence)
	}

	// A pattern matching nothing: n/a, with the pods seen in the hint.
	re, _ = GeneratorPods("k6")
	c = GeneratorCheck(GeneratorFromExport(exp, re), levels, genT*1e9, (genT+120)*1e9)
	if c.Status != NA || !strings.Contains(c.Message, "shop/api-7d9f8c6b5-x2kq9") {
		t.Errorf("no match: %s %s", c.Status, c.Message)
	}

	// A run the export does not cover (an hour later): n/a.
	c = GeneratorCheck(g, nil, (genT+3600)*1e9, (genT+3720)*1e9)
	if c.Status != NA {
		t.Errorf("outside the export: %s %s", c.Status, c.Message)
	}
}

// TestCheckGeneratorCPU: one pod k6-0 at 1.7 cores of a 2-core limit all run,
// no throttle series. No levels: the run [T, T+120) is the only span, CPU
// 1.7/2 = 0.85 > 0.80 → fail. At 1.0 core (0.5) with throttle 0.03
// (≤ 0.05) → ok. No data at all → n/a.
func TestCheckGeneratorCPU(t *testing.T) {
	const T = 1_000_000
	g := &GeneratorData{StepNS: 5e9, Pattern: "k6.*", Pods: []string{"lt/k6-0"},
		CPUCores: []prom.Series{series("k6-0", "", T, 1.7, 1.7)}, CPULimitCores: []prom.Series{series("k6-0", "", T, 2, 2)}}
	c := GeneratorCheck(g, nil, T*1e9, (T+120)*1e9)
	if c.Status != Fail || !near(ev(t, &c, "cpu_share_peak"), 0.85, 1e-9) || !math.IsNaN(ev(t, &c, "throttle_ratio_peak")) {
		t.Errorf("cpu: %s %v (%s)", c.Status, c.Evidence, c.Message)
	}
	g.CPUCores = []prom.Series{series("k6-0", "", T, 1, 1)}
	g.ThrottleRatio = []prom.Series{series("k6-0", "k6", T, 0.03, 0.03)}
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
		ThrottleRatio: []prom.Series{series("k6-0", "k6", t0, 0, 0.10)}}
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
