package pipeline_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		if r.Scenario != "breakpoint" {
			t.Errorf("answer from %q, want breakpoint", r.Scenario)
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
		if r.Knee != bp.Knee {
			t.Error("the answer's knee is not the breakpoint's")
		}
		for _, w := range r.Warnings {
			if w.Code == knee.WarnScenariosOverlap && strings.Contains(w.Message, "same time") {
				t.Errorf("sequential scenarios said to overlap: %s", w.Message)
			}
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
