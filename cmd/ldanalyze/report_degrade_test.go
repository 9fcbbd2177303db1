package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// rampCSV writes a 40-s ramp (10 to 49 requests/s) whose latencies are
// lat(i) for the i-th request.
func rampCSV(t *testing.T, dir string, lat func(i int) string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("metric_name,timestamp,metric_value,expected_response,name,status\n")
	n := 0
	for s := range 40 {
		ts := 1796004000 + s
		fmt.Fprintf(&b, "vus,%d,%d,,,\n", ts, 1+s/10)
		for range 10 + s {
			fmt.Fprintf(&b, "http_reqs,%d,1,true,order,200\nhttp_req_duration,%d,%s,true,order,200\nhttp_req_failed,%d,0,true,order,200\n", ts, ts, lat(n), ts)
			n++
		}
	}
	p := filepath.Join(dir, "run.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReportDegrades: all latencies 0, or one of 1e308 ms, still give a
// report.md (exit 0); a plot that cannot be drawn is left out with the
// warning on stderr; no file is empty and every linked image exists
// (issue 21: the report aborted and left a 0-byte PNG).
func TestReportDegrades(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lat    func(int) string
		stderr string
	}{
		{"zero", func(int) string { return "0" }, "ldanalyze: warning: plot \"Latency percentiles over time\" left out: no positive latency to draw on a log scale\n"},
		{"huge", func(i int) string {
			if i == 50 {
				return "1e308"
			}
			return "12.5"
		}, ""},
	} {
		dir := t.TempDir()
		in := rampCSV(t, dir, tc.lat)
		out := filepath.Join(dir, "out", "report.md")
		_, errOut, code := runCLI(t, "", "report", in, "-o", out, "--html", filepath.Join(dir, "out", "report.html"))
		if code != 0 || errOut != tc.stderr {
			t.Errorf("%s: exit %d, stderr %q\nwant 0, %q", tc.name, code, errOut, tc.stderr)
		}
		md, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, n := range names(t, filepath.Join(dir, "out")) {
			if fi, _ := os.Stat(filepath.Join(dir, "out", n)); fi.Size() == 0 || strings.HasSuffix(n, ".tmp") {
				t.Errorf("%s: %s is empty or temporary", tc.name, n)
			}
		}
		for _, l := range regexp.MustCompile(`\]\(([^)]+\.(png|svg))\)`).FindAllStringSubmatch(string(md), -1) {
			if _, err := os.Stat(filepath.Join(dir, "out", l[1])); err != nil {
				t.Errorf("%s: linked %s: %v", tc.name, l[1], err)
			}
		}
		if hasLatency := strings.Contains(string(md), "report-latency.png"); hasLatency != (tc.name == "huge") {
			t.Errorf("%s: latency plot linked: %v", tc.name, hasLatency)
		}
	}
}
