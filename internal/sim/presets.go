package sim

import (
	"fmt"
	"time"
)

// Preset is a named run the knee tests use.
type Preset struct {
	// Name is the preset's key, e.g. "open-ramp-3m".
	Name string
	// About says what the run is and what is true of it.
	About string
	// Config returns a fresh copy of the run's config.
	Config func() Config
}

// Presets returns every preset, in a fixed order.
func Presets() []Preset {
	return []Preset{
		{"open-ramp-30s", "corpus server (200 req/s), ramping-arrival-rate 20→400 it/s in 30 s", OpenRamp30s},
		{"open-ramp-3m", "corpus server (200 req/s), ramping-arrival-rate 10→400 it/s in one 3-min stage", OpenRamp3m},
		{"open-ramp-30m", "corpus server (200 req/s), ramping-arrival-rate 10→400 it/s in one 30-min stage", OpenRamp30m},
		{"closed-ramp", "corpus server, ramping-vus 0→200 VUs in 1 min, journey menu+search+order + 1 s think (knee ≈ 61 VUs)", ClosedRamp},
		{"warmup-ramp", "corpus server, 5 min at 20 it/s then 20→400 it/s in 3 min", WarmupRamp},
		{"spike", "corpus server, 50 it/s, a 5-s spike to 400 it/s held 20 s, back to 50", Spike},
		{"staircase", "corpus server, 8 levels 40…320 it/s: 10-s holds, 20-s ramps between them", Staircase},
		{"low-capacity", "5 req/s server (1 slot, 200 ms), 30→600 it/min in 5 min", LowCapacity},
		{"high-capacity", "2,500 req/s server (25 slots, 10 ms), 100→5,000 it/s in 30 min", HighCapacity},
		{"refusals-first", "corpus server behind a 150 req/s token bucket (429 before latency rises), 20→300 it/s in 2 min", RefusalsFirst},
		{"generator-limited", "corpus server, iterations with 1 s think and maxVUs 100 (≈ 99 it/s), 20→300 it/s in 2 min", GeneratorLimited},
		{"smoke-then-breakpoint", "constant-vus smoke (2 VUs, 30 s), then a breakpoint staircase 60→300 it/s (+20 per 10 s)", SmokeThenBreakpoint},
		{"two-at-once", "two overlapping scenarios: a browse ramp 10→250 it/s and a constant 30 it/s checkout", TwoAtOnce},
		{"constant-errors", "corpus server with 10 % load-independent 500s on every class, 20→400 it/s in 3 min", ConstantErrors},
		{"grpc-ramp", "gRPC Health/Check, 2 slots × U[5,15] ms (200 OK/s), 5 % NOT_FOUND, 20→400 it/s in 120 s + 20 s hold", GRPCRamp},
		{"ws-ladder", "WebSocket fan-out, lock 4.5 ms/msg (222 msgs/s), 2/4/8/16 classes of 20 players + host (knee ≈ 12.8)", WSLadder},
		{"mm1", "M/M/1 at ρ = 0.8 (Poisson arrivals, exponential 1 ms service), 10 min", func() Config { return MM1(0.8) }},
		{"mmc", "M/M/4 at ρ = 0.75 (Poisson arrivals, exponential 4 ms service), 10 min", func() Config { return MMc(4, 0.75) }},
	}
}

// PresetConfig returns the config of the preset called name.
func PresetConfig(name string) (Config, error) {
	for _, p := range Presets() {
		if p.Name == name {
			return p.Config(), nil
		}
	}
	return Config{}, fmt.Errorf("sim: unknown preset %q", name)
}

// CorpusServer is the server the k6 corpus was recorded against
// (shared/research/k6-corpus-server, -c 2 -shed 64 -maxwait 200ms): 2
// slots; service uniform on [0.5m, 1.5m] with m = 4, 10, 20 and 40 ms for
// menu, search, order and slow, in the open mix 50/30/15/5 % (E[S] = 10 ms:
// C = 200 req/s); POST /order is shed (503) when more than 64 wait; GET
// /search answers 429 once it waited 200 ms; menu and slow only queue. The
// client timeouts are those of the corpus scripts (3 s, 500 ms for slow),
// and every response is checked ("status is 200").
func CorpusServer() Server {
	class := func(name, method string, share, m float64) Class {
		return Class{Name: name, Method: method, Share: share, ServiceTime: Uniform(m/2, 1.5*m),
			Timeout: 3 * time.Second, Check: "status is 200", RequestBytes: 80, ResponseBytes: 210}
	}
	search := class("search", "GET", 0.30, 10)
	search.MaxWait = 200 * time.Millisecond
	order := class("order", "POST", 0.15, 20)
	order.ShedWaiting = 64
	order.RequestBytes = 146
	slow := class("slow", "GET", 0.05, 40)
	slow.Timeout = 500 * time.Millisecond
	return Server{Servers: 2, Classes: []Class{class("menu", "GET", 0.50, 4), search, order, slow}}
}

