package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// runCLI runs the command in-process and returns stdout, stderr and the
// exit code.
func runCLI(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), append([]string{"ldanalyze"}, args...), strings.NewReader(stdin), &out, &errb)
	code := exitCode(err, &errb)
	return out.String(), errb.String(), code
}

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/ldanalyze -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (run with -update after checking):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

const td = "../../testdata/k6/"

func TestKneeGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"knee_breakpoint.txt", []string{"knee", td + "breakpoint.csv.gz"}},
		{"knee_breakpoint_slo.md", []string{"knee", "--format", "markdown", "--slo", "p95<100ms", td + "breakpoint.csv.gz"}},
		{"knee_rfc3339_by_name.csv", []string{"knee", "--by", "name", "--window", "2s", "--format", "csv", td + "timefmt_rfc3339_nano.csv"}},
		{"knee_rfc3339.json", []string{"knee", "--format", "json", "--window", "1s", td + "timefmt_rfc3339_nano.csv"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, "", c.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, c.name, out)
		})
	}
}

// TestKneeJSONContract checks the names the issue fixes for the JSON output.
func TestKneeJSONContract(t *testing.T) {
	out, errOut, code := runCLI(t, "", "knee", "--format", "json", "--slo", "p(95)<100", td+"breakpoint.csv.gz")
	if code != 0 {
		t.Fatal(errOut)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"model", "offered_unit", "windows", "holds", "knee", "ceiling", "slo", "overall", "input"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("no %q", k)
		}
	}
	hold := doc["holds"].([]any)[0].(map[string]any)
	for _, k := range []string{"start", "end", "offered", "completed_rps", "error_rate", "p50_ms", "p95_ms", "p99_ms", "verdict"} {
		if _, ok := hold[k]; !ok {
			t.Errorf("holds[0] has no %q", k)
		}
	}
	if doc["model"] != "open" || doc["offered_unit"] != "iterations/s" {
		t.Errorf("model %v unit %v", doc["model"], doc["offered_unit"])
	}
	for _, k := range []string{"expr", "max_offered"} {
		if _, ok := doc["slo"].(map[string]any)[k]; !ok {
			t.Errorf("slo has no %q", k)
		}
	}
}

