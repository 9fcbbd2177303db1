package sim

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// scheduled counts an arrival-rate scenario's scheduled starts per second
// of scenario time, straight from the schedule.
func scheduled(t *testing.T, c Config, i int) []int {
	t.Helper()
	n, err := normalize(c)
	if err != nil {
		t.Fatal(err)
	}
	a := newArrivals(&n.Scenarios[i], rand.New(rand.NewPCG(1, 2)))
	var per []int
	for {
		ts, ok := a.next()
		if !ok {
			return per
		}
		s := int(ts / 1e9)
		for len(per) <= s {
			per = append(per, 0)
		}
		per[s]++
	}
}

// countSamples reads a stream to its end and counts samples per metric.
func countSamples(t *testing.T, c Config) (map[string]int, *Stream) {
	t.Helper()
	s, err := NewStream(c)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for s.Next() {
		n[s.Sample().Metric]++
	}
	return n, s
}

func TestOfferedIsIterationsPlusDropped(t *testing.T) {
	// generator-limited drops thousands of iterations; every scheduled
	// start is either an iterations sample, a dropped_iterations sample or
	// an iteration interrupted at the graceful stop, second by second and
	// in total.
	cfg := GeneratorLimited()
	want := scheduled(t, cfg, 0)
	total := 0
	for _, n := range want {
		total += n
	}
	if total != 19199 { // area (20+300)/2·120 = 19200; the start at the end is excluded
		t.Fatalf("schedule has %d starts, want 19199", total)
	}
	n, s := countSamples(t, cfg)
	m := s.Truth().Measured
	if m.Dropped == 0 {
		t.Fatal("generator-limited dropped nothing")
	}
	if got := int64(n["iterations"]) + int64(n["dropped_iterations"]) + m.Interrupted; got != int64(total) {
		t.Errorf("iterations %d + dropped %d + interrupted %d = %d, want %d scheduled",
			n["iterations"], n["dropped_iterations"], m.Interrupted, got, total)
	}
	for i, w := range want {
		if got := m.Seconds[i].Offered; got != w {
			t.Errorf("second %d: offered %d (started %d + dropped %d), scheduled %d",
				i, got, m.Seconds[i].Started, m.Seconds[i].Dropped, w)
		}
	}
}

func TestDropsOnlyAtMaxVUs(t *testing.T) {
	// With VUInitTime 0 a VU is added whenever none is free, so the first
	// drop happens with MaxVUs allocated and every one of them busy.
	e, err := newEngine(GeneratorLimited(), false)
	if err != nil {
		t.Fatal(err)
	}
	sc := e.scens[0]
	for now := int64(0); e.advance(now); now += 1e6 {
		if e.meas.m.Dropped > 0 {
			if sc.allocated != sc.cfg.MaxVUs || e.active != sc.cfg.MaxVUs {
				t.Fatalf("first drop by %.3f s with %d VUs allocated, %d busy; want %d and %d",
					float64(now)/1e9, sc.allocated, e.active, sc.cfg.MaxVUs, sc.cfg.MaxVUs)
			}
			return
		}
		if sc.allocated > sc.cfg.MaxVUs {
			t.Fatalf("%d VUs allocated, more than maxVUs %d", sc.allocated, sc.cfg.MaxVUs)
		}
	}
	t.Fatal("no drop")
}

func TestDropsWhileAddingVUsLikeK6(t *testing.T) {
	// VUInitTime > 0 is current k6: the iteration that finds no free VU is
	// dropped while one VU initialises, so drops start below maxVUs and
	// vus_max grows by one VU per initialisation.
	cfg := GeneratorLimited()
	cfg.Scenarios[0].PreAllocatedVUs = 5
	cfg.Scenarios[0].VUInitTime = 20 * time.Millisecond
	tr, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := tr.Measured
	if m.FirstDropAt < 0 || m.FirstDropAt > 2*time.Second {
		t.Errorf("first drop at %v, want one within 2 s (5 VUs cannot run 20 it/s of 1-s iterations)", m.FirstDropAt)
	}
	if m.VUsMax != 100 {
		t.Errorf("vus_max at the end %d, want maxVUs 100", m.VUsMax)
	}
	if m.Dropped <= 8717 {
		t.Errorf("dropped %d, want more than with instant VUs (8717)", m.Dropped)
	}
}

