package main

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/internal/cliapp"
)

// TestReportGolden runs `report` the way the acceptance script does (flags
// after the file), pins the markdown, and checks that every image it links
// exists next to it and decodes, and that the HTML page is self-contained.
func TestReportGolden(t *testing.T) {
	dir := t.TempDir()
	md, html := filepath.Join(dir, "report.md"), filepath.Join(dir, "report.html")
	out, errOut, code := runCLI(t, "", "report", td+"breakpoint.csv.gz", "-o", md, "--html", html, "--slo", "p95<100ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out != "" {
		t.Errorf("stdout %q, want nothing (the report went to -o)", out)
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "report_breakpoint.md", string(b))

	links := regexp.MustCompile(`\]\(([^)]+\.(png|svg))\)`).FindAllStringSubmatch(string(b), -1)
	if len(links) != 10 {
		t.Errorf("%d image links, want 10 (5 plots × PNG and SVG)", len(links))
	}
	for _, l := range links {
		f, err := os.Open(filepath.Join(dir, l[1]))
		if err != nil {
			t.Error(err)
			continue
		}
		switch l[2] {
		case "png":
			if _, err := png.DecodeConfig(f); err != nil {
				t.Errorf("%s: %v", l[1], err)
			}
		case "svg":
			d := xml.NewDecoder(f)
			for {
				tok, err := d.Token()
				if err != nil {
					t.Errorf("%s: %v", l[1], err)
					break
				}
				if se, ok := tok.(xml.StartElement); ok {
					if se.Name.Local != "svg" {
						t.Errorf("%s: root <%s>", l[1], se.Name.Local)
					}
					break
				}
			}
		}
		f.Close()
	}

	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?i)(src|href)="https?://`).Find(page); m != nil {
		t.Errorf("the HTML page reaches the network: %s", m)
	}
	if n := bytes.Count(page, []byte("<svg")); n != 5 {
		t.Errorf("%d inline SVGs, want 5", n)
	}
	for _, want := range []string{"<h1>Load-test report: ", "Knee: ", "Ceiling: ", "SLO p95&lt;100ms"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the HTML page lacks %q", want)
		}
	}
}

// TestReportStdout: without -o the markdown goes to standard output, with
// no image links (there is nowhere to put the images).
func TestReportStdout(t *testing.T) {
	out, errOut, code := runCLI(t, "", "report", "--window", "2s", td+"timefmt_rfc3339_nano.csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, ".png") {
		t.Error("image links on stdout")
	}
	golden(t, "report_rfc3339.md", out)
}

// TestReportErrors: usage and input errors exit 2 and name the problem.
func TestReportErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report"}, "no input files"},
		{[]string{"report", "missing.csv", "-o", filepath.Join(t.TempDir(), "r.md")}, "missing.csv"},
		{[]string{"report", td + "timefmt_rfc3339_nano.csv", "--slo", "p95"}, `SLO "p95"`},
		{[]string{"report", td + "timefmt_rfc3339_nano.csv", "--window", "1500ms"}, "report: --window 1.5s: want a whole number of seconds"},
		{[]string{"report", td + "timefmt_rfc3339_nano.csv", "--bogus"}, "bogus"},
	} {
		_, errOut, code := runCLI(t, "", c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// TestFlagsFirst: flags after the files are moved before them, with their
// values; "--" ends the flags.
func TestFlagsFirst(t *testing.T) {
	cmd := reportCommand(&env{})
	got := strings.Join(cliapp.FlagsFirst(cmd.Flags, []string{"a.csv", "-o", "r.md", "b.csv", "--slo=p95<1s", "--html", "r.html", "--", "-o"}), " ")
	if want := "-o r.md --slo=p95<1s --html r.html -- a.csv b.csv -o"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestReportHTMLWithoutMarkdownFile: --html without -o writes the page
// (its 4 plots inline: the levels', load and latency over time, the
// endpoints'; no errors plot, the run has no failed response) while the
// markdown goes to standard output as TestReportStdout's golden; before,
// the page was silently not written.
func TestReportHTMLWithoutMarkdownFile(t *testing.T) {
	html := filepath.Join(t.TempDir(), "r.html")
	out, errOut, code := runCLI(t, "", "report", "--window", "2s", td+"timefmt_rfc3339_nano.csv", "--html", html)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "report_rfc3339.md", out)
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(page, []byte("<svg")); !bytes.Contains(page, []byte("<h1>Load-test report: ")) || n != 4 {
		t.Errorf("the HTML page: %d inline SVGs, want 4, and the title (%d bytes)", n, len(page))
	}
}

// TestReportSameOutputTwice: -o and --html naming one file (also as ./X
// and X, or through a link to the directory) are refused before the
// analysis: one line naming both flags, exit 2, nothing written. Before,
// the HTML page silently replaced the markdown.
func TestReportSameOutputTwice(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink(dir, filepath.Join(dir, "here")); err != nil {
		t.Fatal(err)
	}
	x := filepath.Join(dir, "r.md")
	for _, c := range []struct{ o, html, want string }{
		{x, x, "ldanalyze: report: -o and --html name the same file: give each output its own path (see ldanalyze report --help)\n"},
		{filepath.Join(dir, "here", "r.md"), x, "ldanalyze: report: -o and --html name the same file (" + filepath.Join(dir, "here", "r.md") + " and " + x + "): give each output its own path (see ldanalyze report --help)\n"},
	} {
		out, errOut, code := runCLI(t, "", "report", td+"timefmt_rfc3339_nano.csv", "-o", c.o, "--html", c.html)
		if code != 2 || errOut != c.want || out != "" {
			t.Errorf("-o %s --html %s: exit %d, stdout %q, stderr %q; want 2, nothing, %q", c.o, c.html, code, out, errOut, c.want)
		}
	}
	if got, _ := os.ReadDir(dir); len(got) != 1 {
		t.Errorf("written: %v", got)
	}
}
