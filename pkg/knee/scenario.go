package knee

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Scenario is the load-level analysis of one k6 scenario of a run with
// two or more (the samples tagged scenario=Name, with the untagged vus and
// vus_max gauges): its own model, levels, knee and ceiling.
type Scenario struct {
	Name  string    `json:"name"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Model, ModelEvidence, OfferedUnit, Levels, Holds and RampSteps are
	// as in Result.
	Model         Model    `json:"model"`
	ModelEvidence string   `json:"model_evidence"`
	OfferedUnit   string   `json:"offered_unit"`
	CompletedUnit string   `json:"completed_unit"`
	Levels        string   `json:"levels"`
	Holds         []Level  `json:"holds"`
	RampSteps     []Level  `json:"ramp_steps,omitempty"`
	Knee          *Knee    `json:"knee"`
	Ceiling       *Ceiling `json:"ceiling"`
	// PeakRequestsRPS is the most requests per second (or iterations per
	// second, without requests) of any of its levels: the load it reached,
	// comparable across models.
	PeakRequestsRPS F `json:"peak_requests_rps"`
	// Warnings are the scenario's own caveats.
	Warnings []Warning `json:"warnings"`
}

// WarnScenariosOverlap: two scenarios ran at the same time on one system.
const WarnScenariosOverlap = "scenarios-overlap"

// NewScenario is the Scenario entry of the analysis r of the samples of
// scenario name.
func NewScenario(name string, r *Result) Scenario {
	s := Scenario{Name: name, Start: r.Start, End: r.End, Model: r.Model, ModelEvidence: r.ModelEvidence, OfferedUnit: r.OfferedUnit, CompletedUnit: r.CompletedUnit,
		Levels: r.Levels, Holds: r.Holds, RampSteps: r.RampSteps, Knee: r.Knee, Ceiling: r.Ceiling, Warnings: r.Warnings}
	peak := 0.0
	for _, l := range r.DecisionLevels() {
		v := float64(l.RequestsRPS)
		if !l.RequestsRPS.Valid() {
			v = float64(l.CompletedRPS)
		}
		if !math.IsNaN(v) {
			peak = math.Max(peak, v)
		}
	}
	s.PeakRequestsRPS = F(peak)
	if s.Holds == nil {
		s.Holds = []Level{}
	}
	return s
}

// SetScenarios records the per-scenario analyses of r's run (two or
// more, in the order the run first shows them; parts[i] is the analysis
// of names[i]). Scenarios that ran one after another (none overlapping
// for more than 5 s and 10 % of the shorter one), each under the whole
// run's workload model or with every level of headroom (a smoke test, a
// warm-up), are stages of one test: r keeps its own answer, the whole
// run's levels in time order (a warm-up at 50 it/s then 400 it/s gives
// the knee at 50, where the 400 alone has no level with headroom).
// Otherwise the answer of r (model, levels, knee, ceiling, SLO) becomes
// the one of the scenario that reached the highest load
// (PeakRequestsRPS), named in r.Scenario; r's whole-run figures (overall,
// windows) stay. Scenarios that ran at the same time get a warning: on
// one system each was measured with the other's load on top.
func (r *Result) SetScenarios(names []string, parts []*Result) {
	if len(names) < 2 || len(names) != len(parts) {
		return
	}
	r.Scenarios = make([]Scenario, len(names))
	top := 0
	for i, name := range names {
		r.Scenarios[i] = NewScenario(name, parts[i])
		if r.Scenarios[i].PeakRequestsRPS > r.Scenarios[top].PeakRequestsRPS {
			top = i
		}
	}
	var overlaps []string
	for i := range r.Scenarios {
		for j := i + 1; j < len(r.Scenarios); j++ {
			a, b := r.Scenarios[i], r.Scenarios[j]
			from, to := later(a.Start, b.Start), earlier(a.End, b.End)
			both := to.Sub(from)
			shorter := min(a.End.Sub(a.Start), b.End.Sub(b.Start))
			if both > 5*time.Second && both > shorter/10 {
				overlaps = append(overlaps, fmt.Sprintf("%s and %s (%.0f s)", a.Name, b.Name, both.Seconds()))
			}
		}
	}
	// Scenarios one after another are the stages of one test (a warm-up,
	// then the load) when each is of the whole run's workload model or
	// never left headroom (a smoke or warm-up whose model a low, steady
	// load cannot show): the whole run's levels, the earlier scenario's
	// low load among them, answer it.
	stages := len(overlaps) == 0
	for _, p := range parts {
		stages = stages && (p.Model == r.Model || (p.Knee != nil && !p.Knee.Reached))
	}
	if stages {
		r.Warnings = append(r.Warnings, Warning{WarnScenariosOverlap, fmt.Sprintf("the run has %d scenarios (%s), one after another: the knee and ceiling are of the whole run (%s model), its scenarios' levels in time order; each is analysed on its own in \"scenarios\"",
			len(names), strings.Join(names, ", "), r.Model)})
		return
	}
	t := parts[top]
	r.Scenario = names[top]
	r.Model, r.ModelEvidence, r.OfferedUnit, r.CompletedUnit = t.Model, t.ModelEvidence, t.OfferedUnit, t.CompletedUnit
	r.RequestsPerIteration = t.RequestsPerIteration
	r.Levels, r.Holds, r.RampSteps, r.inspect = t.Levels, t.Holds, t.RampSteps, t.inspect
	r.Knee, r.Ceiling, r.SLO = t.Knee, t.Ceiling, t.SLO
	msg := fmt.Sprintf("the run has %d scenarios (%s), each analysed on its own in \"scenarios\"; the knee and ceiling are %s's, the one that reached the highest load", len(names), strings.Join(names, ", "), r.Scenario)
	if len(overlaps) > 0 {
		msg += "; these ran at the same time: " + strings.Join(overlaps, ", ") + ", so on one system each was measured with the other's load on top (the vus gauge counts the VUs of both)"
	}
	r.Warnings = append(r.Warnings, Warning{WarnScenariosOverlap, msg})
	for _, w := range t.Warnings {
		if !slices.Contains(r.Warnings, w) {
			r.Warnings = append(r.Warnings, Warning{w.Code, r.Scenario + ": " + w.Message})
		}
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
