package sim

import (
	"math"
	"testing"
	"time"
)

// erlangC is the probability that an arrival waits in an M/M/c queue with
// offered load a = λ·E[S] (Erlang C; Kleinrock, Queueing Systems vol. 1,
// eq. 3.40).
func erlangC(c int, a float64) float64 {
	sum, term := 0.0, 1.0
	for k := 0; k < c; k++ {
		sum += term
		term *= a / float64(k+1)
	}
	top := term / (1 - a/float64(c))
	return top / (sum + top)
}

// meanOverSeeds simulates cfg with seeds 1…n and averages f of the truth.
func meanOverSeeds(t *testing.T, cfg Config, n int, f func(Truth) float64) float64 {
	t.Helper()
	s := 0.0
	for seed := 1; seed <= n; seed++ {
		cfg.Seed = uint64(seed)
		tr, err := Simulate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		s += f(tr)
	}
	return s / float64(n)
}

func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*math.Abs(want) {
		t.Errorf("%s = %.4f, want %.4f ± %.1f %%", what, got, want, 100*tol)
	} else {
		t.Logf("%s = %.4f (want %.4f ± %.1f %%)", what, got, want, 100*tol)
	}
}

func TestMM1MeanWait(t *testing.T) {
	// M/M/1 at ρ = 0.8, E[S] = 1 ms: Wq = ρ/(1−ρ)·E[S] = 4 ms, W = 5 ms
	// (Kleinrock vol. 1, eq. 3.26). 4 seeds × 480k requests; the spread of
	// one 10-min run is ≈ 2 %, so 3 % on the mean of 4.
	cfg := MM1(0.8)
	within(t, "M/M/1 Wq (ms)", meanOverSeeds(t, cfg, 4, func(tr Truth) float64 { return tr.Measured.MeanWaitMS }), 4, 0.03)
	within(t, "M/M/1 utilisation", meanOverSeeds(t, cfg, 1, func(tr Truth) float64 { return tr.Measured.Utilisation }), 0.8, 0.01)
}

func TestMMcErlangC(t *testing.T) {
	// M/M/4 at ρ = 0.75, E[S] = 4 ms: a = 3, C(4, 3) = 13.5/26.5 = 0.5094,
	// Wq = C·E[S]/(c(1−ρ)) = 2.0377 ms, W = 6.0377 ms.
	cfg := MMc(4, 0.75)
	wq := erlangC(4, 3) * 4 / (4 * 0.25)
	if math.Abs(wq-2.0377) > 1e-4 {
		t.Fatalf("erlangC helper: Wq = %.5f, want 2.0377", wq)
	}
	within(t, "M/M/4 Wq (ms)", meanOverSeeds(t, cfg, 4, func(tr Truth) float64 { return tr.Measured.MeanWaitMS }), wq, 0.04)
	within(t, "M/M/4 W (ms)", meanOverSeeds(t, cfg, 2, func(tr Truth) float64 { return tr.Measured.MeanSojournMS }), wq+4, 0.02)
}

func TestMD1AndUniformPollaczekKhinchine(t *testing.T) {
	// M/G/1: Wq = λ·E[S²]/(2(1−ρ)) (Pollaczek–Khinchine). Deterministic 1 ms
	// at ρ = 0.8: Wq = 0.8·1/(2·0.2) = 2 ms; uniform [0.5, 1.5] ms (the
	// corpus server's shape): E[S²] = 13/12 ms², Wq = 2.1667 ms.
	for _, d := range []Dist{Det(1), Uniform(0.5, 1.5)} {
		cfg := MM1(0.8)
		cfg.Server.Classes[0].ServiceTime = d
		cfg.Scenarios[0].Duration = 5 * time.Minute
		want := 0.8 * d.SecondMomentMS2() / (2 * 0.2)
		within(t, d.Kind+" Wq (ms)", meanOverSeeds(t, cfg, 2, func(tr Truth) float64 { return tr.Measured.MeanWaitMS }), want, 0.03)
	}
}

