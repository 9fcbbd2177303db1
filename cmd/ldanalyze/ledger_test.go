package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/ledger"
)

// TestLedger adds three real runs to a new ledger and pins `ledger show`
// in every format. The runs: open_ramp.csv.gz as the baseline, then
// breakpoint.csv.gz twice, once with the two_pods Prometheus fixture
// (nothing saturated, game-0 busiest at 2.37 of 4 cores = 59.25 %) and
// once with database_95 (db-1 node CPU at 95 %, set by gen_fixtures.py)
// and an SLO, with the flags after the file as users type them.
func TestLedger(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.json")
	for _, args := range [][]string{
		{"ledger", "add", "--ledger", path, "--label", "baseline", td + "open_ramp.csv.gz"},
		{"ledger", "add", "--ledger", path, "--label", "+ CONN_MAX_AGE=60", td + "breakpoint.csv.gz", "--prom", promTD + "two_pods"},
		{"ledger", "add", "-l", path, "--label", "db [x](http://evil) | <b>", td + "breakpoint.csv.gz", "--prom", promTD + "database_95", "--slo", "p95<100ms"},
	} {
		out, errOut, code := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if !strings.HasPrefix(out, path+": entry ") {
			t.Errorf("%v: stdout %q", args, out)
		}
	}
	// The third run is the second again: a warning, not an error.
	out, errOut, _ := runCLI(t, "", "ledger", "add", "--ledger", path, "--label", "again", td+"breakpoint.csv.gz")
	if want := path + `:2 already records a run started 2026-11-30T02:07:09Z with 23232 requests ("+ CONN_MAX_AGE=60")`; !strings.Contains(errOut, want) {
		t.Errorf("stderr %q lacks %q", errOut, want)
	}
	if want := path + `: entry 4, "again": ceiling 182.8 req/s (0.0% from the entry before)`; strings.TrimSpace(out) != want {
		t.Errorf("stdout %q, want %q", out, want)
	}

	for _, c := range []struct{ format, golden string }{
		{"markdown", "ledger_show.md"},
		{"csv", "ledger_show.csv"},
		{"table", "ledger_show.txt"},
	} {
		out, errOut, code := runCLI(t, "", "ledger", "show", "--ledger", path, "--format", c.format)
		if code != 0 {
			t.Fatalf("show --format %s: exit %d: %s", c.format, code, errOut)
		}
		golden(t, c.golden, out)
	}

	// Each entry holds exactly the numbers `knee` prints for its run.
	out, errOut, code := runCLI(t, "", "ledger", "show", "--ledger", path, "--format", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var rows []ledger.Row
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4", len(rows))
	}
	for i, file := range []string{"open_ramp.csv.gz", "breakpoint.csv.gz"} {
		kout, kerr, kcode := runCLI(t, "", "knee", "--format", "json", td+file)
		if kcode != 0 {
			t.Fatal(kerr)
		}
		var k struct {
			Knee    struct{ Offered, P95MS float64 } `json:"knee"`
			Ceiling struct {
				CompletedRPS float64 `json:"completed_rps"`
			} `json:"ceiling"`
			Overall struct {
				Requests  uint64  `json:"requests"`
				ErrorRate float64 `json:"error_rate"`
			} `json:"overall"`
		}
		if err := json.Unmarshal([]byte(kout), &k); err != nil {
			t.Fatal(err)
		}
		r := rows[i]
		if float64(r.Knee) != k.Knee.Offered || float64(r.CeilingRPS) != k.Ceiling.CompletedRPS ||
			r.Requests != k.Overall.Requests || float64(r.ErrorRate) != k.Overall.ErrorRate {
			t.Errorf("%s: entry %+v differs from knee %+v", file, r.Entry, k)
		}
	}
	// README expectations, as a sanity bound: breakpoint's knee at the
	// 180 it/s step and its ceiling near 188 req/s; open_ramp's knee
	// ≈ 180 it/s and its ceiling in 180–210 req/s.
	if k := float64(rows[1].Knee); k < 175 || k > 185 {
		t.Errorf("breakpoint knee %v, want the 180 it/s step", k)
	}
	if c := float64(rows[0].CeilingRPS); c < 180 || c > 210 {
		t.Errorf("open_ramp ceiling %v, want 180–210 req/s", c)
	}
	// (182.8 − 188.861) ÷ 188.861, by hand: −3.209 % (open_ramp's
	// ceiling at the offered mix, breakpoint's as served: it sheds little).
	if got := float64(rows[1].CeilingChangeRatio); math.Abs(got-(182.8-188.8613)/188.8613) > 1e-6 {
		t.Errorf("change %v, want −0.03209", got)
	}
	if s := rows[2].Saturation; s == nil || len(s.Saturated) != 1 || s.Saturated[0].Name != "db-1:9100 node CPU" || s.Saturated[0].Utilisation != 0.95 {
		t.Errorf("database_95 saturation = %+v", s)
	}
	if s := rows[1].Saturation; s == nil || len(s.Saturated) != 0 || s.Busiest == nil || math.Abs(float64(s.Busiest.Utilisation)-2.37/4) > 1e-9 {
		t.Errorf("two_pods saturation = %+v, want nothing saturated, game-0 busiest at 2.37/4", s)
	}
	if rows[0].Saturation != nil || rows[3].Saturation != nil {
		t.Error("saturation recorded for a run added without --prom")
	}
}