func TestClosedRampVUs(t *testing.T) {
	// ramping-vus 0 → 200 in 60 s: at tick k s the gauge shows ⌊200k/60⌋
	// VUs (k6 starts VU u when the line reaches u; at a tick that falls on a
	// start, as at 3 s, the tick may come first, as in k6, where it is a
	// race); vus_max is 200 from the first tick (k6 initialises the plan's
	// maximum before the start).
	s, err := NewStream(ClosedRamp())
	if err != nil {
		t.Fatal(err)
	}
	tick := 0
	for s.Next() {
		sm := s.Sample()
		switch sm.Metric {
		case "vus":
			tick++
			if tick < 60 {
				want := math.Floor(200 * float64(tick) / 60)
				if onStart := tick%3 == 0; sm.Value != want && !(onStart && sm.Value == want-1) {
					t.Errorf("vus at %d s = %v, want %v", tick, sm.Value, want)
				}
			}
		case "vus_max":
			if sm.Value != 200 {
				t.Fatalf("vus_max = %v at %d s, want 200", sm.Value, tick)
			}
		}
	}
	if m := s.Truth().Measured; m.Duration < 70*time.Second || m.Duration > 76*time.Second {
		t.Errorf("run lasted %v, want 70 s + at most gracefulRampDown 5 s + one iteration", m.Duration)
	}
}

func TestGracefulStopInterrupts(t *testing.T) {
	// Iterations of 10 s think at the end of a 5-s constant-vus scenario
	// with a 2-s graceful stop are interrupted at 7 s: no iterations
	// samples, but their data_sent and data_received (k6 emits those for an
	// interrupted iteration).
	cfg := Config{Server: Server{Servers: 1, Classes: []Class{{Name: "a", Share: 1, ServiceTime: Det(1)}}},
		Scenarios: []Scenario{{Name: "s", Executor: ConstantVUs, VUs: 3, Duration: 5 * time.Second,
			GracefulStop: 2 * time.Second, Think: 10 * time.Second}}}
	n, s := countSamples(t, cfg)
	m := s.Truth().Measured
	if n["iterations"] != 0 || m.Interrupted != 3 || n["data_sent"] != 3 || n["http_reqs"] != 3 {
		t.Errorf("iterations %d, interrupted %d, data_sent %d, http_reqs %d; want 0, 3, 3, 3",
			n["iterations"], m.Interrupted, n["data_sent"], n["http_reqs"])
	}
	if m.Duration != 7*time.Second {
		t.Errorf("run lasted %v, want 7 s", m.Duration)
	}
}

func TestScenariosStartAndOverlap(t *testing.T) {
	// smoke-then-breakpoint: the smoke's samples all come before 35 s, the
	// breakpoint's after; two-at-once: both scenarios run in every second.
	s, err := NewStream(SmokeThenBreakpoint())
	if err != nil {
		t.Fatal(err)
	}
	start := DefaultStart.UnixNano()
	for s.Next() {
		sm := s.Sample()
		sc, _ := sm.Tags.Get("scenario")
		at := time.Duration(sm.TimeNS - start)
		if (sc == "smoke" && at > 32*time.Second) || (sc == "breakpoint" && at < 35*time.Second) {
			t.Fatalf("%s sample of %s at %v", sm.Metric, sc, at)
		}
	}
	s, err = NewStream(TwoAtOnce())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]map[int64]bool{"browse": {}, "checkout": {}}
	for s.Next() {
		sm := s.Sample()
		if sm.Metric == "iterations" {
			sc, _ := sm.Tags.Get("scenario")
			seen[sc][(sm.TimeNS-start)/1e9] = true
		}
	}
	for sc, secs := range seen {
		if len(secs) < 120 {
			t.Errorf("%s has iterations in %d seconds, want all 120", sc, len(secs))
		}
	}
}
