package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// kneeJSON runs `knee --format json` and decodes what the protocol tests
// read.
type protoDoc struct {
	Metric        string `json:"metric"`
	MetricUnit    string `json:"metric_unit"`
	Model         string `json:"model"`
	OfferedUnit   string `json:"offered_unit"`
	CompletedUnit string `json:"completed_unit"`
	Knee          *struct {
		Offered, Low, High float64
		Reached            bool
	} `json:"knee"`
	Ceiling *struct {
		CompletedRPS float64 `json:"completed_rps"`
		Reached      bool    `json:"reached"`
	} `json:"ceiling"`
	SLO *struct {
		MaxOffered float64 `json:"max_offered"`
	} `json:"slo"`
	Overall struct {
		OKCount uint64 `json:"ok_count"`
		Failed  uint64 `json:"failed"`
	} `json:"overall"`
	Holds []struct {
		Offered  float64 `json:"offered"`
		WebVital *struct {
			P75, Good, NeedsImprovement, Poor float64
		} `json:"web_vital"`
	} `json:"holds"`
	Checks []struct {
		ID       string             `json:"id"`
		Status   string             `json:"status"`
		Evidence map[string]float64 `json:"evidence"`
	} `json:"checks"`
}

func kneeDoc(t *testing.T, args ...string) (protoDoc, string) {
	t.Helper()
	out, errOut, code := runCLI(t, "", append([]string{"knee", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("knee %v: exit %d: %s", args, code, errOut)
	}
	var d protoDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	return d, errOut
}

// TestGRPCRun: the gRPC ramp of testdata/k6-v2 (its README: 18,709 OK
// calls, 1,640 NotFound and 11,576 ResourceExhausted; knee at an offered
// 150–180 it/s, OK ceiling 140–185/s, measured capacity 163 OK/s) with no
// --metric: the run's own protocol, its calls counted by gRPC status, the
// rates in calls/s, and the flat 5 % NotFound not read as overload.
func TestGRPCRun(t *testing.T) {
	d, _ := kneeDoc(t, "../../testdata/k6-v2/grpc_ramp.csv.gz")
	if d.Metric != "grpc_req_duration" || d.CompletedUnit != "calls/s" || d.MetricUnit != "ms" {
		t.Errorf("metric %q, units %q %q", d.Metric, d.CompletedUnit, d.MetricUnit)
	}
	if d.Overall.OKCount != 18709 || d.Overall.Failed != 13216 {
		t.Errorf("ok %d failed %d, want 18709 and 13216", d.Overall.OKCount, d.Overall.Failed)
	}
	if d.Model != "open" || d.Knee == nil || !d.Knee.Reached || d.Knee.High < 150 || d.Knee.Low > 180 || d.Knee.Offered < 140 || d.Knee.Offered > 180 {
		t.Errorf("model %s, knee %+v: want open, between 150 and 180 it/s", d.Model, d.Knee)
	}
	if d.Ceiling == nil || d.Ceiling.CompletedRPS < 140 || d.Ceiling.CompletedRPS > 185 {
		t.Errorf("ceiling %+v, want 140–185 OK calls/s", d.Ceiling)
	}
	out, _, _ := runCLI(t, "", "knee", "../../testdata/k6-v2/grpc_ramp.csv.gz")
	for _, want := range []string{"calls/s completed", "calls/s of OK calls", "31925 calls"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	out, _, _ = runCLI(t, "", "check", "--format", "markdown", "../../testdata/k6-v2/grpc_ramp.csv.gz")
	for _, want := range []string{"1640 × 5 NotFound", "11576 × 8 ResourceExhausted"} {
		if !strings.Contains(out, want) {
			t.Errorf("check lacks %q", want)
		}
	}
}

// TestWebSocketFanout: the quiz fan-out of testdata/k6-v2 (one VU = a
// class of 20 players and a host; holds at 2, 4, 8 and 16 classes; the
// knee between 8 and 16 classes by its README, latency rising from 8): in
// users with --users-per-vu 21 (42, 84, 168, 336), the knee at the last
// hold with flat latency and before the 8-class one (84–168 users), the
// ceiling in messages received per second, the SLO capacity in users,
// and the backlog that drained after the load ended flagged.
func TestWebSocketFanout(t *testing.T) {
	d, _ := kneeDoc(t, "--metric", "fanout_ms", "--users-per-vu", "21", "--slo", "p(95)<500", "../../testdata/k6-v2/ws_fanout.csv.gz")
	if d.OfferedUnit != "users" || d.CompletedUnit != "msgs/s" || d.Model != "closed" {
		t.Errorf("units %q %q, model %s", d.OfferedUnit, d.CompletedUnit, d.Model)
	}
	if len(d.Holds) != 4 || d.Holds[1].Offered != 84 || d.Holds[2].Offered != 168 {
		t.Errorf("holds %+v, want 4 with 84 and 168 users", d.Holds)
	}
	if d.Knee == nil || d.Knee.Offered < 84 || d.Knee.Offered > 168 {
		t.Errorf("knee %+v, want 84–168 users", d.Knee)
	}
	// 40/80/160/320 player messages/s offered; the top hold receives
	// fewer than offered (the lock saturates near 300/s): the ceiling is
	// reached there, not "still rising".
	if d.Ceiling == nil || d.Ceiling.CompletedRPS < 150 || d.Ceiling.CompletedRPS > 320 || !d.Ceiling.Reached {
		t.Errorf("ceiling %+v, want reached, msgs/s between the 8- and 16-class offers", d.Ceiling)
	}
	if d.SLO == nil || d.SLO.MaxOffered < 84 || d.SLO.MaxOffered > 168 {
		t.Errorf("SLO capacity %+v, want 84–168 users", d.SLO)
	}
	backlog := false
	for _, c := range d.Checks {
		backlog = backlog || (c.ID == "backlog" && c.Status == "warn")
	}
	if !backlog {
		t.Error("the drain after the load is not flagged")
	}
	if _, errOut, code := runCLI(t, "", "knee", "--users-per-vu", "-3", "../../testdata/k6-v2/ws_fanout.csv.gz"); code != 2 || !strings.Contains(errOut, "--users-per-vu") {
		t.Errorf("negative --users-per-vu: exit %d %s", code, errOut)
	}
}

// browserRun writes a browser test's CSV: 2 VUs for 60 s, one page load
// per VU every second, each with a CLS score — 0.05 (good) for 3 loads
// in 4, 0.3 (poor) for the fourth — and an LCP of 1,200 ms.
func browserRun(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata\n")
	const t0 = 1796100000
	n := 0
	for s := 0; s < 60; s++ {
		ts := t0 + s
		fmt.Fprintf(&b, "vus,%d,2.000000,,,,,,,,,,,,,,,,\nvus_max,%d,2.000000,,,,,,,,,,,,,,,,\n", ts, ts)
		for v := 0; v < 2; v++ {
			cls := "0.050000"
			if n%4 == 3 {
				cls = "0.300000"
			}
			n++
			fmt.Fprintf(&b, "browser_web_vital_cls,%d,%s,,,,,,,,,browser,,,,,https://shop.test/,,\n", ts, cls)
			fmt.Fprintf(&b, "browser_web_vital_lcp,%d,1200.000000,,,,,,,,,browser,,,,,https://shop.test/,,\n", ts)
			fmt.Fprintf(&b, "iterations,%d,1.000000,,,,,,,,,browser,,,,,,,\n", ts)
		}
	}
	path := filepath.Join(t.TempDir(), "browser.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBrowserWebVitals: CLS is a unitless score: no "ms" anywhere in the
// text; per level its p75 and Google's shares (good ≤ 0.1, poor > 0.25):
// 3 of 4 loads good, 1 poor.
func TestBrowserWebVitals(t *testing.T) {
	path := browserRun(t)
	d, _ := kneeDoc(t, "--metric", "browser_web_vital_cls", path)
	if d.MetricUnit != "" {
		t.Errorf("metric unit %q, want none", d.MetricUnit)
	}
	if len(d.Holds) == 0 || d.Holds[0].WebVital == nil {
		t.Fatalf("holds %+v without web vital shares", d.Holds)
	}
	v := d.Holds[0].WebVital
	if v.Good < 0.74 || v.Good > 0.76 || v.Poor < 0.24 || v.Poor > 0.26 || v.NeedsImprovement != 0 || v.P75 < 0.05 || v.P75 > 0.3 {
		t.Errorf("web vital %+v, want 75 %% good, 25 %% poor", v)
	}
	out, _, code := runCLI(t, "", "knee", "--metric", "browser_web_vital_cls", path)
	if code != 0 {
		t.Fatal(code)
	}
	if strings.Contains(out, " ms") || strings.Contains(out, "p95 ms") {
		t.Errorf("CLS printed with ms:\n%s", out)
	}
	if !strings.Contains(out, "CLS p75") {
		t.Errorf("no CLS p75 column:\n%s", out)
	}
	d, _ = kneeDoc(t, "--metric", "browser_web_vital_lcp", path)
	if d.MetricUnit != "ms" || d.Holds[0].WebVital == nil || d.Holds[0].WebVital.Good != 1 {
		t.Errorf("LCP of 1.2 s: unit %q, %+v", d.MetricUnit, d.Holds[0].WebVital)
	}
}

// TestMissingMetricListsTrends: a --metric the file lacks lists the
// file's Trends with their sample counts (ws_fanout: 15,243 fanout_ms
// samples, 1,806 ws_connecting), not a metric it does not have.
func TestMissingMetricListsTrends(t *testing.T) {
	_, errOut, code := runCLI(t, "", "knee", "--metric", "http_req_duration", "../../testdata/k6-v2/ws_fanout.csv.gz")
	if code != 2 || !strings.Contains(errOut, "fanout_ms (15243 samples)") || !strings.Contains(errOut, "ws_connecting (1806 samples)") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// TestGRPCWithoutStatus: a gRPC run recorded without its status column
// (restricted --system-tags) cannot tell failures: every call counts as a
// success, and knee says so.
func TestGRPCWithoutStatus(t *testing.T) {
	path := dropColumns(t, "../../testdata/k6-v2/grpc_ramp.csv.gz", "status")
	_, errOut, code := runCLI(t, "", "knee", path)
	if code != 0 || !strings.Contains(errOut, "31925 calls have no status tag") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestWebSocketDurationCheck: ws_fanout has 82 iterations (one class of
// 21 sessions each) but 1,806 sessions and 15,243 fanout_ms samples: the
// duration check counts those, not "only 82 iterations … noise".
func TestWebSocketDurationCheck(t *testing.T) {
	out, _, _ := runCLI(t, "", "check", "--format", "json", "../../testdata/k6-v2/ws_fanout.csv.gz")
	var rep struct {
		Checks []struct {
			ID, Status, Message string
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	found := false
	for _, c := range rep.Checks {
		if c.ID == "duration" {
			found = true
			if c.Status != "ok" || !strings.Contains(c.Message, "1806 requests") {
				t.Errorf("duration check %s: %s", c.Status, c.Message)
			}
		}
	}
	if !found {
		t.Errorf("no duration check in %s", out)
	}
}

// TestPastKneeFromTheKnee: grpc_ramp's knee is at 144 it/s (t ≈ 40 s; the
// corpus README: 150–180 it/s at t ≈ 40–55 s); a level that lacked
// headroom in the warm-up (+12 s) is below the knee, so "came past the
// knee (from +N s" names a second at the knee's levels, not the warm-up's.
func TestPastKneeFromTheKnee(t *testing.T) {
	out, _, _ := runCLI(t, "", "check", "--format", "json", "../../testdata/k6-v2/grpc_ramp.csv.gz")
	m := regexp.MustCompile(`came past the knee \(from \+(\d+) s`).FindAllStringSubmatch(out, -1)
	if len(m) == 0 {
		t.Fatalf("no past-knee note in %s", out)
	}
	for _, g := range m {
		if n, _ := strconv.Atoi(g[1]); n < 35 || n > 60 {
			t.Errorf("past the knee from +%d s, want within the knee's levels (+35…+60 s)", n)
		}
	}
}
