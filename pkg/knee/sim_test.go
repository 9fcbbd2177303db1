package knee_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/sim"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// simulate runs a simulated k6 run of known truth through the timeline
// and the knee analysis, as `ldanalyze knee` reads a file.
func simulate(t *testing.T, cfg sim.Config, opt knee.Options) (*knee.Result, sim.Truth) {
	t.Helper()
	st, err := sim.NewStream(cfg)
	if err != nil {
		t.Fatal(err)
	}
	acc := timeline.New(timeline.Options{})
	for st.Next() {
		acc.Add(st.Sample())
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	r, err := knee.Analyze(acc.Close(st.Stats().ResolutionNS), opt)
	if err != nil {
		t.Fatal(err)
	}
	return r, st.Truth()
}

func describe(r *knee.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "model %s, levels %s (%d holds, %d ramp steps)\n", r.Model, r.Levels, len(r.Holds), len(r.RampSteps))
	for _, l := range r.DecisionLevels() {
		fmt.Fprintf(&b, "  %-4s %s %3.0fs offered %7.2f goodput %7.2f all %7.2f err %5.1f%% p95 %7.1f %s: %s\n", l.Kind, l.Start.Format("15:04:05"), l.Seconds,
			float64(l.Offered), float64(l.CompletedRPS), float64(l.RequestsRPS), 100*float64(l.ErrorRate), float64(l.P95MS), l.Verdict, l.Reason)
	}
	if r.Knee != nil {
		fmt.Fprintf(&b, "  knee %.2f [%.2f, %.2f] reached %v (%s)\n", float64(r.Knee.Offered), float64(r.Knee.Low), float64(r.Knee.High), r.Knee.Reached, r.Knee.Method)
	}
	if r.Ceiling != nil {
		fmt.Fprintf(&b, "  ceiling %.2f reached %v limited by %q (%s)\n", float64(r.Ceiling.CompletedRPS), r.Ceiling.Reached, r.Ceiling.LimitedBy, r.Ceiling.Note)
	}
	return b.String()
}

// TestSimulatedShapes is the knee on every load shape users run, against
// a simulated server of exactly known capacity (internal/sim, whose Truth
// says where ρ reaches 1): the ceiling within 4 % of the capacity C, the
// knee, in offered units, within [0.7, 1.03] of the load at which ρ
// reaches 1.
func TestSimulatedShapes(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  sim.Config
	}{
		{"open ramp over 30 s", sim.OpenRamp30s()},
		{"open ramp over 3 min", sim.OpenRamp3m()},
		{"open ramp over 30 min", sim.OpenRamp30m()},
		{"5-minute warm-up then a ramp", sim.WarmupRamp()},
		{"spike", sim.Spike()},
		{"short holds with long ramps between", sim.Staircase()},
		{"5 req/s server", sim.LowCapacity()},
		{"2,500 req/s server", highCapacity()},
		{"constant 10 % errors", sim.ConstantErrors()},
		{"refusals before latency rises", sim.RefusalsFirst()},
		{"gRPC ramp", sim.GRPCRamp()},
		{"closed ramp of VUs", sim.ClosedRamp()},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, truth := simulate(t, c.cfg, knee.Options{})
			ok := nearTruth(t, r, truth)
			if want := knee.LimitServer; truth.Limit == "rate-limiter" {
				want = knee.LimitRateLimiter
				if r.Ceiling != nil && r.Ceiling.LimitedBy != want {
					t.Errorf("ceiling limited by %q, want %q", r.Ceiling.LimitedBy, want)
				}
			} else if r.Ceiling != nil && r.Ceiling.LimitedBy != want {
				t.Errorf("ceiling limited by %q, want %q", r.Ceiling.LimitedBy, want)
			}
			if !ok || testing.Verbose() {
				t.Log(describe(r))
			}
		})
	}
}

