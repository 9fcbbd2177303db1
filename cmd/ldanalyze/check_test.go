package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/internal/cliapp"
)

// checkCSV is a k6 CSV (default 19-column header) of an open-model run:
// rate iterations a second for secs seconds, one GET menu of 12 ms per
// iteration, vus 1 of vus_max 5; the requests of second failAt (if ≥ 0)
// get status 429 and a failed check.
func checkCSV(rate, secs, failAt int) string {
	var b strings.Builder
	b.WriteString("metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata\n")
	const t0 = 1796004000
	for s := range secs {
		ts := t0 + s
		fmt.Fprintf(&b, "vus,%d,1.000000,,,,,,,,,,,,,,,,\n", ts)
		fmt.Fprintf(&b, "vus_max,%d,5.000000,,,,,,,,,,,,,,,,\n", ts)
		for range rate {
			status, exp, code, pass := "200", "true", "", "1"
			if s == failAt {
				status, exp, code, pass = "429", "false", "1429", "0"
			}
			tags := fmt.Sprintf(",,,%s,%s,,GET,menu,HTTP/1.1,default,,%s,,,menu,,", code, exp, status)
			fmt.Fprintf(&b, "http_reqs,%d,1.000000%s\n", ts, tags)
			fmt.Fprintf(&b, "http_req_duration,%d,12.000000%s\n", ts, tags)
			fmt.Fprintf(&b, "checks,%d,%s.000000,status is 200,,,,,,,,default,,,,,,,\n", ts, pass)
			fmt.Fprintf(&b, "iterations,%d,1.000000,,,,,,,,,default,,,,,,,\n", ts)
			fmt.Fprintf(&b, "iteration_duration,%d,13.000000,,,,,,,,,default,,,,,,,\n", ts)
		}
	}
	return b.String()
}

type checkDoc struct {
	Checks []struct {
		ID       string             `json:"id"`
		Status   string             `json:"status"`
		Evidence map[string]float64 `json:"evidence"`
		Message  string             `json:"message"`
	} `json:"checks"`
}

func checkStatuses(t *testing.T, out string) (map[string]string, checkDoc) {
	t.Helper()
	var d checkDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("not the JSON contract: %v\n%s", err, out)
	}
	st := map[string]string{}
	for _, c := range d.Checks {
		if c.ID == "" || c.Status == "" || c.Message == "" || c.Evidence == nil {
			t.Errorf("check %+v lacks id, status, evidence or message", c)
		}
		st[c.ID] = c.Status
	}
	return st, d
}

// TestCheckHealthy: 20 it/s for 40 s, all 200: every check ok (generator
// n/a, no generator data), exit 0.
func TestCheckHealthy(t *testing.T) {
	out, errs, code := runCLI(t, checkCSV(20, 40, -1), "check", "--format", "json", "-")
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr %s", code, errs)
	}
	st, _ := checkStatuses(t, out)
	for _, id := range []string{"model", "duration", "resolution", "coordinated-omission", "dropped-iterations", "checks", "errors", "rate-limited", "summary-vs-knee", "cardinality"} {
		if st[id] != "ok" {
			t.Errorf("%s: %q, want ok", id, st[id])
		}
	}
	if st["generator"] != "n/a" {
		t.Errorf("generator: %q, want n/a", st["generator"])
	}
}

// TestCheckFailingExit: the same run with the 20 requests of second 30
// answered 429: 20 of 800 = 2.5 % failed, so checks, errors (≥ 1 %) fail
// and the exit code is 1; rate-limited warns (2.5 % < 5 %) with 20 429s.
func TestCheckFailingExit(t *testing.T) {
	out, errs, code := runCLI(t, checkCSV(20, 40, 30), "check", "--format", "json", "-")
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %s", code, errs)
	}
	if !strings.Contains(errs, "failed checks: checks, errors") {
		t.Errorf("stderr %q does not name the failed checks", errs)
	}
	st, d := checkStatuses(t, out)
	if st["checks"] != "fail" || st["errors"] != "fail" || st["rate-limited"] != "warn" {
		t.Errorf("statuses %v", st)
	}
	for _, c := range d.Checks {
		if c.ID == "rate-limited" && (c.Evidence["status_429"] != 20 || c.Evidence["status_429{name:menu}"] != 20 || c.Evidence["first_429_s"] != 30) {
			t.Errorf("rate-limited evidence %v", c.Evidence)
		}
	}
}