func TestLittlesLawAtTheServer(t *testing.T) {
	// L = λ·W over a run whose server is empty at both ends (every request
	// answered; no timeouts): exact up to float rounding.
	for _, name := range []string{"open-ramp-3m", "closed-ramp", "two-at-once", "grpc-ramp"} {
		cfg, _ := PresetConfig(name)
		tr, err := Simulate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		m := tr.Measured
		lw := m.ArrivalRatePerS * m.MeanSojournMS / 1000
		if math.Abs(m.MeanInSystem-lw) > 1e-3*m.MeanInSystem {
			t.Errorf("%s: L = %.4f, λW = %.4f", name, m.MeanInSystem, lw)
		}
	}
}

func TestLittlesLawFromSamples(t *testing.T) {
	// From the emitted samples alone: one request per iteration at 293.3
	// it/s (2933 per 10 s) to 2 slots of exponential 5 ms (ρ = 0.73). The
	// mean of the vus gauge (busy VUs) is L, the iterations per second λ and
	// the mean iteration_duration W: L = λW within the sampling error of 300
	// ticks (≈ 2 %). (At a whole rate such as 293/s k6's evenly spaced
	// starts keep one phase against the 1-s ticks, and the gauge is biased:
	// that is real k6 behaviour, not a sampling of L.)
	cfg := Config{Seed: 3, Server: Server{Servers: 2, Classes: []Class{{Name: "a", Share: 1, ServiceTime: Exp(5)}}},
		Scenarios: []Scenario{{Name: "s", Executor: ConstantArrivalRate, Rate: 2933, TimeUnit: 10 * time.Second,
			Duration: 5 * time.Minute, PreAllocatedVUs: 50, MaxVUs: 1000}}}
	s, err := NewStream(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var vus, ticks, iters, durSum float64
	for s.Next() {
		sm := s.Sample()
		switch sm.Metric {
		case "vus":
			vus += sm.Value
			ticks++
		case "iterations":
			iters++
		case "iteration_duration":
			durSum += sm.Value
		}
	}
	lambda := iters / 300
	w := durSum / iters / 1000
	within(t, "mean busy VUs", vus/ticks, lambda*w, 0.05)
	within(t, "λ (it/s)", lambda, 293.3, 0.001)
}

func TestCapacityAtOverload(t *testing.T) {
	// 4 slots of exponential 10 ms: C = 4/10 ms = 400 req/s. Offered 800
	// req/s with a 100-ms max wait: the server is always busy and serves C
	// (± 2 % on the mean of 4 seeds; one seed's 45 s of completions vary by
	// ≈ 1 %); the rest is 429.
	cfg := Config{Server: Server{Servers: 4, Classes: []Class{{Name: "a", Share: 1, ServiceTime: Exp(10),
		MaxWait: 100 * time.Millisecond}}},
		Scenarios: []Scenario{{Name: "s", Executor: ConstantArrivalRate, Rate: 800, Duration: time.Minute,
			PreAllocatedVUs: 100, MaxVUs: 1000}}}
	tr, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if tr.CapacityPerS != 400 || tr.RhoOneAt != 0 || tr.Limit != LimitServer {
		t.Fatalf("truth C = %v, ρ=1 at %v, limit %q; want 400, 0, server", tr.CapacityPerS, tr.RhoOneAt, tr.Limit)
	}
	over := func(f func(Second) float64) func(Truth) float64 {
		return func(tr Truth) float64 {
			sum := 0.0
			for _, s := range tr.Measured.Seconds[10:55] {
				sum += f(s)
			}
			return sum / 45
		}
	}
	within(t, "goodput at 2× overload (req/s)", meanOverSeeds(t, cfg, 4, over(func(s Second) float64 { return float64(s.OK) })), 400, 0.02)
	within(t, "busy slots", meanOverSeeds(t, cfg, 1, over(func(s Second) float64 { return s.BusyServers })), 4, 0.005)
}
