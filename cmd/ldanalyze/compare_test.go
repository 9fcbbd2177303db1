package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/internal/sim"
)

// TestCompareGolden: two runs of one server (the check) give
// matched-load rows; flags may follow the runs; labels name the columns.
func TestCompareGolden(t *testing.T) {
	out, errOut, code := runCLI(t, "", "compare", "ramp="+td+"open_ramp.csv.gz", "breakpoint="+td+"breakpoint.csv.gz", "--format", "markdown")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "compare_open_ramp_breakpoint.md", out)
}

// TestCompareJSON checks the names of the JSON document.
func TestCompareJSON(t *testing.T) {
	out, errOut, code := runCLI(t, "", "compare", "--format", "json", td+"open_ramp.csv.gz", td+"breakpoint.csv.gz")
	if code != 0 {
		t.Fatal(errOut)
	}
	var doc struct {
		Before, After string
		Rows          []map[string]any
		Knee          map[string]any `json:"knee_offered"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Before != "before" || doc.After != "after" || len(doc.Rows) == 0 || doc.Knee == nil {
		t.Fatalf("%+v", doc)
	}
	for _, k := range []string{"offered", "after_offered", "metric", "before", "after", "p", "significant", "delta_pct"} {
		if _, ok := doc.Rows[0][k]; !ok {
			t.Errorf("rows[0] has no %q", k)
		}
	}
}

func TestCompareErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", td + "open_ramp.csv.gz"}, "want two runs"},
		{[]string{"compare", td + "open_ramp.csv.gz", td + "closed_ramp.csv.gz"}, "different units"},
		{[]string{"compare", "--alpha", "2", "a", "b"}, "--alpha"},
	} {
		_, errOut, code := runCLI(t, "", c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// TestCompareSameRunWarns: compare warns when its two sides cannot show a
// change or do not measure the same thing: one file on both sides (also
// spelled differently), a run's CSV against its JSON output (the same
// samples: same-run detection by fingerprint), and an HTTP run against a
// gRPC run (different requests). Before, all three compared silently.
func TestCompareSameRunWarns(t *testing.T) {
	dir := t.TempDir()
	c := sim.OpenRamp30s()
	csvPath, jsonPath := filepath.Join(dir, "run.csv"), filepath.Join(dir, "run.json")
	for _, w := range []struct {
		path  string
		write func(io.Writer) error
	}{
		{csvPath, func(f io.Writer) error { _, err := sim.WriteCSV(f, c, sim.CSVOptions{}); return err }},
		{jsonPath, func(f io.Writer) error { _, err := sim.WriteJSON(f, c, sim.JSONOptions{}); return err }},
	} {
		f, err := os.Create(w.path)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.write(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	grpc := "../../testdata/k6-v2/grpc_ramp.csv.gz"
	for _, tc := range []struct {
		before, after, want string
	}{
		{csvPath, dir + "/./run.csv", "ldanalyze: warning: before and after are the same file (" + csvPath + " and " + dir + "/./run.csv): the comparison can show no change\n"},
		{csvPath, jsonPath, "ldanalyze: warning: same run given twice: before and after hold the same "},
		{td + "open_ramp.csv.gz", grpc, "ldanalyze: warning: the runs' request units differ (req/s of http_req_duration before, calls/s of grpc_req_duration after): their goodput, latency, knee and ceiling measure different requests and are not comparable\n"},
	} {
		_, errOut, code := runCLI(t, "", "compare", tc.before, tc.after)
		if code != 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s vs %s: exit %d, stderr:\n%s\nwant 0 and %q", tc.before, tc.after, code, errOut, tc.want)
		}
		if strings.Count(errOut, "same run given twice")+strings.Count(errOut, "are the same file") > 1 {
			t.Errorf("%s vs %s: warned twice:\n%s", tc.before, tc.after, errOut)
		}
	}
}

// TestCompareSuitesSkipsShortRun: a directory pair where one run is too
// short for load levels (29 rows over a second) compares the others and
// warns about it, instead of aborting the whole comparison.
func TestCompareSuitesSkipsShortRun(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../../testdata/k6/timefmt_rfc3339_nano.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	if err := os.WriteFile(filepath.Join(dir, "short.csv"), []byte(strings.Join(lines[:30], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	gz, err := os.ReadFile("../../testdata/k6/closed_ramp.csv.gz")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "closed_ramp.csv.gz"), gz, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "", "compare", "--format", "json", dir, dir)
	if code != 0 || !strings.Contains(errOut, "short.csv: compare: before: no load levels to match: skipped") || !strings.Contains(out, "closed_ramp.csv.gz") {
		t.Errorf("exit %d, stderr %s\nstdout %.300s", code, errOut, out)
	}
}