// TestCheckFormats: table, markdown and CSV carry one row per check.
func TestCheckFormats(t *testing.T) {
	in := checkCSV(20, 40, -1)
	for _, f := range []string{"table", "markdown", "csv"} {
		out, errs, code := runCLI(t, in, "check", "--format", f, "-")
		if code != 0 {
			t.Fatalf("%s: exit %d; %s", f, code, errs)
		}
		for _, id := range []string{"model", "coordinated-omission", "summary-vs-knee", "cardinality"} {
			if !strings.Contains(out, id) {
				t.Errorf("%s output lacks %s:\n%s", f, id, out)
			}
		}
	}
	out, _, _ := runCLI(t, in, "check", "--format", "csv", "-")
	if lines := strings.Count(out, "\n"); lines != 15 {
		t.Errorf("csv: %d lines, want header + 14 checks", lines)
	}
}

// TestCheckThresholdFlag: the 429 second makes one 10 s ramp step's
// http_req_failed-equivalent error rate 20/200 = 10 % while the run's is
// 2.5 %: "http_req_duration{expected_response:false}:count<1" fails the
// whole run too, so it is not hidden; a rate threshold on the checks
// metric ("checks:rate>0.95") holds on the run (97.5 %) and fails the
// step (90 %) → summary-vs-knee fails.
func TestCheckThresholdFlag(t *testing.T) {
	out, errs, code := runCLI(t, checkCSV(20, 40, 30), "check", "--format", "json", "--threshold", "checks:rate>0.95", "-")
	if code != 1 {
		t.Fatalf("exit %d; %s", code, errs)
	}
	st, _ := checkStatuses(t, out)
	if st["summary-vs-knee"] != "fail" {
		t.Errorf("summary-vs-knee %q, want fail", st["summary-vs-knee"])
	}
	_, errs, code = runCLI(t, "", "check", "--threshold", "checks:rate~1", "-")
	if code != 2 || !strings.Contains(errs, `threshold "checks:rate~1"`) {
		t.Errorf("bad threshold: exit %d, %q", code, errs)
	}
}

func TestCheckUsage(t *testing.T) {
	if _, errs, code := runCLI(t, "", "check"); code != 2 || !strings.Contains(errs, "no input files") {
		t.Errorf("no files: exit %d, %q", code, errs)
	}
	if _, _, code := runCLI(t, "", "check", "--window", "1500ms", "x.csv"); code != 2 {
		t.Errorf("fractional window: exit %d, want 2", code)
	}
}