// base returns a config with the presets' common settings: seed 1 and
// k6-like row order (20 µs mean push jitter).
func base(srv Server, sc ...Scenario) Config {
	return Config{Seed: 1, Server: srv, Scenarios: sc, Output: Output{PushJitter: 20 * time.Microsecond}}
}

// ramp is a ramping-arrival-rate scenario.
func ramp(name string, start float64, pre, maxVUs int, stages ...Stage) Scenario {
	return Scenario{Name: name, Executor: RampingArrivalRate, StartRate: start,
		PreAllocatedVUs: pre, MaxVUs: maxVUs, Stages: stages}
}

func st(d time.Duration, target float64) Stage { return Stage{Duration: d, Target: target} }

// OpenRamp30s is a continuous open ramp 20 → 400 it/s over 30 s against
// CorpusServer: ρ = 1 at 200 it/s (t ≈ 14.2 s).
func OpenRamp30s() Config {
	return base(CorpusServer(), ramp("open_ramp", 20, 40, 300, st(30*time.Second, 400)))
}

// OpenRamp3m is prom_rw's linear ramp, 10 → 400 it/s in one 180-s stage
// against CorpusServer: ρ = 1 at 200 it/s (t ≈ 87.7 s).
func OpenRamp3m() Config {
	return base(CorpusServer(), ramp("open_linear", 10, 40, 300, st(3*time.Minute, 400)))
}

// OpenRamp30m is the same ramp over 30 min: ρ = 1 at t ≈ 877 s.
func OpenRamp30m() Config {
	return base(CorpusServer(), ramp("open_linear", 10, 40, 300, st(30*time.Minute, 400)))
}

// ClosedRamp is a closed model: ramping-vus 0 → 200 VUs in 1 min, then 10 s
// back to 0; each iteration requests menu, search and order, then sleeps
// 1 s. W = 34 ms and D = 1,034 ms per iteration: N* = 2·1034/34 ≈ 60.8 VUs,
// the server saturating at 58.8 iterations/s (176 req/s).
func ClosedRamp() Config {
	sc := Scenario{Name: "closed_ramp", Executor: RampingVUs, Stages: []Stage{st(time.Minute, 200), st(10*time.Second, 0)},
		GracefulRampDown: 5 * time.Second, Flow: []string{"menu", "search", "order"}, Think: time.Second}
	return base(CorpusServer(), sc)
}

// WarmupRamp holds 20 it/s for 5 min (a warm-up far below capacity), then
// ramps 20 → 400 it/s in 3 min: ρ = 1 at 200 it/s (t = 300 + 85.3 s).
func WarmupRamp() Config {
	return base(CorpusServer(), ramp("warmup_ramp", 20, 40, 300, st(5*time.Minute, 20), st(3*time.Minute, 400)))
}

// Spike holds 50 it/s for 60 s, rises to 400 it/s in 5 s, holds 20 s,
// falls back in 5 s and holds 50 it/s for 60 s: ρ = 1 at 200 it/s on the
// way up (t ≈ 62.1 s).
func Spike() Config {
	return base(CorpusServer(), ramp("spike", 50, 40, 300,
		st(time.Minute, 50), st(5*time.Second, 400), st(20*time.Second, 400), st(5*time.Second, 50), st(time.Minute, 50)))
}

// Staircase has short holds with long transitions: 40 it/s held 10 s,
// then 7 times a 20-s ramp of +40 it/s and a 10-s hold (80 … 320 it/s).
// ρ = 1 at 200 it/s, at the end of the ramp from 160 to 200 (t = 120 s).
func Staircase() Config {
	stages := []Stage{st(10*time.Second, 40)}
	for lv := 80.0; lv <= 320; lv += 40 {
		stages = append(stages, st(20*time.Second, lv), st(10*time.Second, lv))
	}
	return base(CorpusServer(), ramp("staircase", 40, 40, 300, stages...))
}

