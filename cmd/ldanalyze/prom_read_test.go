package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPromRead lists testdata/prom/two_pods/pod_cpu_cores.json (two series
// of 31 points every 5 s from 02:07:00Z; game-0 from 0.5 to 2.37 cores,
// game-1 at 0.03 throughout, read off the file). With --rate each series
// has one point fewer, and game-0's largest rate is its first step,
// (0.6169 − 0.5) ÷ 5 s = 0.02338/s. The JSON form holds every point. A
// missing second file fails before -o is created.
func TestPromRead(t *testing.T) {
	const f = "../../testdata/prom/two_pods/pod_cpu_cores.json"
	out, errOut, code := runCLI(t, "", "prom", "read", "-f", "csv", f)
	want := "source,series,points,first,last,min,max\n" +
		f + `,"{namespace=""arena"", pod=""game-0""}",31,2026-11-30T02:07:00Z,2026-11-30T02:09:30Z,0.5,2.37` + "\n" +
		f + `,"{namespace=""arena"", pod=""game-1""}",31,2026-11-30T02:07:00Z,2026-11-30T02:09:30Z,0.03,0.03` + "\n"
	if code != 0 || out != want {
		t.Errorf("exit %d (%s):\n%s\nwant\n%s", code, errOut, out, want)
	}
	out, _, code = runCLI(t, "", "prom", "read", "--rate", "-f", "csv", f)
	if lines := strings.Split(out, "\n"); code != 0 || len(lines) != 4 || !strings.HasSuffix(lines[1], ",30,2026-11-30T02:07:05Z,2026-11-30T02:09:30Z,0,0.023380000000000047") {
		t.Errorf("--rate: exit %d\n%s", code, out)
	}
	out, _, code = runCLI(t, "", "prom", "read", "-f", "json", f)
	var series []struct {
		Source string            `json:"source"`
		Labels map[string]string `json:"labels"`
		Points []struct {
			V float64 `json:"v"`
		} `json:"points"`
	}
	if err := json.Unmarshal([]byte(out), &series); err != nil || code != 0 {
		t.Fatalf("json: exit %d, %v\n%s", code, err, out)
	}
	if len(series) != 2 || series[0].Labels["pod"] != "game-0" || len(series[0].Points) != 31 || series[0].Points[0].V != 0.5 || series[1].Points[30].V != 0.03 {
		t.Errorf("json: %+v", series)
	}
	o := filepath.Join(t.TempDir(), "series.csv")
	if _, errOut, code := runCLI(t, "", "prom", "read", "-o", o, f, "missing.json"); code != 2 || !strings.Contains(errOut, "missing.json") {
		t.Errorf("missing file: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(o); !os.IsNotExist(err) {
		t.Errorf("-o %s exists after a failed read: %v", o, err)
	}
}

// TestPromReadGzip: prom read takes a gzipped file as the other commands
// do (the k6-v2 corpus's query_range export; it said "unknown format").
func TestPromReadGzip(t *testing.T) {
	out, errOut, code := runCLI(t, "", "prom", "read", "../../testdata/k6-v2/prom_rw_stats.prom_query_range.json.gz")
	if code != 0 || !strings.Contains(out, `k6_checks_rate`) {
		t.Errorf("exit %d, stderr %s\n%.500s", code, errOut, out)
	}
}

// TestPromReadSelector: a selector given to prom read as if it took one
// ('{}', `{job="k6"}`) is explained: prom read takes exported files, and a
// selector goes with prom k6 --url or --from-prom, what a valid one looks
// like; a missing file that is no selector keeps the plain error. Before:
// "open {}: no such file or directory".
func TestPromReadSelector(t *testing.T) {
	for _, arg := range []string{"{}", `{job="k6"}`, `up{instance=~"k6.*"}`} {
		out, errOut, code := runCLI(t, "", "prom", "read", arg)
		want := fmt.Sprintf("ldanalyze: prom read: %q is not a file, and prom read takes no selector: give files exported from Prometheus (query_range API JSON, Grafana CSV, VictoriaMetrics JSON lines, Prometheus/OpenMetrics text); to read a k6 run from a server, use ldanalyze prom k6 --url URL --match SELECTOR (or knee --from-prom URL --match SELECTOR), SELECTOR a PromQL label selector {label=\"value\", ...} (=, !=, =~ or !~) naming the run, e.g. '{testid=\"run-42\"}'\n", arg)
		if code != 2 || out != "" || errOut != want {
			t.Errorf("prom read %s: exit %d, stdout %q, stderr\n%s\nwant 2, nothing and\n%s", arg, code, out, errOut, want)
		}
	}
	if _, errOut, code := runCLI(t, "", "prom", "read", "missing.json"); code != 2 || errOut != "ldanalyze: open missing.json: no such file or directory\n" {
		t.Errorf("missing file: exit %d, stderr %q", code, errOut)
	}
}
