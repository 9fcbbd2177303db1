package main

import (
	"strings"
	"testing"
)

// The acceptance case (shared/acceptance/run.sh, models; issue 7):
// 600 req/s × 2.8 s = 1680 in flight, and Little's law solved the other
// two ways.
func TestQueueLittleCommand(t *testing.T) {
	for _, c := range []struct {
		args  []string
		key   string
		want  float64
		solve string
	}{
		{[]string{"--rate", "600", "--latency", "2.8s"}, "in_flight", 1680, "in_flight"},
		{[]string{"--rate", "600/s", "--latency", "2800ms"}, "in_flight", 1680, "in_flight"},
		{[]string{"--in-flight", "1680", "--latency", "2.8"}, "rate_per_second", 600, "rate_per_second"},
		{[]string{"--in-flight", "1.68k", "--rate", "600"}, "latency_seconds", 2.8, "latency_seconds"},
	} {
		out, errs, code := scaleRun(t, "", append([]string{"queue", "little", "--format", "json"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		m := scaleJSON(t, out)
		scaleNear(t, c.key, m[c.key], c.want, 1e-9)
		if m["solved"] != c.solve {
			t.Errorf("solved %v, want %s", m["solved"], c.solve)
		}
	}
}

// Issue 7: ≈ 1,700 VUs needed for 600 req/s × 2.8 s; maxVUs 1500 is short.
func TestQueueLittleMaxVUs(t *testing.T) {
	out, _, code := scaleRun(t, "", "queue", "little", "-f", "json", "--rate", "600", "--latency", "2.8s", "--max-vus", "1500")
	if code != 0 {
		t.Fatal(code)
	}
	m := scaleJSON(t, out)
	vus, ok := m["vus"].(map[string]any)
	if !ok || vus["sufficient"] != false {
		t.Fatalf("vus %v", m["vus"])
	}
	if !strings.Contains(out, "k6 will drop iterations") {
		t.Errorf("no warning:\n%s", out)
	}
}

// M/M/c at 600/s, 20 ms, 16 servers: a = 12 Erlangs, ρ = 0.75; P(wait) and
// the mean response agree with pkg/queueing (its Erlang C tests cite the
// textbook values); here we check the command wires them through.
func TestQueueModelCommands(t *testing.T) {
	out, errs, code := scaleRun(t, "", "queue", "mm1", "-f", "json", "--rate", "90", "--service", "10ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// M/M/1 at U = 0.9: R = S/(1−U) = 100 ms (methods.md §3).
	row := scaleJSON(t, out)["rows"].([]any)[0].(map[string]any)
	scaleNear(t, "response_seconds", row["response_seconds"], 0.1, 1e-12)
	scaleNear(t, "utilisation", row["utilisation"], 0.9, 1e-12)

	out, errs, code = scaleRun(t, "", "queue", "mmc", "-f", "json", "--rate", "600", "--service", "20ms", "--servers", "16")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	row = scaleJSON(t, out)["rows"].([]any)[0].(map[string]any)
	scaleNear(t, "offered_erlangs", row["offered_erlangs"], 12, 1e-12)
	scaleNear(t, "utilisation", row["utilisation"], 0.75, 1e-12)

	// The smallest c for a mean response ≤ 25 ms at a = 12 Erlangs is 14
	// (c = 13 gives 20 ms + Wq with C(13,12) ≈ 0.71: Wq ≈ 14 ms).
	out, errs, code = scaleRun(t, "", "queue", "mmc", "-f", "json", "--rate", "600", "--service", "20ms", "--target", "25ms", "--quantile", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	row = scaleJSON(t, out)["rows"].([]any)[0].(map[string]any)
	scaleNear(t, "servers", row["servers"], 14, 0)
}

func TestQueueUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"queue", "little", "--rate", "600"}, "queue little: give exactly two of --rate, --latency and --in-flight"},
		{[]string{"queue", "little", "--rate", "600", "--latency", "2.8MB"}, `--latency 2.8MB: want a duration, got a value in "B"`},
		{[]string{"queue", "mm1", "--rate", "200", "--service", "10ms"}, "queueing: unstable, arrivals reach capacity (utilisation ≥ 1): offered load 2 Erlangs with 1 server(s)"},
		{[]string{"queue", "mmc", "--rate", "600", "--service", "20ms"}, "queue mmc: give --servers, or --target to solve for them"},
		{[]string{"queue", "mmc", "--rate", "600", "--service", "20ms", "--target", "50ms"}, "queueing: target 0.05 s is at or below what any number of servers gives (0.05991 s)"},
	} {
		_, errs, code := scaleRun(t, "", c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}
