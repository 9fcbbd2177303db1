package pipeline

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/checks"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/prom"
)

// genT is the first point of testdata/prom/generator, 2026-11-30T02:07:10Z
// (inside the breakpoint run, 02:07:09Z–02:09:19Z).
const genT = 1796004430

func genLevel(a, b int64, offered float64) knee.Level {
	return knee.Level{Start: time.Unix(a, 0).UTC(), End: time.Unix(b, 0).UTC(), Offered: knee.F(offered)}
}

// genEv is the evidence value name of c; the test stops without it.
func genEv(t *testing.T, c *checks.Check, name string) float64 {
	t.Helper()
	v, ok := c.Evidence.Get(name)
	if !ok {
		t.Fatalf("%s: no evidence %q in %v", c.ID, name, c.Evidence)
	}
	return v
}

func nearEq(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

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
	if len(g.Pods) != 2 || len(g.OtherPods) != 1 || g.Pattern != checks.DefaultGeneratorPods {
		t.Fatalf("pods %v, others %v, pattern %q", g.Pods, g.OtherPods, g.Pattern)
	}
	levels := []knee.Level{genLevel(genT, genT+60, 100), genLevel(genT+60, genT+120, 180)}
	c := checks.GeneratorCheck(g, levels, genT*1e9, (genT+120)*1e9)
	if c.Status != checks.Fail {
		t.Errorf("status %s, want fail (%s)", c.Status, c.Message)
	}
	for name, want := range map[string]float64{
		"generator_pods": 2, "throttle_ratio_run": 0.07, "throttle_ratio_peak": 0.12, "throttle_peak_offered": 180,
		"throttle_peak_start_s": 60, "cpu_share_run": 0.625, "cpu_share_peak": 0.75, "cpu_cores_peak": 1.5,
		"cpu_limit_cores": 2, "cpu_peak_offered": 180,
	} {
		if got := genEv(t, &c, name); !nearEq(got, want, 1e-9) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if !strings.Contains(c.Message, "loadtest/k6-breakpoint-1-x7k2p") || strings.Contains(c.Message, "api-") {
		t.Errorf("message names the wrong pod: %s", c.Message)
	}

	// Choosing the api pod instead: throttled 0.4 and 3.9/4 = 97.5 % of
	// its limit → fail on both.
	re, err := checks.GeneratorPods("api-.*")
	if err != nil {
		t.Fatal(err)
	}
	c = checks.GeneratorCheck(GeneratorFromExport(exp, re), levels, genT*1e9, (genT+120)*1e9)
	if c.Status != checks.Fail || !nearEq(genEv(t, &c, "throttle_ratio_peak"), 0.4, 1e-9) || !nearEq(genEv(t, &c, "cpu_share_peak"), 0.975, 1e-9) {
		t.Errorf("api pod: %s %v", c.Status, c.Evidence)
	}

	// A pattern matching nothing: n/a, with the pods seen in the hint.
	re, _ = checks.GeneratorPods("k6")
	c = checks.GeneratorCheck(GeneratorFromExport(exp, re), levels, genT*1e9, (genT+120)*1e9)
	if c.Status != checks.NA || !strings.Contains(c.Message, "shop/api-7d9f8c6b5-x2kq9") {
		t.Errorf("no match: %s %s", c.Status, c.Message)
	}

	// A run the export does not cover (an hour later): n/a.
	c = checks.GeneratorCheck(g, nil, (genT+3600)*1e9, (genT+3720)*1e9)
	if c.Status != checks.NA {
		t.Errorf("outside the export: %s %s", c.Status, c.Message)
	}
}

// TestGeneratorFromExport: the adapter keeps the pod and container of each
// series ("namespace/pod"), turns a Counter query into rates (prom.Rate: a
// counter 0, 10, 30 at 5-s steps is 2 then 4 per second), leaves out
// series without a pod label and takes a nil export to nil.
func TestGeneratorFromExport(t *testing.T) {
	if GeneratorFromExport(nil, nil) != nil {
		t.Error("nil export: want nil")
	}
	pts := []prom.Point{{TimeNS: 5e9, Value: 0}, {TimeNS: 10e9, Value: 10}, {TimeNS: 15e9, Value: 30}}
	exp := &prom.Export{
		Manifest: prom.Manifest{StepS: 5, Queries: []prom.Entry{
			{Query: prom.Query{Role: prom.RoleCPUThrottleRatio, Counter: true}},
			{Query: prom.Query{Role: prom.RolePodCPUCores}},
		}},
		Data: []*prom.Data{
			{Series: []prom.Series{{Labels: map[string]string{"namespace": "lt", "pod": "k6-0", "container": "k6"}, Points: pts}}},
			{Series: []prom.Series{{Labels: map[string]string{"pod": "k6-1"}, Points: pts}, {Labels: map[string]string{"node": "n1"}, Points: pts}}},
		},
	}
	g := GeneratorFromExport(exp, nil)
	if g.StepNS != 5e9 || g.Pattern != checks.DefaultGeneratorPods || strings.Join(g.Pods, " ") != "k6-1 lt/k6-0" || len(g.OtherPods) != 0 {
		t.Fatalf("step %d, pattern %q, pods %v, others %v", g.StepNS, g.Pattern, g.Pods, g.OtherPods)
	}
	if len(g.ThrottleRatio) != 1 || g.ThrottleRatio[0].Pod != "lt/k6-0" || g.ThrottleRatio[0].Container != "k6" {
		t.Fatalf("throttle %+v", g.ThrottleRatio)
	}
	want := []checks.Point{{TimeNS: 10e9, Value: 2}, {TimeNS: 15e9, Value: 4}}
	if got := g.ThrottleRatio[0].Points; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("rates %v, want %v", got, want)
	}
	if len(g.CPUCores) != 1 || g.CPUCores[0].Pod != "k6-1" || len(g.CPUCores[0].Points) != 3 {
		t.Errorf("cpu %+v", g.CPUCores)
	}
}
