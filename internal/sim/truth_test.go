package sim

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
)

// near reports whether got is within tol (absolute) of want.
func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

func TestPresetTruths(t *testing.T) {
	// Every figure is a hand calculation from the preset's config (see
	// the preset's doc comment): E[S] of CorpusServer's mix = 0.5·4 +
	// 0.3·10 + 0.15·20 + 0.05·40 = 10 ms, C = 2/10 ms = 200 req/s; a ramp
	// r₀ → r₁ over d reaches r at (r − r₀)·d/(r₁ − r₀).
	sec := func(d time.Duration) float64 { return d.Seconds() }
	for _, tc := range []struct {
		preset string
		check  func(Truth) []string
	}{
		{"open-ramp-3m", func(tr Truth) []string {
			return expect(
				"C", tr.CapacityPerS, 200,
				"ρ=1 at (s)", sec(tr.RhoOneAt), 190*180/390.0,
				"ρ=1 offered (req/s)", tr.RhoOneOfferedPerS, 200,
				"knee at (s)", sec(tr.KneeAt), 190*180/390.0,
			)
		}},
		{"closed-ramp", func(tr Truth) []string {
			// W = 4+10+20 = 34 ms, D = 1034 ms: N* = 2·1034/34; the plan has
			// 61 VUs from 61·60/200 = 18.3 s; C = 2000/(34/3) req/s.
			s := tr.Scenarios[0]
			return expect(
				"knee VUs", s.KneeVUs, 2*1034/34.0,
				"ρ=1 at (s)", sec(tr.RhoOneAt), 18.3,
				"C", tr.CapacityPerS, 2000/(34/3.0),
				"ρ=1 it/s", s.RhoOneIterationsPerS, 2000/34.0,
				"zero-load iteration (ms)", s.ZeroLoadIterationMS, 1034,
			)
		}},
		{"refusals-first", func(tr Truth) []string {
			if tr.Limit != LimitRateLimiter {
				return []string{"limit " + tr.Limit}
			}
			return expect(
				"rate limit at (s)", sec(tr.RateLimitAt), 130*120/280.0,
				"knee offered", tr.KneeOfferedPerS, 150,
				"ceiling", tr.CeilingPerS, 150,
				"ρ=1 at (s)", sec(tr.RhoOneAt), 180*120/280.0,
			)
		}},
		{"generator-limited", func(tr Truth) []string {
			// D = 10 ms + 1 s think: 100 VUs run 100/1.01 it/s.
			if !tr.GeneratorLimited || tr.GeneratorLimitScenario != "generator_limited" {
				return []string{"not generator-limited: " + tr.Limit}
			}
			g := 100 / 1.010
			return expect(
				"max it/s", tr.GeneratorLimitIterationsPerS, g,
				"generator limit at (s)", sec(tr.GeneratorLimitAt), (g-20)*120/280,
				"knee offered", tr.KneeOfferedPerS, g,
			)
		}},
		{"two-at-once", func(tr Truth) []string {
			// ρ = (6.4·λ_b + 30·20)/2000 = 1 at λ_b = 218.75 it/s; then
			// 248.75 req/s offered and the mix's C equals it.
			return expect(
				"ρ=1 at (s)", sec(tr.RhoOneAt), (218.75-10)*120/240,
				"ρ=1 offered", tr.RhoOneOfferedPerS, 248.75,
				"C", tr.CapacityPerS, 248.75,
				"browse C", tr.Scenarios[0].CapacityPerS, 2000/6.4,
				"checkout C", tr.Scenarios[1].CapacityPerS, 100,
			)
		}},
		{"constant-errors", func(tr Truth) []string {
			// failures take no slot: λ* = 200/0.9; C stays 200.
			return expect(
				"ρ=1 offered", tr.RhoOneOfferedPerS, 200/0.9,
				"ρ=1 at (s)", sec(tr.RhoOneAt), (200/0.9-20)*180/380,
				"C", tr.CapacityPerS, 200,
				"f̄", tr.LoadIndependentErrorFraction, 0.1,
			)
		}},
		{"grpc-ramp", func(tr Truth) []string {
			// W = 0.95·10 ms: λ* = 2000/9.5 it/s.
			return expect(
				"ρ=1 offered", tr.RhoOneOfferedPerS, 2000/9.5,
				"ρ=1 at (s)", sec(tr.RhoOneAt), (2000/9.5-20)*120/380,
				"C", tr.CapacityPerS, 200,
				"f̄", tr.LoadIndependentErrorFraction, 0.05,
			)
		}},
		{"low-capacity", func(tr Truth) []string {
			return expect("C", tr.CapacityPerS, 5, "ρ=1 at (s)", sec(tr.RhoOneAt), 4.5*300/9.5)
		}},
		{"high-capacity", func(tr Truth) []string {
			return expect("C", tr.CapacityPerS, 2500, "ρ=1 at (s)", sec(tr.RhoOneAt), 2400*1800/4900.0)
		}},
		{"warmup-ramp", func(tr Truth) []string {
			return expect("ρ=1 at (s)", sec(tr.RhoOneAt), 300+180*180/380.0)
		}},
		{"spike", func(tr Truth) []string {
			return expect("ρ=1 at (s)", sec(tr.RhoOneAt), 60+150*5/350.0)
		}},
		{"staircase", func(tr Truth) []string {
			return expect("ρ=1 at (s)", sec(tr.RhoOneAt), 120)
		}},
		{"smoke-then-breakpoint", func(tr Truth) []string {
			return expect("ρ=1 at (s)", sec(tr.RhoOneAt), 106, "ρ=1 offered", tr.RhoOneOfferedPerS, 200)
		}},
		{"ws-ladder", func(tr Truth) []string {
			// 1000/4.5 msgs/s; a VU sends 200 msgs per 7.5 ms + 10 s + 1.5 s;
			// the plan passes 12.79 classes at 93 + 5/8 s (VU 13 of the ramp
			// 8 → 16 in 1 s).
			w := tr.WS
			if tr.Limit != LimitWSLock || w == nil {
				return []string{"limit " + tr.Limit}
			}
			per := 200 / 11.5075
			return expect(
				"capacity (msgs/s)", w.CapacityMsgsPerS, 1000/4.5,
				"msgs/s per class", w.MsgsPerSPerClass, per,
				"knee classes", w.KneeClasses, 1000/4.5/per,
				"ρ=1 at (s)", sec(w.RhoOneAt), 93.625,
			)
		}},
		{"mm1", func(tr Truth) []string {
			if tr.RhoOneAt != -1 || tr.Limit != "" || tr.KneeAt != -1 {
				return []string{"a knee in an M/M/1 at ρ = 0.8"}
			}
			return expect("C", tr.CapacityPerS, 1000)
		}},
	} {
		c, err := PresetConfig(tc.preset)
		if err != nil {
			t.Fatal(err)
		}
		e, err := newEngine(c, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, msg := range tc.check(e.computeTruth()) {
			t.Errorf("%s: %s", tc.preset, msg)
		}
	}
}

// expect compares name, got, want triples to 1e-3 relative (the breakpoint
// search is exact to a nanosecond) and returns the mismatches.
func expect(triples ...any) []string {
	num := func(v any) float64 {
		if i, ok := v.(int); ok {
			return float64(i)
		}
		return v.(float64)
	}
	var bad []string
	for i := 0; i+2 < len(triples); i += 3 {
		name, got, want := triples[i].(string), num(triples[i+1]), num(triples[i+2])
		if !near(got, want, 1e-3*math.Max(1, math.Abs(want))) {
			bad = append(bad, fmt.Sprintf("%s: got %.6g, want %.6g", name, got, want))
		}
	}
	return bad
}

func TestMeasuredAgreesWithTruth(t *testing.T) {
	// What the server did matches the truth: below the knee of
	// open-ramp-3m utilisation tracks ρ(t) = λ(t)·10 ms/2 (± 5 % over
	// 10-s windows), and past it the server is busy (≥ 97 %).
	tr, err := Simulate(OpenRamp3m())
	if err != nil {
		t.Fatal(err)
	}
	window := func(from, to int) (busy, rho float64) {
		for i := from; i < to; i++ {
			busy += tr.Measured.Seconds[i].BusyServers / 2
			rho += (10 + 390*(float64(i)+0.5)/180) * 10 / 1000 / 2
		}
		n := float64(to - from)
		return busy / n, rho / n
	}
	for _, w := range [][2]int{{10, 20}, {40, 50}, {70, 80}} {
		busy, rho := window(w[0], w[1])
		if math.Abs(busy-rho) > 0.05*rho {
			t.Errorf("t %d–%d s: utilisation %.3f, ρ %.3f", w[0], w[1], busy, rho)
		}
	}
	if busy, _ := window(100, 170); busy < 0.97 {
		t.Errorf("past the knee utilisation %.3f, want ≥ 0.97", busy)
	}
	// generator-limited: once capped at ≈ 99 it/s the server sits at
	// ρ = 99·10 ms/2 = 0.495 (± 5 % over t = 40–120 s) and no second
	// passes 0.75, while iterations drop.
	g, err := Simulate(GeneratorLimited())
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for i, s := range g.Measured.Seconds {
		if s.BusyServers/2 > 0.75 {
			t.Fatalf("generator-limited second %d: utilisation %.2f", i, s.BusyServers/2)
		}
		if i >= 40 && i < 120 {
			sum += s.BusyServers / 2
		}
	}
	within(t, "generator-limited utilisation", sum/80, 0.495, 0.05)
}

func TestRefusalsComeBeforeLatency(t *testing.T) {
	// refusals-first: 429s from about RateLimitAt, while the served
	// requests keep the latency of a server at ρ = 150·10 ms/2 = 0.75: a
	// median 200 under 15 ms past the limit (a saturated CorpusServer
	// queues its requests up to the 200-ms max wait: medians of 150–250 ms
	// in the corpus).
	s, err := NewStream(RefusalsFirst())
	if err != nil {
		t.Fatal(err)
	}
	start := DefaultStart.UnixNano()
	first429 := time.Duration(-1)
	var okDur []float64
	for s.Next() {
		sm := s.Sample()
		if sm.Metric != "http_req_duration" {
			continue
		}
		st, _ := sm.Tags.Get("status")
		at := time.Duration(sm.TimeNS - start)
		if st == "429" && first429 < 0 {
			first429 = at
		}
		if st == "200" && at > 80*time.Second {
			okDur = append(okDur, sm.Value)
		}
	}
	want := s.Truth().RateLimitAt
	if first429 < want-3*time.Second || first429 > want+3*time.Second {
		t.Errorf("first 429 at %v, rate limit reached at %v", first429, want)
	}
	slices.Sort(okDur)
	if med := okDur[len(okDur)/2]; med > 15 {
		t.Errorf("past the limit the median 200 takes %.1f ms, want < 15 ms", med)
	} else {
		t.Logf("median 200 past the limit: %.1f ms", med)
	}
}