// highCapacity is sim.HighCapacity's 25-server 2,500 req/s system under
// a 2-minute ramp 100 → 5,000 it/s (the preset's 30 minutes take 20 s to
// simulate).
func highCapacity() sim.Config {
	c := sim.HighCapacity()
	c.Scenarios[0].Stages = []sim.Stage{{Duration: 2 * time.Minute, Target: 5000}}
	return c
}

// TestSimulatedGeneratorLimit: with maxVUs too small for the schedule the
// load generator, not the server (at ρ ≈ 0.5), set the limit: the ceiling
// is not reached, limited by the generator, at least what the VUs could
// run, and the knee is above what the server was sent.
func TestSimulatedGeneratorLimit(t *testing.T) {
	r, truth := simulate(t, sim.GeneratorLimited(), knee.Options{})
	if !truth.GeneratorLimited {
		t.Fatal("the preset is not generator-limited")
	}
	c, k := r.Ceiling, r.Knee
	if c == nil || c.Reached || c.LimitedBy != knee.LimitGenerator {
		t.Fatalf("ceiling %+v, want not reached, limited by the generator\n%s", c, describe(r))
	}
	vuLimit := truth.GeneratorLimitIterationsPerS
	if got := float64(c.CompletedRPS); got < 0.96*vuLimit || got > 1.04*vuLimit {
		t.Errorf("ceiling %.1f, want the VUs' limit %.1f ± 4 %%", got, vuLimit)
	}
	if !strings.Contains(c.Note, "maxVUs") {
		t.Errorf("no advice on maxVUs in %q", c.Note)
	}
	if k == nil || k.Reached || float64(k.Offered) < 0.96*vuLimit || float64(k.Offered) > 1.04*vuLimit {
		t.Errorf("knee %+v, want not reached, at least the %.1f it/s the server was sent", k, vuLimit)
	}
}

// TestSimulatedWebSocketLadder: sim.WSLadder, the corpus's fan-out (holds
// at 2, 4, 8 and 16 classes; the lock saturates at ≈ 12.8 classes): the
// knee's range holds the true knee, its point is the 8-class hold, and the
// completed load is messages received per second, below the lock's
// capacity at the top.
func TestSimulatedWebSocketLadder(t *testing.T) {
	r, truth := simulate(t, sim.WSLadder(), knee.Options{})
	k := truth.WS.KneeClasses
	if r.Knee == nil || !r.Knee.Reached || float64(r.Knee.Low) > k || float64(r.Knee.High) < k || r.Knee.Offered != 8 {
		t.Errorf("knee %+v, want 8 classes with %.1f inside its range\n%s", r.Knee, k, describe(r))
	}
	if r.CompletedUnit != "msgs/s" || r.Ceiling == nil || float64(r.Ceiling.CompletedRPS) > truth.WS.CapacityMsgsPerS {
		t.Errorf("completed in %q, ceiling %+v above the lock's %.0f msgs/s", r.CompletedUnit, r.Ceiling, truth.WS.CapacityMsgsPerS)
	}
	if !r.Ceiling.Reached {
		t.Errorf("ceiling not reached at 16 classes, past the lock's capacity\n%s", describe(r))
	}
	// At low load every class gets its 10 questions × 20 players per
	// ≈ 11.5 s: 17.4 msgs/s per class.
	if h := r.Holds[0]; math.Abs(float64(h.CompletedRPS)/float64(h.Offered)-truth.WS.MsgsPerSPerClass) > 0.1*truth.WS.MsgsPerSPerClass {
		t.Errorf("2 classes: %.1f msgs/s per class, want %.1f", float64(h.CompletedRPS)/float64(h.Offered), truth.WS.MsgsPerSPerClass)
	}
}