func TestSplitThresholds(t *testing.T) {
	got := cliapp.Thresholds([]string{"a:rate<1, m{x:1,y:2}:p(95)<5", "c:count<1"})
	want := []string{"a:rate<1", "m{x:1,y:2}:p(95)<5", "c:count<1"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestCheckCorpusAcceptance mirrors shared/acceptance/run.sh checks().
func TestCheckCorpusAcceptance(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "corpus", "k6")
	if _, err := os.Stat(filepath.Join(dir, "closed_ramp.csv")); err != nil {
		t.Skip("corpus not present")
	}
	for _, tc := range []struct {
		file string
		want map[string][]string
	}{
		{"closed_ramp.csv", map[string][]string{"model": {"ok"}, "coordinated-omission": {"warn", "fail"}, "rate-limited": {"warn", "fail"}}},
		{"open_ramp.csv.gz", map[string][]string{"dropped-iterations": {"warn", "fail"}}},
		{"breakpoint.csv.gz", map[string][]string{"summary-vs-knee": {"warn", "fail"}}},
	} {
		out, errs, code := runCLI(t, "", "check", "--format", "json", filepath.Join(dir, tc.file))
		if code == 2 {
			t.Fatalf("%s: exit 2: %s", tc.file, errs)
		}
		st, d := checkStatuses(t, out)
		for id, ok := range tc.want {
			if !slices.Contains(ok, st[id]) {
				t.Errorf("%s %s: %q, want one of %v", tc.file, id, st[id], ok)
			}
		}
		if tc.file == "open_ramp.csv.gz" {
			for _, c := range d.Checks {
				// README: 68 dropped iterations in total.
				if c.ID == "dropped-iterations" && c.Evidence["dropped_iterations"] != 68 {
					t.Errorf("dropped_iterations %v, want 68", c.Evidence["dropped_iterations"])
				}
			}
		}
	}
}

// shiftCSV moves checkCSV's timestamps (from 1796004000) to start at t0.
func shiftCSV(csv string, secs int, t0 int64) string {
	var pairs []string
	for s := range secs {
		pairs = append(pairs, fmt.Sprintf(",%d,", 1796004000+s), fmt.Sprintf(",%d,", t0+int64(s)))
	}
	return strings.NewReplacer(pairs...).Replace(csv)
}

// TestCheckGeneratorProm: 20 it/s for 120 s from 02:07:10Z, inside
// testdata/prom/generator. A steady run, so its levels are 10 s ramp
// steps. The default `k6.*` picks the two k6 pods; k6-breakpoint-1 is
// throttled 12 % of its CFS periods from 02:08:10Z (> 5 %) → generator
// fails, exit 1. --generator-pod 'k6-breakpoint-2.*' keeps the other pod
// (throttled 1 %, CPU 0.6 of 2 cores = 30 %) → ok, exit 0. The same run at
// 02:00 lies outside the export → n/a. Without --prom → n/a.
func TestCheckGeneratorProm(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "prom", "generator")
	in := shiftCSV(checkCSV(20, 120, -1), 120, 1796004430)
	out, errs, code := runCLI(t, in, "check", "--format", "json", "--prom", dir, "-")
	if code != 1 || !strings.Contains(errs, "failed checks: generator") {
		t.Fatalf("exit %d, want 1; stderr %s", code, errs)
	}
	st, d := checkStatuses(t, out)
	if st["generator"] != "fail" {
		t.Errorf("generator %q, want fail", st["generator"])
	}
	for _, c := range d.Checks {
		if c.ID == "generator" && (c.Evidence["generator_pods"] != 2 || c.Evidence["throttle_ratio_peak"] != 0.12 || c.Evidence["cpu_share_peak"] != 0.75) {
			t.Errorf("generator evidence %v", c.Evidence)
		}
	}
	out, errs, code = runCLI(t, in, "check", "--format", "json", "--prom", dir, "--generator-pod", "k6-breakpoint-2.*", "-")
	if code != 0 {
		t.Fatalf("pod 2: exit %d; %s", code, errs)
	}
	if st, _ := checkStatuses(t, out); st["generator"] != "ok" {
		t.Errorf("pod 2: generator %q, want ok", st["generator"])
	}
	for _, args := range [][]string{
		{"check", "--format", "json", "--prom", dir, "-"}, // run at 02:00, export from 02:07
		{"check", "--format", "json", "-"},                // no --prom
	} {
		out, errs, code = runCLI(t, checkCSV(20, 40, -1), args...)
		if code != 0 {
			t.Fatalf("%v: exit %d; %s", args, code, errs)
		}
		if st, _ := checkStatuses(t, out); st["generator"] != "n/a" {
			t.Errorf("%v: generator %q, want n/a", args, st["generator"])
		}
	}
	if _, errs, code := runCLI(t, in, "check", "--prom", dir, "--generator-pod", "k6(", "-"); code != 2 || !strings.Contains(errs, "--generator-pod") {
		t.Errorf("bad regex: exit %d, %q", code, errs)
	}
	if _, errs, code := runCLI(t, in, "check", "--prom", t.TempDir(), "-"); code == 0 || !strings.Contains(errs, "manifest.json") {
		t.Errorf("not an export: exit %d, %q", code, errs)
	}
}

// TestCheckNoSamples: a k6 CSV with only its header is not a run: exit 2
// with the reason, as knee does (it used to print a table of n/a).
func TestCheckNoSamples(t *testing.T) {
	header := "metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata\n"
	out, errs, code := runCLI(t, header, "check", "-")
	if code != 2 || !strings.Contains(errs, "no data rows") || out != "" {
		t.Errorf("exit %d, stderr %q, stdout %q", code, errs, out)
	}
}