// TestExitCodes: usage and input errors exit 2 with a message that names
// the problem.
func TestExitCodes(t *testing.T) {
	for _, c := range []struct {
		args []string
		in   string
		want string
	}{
		{[]string{"knee"}, "", "no input files"},
		{[]string{"knee", "missing.csv"}, "", "missing.csv"},
		{[]string{"knee", "--format", "xml", td + "timefmt_rfc3339_nano.csv"}, "", `unknown --format "xml"`},
		{[]string{"knee", "--slo", "p95", td + "timefmt_rfc3339_nano.csv"}, "", `SLO "p95"`},
		{[]string{"knee", "--metric", "nope", td + "timefmt_rfc3339_nano.csv"}, "", `metric "nope": no samples`},
		{[]string{"knee", "-"}, "", "-: empty file"},
		{[]string{"knee", td + "timefmt_rfc3339_nano.csv", "../../testdata/k6/../k6/timefmt_rfc3339_nano.csv"}, "", "are the same file"},
		{[]string{"knee", "--metric", "http_reqs", td + "timefmt_rfc3339_nano.csv"}, "", `metric "http_reqs" is a k6 counter, not a Trend`},
		{[]string{"knee", "--window", "500ms", "-"}, "metric_name,timestamp,metric_value\nhttp_req_duration,1796004151,1\nhttp_req_duration,1796004153,1\n", "knee: --window 500ms: want a whole number of seconds, at least 1s (see ldanalyze knee --help)"},
	} {
		_, errOut, code := runCLI(t, c.in, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// TestMalformedLinesReported: skipped lines are counted on stderr with
// file:line:column, and the valid rows are analysed.
func TestMalformedLinesReported(t *testing.T) {
	in := "metric_name,timestamp,metric_value,expected_response\n" +
		"http_req_duration,1796004151,10,true\nhttp_reqs,1796004151,1,true\n" +
		"http_req_duration,1796004152,x,true\n" +
		"http_req_duration,1796004153,30,true\nhttp_reqs,1796004153,1,true\n"
	out, errOut, code := runCLI(t, in, "knee", "--format", "json", "-")
	if code != 0 {
		t.Fatal(errOut)
	}
	if !strings.Contains(errOut, "skipped 1 malformed line(s) of 5 read; first: -:4:30: metric_value \"x\": want a number") {
		t.Errorf("stderr %q", errOut)
	}
	var doc struct {
		Overall struct{ Count int }   `json:"overall"`
		Input   struct{ Skipped int } `json:"input"`
	}
	json.Unmarshal([]byte(out), &doc)
	if doc.Overall.Count != 2 || doc.Input.Skipped != 1 {
		t.Errorf("count %d skipped %d", doc.Overall.Count, doc.Input.Skipped)
	}
}

// TestDistributedRun splits one k6 CSV into two files the way execution
// segments split work (each row goes to one instance) and checks that the
// two files given together give the same analysis as the whole.
func TestDistributedRun(t *testing.T) {
	whole, errOut, code := runCLI(t, "", "knee", "--format", "json", td+"timefmt_rfc3339_nano.csv")
	if code != 0 {
		t.Fatal(errOut)
	}
	b, err := os.ReadFile(td + "timefmt_rfc3339_nano.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	parts := [2]strings.Builder{}
	for i, l := range lines[1:] {
		parts[i%2].WriteString(l)
	}
	dir := t.TempDir()
	var paths []string
	for i := range parts {
		p := filepath.Join(dir, "segment"+string(rune('a'+i))+".csv")
		if err := os.WriteFile(p, []byte(lines[0]+parts[i].String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	split, errOut, code := runCLI(t, "", append([]string{"knee", "--format", "json"}, paths...)...)
	if code != 0 {
		t.Fatal(errOut)
	}
	strip := func(s string) string { // the input block names the files
		var m map[string]any
		json.Unmarshal([]byte(s), &m)
		delete(m, "input")
		out, _ := json.Marshal(m)
		return string(out)
	}
	if strip(whole) != strip(split) {
		t.Errorf("split run differs from the whole:\n%s\n%s", strip(whole), strip(split))
	}
	if strings.Contains(split, "look like one run") {
		t.Error("the segments of a distributed run were taken for one run given twice")
	}
}

// TestSameRunTwice: a run given together with its own Parquet copy is
// refused (the copy keeps the CSV's source names, so inputs are
// compared): analysed as one run, every rate would be doubled. Nothing is
// written to stdout.
func TestSameRunTwice(t *testing.T) {
	pq := filepath.Join(t.TempDir(), "copy.parquet")
	if _, errOut, code := runCLI(t, "", "convert", td+"timefmt_rfc3339_nano.csv", "-o", pq); code != 0 {
		t.Fatal(errOut)
	}
	out, errOut, code := runCLI(t, "", "knee", "--format", "json", td+"timefmt_rfc3339_nano.csv", pq)
	if code != 2 || out != "" || !strings.Contains(errOut, "one run given twice (or its CSV and JSON outputs)") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
}

// TestKneeSummary: --summary puts k6's own figures beside the computed ones;
// on the corpus they agree within the sketch's error (0.195 %), counts
// exactly.
func TestKneeSummary(t *testing.T) {
	out, errOut, code := runCLI(t, "", "knee", "--format", "json", "--summary", td+"breakpoint.summary.json", td+"breakpoint.csv.gz")
	if code != 0 {
		t.Fatal(errOut)
	}
	var doc struct {
		Rows []pipeline.SummaryRow `json:"summary_comparison"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range doc.Rows {
		seen[r.Metric+" "+r.Stat] = true
		if !r.Diff.Valid() || float64(r.Diff) > 0.002 || float64(r.Diff) < -0.002 {
			t.Errorf("%s %s: k6 %v ldanalyze %v", r.Metric, r.Stat, r.K6, r.Ours)
		}
		if r.Stat == "count" && r.K6 != 23232 {
			t.Errorf("http_reqs count %v, want 23232 (corpus README)", r.K6)
		}
	}
	for _, k := range []string{"http_req_duration p95", "http_req_duration p90", "http_req_duration med", "http_reqs count"} {
		if !seen[k] {
			t.Errorf("no %s row in %v", k, doc.Rows)
		}
	}
	_, errOut, code = runCLI(t, "", "knee", "--summary", "missing.json", td+"breakpoint.csv.gz")
	if code != 2 || !strings.Contains(errOut, "missing.json") {
		t.Errorf("missing summary: exit %d %q", code, errOut)
	}
}

// TestFlagsAfterFiles: flags may follow the files, as users type them.
func TestFlagsAfterFiles(t *testing.T) {
	a, _, code := runCLI(t, "", "knee", td+"timefmt_rfc3339_nano.csv", "--format", "json", "--window", "2s")
	b, _, code2 := runCLI(t, "", "knee", "--format", "json", "--window", "2s", td+"timefmt_rfc3339_nano.csv")
	if code != 0 || code2 != 0 || a != b {
		t.Errorf("exit %d/%d; outputs equal %v", code, code2, a == b)
	}
	got := flagsAnywhere(commands(&env{}), []string{"ldanalyze", "queue", "little", "x", "--rate", "5", "--", "-y"})
	if strings.Join(got, " ") != "ldanalyze queue little --rate 5 -- x -y" {
		t.Errorf("flagsAnywhere = %q", got)
	}
}

// TestParallelEqualsSequential: parsing and accumulating on several cores
// gives exactly the single-core result (counts, percentiles, sums, the
// knee), on real runs with out-of-order rows.
func TestParallelEqualsSequential(t *testing.T) {
	for _, f := range []string{"breakpoint.csv.gz", "closed_ramp.csv.gz"} {
		args := []string{"knee", "--format", "json", "--by", "name,status", "--window", "10s", td + f}
		prev := runtime.GOMAXPROCS(1)
		one, _, c1 := runCLI(t, "", args...)
		runtime.GOMAXPROCS(4)
		four, _, c4 := runCLI(t, "", args...)
		runtime.GOMAXPROCS(prev)
		if c1 != 0 || c4 != 0 || one != four {
			t.Errorf("%s: 1 core and 4 cores differ (exit %d, %d)", f, c1, c4)
		}
	}
}

// TestFailOnThresholdsMachineReadable: the machine-readable summary has no
// threshold results, so --fail-on-thresholds refuses to pass it (exit 2);
// the old shape fails on its failed thresholds (exit 1).
func TestFailOnThresholdsMachineReadable(t *testing.T) {
	_, errOut, code := runCLI(t, "", "summary", "--fail-on-thresholds", td+"breakpoint.summary.json")
	if code != 2 || !strings.Contains(errOut, "carries no threshold results") {
		t.Errorf("machine-readable: exit %d %q", code, errOut)
	}
	_, errOut, code = runCLI(t, "", "summary", "--fail-on-thresholds", td+"open_ramp.summary.json")
	if code != 1 || !strings.Contains(errOut, "http_req_failed: rate<0.05") {
		t.Errorf("old shape: exit %d %q", code, errOut)
	}
}

// TestOneSecondRun: samples all within one whole second (k6's default
// CSV timestamps) cover 1 s, not "0 s", as the duration check says.
func TestOneSecondRun(t *testing.T) {
	csv := "metric_name,timestamp,metric_value,expected_response,name,status\n" +
		"http_reqs,1796004157,1,true,menu,200\nhttp_req_duration,1796004157,3.9,true,menu,200\n" +
		"http_reqs,1796004157,1,true,menu,200\nhttp_req_duration,1796004157,4.1,true,menu,200\n"
	p := filepath.Join(t.TempDir(), "one.csv")
	if err := os.WriteFile(p, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, _ := runCLI(t, "", "knee", "--format", "json", p)
	if !strings.Contains(out, `"duration_s": 1,`) || !strings.Contains(errOut, "the run lasts 1 s") {
		t.Errorf("stdout %.400s\nstderr %s", out, errOut)
	}
}

// steadyRun writes timefmt_rfc3339_nano.csv (a 5-s run at 20 it/s, every
// request a success) repeated copies times, each copy 5 s after the one
// before, and returns the file: a steady run of 5·copies seconds that
// never saturated, long enough (at 8 copies, 40 s) for a knee to be judged
// (knee.MinRunS).
func steadyRun(t *testing.T, copies int) string {
	t.Helper()
	b, err := os.ReadFile(td + "timefmt_rfc3339_nano.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var out strings.Builder
	out.WriteString(lines[0] + "\n")
	for k := range copies {
		for _, l := range lines[1:] {
			f := strings.SplitN(l, ",", 3)
			ts, err := time.Parse(time.RFC3339Nano, f[1])
			if err != nil {
				t.Fatal(err)
			}
			f[1] = ts.Add(time.Duration(k) * 5 * time.Second).Format(time.RFC3339Nano)
			out.WriteString(strings.Join(f, ",") + "\n")
		}
	}
	path := filepath.Join(t.TempDir(), "steady.csv")
	if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// --percentiles other than p50/p90/p95/p99 reach the whole-run line and
// overall.percentiles too, not only the levels: on breakpoint, p50 is the
// default line's 201.2 ms and p100 is the max, 364.1 ms.
func TestWholeRunPercentiles(t *testing.T) {
	out, errOut, code := runCLI(t, "", "knee", "--percentiles", "50,99.9,100", td+"breakpoint.csv.gz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "http_req_duration over the run: 23232 samples, p50 201.2 ms, p99.9 ") || !strings.Contains(out, ", p100 364.1 ms, max 364.1 ms;") {
		t.Errorf("whole-run line:\n%s", strings.SplitN(out, "\n", 3)[1])
	}
	js, _, _ := runCLI(t, "", "knee", "--percentiles", "50,99.9,100", "--format", "json", td+"breakpoint.csv.gz")
	var d struct {
		Overall struct {
			MaxMS       float64            `json:"max_ms"`
			Percentiles map[string]float64 `json:"percentiles"`
		} `json:"overall"`
	}
	if err := json.Unmarshal([]byte(js), &d); err != nil {
		t.Fatal(err)
	}
	if p := d.Overall.Percentiles; len(p) != 3 || p["p100"] != d.Overall.MaxMS || !(p["p99.9"] > 308.5 && p["p99.9"] < p["p100"]) {
		t.Errorf("overall percentiles %v, max %v", p, d.Overall.MaxMS)
	}
	def, _, _ := runCLI(t, "", "knee", "--format", "json", td+"breakpoint.csv.gz")
	if strings.Contains(strings.SplitN(def, `"overall"`, 2)[1][:400], `"percentiles"`) {
		t.Errorf("default percentiles wrote overall.percentiles")
	}
}