// TestSimulatedModelWithSpareVUs is the workload model when vus stays
// below vus_max and nothing is dropped: a ramping-vus run stopped at 45 s
// of its 1-minute 0 → 200 VU stage (an aborted test: vus peaks near 150 of
// the 200 k6 allocated) is closed, and a ramping-arrival-rate run whose
// 300 pre-allocated VUs are never all busy is open.
func TestSimulatedModelWithSpareVUs(t *testing.T) {
	cut := sim.ClosedRamp()
	open := sim.Config{Seed: 1, Server: sim.CorpusServer(), Scenarios: []sim.Scenario{{
		Name: "open_spare", Executor: sim.RampingArrivalRate, StartRate: 10, PreAllocatedVUs: 300, MaxVUs: 300,
		Stages: []sim.Stage{{Duration: 2 * time.Minute, Target: 150}}}}}
	// A staircase 100 → 1000 it/s (30-s holds, 10-s steps) on a 600 req/s
	// server, 200 VUs pre-allocated: past capacity every VU is busy, vus
	// reaches 201 of vus_max 202 and nothing is dropped; the busy VUs
	// still turn with every second's noise (225 turns in 337 changes).
	usedUp, err := sim.PresetConfig("staircase")
	if err != nil {
		t.Fatal(err)
	}
	usedUp.Seed, usedUp.Server.Servers = 2, 6
	sc := &usedUp.Scenarios[0]
	sc.StartRate, sc.PreAllocatedVUs, sc.MaxVUs = 100, 200, 2000
	sc.Stages = []sim.Stage{{Duration: 30 * time.Second, Target: 100}}
	for k := 2; k <= 10; k++ {
		sc.Stages = append(sc.Stages, sim.Stage{Duration: 10 * time.Second, Target: float64(100 * k)}, sim.Stage{Duration: 30 * time.Second, Target: float64(100 * k)})
	}
	for _, c := range []struct {
		name  string
		cfg   sim.Config
		until time.Duration
		want  knee.Model
	}{
		{"ramping-vus stopped before its largest stage", cut, 45 * time.Second, knee.Closed},
		{"ramping-arrival-rate with spare VUs", open, 0, knee.Open},
		{"ramping-vus to its largest stage (vus reaches vus_max)", sim.ClosedRamp(), 0, knee.Closed},
		{"ramping-arrival-rate that uses up its pre-allocated VUs (vus reaches vus_max, which grows by 1 %)", usedUp, 0, knee.Open},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, err := sim.NewStream(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			start := c.cfg.Start
			if start.IsZero() {
				start = sim.DefaultStart
			}
			acc := timeline.New(timeline.Options{})
			for st.Next() {
				if c.until > 0 && st.Sample().TimeNS >= start.Add(c.until).UnixNano() {
					continue
				}
				acc.Add(st.Sample())
			}
			if err := st.Err(); err != nil {
				t.Fatal(err)
			}
			r, err := knee.Analyze(acc.Close(st.Stats().ResolutionNS), knee.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Model != c.want {
				t.Fatalf("model %s (%s), want %s", r.Model, r.ModelEvidence, c.want)
			}
			t.Logf("%s: %s", r.Model, r.ModelEvidence)
		})
	}
}

// TestSimulatedOneLoad: a constant-arrival-rate run is one load level, so
// its errors have no lower load to be judged against. At 260 it/s on the
// 200 req/s corpus server (429s and 503s for 22 % of the requests) the
// level lacks headroom and there is no knee below it; at 150 it/s, with
// no error, the level has headroom and the knee is above it.
func TestSimulatedOneLoad(t *testing.T) {
	for _, c := range []struct {
		rate     float64
		headroom bool
	}{{260, false}, {150, true}} {
		cfg := sim.Config{Seed: 1, Server: sim.CorpusServer(), Scenarios: []sim.Scenario{{
			Name: "constant", Executor: sim.ConstantArrivalRate, Rate: c.rate, Duration: time.Minute, PreAllocatedVUs: 50, MaxVUs: 100}}}
		r, _ := simulate(t, cfg, knee.Options{})
		levels := append(slices.Clone(r.Holds), r.RampSteps...)
		if len(levels) == 0 {
			t.Fatalf("%.0f it/s: no level", c.rate)
		}
		for _, l := range levels {
			if (l.Verdict == knee.Headroom) != c.headroom {
				t.Errorf("%.0f it/s: level at %.1f %s (%s)", c.rate, float64(l.Offered), l.Verdict, l.Reason)
			}
		}
		if c.headroom != (r.Knee != nil && !r.Knee.Reached) {
			t.Errorf("%.0f it/s: knee %+v", c.rate, r.Knee)
		}
		t.Logf("%.0f it/s: %s; knee %+v", c.rate, describe(r), r.Knee)
	}
}

