package sim

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestValidateErrors(t *testing.T) {
	// Bad configs give every problem, one per line, naming the field; no
	// panic (prometheus/rulefmt style: exact strings).
	okSrv := Server{Servers: 1, Classes: []Class{{Name: "a", Share: 1, ServiceTime: Det(1)}}}
	for _, tc := range []struct {
		name string
		cfg  Config
		want []string
	}{
		{"empty", Config{}, []string{"scenarios: at least one scenario is needed"}},
		{"executor", Config{Server: okSrv, Scenarios: []Scenario{{Executor: "per-vu-iterations"}}}, []string{
			`scenarios[0]: name is missing`,
			`scenarios[0] "": unknown executor "per-vu-iterations" (constant-arrival-rate, ramping-arrival-rate, constant-vus or ramping-vus)`,
		}},
		{"pool", Config{Server: okSrv, Scenarios: []Scenario{{Name: "bp", Executor: RampingArrivalRate,
			PreAllocatedVUs: 20, MaxVUs: 10, Stages: []Stage{{time.Minute, 100}}}}}, []string{
			`scenarios[0] "bp": maxVUs (10) can't be less than preAllocatedVUs (20)`,
		}},
		{"classes", Config{Server: Server{Classes: []Class{
			{Name: "a", ServiceTime: Dist{Kind: "gamma"}, FailFraction: 1.5, Share: -1},
			{Name: "a", ServiceTime: Uniform(3, 1)},
			{Name: "g", Protocol: ProtoGRPC, ServiceTime: Exp(1), FailStatus: 503},
			{Name: "z", ServiceTime: Det(0)},
		}}, Scenarios: []Scenario{{Name: "s", Executor: ConstantVUs, VUs: 1, Duration: time.Second, Flow: []string{"b"}}}}, []string{
			`server.classes[0] "a": serviceTime: unknown distribution kind "gamma" (one of deterministic, exponential, uniform, lognormal)`,
			`server.classes[0] "a": share must be finite and ≥ 0, not -1`,
			`server.classes[0] "a": failFraction must be in [0, 1], not 1.5`,
			`server.classes[1] "a": name is used by an earlier class`,
			`server.classes[1] "a": serviceTime: uniform needs 0 ≤ min ≤ max (finite ms), not [3, 1]`,
			`server.classes[2] "g": failStatus 503 is not a gRPC code (0–16)`,
			`server.classes[3] "z": serviceTime: the mean must be > 0 ms`,
			`scenarios[0] "s": flow[0] names unknown class "b"`,
			`server.servers: need at least 1 server, not 0`,
		}},
		{"ws", Config{Scenarios: []Scenario{{Name: "ws", Executor: ConstantVUs, VUs: 1, Duration: time.Second, WS: &WSIteration{}}}}, []string{
			`ws: a scenario runs WebSocket classes but the config has no ws server`,
		}},
		{"tags", Config{Server: okSrv, Scenarios: []Scenario{{Name: "s", Executor: RampingVUs, Stages: []Stage{{time.Second, 2.5}}}},
			Output: Output{SystemTags: []string{"status", "vu", "color"}}}, []string{
			`scenarios[0] "s": stages[0].target 2.5 is not a whole number of VUs`,
			`output.systemTags: "vu" is not supported (a per-VU metadata tag)`,
			`output.systemTags: unknown system tag "color"`,
		}},
		{"numbers", Config{Server: okSrv, Scenarios: []Scenario{
			{Name: "s", Executor: ConstantArrivalRate, Rate: math.NaN(), Duration: time.Second, MaxVUs: 1},
			{Name: "s", Executor: ConstantArrivalRate, Rate: 1, Duration: -time.Second, MaxVUs: 1, Mix: []MixItem{{"a", 0}}},
			{Name: "r", Executor: RampingArrivalRate, MaxVUs: 1, Stages: []Stage{{0, math.Inf(1)}}},
		}}, []string{
			`scenarios[0] "s": rate must be > 0 iterations per timeUnit, not NaN`,
			`scenarios[1] "s": name is used by an earlier scenario`,
			`scenarios[1] "s": duration must be ≥ 0, not -1s`,
			`scenarios[1] "s": the mix's shares sum to 0`,
			`scenarios[2] "r": stages[0].target must be finite and ≥ 0, not +Inf`,
			`scenarios[2] "r": the stages last 0 s`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			want := "sim: invalid config:\n" + strings.Join(tc.want, "\n")
			if err == nil || err.Error() != want {
				t.Fatalf("got\n%v\nwant\n%s", err, want)
			}
			if _, err := Simulate(tc.cfg); err == nil {
				t.Fatal("Simulate accepted a bad config")
			}
			if _, err := NewStream(tc.cfg); err == nil {
				t.Fatal("NewStream accepted a bad config")
			}
		})
	}
}

func TestPresetsAreValid(t *testing.T) {
	for _, p := range Presets() {
		if err := p.Config().Validate(); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
	}
	if _, err := PresetConfig("nope"); err == nil || err.Error() != `sim: unknown preset "nope"` {
		t.Errorf("unknown preset: %v", err)
	}
}

func TestNormalizeDoesNotTouchTheCaller(t *testing.T) {
	c := OpenRamp30s()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Server.Classes[0].URL != "" || c.Scenarios[0].TimeUnit != 0 || c.Output.SystemTags != nil {
		t.Fatal("Validate filled defaults into the caller's config")
	}
}
