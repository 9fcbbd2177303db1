package pipeline_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/sim"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
)

// simFile writes a simulated run as k6 CSV and returns its path and truth.
func simFile(t *testing.T, cfg sim.Config) (string, sim.Truth) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	truth, err := sim.WriteCSV(f, cfg, sim.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path, truth
}

// TestScenarios: a smoke test then a breakpoint, and two scenarios at
// once, each get an entry of their own; the answer is the scenario that
// reached the highest load, and overlapping ones are named.
func TestScenarios(t *testing.T) {
	t.Run("smoke then breakpoint", func(t *testing.T) {
		path, truth := simFile(t, sim.SmokeThenBreakpoint())
		an, err := pipeline.Run([]string{path}, pipeline.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := an.Knee
		if len(r.Scenarios) != 2 || r.Scenarios[0].Name != "smoke" || r.Scenarios[1].Name != "breakpoint" {
			t.Fatalf("scenarios %+v, want smoke and breakpoint", r.Scenarios)
		}
		if r.Scenario != "" {
			t.Errorf("answer from %q, want the whole run's (the smoke test left headroom: a stage before the breakpoint)", r.Scenario)
		}
		smoke, bp := r.Scenarios[0], r.Scenarios[1]
		if smoke.Model != knee.Closed || bp.Model != knee.Open {
			t.Errorf("models %s (%s), %s; want closed (constant-vus) and open (arrival rate)", smoke.Model, smoke.ModelEvidence, bp.Model)
		}
		if smoke.Knee != nil && smoke.Knee.Reached {
			t.Errorf("the smoke test (2 VUs) reached a knee: %+v", smoke.Knee)
		}
		c := truth.CeilingPerS
		if bp.Ceiling == nil || math.Abs(float64(bp.Ceiling.CompletedRPS)-c) > 0.04*c {
			t.Errorf("breakpoint ceiling %+v, want within 4 %% of %.1f", bp.Ceiling, c)
		}
		k := truth.Scenarios[1].RhoOneIterationsPerS
		if bp.Knee == nil || !bp.Knee.Reached || float64(bp.Knee.Offered) < 0.7*k || float64(bp.Knee.Offered) > 1.03*k {
			t.Errorf("breakpoint knee %+v, want within [0.7, 1.03] of %.1f", bp.Knee, k)
		}
		if r.Knee == nil || !r.Knee.Reached || float64(r.Knee.Offered) < 0.7*k || float64(r.Knee.Offered) > 1.03*k {
			t.Errorf("whole-run knee %+v, want within [0.7, 1.03] of %.1f", r.Knee, k)
		}
		if r.Ceiling == nil || math.Abs(float64(r.Ceiling.CompletedRPS)-c) > 0.04*c {
			t.Errorf("whole-run ceiling %+v, want within 4 %% of %.1f", r.Ceiling, c)
		}
		for _, w := range r.Warnings {
			if w.Code == knee.WarnScenariosOverlap && strings.Contains(w.Message, "same time") {
				t.Errorf("sequential scenarios said to overlap: %s", w.Message)
			}
		}
	})
	t.Run("warm-up then overload", func(t *testing.T) {
		path, truth := simFile(t, warmThenOverload())
		an, err := pipeline.Run([]string{path}, pipeline.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := an.Knee
		if len(r.Scenarios) != 2 || r.Scenario != "" {
			t.Fatalf("%d scenarios, answer from %q; want 2, the whole run's", len(r.Scenarios), r.Scenario)
		}
		// over alone is one level, overloaded: no knee of its own.
		if over := r.Scenarios[1]; over.Name != "over" || over.Knee != nil {
			t.Errorf("scenario %s knee %+v, want over with none", over.Name, over.Knee)
		}
		if r.Model != knee.Open || r.Knee == nil || !r.Knee.Reached || math.Abs(float64(r.Knee.Offered)-50) > 1 {
			t.Errorf("model %s, knee %+v; want open, at the warm-up's 50 it/s", r.Model, r.Knee)
		}
		if c := truth.CeilingPerS; r.Ceiling == nil || math.Abs(float64(r.Ceiling.CompletedRPS)-c) > 0.04*c {
			t.Errorf("ceiling %+v, want within 4 %% of %.1f", r.Ceiling, c)
		}
	})
	t.Run("two at once", func(t *testing.T) {
		path, truth := simFile(t, sim.TwoAtOnce())
		an, err := pipeline.Run([]string{path}, pipeline.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := an.Knee
		if len(r.Scenarios) != 2 || r.Scenario != "browse" {
			t.Fatalf("scenarios %d, answer %q; want 2, browse", len(r.Scenarios), r.Scenario)
		}
		b := r.Scenarios[0]
		if b.Name != "browse" {
			b = r.Scenarios[1]
		}
		found := false
		for _, w := range r.Warnings {
			found = found || (w.Code == knee.WarnScenariosOverlap && (strings.Contains(w.Message, "browse and checkout") || strings.Contains(w.Message, "checkout and browse")))
		}
		if !found {
			t.Errorf("no overlap warning in %v", knee.Messages(r.Warnings))
		}
		// browse alone reaches ρ = 1 at 218.75 it/s with checkout's 30 it/s on top.
		k := truth.KneeIterationsPerS - 30
		if b.Knee == nil || !b.Knee.Reached || float64(b.Knee.Offered) < 0.7*k || float64(b.Knee.Offered) > 1.03*k {
			t.Errorf("browse knee %+v, want within [0.7, 1.03] of %.1f", b.Knee, k)
		}
	})
}

// warmThenOverload is a warm-up scenario at a constant 50 it/s for 60 s,
// then a second at a constant 400 it/s for 90 s, against 2 slots of
// service times uniform on [5, 15] ms (C = 200 req/s) that shed requests
// finding 100 waiting.
func warmThenOverload() sim.Config {
	cls := sim.Class{Name: "api", Method: "POST", Share: 1, ServiceTime: sim.Uniform(5, 15), Timeout: time.Second, ShedWaiting: 100, Check: "status is 200"}
	return sim.Config{Seed: 5, Server: sim.Server{Servers: 2, Classes: []sim.Class{cls}}, Scenarios: []sim.Scenario{
		{Name: "warm", Executor: sim.ConstantArrivalRate, Rate: 50, Duration: time.Minute, PreAllocatedVUs: 20, MaxVUs: 200},
		{Name: "over", Executor: sim.ConstantArrivalRate, StartTime: time.Minute, Rate: 400, Duration: 90 * time.Second, PreAllocatedVUs: 50, MaxVUs: 600},
	}}
}
