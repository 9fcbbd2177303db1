package main

import (
	"encoding/json"
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
		{[]string{"queue", "mmc", "--rate", "600", "--service", "20ms", "--target", "50ms"}, "queueing: target 0.05 s is at or below what any number of servers gives (0.05991 s): the p95 of an exponential service time of 0.02 s alone"},
		{[]string{"queue", "mmc", "--rate", "600", "--servers", "3"}, "queue mmc: give --service, or --run to estimate it from a k6 run"},
		{[]string{"queue", "mm1", "--rate", "600"}, `required flag "service" not set`},
		{[]string{"queue", "little", "--run", "../../testdata/scale/vus8.csv", "--rate", "600"}, "queue little: --run measures the quantities; drop --rate"},
		{[]string{"queue", "mmc", "--run", "../../testdata/scale/vus8.csv", "--rates", "1,2"}, "queue mmc: --run takes the rates from the run; drop --rates"},
		{[]string{"queue", "mmc", "--run", "../../testdata/scale/vus8.csv", "--servers", "0"}, "--servers 0: want at least 1"},
		{[]string{"queue", "little", "--run", "../../testdata/scale/room100.csv"}, "../../testdata/scale/room100.csv: no iteration_duration samples: the run has no completed iterations to measure"},
		{[]string{"scale", "--usl", "--run", "1=../../testdata/scale/room250.csv"}, "--run 1=../../testdata/scale/room250.csv: no request Trend and no iteration_duration samples"},
	} {
		_, errs, code := scaleRun(t, "", c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// closed_ramp (testdata/k6/README.md: ramping-vus 0→120, 1 s think time):
// per 10 s ramp step, mean VUs ≈ λ_iter × mean iteration_duration; pooled
// over the run, λW is within 1 % of k6's summary figure 44.0367/s ×
// 1.360110 s = 59.90 VUs. The first step lags (VUs whose first iteration
// had not ended) and the ramp-down step counts iterations finishing after
// the gauge dropped their VUs; pkg/queueing's tests pin those ratios.
func TestQueueLittleRun(t *testing.T) {
	out, errs, code := scaleRun(t, "", "queue", "little", "-f", "json", "--run", "../../testdata/k6/closed_ramp.csv.gz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m := scaleJSON(t, out)
	if w, ok := m["warnings"].([]any); !ok || len(w) == 0 {
		t.Errorf("warnings %v, want the W ÷ span caveat", m["warnings"])
	}
	if m["model"] != "closed" || m["levels"] != "ramp" {
		t.Errorf("model %v, levels %v", m["model"], m["levels"])
	}
	scaleNear(t, "in_flight", m["in_flight"], 59.90, 0.6)
	scaleNear(t, "tolerance", m["tolerance"], 0.1, 0)
	rows := m["rows"].([]any)
	verdicts := map[any]int{}
	for _, r := range rows {
		verdicts[r.(map[string]any)["verdict"]]++
	}
	if len(rows) != 10 || verdicts["holds"] != 8 || verdicts["idle"] != 1 || verdicts["excess"] != 1 {
		t.Errorf("%d rows, verdicts %v", len(rows), verdicts)
	}
	// Text: the table, the pooled line and what the mismatches mean.
	out, _, code = scaleRun(t, "", "queue", "little", "--run", "../../testdata/k6/open_ramp.csv.gz")
	if code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{"Little's law L = λW per level of an open-model run: 12 of 12 levels agree within 10%", "all levels: L = 31.3 VUs"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// The corpus server has C = 2 worker slots (testdata/k6/README.md): from
// open_ramp's ramp steps, S = 11.02 ms (the first step's mean response)
// and X_max·S = 187.4/s × 11.02 ms = 2.07, so c = 2, capacity 181.4/s.
func TestQueueMMcRun(t *testing.T) {
	out, errs, code := scaleRun(t, "", "queue", "mmc", "-f", "json", "--run", "../../testdata/k6/open_ramp.csv.gz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m := scaleJSON(t, out)
	scaleNear(t, "servers", m["servers"], 2, 0)
	scaleNear(t, "service_seconds", m["service_seconds"], 0.0110246, 1e-6)
	scaleNear(t, "servers_exact", m["servers_exact"], 2.066, 0.001)
	scaleNear(t, "capacity_rps", m["capacity_rps"], 181.4, 0.1)
	if w, ok := m["warnings"].([]any); !ok || len(w) != 0 {
		t.Errorf("warnings %v, want []", m["warnings"])
	}
	if m["workload_model"] != "open" || m["service_estimated"] != true {
		t.Errorf("workload %v, estimated %v", m["workload_model"], m["service_estimated"])
	}
	rows := m["rows"].([]any)
	first, sixth := rows[0].(map[string]any), rows[5].(map[string]any)
	if first["stable"] != true || sixth["stable"] != false || sixth["predicted_mean_seconds"] != nil {
		t.Errorf("row 1 %v\nrow 6 %v", first, sixth)
	}
	// Given servers and service time override the estimates.
	out, _, code = scaleRun(t, "", "queue", "mmc", "-f", "json", "--run", "../../testdata/k6/open_ramp.csv.gz", "--servers", "3", "--service", "10ms")
	if code != 0 {
		t.Fatal(code)
	}
	m = scaleJSON(t, out)
	scaleNear(t, "servers", m["servers"], 3, 0)
	scaleNear(t, "capacity_rps", m["capacity_rps"], 300, 1e-9)
	if m["servers_exact"] != nil || m["service_estimated"] != false {
		t.Errorf("servers_exact %v, estimated %v", m["servers_exact"], m["service_estimated"])
	}
	out, errOut, code := scaleRun(t, "", "queue", "mmc", "--run", "../../testdata/k6/closed_ramp.csv.gz")
	if code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{"servers c = 2 (X_max·S = 164.6/s × 12.51 ms = 2.06, rounded; utilisation law at the ceiling)", "no steady state"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Warnings go to stderr, not into the table on stdout.
	if !strings.Contains(errOut, "ldanalyze: warning: closed model") || strings.Contains(out, "warning:") {
		t.Errorf("the closed-model warning is not on stderr alone:\nstdout:\n%s\nstderr:\n%s", out, errOut)
	}
}

// TestQueueRunCeilingNotReached: a run that never saturated (the corpus's
// 20 it/s run, repeated to 40 s: steadyRun) gives a capacity that is only a lower bound; queue mmc
// --run says so in its output and, with --servers given too, on stderr
// (before: "measured ceiling 19.75/s", and no warning with --servers).
func TestQueueRunCeilingNotReached(t *testing.T) {
	steady := steadyRun(t, 8)
	out, errOut, code := runCLI(t, "", "queue", "mmc", "--servers", "4", "--run", steady)
	if want := "measured ceiling ≥ 20.15/s: not reached, the run never saturated, so a capacity from it is a lower bound\n"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d, output lacks %q:\n%s", code, want, out)
	}
	if want := "ldanalyze: warning: the run never saturated (its ceiling was not reached): its highest goodput is a lower bound of the capacity, not a measure of it\n"; !strings.Contains(errOut, want) {
		t.Errorf("stderr lacks %q:\n%s", want, errOut)
	}
	js, _, _ := runCLI(t, "", "queue", "mmc", "--run", steady, "--format", "json")
	if !strings.Contains(js, `"ceiling_reached": false`) {
		t.Errorf("JSON lacks ceiling_reached false:\n%.600s", js)
	}
	if js, _, _ := runCLI(t, "", "queue", "mmc", "--run", td+"breakpoint.csv.gz", "--format", "json"); !strings.Contains(js, `"ceiling_reached": true`) {
		t.Errorf("breakpoint: JSON lacks ceiling_reached true:\n%.600s", js)
	}
}

// TestQueueClosedRateIsGoodput: a closed run's M/M/c rate per level is
// what its servers completed: closed_ramp's last level answered 208
// responses/s, 45/s of them fast 429s, with a 164.6 req/s ceiling; at the
// measured 162.9 req/s of goodput its utilisation is 102 % (was 130 %,
// above any rate the servers worked at).
func TestQueueClosedRateIsGoodput(t *testing.T) {
	out, errOut, code := runCLI(t, "", "queue", "mmc", "--run", "../../testdata/k6/closed_ramp.csv.gz", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Ceiling float64 `json:"ceiling_rps"`
		Rows    []struct {
			Arrival     float64 `json:"arrival_rps"`
			Utilisation float64 `json:"utilisation"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Rows) == 0 {
		t.Fatal("no rows")
	}
	for i, r := range doc.Rows {
		if r.Arrival > 1.03*doc.Ceiling || r.Utilisation > 1.06 {
			t.Errorf("level %d: rate %.1f/s, utilisation %.3f against a %.1f/s ceiling", i, r.Arrival, r.Utilisation, doc.Ceiling)
		}
	}
}
