package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInputMessages: inputs that are not what the command reads say what
// they are. A k6 JSON output of Metric lines only says it has no Point
// lines (before: "the input has a header but no data rows"); one that
// starts with a UTF-8 byte order mark is read (before: its first line
// was skipped as invalid JSON); `prom read` on a k6 CSV names it and the
// command to use (before: "unsupported character in float").
func TestInputMessages(t *testing.T) {
	dir := t.TempDir()
	metric := `{"type":"Metric","data":{"name":"http_req_duration","type":"trend","contains":"time","thresholds":[],"submetrics":null},"metric":"http_req_duration"}` + "\n"
	point := func(sec int, v string) string {
		return `{"type":"Point","metric":"http_req_duration","data":{"time":"2026-12-01T10:00:0` + string(rune('0'+sec)) + `Z","value":` + v + `,"tags":{"status":"200"}}}` + "\n"
	}
	only := filepath.Join(dir, "only.json")
	bom := filepath.Join(dir, "bom.json")
	for p, s := range map[string]string{only: metric, bom: "\xef\xbb\xbf" + metric + point(0, "5") + point(1, "6") + point(2, "7")} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := runCLI(t, "", "knee", only)
	if want := "ldanalyze: " + only + ": no Point lines: only metric declarations (1 Metric lines of k6's JSON output) (no samples)\n"; code != 2 || out != "" || errOut != want {
		t.Errorf("only Metric lines: exit %d, stdout %q, stderr %q; want 2, nothing, %q", code, out, errOut, want)
	}
	out, errOut, code = runCLI(t, "", "knee", "--format", "json", bom)
	if code != 0 || strings.Contains(errOut, "skipped") || !strings.Contains(out, `"rows": 3`) {
		t.Errorf("BOM: exit %d, stderr %q, want 3 rows read:\n%.400s", code, errOut, out)
	}
	csv := td + "timefmt_rfc3339_nano.csv"
	out, errOut, code = runCLI(t, "", "prom", "read", csv)
	if want := "ldanalyze: " + csv + ":1:1: a k6 CSV output (its header is metric_name,timestamp,…), not a Prometheus export: analyse it with `ldanalyze knee " + csv + "` (or check, report, convert); prom read lists the series of Prometheus exports\n"; code != 2 || out != "" || errOut != want {
		t.Errorf("prom read CSV: exit %d, stdout %q, stderr %q; want 2, nothing, %q", code, out, errOut, want)
	}
}

// TestStrayTimestamps: rows with a stray timestamp (3 http_req_duration
// rows of timefmt_rfc3339_nano.csv moved 3 days on) split the data; the
// warning says what lies outside the analysed span: when it was, how far
// from the main span, and the Trend's samples in it (before: only the
// spans and the gap).
func TestStrayTimestamps(t *testing.T) {
	b, err := os.ReadFile(td + "timefmt_rfc3339_nano.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	moved := 0
	for i, l := range lines {
		if moved < 3 && strings.HasPrefix(l, "http_req_duration,2026-11-30") {
			lines[i] = strings.Replace(l, "2026-11-30", "2026-12-03", 1)
			moved++
		}
	}
	in := filepath.Join(t.TempDir(), "stray.csv")
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, "", "knee", in)
	// 101 samples of http_req_duration in all, 98 in the main span.
	want := "ldanalyze: warning: the samples fall in 2 spans separated by up to 71h59m54s without any sample (a clock step, a paused generator, several runs in one file or a stray timestamp): the load levels come from the span with the most data, 2026-11-30T02:02:31Z to 2026-11-30T02:02:36Z (6 s of data), and every offset (+N s) is measured from its start; the 1 other span(s) (1 s of data at 2026-12-03T02:02:31Z, 259195 s after the main span) hold 3 of the 101 http_req_duration samples (3%), counted only in the whole-run figures. Split the file, or give separate runs as separate files\n"
	if code != 0 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant 0 and %q", code, errOut, want)
	}
}
