package report

import (
	"bytes"
	"image/png"
	"os"
	"strings"
	"testing"
)

// withLatencies rewrites the http_req_duration values of the synthetic run
// at path with f(i, value) for the i-th one.
func withLatencies(t *testing.T, path string, f func(i int, v string) string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	n := 0
	for j, l := range lines {
		if rest, ok := strings.CutPrefix(l, "http_req_duration,"); ok {
			fs := strings.SplitN(rest, ",", 3)
			fs[1] = f(n, fs[1])
			n++
			lines[j] = "http_req_duration," + strings.Join(fs, ",")
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDegradeAllZero: with every latency 0 the log-scale latency plot
// cannot be drawn: DrawPlots leaves it out with a note and a warning, and
// every other plot draws a whole PNG (issue 21: the report used to abort).
func TestDegradeAllZero(t *testing.T) {
	path := withLatencies(t, writeRun(t, []string{"menu", "order"}), func(int, string) string { return "0" })
	rep := build(t, path, "", "")
	warns := rep.DrawPlots()
	want := `plot "Latency percentiles over time" left out: no positive latency to draw on a log scale`
	if len(warns) != 1 || warns[0] != want {
		t.Fatalf("warnings %q, want [%q]", warns, want)
	}
	if rep.Warnings[len(rep.Warnings)-1] != want {
		t.Errorf("report warnings %q lack it", rep.Warnings)
	}
	var names []string
	for _, p := range rep.Plots() {
		names = append(names, p.Name)
		var b bytes.Buffer
		if _, err := p.PNG().WriteTo(&b); err != nil || b.Len() == 0 {
			t.Fatalf("%s: %d bytes, %v", p.Name, b.Len(), err)
		}
		if _, err := png.DecodeConfig(&b); err != nil {
			t.Errorf("%s.png: %v", p.Name, err)
		}
	}
	if got := strings.Join(names, ","); got != "knee,load,errors,endpoints" {
		t.Errorf("plots %s, want all but latency", got)
	}
	var md bytes.Buffer
	if err := rep.WriteMarkdown(&md, MarkdownOptions{ImagePrefix: "r-"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "r-latency.png") || !strings.Contains(md.String(), "The "+want+".") {
		t.Errorf("markdown links the latency plot or lacks the note:\n%s", md.String())
	}
}

// TestDegradeHuge: one latency of 1e308 ms among milliseconds is drawn
// (the legend's headroom no longer overflows to +Inf), and windows whose
// percentile is 0 are counted in a note, not drawn on the log scale.
func TestDegradeHuge(t *testing.T) {
	path := withLatencies(t, writeRun(t, []string{"menu", "order"}), func(i int, v string) string {
		switch {
		case i == 100:
			return "1e308"
		case i < 60: // the first seconds: every latency 0
			return "0"
		}
		return v
	})
	rep := build(t, path, "", "p95<200ms")
	if warns := rep.DrawPlots(); len(warns) != 0 {
		t.Fatalf("warnings %q", warns)
	}
	var note string
	for _, s := range rep.Sections {
		for _, n := range s.Notes {
			if strings.HasPrefix(n, "The latency plot leaves out") {
				note = n
			}
		}
	}
	// 12 windows of 5 s × 4 percentiles. The first window (seconds 0–4:
	// 10+11+13+15+17 = 66 requests, writeRun's rates) holds the 60 zeros:
	// its p50 (k6 rank 0.5 × 65 = 32.5) and p90 (58.5) are 0, its p95
	// (61.75) and p99 are not.
	if want := "The latency plot leaves out 2 of its 48 window percentiles: values of 0 ms or less (or infinite) have no place on a log scale."; note != want {
		t.Errorf("note %q\nwant %q", note, want)
	}
	for _, p := range rep.Plots() {
		var b bytes.Buffer
		if _, err := p.PNG().WriteTo(&b); err != nil || b.Len() == 0 {
			t.Errorf("%s: %d bytes, %v", p.Name, b.Len(), err)
		}
	}
}