// TestLedgerErrors: usage and input errors exit 2 and name the problem;
// a damaged ledger is named by file, line and column and left unchanged.
func TestLedgerErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	content := `{"date":"2026-11-30T02:07:09Z","label":"a","ceiling_rps":183.875}` + "\n<<<<<<< HEAD\n"
	if err := os.WriteFile(bad, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "none.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ledger", "add", "--ledger", missing, td + "timefmt_rfc3339_nano.csv"}, `"label"`},
		{[]string{"ledger", "add", "--label", "x", td + "timefmt_rfc3339_nano.csv"}, `"ledger"`},
		{[]string{"ledger", "add", "--ledger", missing, "--label", "x"}, "no input files"},
		{[]string{"ledger", "add", "--ledger", missing, "--label", "x", "missing.csv"}, "missing.csv"},
		{[]string{"ledger", "add", "--ledger", missing, "--label", "x", "--slo", "p95", td + "timefmt_rfc3339_nano.csv"}, `SLO "p95"`},
		{[]string{"ledger", "add", "--ledger", bad, "--label", "x", td + "timefmt_rfc3339_nano.csv"},
			"1 line(s) of the ledger are not entries; fix them first:\n  " + bad + ":2:1: invalid JSON: invalid character '<' looking for beginning of value"},
		{[]string{"ledger", "show", "--ledger", bad}, bad + ":2:1: invalid JSON"},
		{[]string{"ledger", "show", "--ledger", missing}, "none.json: no ledger there yet; start one with the first run of the scenario: ldanalyze ledger add --ledger"},
		{[]string{"ledger", "show", "--ledger", bad, "--format", "yaml"}, "unknown --format"},
		{[]string{"ledger", "show", "--ledger", bad, "extra"}, `unexpected argument "extra"`},
	} {
		_, errOut, code := runCLI(t, "", c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	if b, _ := os.ReadFile(bad); string(b) != content {
		t.Errorf("the damaged ledger was changed:\n%s", b)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("a failed add created the ledger")
	}
}

// TestLedgerUnitsAndUnreachedKnee: an HTTP run whose knee was never
// reached (timefmt repeated to 40 s, steadyRun: every level had headroom;
// 808 requests in 40.1 s) shows "≥" before its knee;
// a gRPC run added after it warns that the ceilings are in different
// units, is not given a % change, and each row names its unit.
func TestLedgerUnitsAndUnreachedKnee(t *testing.T) {
	l := filepath.Join(t.TempDir(), "ledger.jsonl")
	if _, errOut, code := runCLI(t, "", "ledger", "add", "--ledger", l, "--label", "http", steadyRun(t, 8)); code != 0 {
		t.Fatalf("add http: %s", errOut)
	}
	out, errOut, code := runCLI(t, "", "ledger", "add", "--ledger", l, "--label", "grpc", "../../testdata/k6-v2/grpc_ramp.csv.gz")
	if code != 0 || !strings.Contains(errOut, "has a ceiling in req/s, this one in calls/s") || !strings.Contains(out, "calls/s") || strings.Contains(out, "%") {
		t.Fatalf("add grpc: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, _, _ = runCLI(t, "", "ledger", "show", "--ledger", l, "--format", "markdown")
	for _, want := range []string{"≥ 20.15 iterations/s", "168.2 calls/s", "req/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("ledger show lacks %q:\n%s", want, out)
		}
	}
}