// LowCapacity is a 5 req/s server (one slot, lognormal 200 ms, cv 0.5,
// client timeout 10 s) under 30 → 600 iterations per minute (0.5 → 10
// it/s) in 5 min: ρ = 1 at 5 it/s (t ≈ 142 s).
func LowCapacity() Config {
	srv := Server{Servers: 1, Classes: []Class{{Name: "report", Share: 1, ServiceTime: LogNormal(200, 0.5),
		Timeout: 10 * time.Second}}}
	sc := ramp("low_capacity", 30, 10, 200, st(5*time.Minute, 600))
	sc.TimeUnit = time.Minute
	return base(srv, sc)
}

// HighCapacity is a 2,500 req/s server (25 slots, lognormal 10 ms, cv 1,
// 429 after 200 ms waiting) under 100 → 5,000 it/s in 30 min (the speed
// case: ≈ 4.6 million requests): ρ = 1 at 2,500 it/s (t ≈ 882 s).
func HighCapacity() Config {
	srv := Server{Servers: 25, Classes: []Class{{Name: "api", Share: 1, ServiceTime: LogNormal(10, 1),
		MaxWait: 200 * time.Millisecond, Timeout: 3 * time.Second}}}
	return base(srv, ramp("high_capacity", 100, 500, 3000, st(30*time.Minute, 5000)))
}

// RefusalsFirst puts CorpusServer behind a token bucket of 150 req/s
// (burst 10) under 20 → 300 it/s in 2 min: refusals (429, fast) start at
// 150 req/s (t ≈ 55.7 s), before the server's ρ could reach 1; goodput's
// ceiling is 150 req/s.
func RefusalsFirst() Config {
	srv := CorpusServer()
	srv.RateLimit = &RateLimit{RatePerS: 150, Burst: 10}
	return base(srv, ramp("refusals_first", 20, 40, 300, st(2*time.Minute, 300)))
}

// GeneratorLimited ramps 20 → 300 it/s in 2 min against CorpusServer with
// iterations that sleep 1 s after their request and maxVUs 100: the VUs
// can run at most 100/1.0101 s ≈ 99 it/s, reached at t ≈ 33.9 s while the
// server is at ρ ≈ 0.5; the run then measures its generator (dropped
// iterations), not the server.
func GeneratorLimited() Config {
	sc := ramp("generator_limited", 20, 50, 100, st(2*time.Minute, 300))
	sc.Think = time.Second
	return base(CorpusServer(), sc)
}

// SmokeThenBreakpoint is a smoke test (constant-vus, 2 VUs with 1 s think,
// 30 s) followed at 35 s by the corpus's breakpoint: 60 it/s held 10 s,
// then +20 it/s every 10 s (a 1-s ramp and a 9-s hold) up to 300 it/s.
// ρ = 1 at 200 it/s, at the end of the 1-s ramp 180 → 200 (t = 35 + 71 = 106 s).
func SmokeThenBreakpoint() Config {
	smoke := Scenario{Name: "smoke", Executor: ConstantVUs, VUs: 2, Duration: 30 * time.Second, Think: time.Second}
	stages := []Stage{st(10*time.Second, 60)}
	for lv := 80.0; lv <= 300; lv += 20 {
		stages = append(stages, st(time.Second, lv), st(9*time.Second, lv))
	}
	bp := ramp("breakpoint", 60, 40, 300, stages...)
	bp.StartTime = 35 * time.Second
	return base(CorpusServer(), smoke, bp)
}

// TwoAtOnce runs two scenarios at once for 2 min: browse (menu 60 % /
// search 40 %, ramping 10 → 250 it/s) and checkout (order, a constant 30
// it/s). Per iteration W = 6.4 ms (browse) and 20 ms (checkout), so
// ρ = (6.4·λ_browse + 600)/2000 reaches 1 at λ_browse = 218.75 it/s
// (t ≈ 104.4 s).
func TwoAtOnce() Config {
	browse := ramp("browse", 10, 40, 300, st(2*time.Minute, 250))
	browse.Mix = []MixItem{{"menu", 60}, {"search", 40}}
	checkout := Scenario{Name: "checkout", Executor: ConstantArrivalRate, Rate: 30, Duration: 2 * time.Minute,
		PreAllocatedVUs: 20, MaxVUs: 200, Flow: []string{"order"}}
	return base(CorpusServer(), browse, checkout)
}

