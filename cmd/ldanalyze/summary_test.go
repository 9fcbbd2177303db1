package main

import (
	"strings"
	"testing"
)

// TestSummaryGolden prints the three summary shapes; the figures are k6's
// own (closed_ramp.summary.json, open_ramp.handle_summary.json,
// breakpoint.summary.json in testdata).
func TestSummaryGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"summary_closed_ramp.md", []string{"summary", "--format", "markdown", td + "closed_ramp.summary.json"}},
		{"summary_open_ramp_handle.csv", []string{"summary", "--format", "csv", "../../testdata/ingest/open_ramp.handle_summary.json"}},
		{"summary_breakpoint.json", []string{"summary", "--format", "json", td + "breakpoint.summary.json"}},
		{"summary_breakpoint.txt", []string{"summary", td + "breakpoint.summary.json"}},
	} {
		out, errOut, code := runCLI(t, "", c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		golden(t, c.name, out)
	}
}

func TestSummaryExitCodes(t *testing.T) {
	// closed_ramp: http_req_failed rate<0.05 failed (export true; the run had
	// 6.2% failed requests).
	_, errOut, code := runCLI(t, "", "summary", "--fail-on-thresholds", td+"closed_ramp.summary.json")
	if code != 1 || !strings.Contains(errOut, "1 threshold(s) failed: http_req_failed: rate<0.05") {
		t.Errorf("fail-on-thresholds: exit %d, stderr %q; want 1 naming the threshold", code, errOut)
	}
	// Without the flag a failed threshold is shown, not an exit code.
	out, _, code := runCLI(t, "", "summary", td+"closed_ramp.summary.json")
	if code != 0 || !strings.Contains(out, "rate<0.05 FAIL") || !strings.Contains(out, "p(95)<300 pass") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
	_, errOut, code = runCLI(t, "", "summary", td+"README.md")
	if code != 2 || !strings.Contains(errOut, "README.md:1:1: invalid JSON") {
		t.Errorf("not a summary: exit %d, stderr %q", code, errOut)
	}
	// A k6 output, or several files: the suite table, one row each.
	out, errOut, code = runCLI(t, "", "summary", "--format", "csv", td+"breakpoint.csv.gz", td+"closed_ramp.summary.json")
	if code != 0 || !strings.HasPrefix(out, "file,scenario,kind,") || strings.Count(out, "\n") != 3 {
		t.Errorf("many: exit %d, stderr %q, output %q", code, errOut, out)
	}
	_, errOut, code = runCLI(t, "", "summary", "--fail-on-thresholds", td+"closed_ramp.summary.json", td+"open_ramp.summary.json")
	if code != 1 || !strings.Contains(errOut, "3 threshold(s) failed") {
		t.Errorf("many --fail-on-thresholds: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = runCLI(t, "", "summary")
	if code != 2 || !strings.Contains(errOut, "want one k6 summary FILE") {
		t.Errorf("no file: exit %d, stderr %q", code, errOut)
	}
	// Standard input.
	out, _, code = runCLI(t, `{"metrics":{"iterations":{"count":3,"rate":1.5}}}`, "summary", "--format", "csv", "-")
	if code != 0 || out != "metric,type,count,rate,avg,min,med,p90,p95,p99,max,value,thresholds\niterations,counter,3,1.5,,,,,,,,,\n" {
		t.Errorf("stdin: exit %d, output %q", code, out)
	}
}
