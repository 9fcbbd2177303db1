package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// kneeSources runs knee --format json with args and decodes the fields these
// tests compare.
func kneeSources(t *testing.T, args ...string) (doc struct {
	Checks []struct {
		ID, Status string
	} `json:"checks"`
	Summary []struct {
		Metric, Stat string
	} `json:"summary_comparison"`
	Saturated []struct {
		Resource string `json:"resource"`
	} `json:"saturated"`
}, stderr string) {
	t.Helper()
	out, errOut, code := runCLI(t, "", append([]string{"knee", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("knee %v: exit %d: %s", args, code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	return doc, errOut
}

// section is the markdown of the report section titled title ("" when
// absent).
func section(md, title string) string {
	i := strings.Index(md, "\n## "+title+"\n")
	if i < 0 {
		return ""
	}
	rest := md[i+1:]
	if j := strings.Index(rest[3:], "\n## "); j >= 0 {
		return rest[:j+3]
	}
	return rest
}

// TestReportSummaryAsKnee: report --summary puts k6's own summary beside
// the computed figures as knee --summary does: every row of knee's
// comparison, with the same numbers (breakpoint.summary.json's p95 is
// 273.40867095 ms, testdata/k6/README.md; the samples give 273.5 ms,
// +0.033 %). The summary of another run (open_ramp's, 25,032 requests
// against 23,232) warns in both, in the same words.
func TestReportSummaryAsKnee(t *testing.T) {
	run, sum := td+"breakpoint.csv.gz", td+"breakpoint.summary.json"
	kmd, _, code := runCLI(t, "", "knee", "--format", "markdown", "--summary", sum, run)
	if code != 0 {
		t.Fatal(kmd)
	}
	k, _ := kneeSources(t, "--summary", sum, run)
	md, errOut, code := runCLI(t, "", "report", "--summary", sum, run)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	s := section(md, "k6's own summary")
	if s == "" {
		t.Fatalf("no summary section:\n%s", md)
	}
	rows := 0
	for _, l := range strings.Split(kmd, "\n") {
		if strings.HasPrefix(l, "| http_req") {
			rows++
			if !strings.Contains(s, l+"\n") {
				t.Errorf("knee's row %q is not in the report's summary section:\n%s", l, s)
			}
		}
	}
	if rows != len(k.Summary) || rows != 8 || !strings.Contains(s, "| http_req_duration | p95 | 273.4 | 273.5 | +0.033% |") {
		t.Errorf("%d rows in knee's markdown, %d in its JSON, want 8 with p95 273.4 vs 273.5:\n%s", rows, len(k.Summary), s)
	}
	if plain, _, _ := runCLI(t, "", "report", run); section(plain, "k6's own summary") != "" {
		t.Error("a summary section without --summary")
	}

	other := td + "open_ramp.summary.json"
	const warn = "counts 25032 http_reqs against 23232 in the samples"
	_, kerr := kneeSources(t, "--summary", other, run)
	md, _, _ = runCLI(t, "", "report", "--summary", other, run)
	if !strings.Contains(kerr, warn) || !strings.Contains(md, warn) {
		t.Errorf("the mismatch warning: knee %q, report has it: %v", kerr, strings.Contains(md, warn))
	}
}

// TestReportPromAsKnee: report --prom names what saturated as knee --prom
// does, in the verdict and a Saturation section. testdata/prom/database_95:
// db-1's node CPU at 95 % at the ceiling level (02:08:40Z) is saturated
// (≥ 90 %); two_pods: nothing saturated, game-0 carried 99 % of the
// workload's CPU and game-1 was OOMKilled inside the ceiling level;
// generator: the k6 pods were throttled 12 % of CFS periods at a level,
// so the generator check fails in report's checks table as in knee's.
func TestReportPromAsKnee(t *testing.T) {
	run := td + "breakpoint.csv.gz"
	for _, c := range []struct {
		dir   string
		lines []string
	}{
		{"database_95", []string{"What saturated (ceiling level from 02:08:40Z): db-1:9100 node CPU at 95.0 %.", "| db-1:9100 node CPU | 95.0% |"}},
		{"two_pods", []string{"nothing at or above 90 % (busiest: arena/game-0 CPU (of limit) at 59.2 %)",
			"Imbalance: arena/game-0 carried 99 % of arena/game's CPU", "(OOMKilled)."}},
		{"generator", []string{"| generator | fail | generator_pods=2, throttle_ratio_run=", "throttle_ratio_peak=0.12,"}},
	} {
		dir := "../../testdata/prom/" + c.dir
		k, _ := kneeSources(t, "--prom", dir, run)
		ktext, _, _ := runCLI(t, "", "knee", "--prom", dir, run)
		md, errOut, code := runCLI(t, "", "report", "--prom", dir, run)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.dir, code, errOut)
		}
		for _, l := range c.lines {
			if !strings.Contains(md, l) {
				t.Errorf("%s: the report lacks %q", c.dir, l)
			}
		}
		// The verdict's saturation line is knee's, word for word.
		verdict := md[:strings.Index(md, "\n## ")]
		found := false
		for _, l := range strings.Split(ktext, "\n") {
			if strings.HasPrefix(l, "What saturated") {
				found = true
				if !strings.Contains(verdict, l) {
					t.Errorf("%s: knee's %q is not in the report's verdict:\n%s", c.dir, l, verdict)
				}
			}
		}
		if !found || section(md, "Saturation") == "" {
			t.Errorf("%s: knee says what saturated: %v; the report has a Saturation section: %v", c.dir, found, section(md, "Saturation") != "")
		}
		for _, ch := range k.Checks {
			if ch.ID == "generator" && !strings.Contains(md, "| generator | "+ch.Status+" |") {
				t.Errorf("%s: knee's generator check is %s; the report's is not", c.dir, ch.Status)
			}
		}
		if c.dir == "database_95" && (len(k.Saturated) != 1 || k.Saturated[0].Resource != "db-1:9100 node CPU") {
			t.Errorf("knee's saturated: %+v", k.Saturated)
		}
	}
	if plain, _, _ := runCLI(t, "", "report", run); section(plain, "Saturation") != "" || strings.Contains(plain, "What saturated") {
		t.Error("saturation without --prom")
	}
}