// ConstantErrors is CorpusServer with 10 % of every class failing at once
// (500) at every load, under 20 → 400 it/s in 3 min. Failures take no slot
// time, so ρ = 1 at 200/0.9 ≈ 222 it/s (t ≈ 95.8 s), and goodput's
// ceiling is still C = 200 req/s.
func ConstantErrors() Config {
	srv := CorpusServer()
	for i := range srv.Classes {
		srv.Classes[i].FailFraction = 0.1
	}
	return base(srv, ramp("constant_errors", 20, 40, 300, st(3*time.Minute, 400)))
}

// GRPCRamp is the corpus's grpc_ramp: Health/Check against 2 slots of
// U[5, 15] ms (200 OK/s), RESOURCE_EXHAUSTED (8) after 200 ms waiting, and
// 5 % of calls for service "missing" answered NOT_FOUND (5) at once;
// ramping-arrival-rate 20 → 400 it/s in 120 s, then 400 for 20 s,
// preAllocatedVUs 60, maxVUs 200, timeout 3 s. ρ = 1 at 200/0.95 ≈ 210.5
// it/s (t ≈ 60.3 s).
func GRPCRamp() Config {
	ok := Class{Name: "check", Protocol: ProtoGRPC, Share: 0.95, ServiceTime: Uniform(5, 15),
		MaxWait: 200 * time.Millisecond, Timeout: 3 * time.Second, Tags: map[string]string{"call": "ok"},
		Check: "status is OK", RequestBytes: 54, ResponseBytes: 38, ErrorBytes: 60}
	missing := Class{Name: "check_missing", Protocol: ProtoGRPC, Share: 0.05, ServiceTime: Det(0.5),
		FailFraction: 1, FailStatus: 5, Timeout: 3 * time.Second, Tags: map[string]string{"call": "missing"},
		Check: "missing -> NotFound", CheckFailStatus: true, RequestBytes: 61, ErrorBytes: 60}
	srv := Server{Servers: 2, Classes: []Class{ok, missing}}
	return base(srv, ramp("grpc_ramp", 20, 60, 200, st(120*time.Second, 400), st(20*time.Second, 400)))
}

// WSLadder is the corpus's ws_fanout: ramping-vus of classes (a host and
// 20 players per VU, 10 questions a second apart, closed 1.5 s after the
// last), 30-s holds at 2, 4, 8 and 16 classes, against a lock of lognormal
// 4.5 ms (cv 0.3) per player message: 222 msgs/s. A VU looping classes
// offers 200 msgs per ≈ 11.5 s ≈ 17.4 msgs/s, so the knee is at ≈ 12.8
// classes, between the 8 and 16 steps (on the 1-s ramp to 16, t ≈ 93.6 s).
func WSLadder() Config {
	var stages []Stage
	for _, n := range []float64{2, 4, 8, 16} {
		stages = append(stages, st(time.Second, n), st(30*time.Second, n))
	}
	sc := Scenario{Name: "classes", Executor: RampingVUs, Stages: stages, GracefulRampDown: 15 * time.Second,
		GracefulStop: 15 * time.Second, WS: &WSIteration{}}
	c := base(Server{}, sc)
	c.WS = &WSServer{PerMessage: LogNormal(4.5, 0.3)}
	return c
}

// MM1 is an M/M/1 queue at utilisation rho: Poisson arrivals of rho/ms
// (1000·rho per s) to one slot of exponential 1 ms service, for 10 min.
// Textbook: mean wait Wq = ρ/(1−ρ) ms, mean time in system 1/(1−ρ) ms.
func MM1(rho float64) Config { return MMc(1, rho) }

// MMc is an M/M/c queue at utilisation rho: Poisson arrivals to c slots of
// exponential service with mean c ms (rate ρ per ms, i.e. 1000·ρ per s),
// for 10 min. Textbook (Erlang C): Wq = C(c, cρ)·E[S]/(c(1−ρ)).
func MMc(c int, rho float64) Config {
	srv := Server{Servers: c, Classes: []Class{{Name: "job", Share: 1, ServiceTime: Exp(float64(c))}}}
	sc := Scenario{Name: "mmc", Executor: ConstantArrivalRate, Rate: 1000 * rho, Duration: 10 * time.Minute,
		PreAllocatedVUs: 100, MaxVUs: 100000, Poisson: true}
	return base(srv, sc)
}
