package suite

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/summary"
)

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"dir/open_ramp.csv.gz":               "open_ramp",
		"open_ramp.json.gz":                  "open_ramp",
		"open_ramp.summary.json":             "open_ramp",
		"open_ramp.handle_summary.json":      "open_ramp",
		"login-summary.json":                 "login",
		"run.parquet":                        "run",
		"k6-summary-export-2024-ticket.json": "k6-summary-export-2024-ticket",
		"weird.name.with.dots.csv.zst":       "weird.name.with.dots",
		"summary.json":                       "summary",
		"API.CSV.GZ":                         "API",
	} {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}

// write creates name under dir with content.
func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const csvHead = "metric_name,timestamp,metric_value\nhttp_reqs,1,1\n"

// TestDiscover: a directory with two runs, a summary beside one of them,
// a summary alone, a README, a JSON object that is not a summary and a
// hidden file: the summary beside its run goes with it, the others are
// rows or skipped with their reason.
func TestDiscover(t *testing.T) {
	dir := t.TempDir()
	a := write(t, dir, "a.csv", csvHead)
	aSum := write(t, dir, "a.summary.json", `{"metrics": {"http_reqs": {"count": 1, "rate": 1}}}`)
	b := write(t, dir, "sub/b.json", `{"type":"Point","data":{"time":"2026-01-01T00:00:00Z","value":1,"tags":{}},"metric":"http_reqs"}`+"\n")
	alone := write(t, dir, "c.summary.json", `{"metrics": {"http_reqs": {"count": 1, "rate": 1}}}`)
	write(t, dir, "README.md", "# runs\n")
	write(t, dir, "stats.json", "{\n  \"uptime_s\": 3\n}\n")
	write(t, dir, ".hidden.csv", csvHead)
	ins, skipped, err := Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []Input{{Path: a, Kind: KindRun, Summary: aSum}, {Path: alone, Kind: KindSummary}, {Path: b, Kind: KindRun}}
	if len(ins) != len(want) {
		t.Fatalf("inputs %+v, want %+v", ins, want)
	}
	for i := range want {
		if ins[i] != want[i] {
			t.Errorf("input %d = %+v, want %+v", i, ins[i], want[i])
		}
	}
	if len(skipped) != 2 || filepath.Base(skipped[0].Path) != "README.md" || filepath.Base(skipped[1].Path) != "stats.json" {
		t.Fatalf("skipped %+v", skipped)
	}
	if skipped[0].Reason != "not a k6 output (CSV with a metric_name header, JSON lines, Parquet, Arrow) or summary" {
		t.Errorf("reason %q", skipped[0].Reason)
	}
	// A file named on the command line that is not a run is an error.
	if _, _, err := Discover([]string{filepath.Join(dir, "README.md")}); err == nil {
		t.Error("README.md given by name: no error")
	}
}

// TestPair pairs two suites by relative name, then by stem (a run kept
// as CSV before and JSON after), and lists what has no partner.
func TestPair(t *testing.T) {
	bd, ad := t.TempDir(), t.TempDir()
	b := []Input{{Path: filepath.Join(bd, "login.csv"), Kind: KindRun}, {Path: filepath.Join(bd, "api/search.csv.gz"), Kind: KindRun}, {Path: filepath.Join(bd, "gone.csv"), Kind: KindRun}}
	a := []Input{{Path: filepath.Join(ad, "api/search.json"), Kind: KindRun}, {Path: filepath.Join(ad, "login.csv"), Kind: KindRun}, {Path: filepath.Join(ad, "new.csv"), Kind: KindRun}}
	pairs, ob, oa, err := Pair(bd, b, ad, a)
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 2 || pairs[0][1] != a[1] || pairs[1][1] != a[0] || len(ob) != 1 || ob[0] != b[2] || len(oa) != 1 || oa[0] != a[2] {
		t.Errorf("pairs %v, only before %v, only after %v", pairs, ob, oa)
	}
}

// TestSummaryRow reads closed_ramp.summary.json (k6's --summary-export
// of the corpus closed ramp) and checks each figure against the file:
// http_req_duration med 136.272238, p(95) 223.76644225, p(99)
// 240.48690025, min 2.194872, max 275.368667 ms; http_reqs 13326 at
// 132.11002155714982/s; http_req_failed 0.06175896743208765; checks
// 12503 passed of 13326 (0.93824…); vus_max 120; thresholds
// http_req_failed rate<0.05 failed (k6's export marks it true) and one
// passed. A check failed, so the run is not valid.
func TestSummaryRow(t *testing.T) {
	s, err := summary.ReadFile("../../testdata/k6/closed_ramp.summary.json")
	if err != nil {
		t.Fatal(err)
	}
	r := SummaryRow("closed_ramp.summary.json", s)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"p50_ms", float64(r.P50MS), 136.272238}, {"p95_ms", float64(r.P95MS), 223.76644225}, {"p99_ms", float64(r.P99MS), 240.48690025},
		{"min_ms", float64(r.MinMS), 2.194872}, {"max_ms", float64(r.MaxMS), 275.368667}, {"rps", float64(r.RPS), 132.11002155714982},
		{"error_rate", float64(r.ErrorRate), 0.06175896743208765}, {"checks_pass_rate", float64(r.ChecksPassRate), 12503.0 / 13326},
		{"vus", float64(r.VUs), 119}, {"requests", float64(r.Requests), 13326},
	} {
		if math.Abs(c.got-c.want) > 1e-9*math.Abs(c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if r.Thresholds == nil || r.Thresholds.Failed != 1 || r.Thresholds.Passed != 1 || r.Thresholds.Failures[0] != "http_req_failed: rate<0.05" {
		t.Errorf("thresholds %+v", r.Thresholds)
	}
	if r.Valid || len(r.InvalidBecause) != 1 || r.InvalidBecause[0] != "checks" || r.Kind != KindSummary || r.Knee.Valid() {
		t.Errorf("valid %v because %v kind %s knee %v", r.Valid, r.InvalidBecause, r.Kind, r.Knee)
	}
}

// TestSummaryRowVUs: a summary's VUs are the most VUs running (vus.max,
// 163 in grpc_ramp's), not the VUs allocated (vus_max.max, 200).
func TestSummaryRowVUs(t *testing.T) {
	s, err := summary.ReadFile("../../testdata/k6-v2/grpc_ramp.summary.json")
	if err != nil {
		t.Fatal(err)
	}
	if r := SummaryRow("grpc_ramp.summary.json", s); r.VUs != 163 {
		t.Errorf("VUs %v, want 163 (vus.max)", r.VUs)
	}
}