// nearTruth reports (and says, as errors) whether r's ceiling is within
// 4 % of the simulated capacity and its knee, reached, within [0.7, 1.03]
// of ρ = 1 (in VUs for a closed model).
func nearTruth(t *testing.T, r *knee.Result, truth sim.Truth) bool {
	t.Helper()
	capacity := truth.CeilingPerS
	kneeTrue := truth.KneeIterationsPerS
	if sc := truth.Scenarios[0]; sc.KneeVUs > 0 {
		kneeTrue = sc.KneeVUs // closed: the knee is in VUs
	}
	ok := true
	if r.Ceiling == nil || math.Abs(float64(r.Ceiling.CompletedRPS)-capacity) > 0.04*capacity {
		ok = false
		t.Errorf("ceiling not within 4 %% of C = %.1f", capacity)
	}
	if r.Knee == nil || !r.Knee.Reached || float64(r.Knee.Offered) < 0.7*kneeTrue || float64(r.Knee.Offered) > 1.03*kneeTrue {
		ok = false
		t.Errorf("knee not within [0.7, 1.03] of ρ = 1 at %.1f %s", kneeTrue, r.OfferedUnit)
	}
	return ok
}

// TestSimulatedShapesMissingSeconds: the shapes of TestSimulatedShapes
// with every sample of three seconds removed (at a quarter, a half and
// three quarters of the run: a stalled generator, an edited file) keep
// their ceiling within 4 % of the simulated capacity and their knee in
// [0.7, 1.03] of ρ = 1: one missing second must not turn holds into
// noise-sized steps that move the answer.
func TestSimulatedShapesMissingSeconds(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  sim.Config
	}{
		{"open ramp over 3 min", sim.OpenRamp3m()},
		{"spike", sim.Spike()},
		{"short holds with long ramps between", sim.Staircase()},
		{"refusals before latency rises", sim.RefusalsFirst()},
		{"gRPC ramp", sim.GRPCRamp()},
		{"closed ramp of VUs", sim.ClosedRamp()},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, err := sim.NewStream(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			first, last := int64(math.MaxInt64), int64(math.MinInt64)
			for st.Next() {
				s := st.Sample().TimeNS / 1e9
				first, last = min(first, s), max(last, s)
			}
			if err := st.Err(); err != nil {
				t.Fatal(err)
			}
			gone := map[int64]bool{}
			for _, q := range []int64{1, 2, 3} {
				gone[first+q*(last-first)/4] = true
			}
			if st, err = sim.NewStream(c.cfg); err != nil {
				t.Fatal(err)
			}
			acc := timeline.New(timeline.Options{})
			removed := 0
			for st.Next() {
				if gone[st.Sample().TimeNS/1e9] {
					removed++
					continue
				}
				acc.Add(st.Sample())
			}
			if err := st.Err(); err != nil {
				t.Fatal(err)
			}
			if removed == 0 {
				t.Fatal("no sample removed")
			}
			r, err := knee.Analyze(acc.Close(st.Stats().ResolutionNS), knee.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !nearTruth(t, r, st.Truth()) || testing.Verbose() {
				t.Log(describe(r))
			}
		})
	}
}
