package pipeline_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/checks"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
	"github.com/ldanalyze/ldanalyze/pkg/prom"
)

// k6Source is a Source over a run already in memory.
type k6Source struct{ run *prom.K6Run }

func (s k6Source) Name() string { return "test-store" }
func (s k6Source) Open(context.Context) (pipeline.SourceRun, error) {
	if s.run == nil {
		return nil, errors.New("no run")
	}
	return s.run, nil
}

// twoScenarios is a run as a store holds it at 5 s steps: scenario smoke
// at 10 it/s for 60 s, then scenario breakpoint ramping 20 → 400 it/s over
// 180 s against a server of 200 req/s: up to 200 it/s every request
// succeeds in 10–11 ms; past it 200 a second succeed in 200–220 ms, the
// rest are refused (503) and 2 iterations a step are dropped. Hand-made truth: the breakpoint's ceiling is 200
// req/s, its knee at an offered ≈ 200 it/s.
func twoScenarios() *prom.K6Run { return twoScenariosAt(5) }

// twoScenariosAt is twoScenarios at steps of stepS seconds (a divisor of
// 60).
func twoScenariosAt(stepS int) *prom.K6Run {
	t0 := time.Unix(1_800_000_000, 0)
	step := time.Duration(stepS) * time.Second
	r := &prom.K6Run{Start: t0, End: t0.Add(240 * time.Second), Step: step, Model: "open", LatencySource: "native-histograms"}
	for i := range 240 / stepS {
		st := prom.K6Step{Start: t0.Add(time.Duration(i) * step), End: t0.Add(time.Duration(i+1) * step), VUsMax: 100}
		sc, rate := "smoke", 10.0
		if t := i * stepS; t >= 60 {
			sc, rate = "breakpoint", 20+380*(float64(t-60)+float64(stepS)/2)/180
		}
		ok, lo, hi := math.Min(rate, 200), 0.010, 0.011
		if rate > 200 {
			lo, hi = 0.200, 0.220
		}
		n := math.Round(float64(stepS) * rate)
		good := math.Round(float64(stepS) * ok)
		st.Iterations, st.Requests, st.OK = n, n, good
		st.Scenarios = map[string]*prom.ScenarioStep{sc: {Iterations: n}}
		if rate > 200 {
			// An arrival-rate executor short of VUs now and then.
			st.DroppedIterations, st.Scenarios[sc].DroppedIterations = 2, 2
		}
		st.VUs = rate * (lo + hi) / 2
		st.Groups = []prom.RequestGroup{{ExpectedResponse: "true", Status: "200", Name: "api", Scenario: sc, Count: good}}
		st.Durations = []prom.DurationGroup{{Name: "api", Status: "200", ExpectedResponse: "true", Scenario: sc,
			Histogram: prom.HistogramPoint{Count: good, Buckets: []prom.Bucket{{Lower: lo, Upper: hi, Count: good}}}}}
		if n > good {
			st.Groups = append(st.Groups, prom.RequestGroup{ExpectedResponse: "false", Status: "503", Name: "api", Scenario: sc, Count: n - good})
			st.Durations = append(st.Durations, prom.DurationGroup{Name: "api", Status: "503", ExpectedResponse: "false", Scenario: sc,
				Histogram: prom.HistogramPoint{Count: n - good, Buckets: []prom.Bucket{{Lower: 0.001, Upper: 0.0011, Count: n - good}}}})
		}
		r.Steps = append(r.Steps, st)
	}
	return r
}

// A run read from a source is analysed as a file is: its two scenarios
// each on their own (filled from the run again, not read twice), the
// answer from the one that reached the highest load, at the store's step;
// its ceiling at the server's 200 req/s (± 2) and its knee at 190–210
// it/s (measured: 199.9 and 200.0).
func TestRunSourceScenarios(t *testing.T) {
	an, err := pipeline.RunSource(context.Background(), k6Source{twoScenarios()}, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if an.Name() != "test-store" || an.Timeline.ResolutionNS() != 5e9 || an.Input.ResolutionNS != 5e9 {
		t.Errorf("name %q, resolution %d / %d", an.Name(), an.Timeline.ResolutionNS(), an.Input.ResolutionNS)
	}
	r := an.Knee
	if len(r.Scenarios) != 2 || r.Scenarios[0].Name != "smoke" || r.Scenarios[1].Name != "breakpoint" || r.Scenario != "breakpoint" {
		t.Fatalf("scenarios %+v (answer %q), want smoke then breakpoint, the answer breakpoint", r.Scenarios, r.Scenario)
	}
	if r.Ceiling == nil || math.Abs(float64(r.Ceiling.CompletedRPS)-200) > 2 {
		t.Errorf("ceiling %+v, want 200 req/s", r.Ceiling)
	}
	if r.Knee == nil || float64(r.Knee.Offered) < 190 || float64(r.Knee.Offered) > 210 {
		t.Errorf("knee %+v, want 190–210 it/s", r.Knee)
	}
	t.Logf("knee %.1f it/s, ceiling %.1f req/s", float64(r.Knee.Offered), float64(r.Ceiling.CompletedRPS))
	if an.Checks == nil {
		t.Error("no checks")
	}
}

// A store at 15 s steps is coarser than the checks' default 10 s error
// windows: with no window asked for they widen to 15 s (the resolution
// check passes, the worst window starts on a step); a 10 s window asked
// for is refused by the resolution check as too fine.
func TestRunSourceCoarseCheckWindows(t *testing.T) {
	for _, tc := range []struct {
		windowNS int64
		status   checks.Status
		window   float64
	}{{0, checks.OK, 15}, {10e9, checks.Fail, 10}} {
		opt := pipeline.Options{}
		opt.Checks.WindowNS = tc.windowNS
		an, err := pipeline.RunSource(context.Background(), k6Source{twoScenariosAt(15)}, opt)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, c := range an.Checks.Checks {
			if c.ID != checks.IDResolution {
				continue
			}
			found = true
			w, _ := c.Evidence.Get("window_s")
			r, _ := c.Evidence.Get("resolution_s")
			if c.Status != tc.status || w != tc.window || r != 15 {
				t.Errorf("window %d ns: resolution check %s %+v, want %s with window_s %v", tc.windowNS, c.Status, c.Evidence, tc.status, tc.window)
			}
		}
		if !found {
			t.Errorf("window %d ns: no resolution check", tc.windowNS)
		}
	}
}

// --by needs samples; a source that fails names itself.
func TestRunSourceErrors(t *testing.T) {
	_, err := pipeline.RunSource(context.Background(), k6Source{twoScenarios()}, pipeline.Options{By: []string{"name"}})
	if err == nil || !strings.Contains(err.Error(), "test-store: --by is not available") {
		t.Errorf("--by: %v", err)
	}
	_, err = pipeline.RunSource(context.Background(), k6Source{}, pipeline.Options{})
	if err == nil || err.Error() != "test-store: no run" {
		t.Errorf("failing source: %v", err)
	}
	an, err := pipeline.RunSource(context.Background(), k6Source{twoScenarios()}, pipeline.Options{Endpoints: "name"})
	if err != nil || len(an.Warnings) != 1 || !strings.Contains(an.Warnings[0], "no per-endpoint table") {
		t.Errorf("endpoints: %v %q", err, an.Warnings)
	}
}