// TestThresholdGate: `check --threshold` fails the run (exit 1) when a
// threshold fails over the whole run, as k6 would (breakpoint's p95 is
// 273.4 ms over all responses, as k6's summary says), and when a threshold matches no sample (a misspelt metric, a
// tag filter that matches nothing); it passes when every one holds.
func TestThresholdGate(t *testing.T) {
	for _, c := range []struct {
		thr  string
		code int
		want string
	}{
		{"http_req_duration:p(95)<1", 1, "1 of 1 thresholds fail over the whole run: http_req_duration:p(95)<1 (274)"},
		{"http_req_duraton:p(95)<1", 1, "http_req_duraton:p(95)<1 matches no sample of the run"},
		{"http_req_duration{name:nonexist}:p(95)<1", 1, "matches no sample of the run"},
		{"http_req_duration:p(95)<10000", 0, "every threshold holds over the whole run"},
	} {
		out, errOut, code := runCLI(t, "", "check", "--format", "json", "--threshold", c.thr, td+"breakpoint.csv.gz")
		var doc struct {
			Checks []struct{ ID, Status, Message string } `json:"checks"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%s: %v (%s)", c.thr, err, errOut)
		}
		msg := ""
		for _, ch := range doc.Checks {
			if ch.ID == "thresholds" {
				msg = ch.Message
			}
		}
		// breakpoint fails other checks too (errors past the knee): the
		// exit code is judged only when the thresholds check decides it.
		if !strings.Contains(msg, c.want) || (c.code == 1 && code != 1) {
			t.Errorf("%s: exit %d, thresholds %q; want %d and %q", c.thr, code, msg, c.code, c.want)
		}
	}
}

// TestCutShortInput: a gzip copy of breakpoint.csv.gz cut at 300,000
// bytes (about 60 of its 131 s) is analysed to the cut, and the input
// check says the file ended early (the ceiling "not reached" may be the
// cut's); suite marks the row.
func TestCutShortInput(t *testing.T) {
	b, err := os.ReadFile(td + "breakpoint.csv.gz")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.csv.gz")
	if err := os.WriteFile(cut, b[:300000], 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, _ := runCLI(t, "", "check", "--format", "json", cut)
	var doc struct {
		Checks []struct {
			ID       string             `json:"id"`
			Status   string             `json:"status"`
			Evidence map[string]float64 `json:"evidence"`
			Message  string             `json:"message"`
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range doc.Checks {
		if c.ID == "input" {
			found = c.Status == "warn" && c.Evidence["truncated"] == 1 && strings.Contains(c.Message, "the input ended early")
		}
	}
	if !found {
		t.Errorf("no input warning for a cut file: %s", out)
	}
	out, _, _ = runCLI(t, "", "suite", "--format", "json", dir)
	if !strings.Contains(out, `"truncated": true`) {
		t.Errorf("suite does not mark the cut run:\n%s", out)
	}
}

// TestBimodalOneLevel: trello-cypress (../shared/corpus/public, read in
// place) has one load level with enough samples: its split latencies are
// "the only level …", not "first at 8.57 VUs, not at the lowest load".
func TestBimodalOneLevel(t *testing.T) {
	path := "../../../shared/corpus/public/k6-jsonl-v0.32-trello-cypress.json"
	if _, err := os.Stat(path); err != nil {
		t.Skip("shared corpus not beside the checkout")
	}
	out, _, _ := runCLI(t, "", "check", "--format", "json", path)
	if strings.Contains(out, "not at the lowest load") || !strings.Contains(out, "the only level with enough of its samples") {
		t.Errorf("bimodal wording: %.3000s", out)
	}
}

// TestPastKneeCountsFailuresBefore: prom_rw_native.csv.gz (the shared
// corpus, read in place) had 13 failed requests (3 timeouts, 10 × 429)
// at the 54 it/s warm-up stall, below the knee: the past-knee note says
// so instead of implying every failure came past the knee.
func TestPastKneeCountsFailuresBefore(t *testing.T) {
	path := "../../../shared/corpus/k6-v2/prom_rw_native.csv.gz"
	if _, err := os.Stat(path); err != nil {
		t.Skip("shared corpus not beside the checkout")
	}
	out, _, _ := runCLI(t, "", "check", "--format", "json", path)
	if !strings.Contains(out, "13 of the 9264 came before it") {
		t.Errorf("no count of the failures before the knee: %.3000s", out)
	}
}
