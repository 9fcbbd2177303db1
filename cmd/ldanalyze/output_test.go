package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// copyInput copies a corpus file into dir and returns its path.
func copyInput(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(td + name)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	slices.Sort(out)
	return out
}

// TestOutputIsInput: -o naming an input (knee, report, a --summary file)
// is refused before the analysis with exit 2, and the input is intact
// (issue 21: `knee run.csv -o run.csv` truncated the k6 file).
func TestOutputIsInput(t *testing.T) {
	dir := t.TempDir()
	in := copyInput(t, dir, "timefmt_rfc3339_nano.csv")
	want, _ := os.ReadFile(in)
	sum := filepath.Join(dir, "s.json")
	if err := os.WriteFile(sum, []byte(`{"metrics":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"knee", in, "-o", in},
		{"knee", "--format", "json", in, "-o", in},
		{"report", in, "-o", in},
		{"report", in, "--html", in},
		{"knee", in, "--summary", sum, "-o", sum},
	} {
		_, errOut, code := runCLI(t, "", args...)
		out := args[len(args)-1]
		wantErr := "ldanalyze: output " + out + " is also an input: refusing to replace the data it is read from; write the output to another file\n"
		if code != 2 || errOut != wantErr {
			t.Errorf("%q: exit %d, stderr %q\nwant exit 2, %q", args, code, errOut, wantErr)
		}
	}
	if got, _ := os.ReadFile(in); string(got) != string(want) {
		t.Errorf("the input changed: %d bytes, want %d", len(got), len(want))
	}
	if got := names(t, dir); !slices.Equal(got, []string{"s.json", "timefmt_rfc3339_nano.csv"}) {
		t.Errorf("files left: %q", got)
	}
}

// TestOutputFailedKeepsPrevious: a command that fails after its output
// was named (an unreadable input) leaves the previous file as it was and
// no temporary file; a successful one replaces it, creating missing
// directories (knee as report does).
func TestOutputFailedKeepsPrevious(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "knee.txt")
	if err := os.WriteFile(out, []byte("previous\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("metric_name,timestamp,metric_value\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, code := runCLI(t, "", "knee", bad, "-o", out); code != 2 {
		t.Errorf("knee on a file without data: exit %d, want 2", code)
	}
	if b, _ := os.ReadFile(out); string(b) != "previous\n" {
		t.Errorf("after a failed knee the output holds %q, want the previous content", b)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"bad.csv", "knee.txt"}) {
		t.Errorf("files left: %q", got)
	}

	deep := filepath.Join(dir, "new", "knee.json")
	if _, errOut, code := runCLI(t, "", "knee", "--format", "json", td+"timefmt_rfc3339_nano.csv", "-o", deep); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if b, err := os.ReadFile(deep); err != nil || !strings.HasPrefix(string(b), "{") {
		t.Errorf("%s: %.20q, %v", deep, b, err)
	}
	if got := names(t, filepath.Join(dir, "new")); !slices.Equal(got, []string{"knee.json"}) {
		t.Errorf("files in new/: %q", got)
	}
}

// TestOutputSymlinkRefused: -o naming a symbolic link to a file is
// refused, the file it points to untouched.
func TestOutputSymlinkRefused(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "important.txt")
	if err := os.WriteFile(target, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "out.txt")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, "", "knee", td+"timefmt_rfc3339_nano.csv", "-o", link)
	want := "ldanalyze: " + link + " is a symbolic link to " + target + " (a file): refusing to write through it or replace it; give " + target + " itself to replace that file\n"
	if code != 2 || errOut != want {
		t.Errorf("exit %d, stderr %q\nwant %q", code, errOut, want)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep\n" {
		t.Errorf("the link's target holds %q", b)
	}
}

// TestOutputFormatFromName: without --format, the -o file's extension
// chooses the format the command writes (.json, .csv, .md, .xml for
// check's JUnit); --format given wins; report refuses an -o named .html
// (-o is its markdown; the page is --html), and knee one named .xml (it
// writes no JUnit), writing nothing.
func TestOutputFormatFromName(t *testing.T) {
	dir := t.TempDir()
	in := td + "breakpoint.csv.gz"
	for _, c := range []struct {
		args   []string
		file   string
		prefix string
	}{
		{[]string{"knee", in, "-o"}, "k.json", "{\n  \"metric\": \"http_req_duration\""},
		{[]string{"knee", in, "-o"}, "k.csv", "start,seconds,offered,"},
		{[]string{"knee", in, "-o"}, "k.md", "# Knee analysis\n"},
		{[]string{"check", in, "-o"}, "c.xml", "<?xml"},
		{[]string{"knee", in, "--format", "table", "-o"}, "t.json", td + "breakpoint.csv.gz: 325555 samples"},
	} {
		p := filepath.Join(dir, c.file)
		_, stderr, code := runCLI(t, "", append(c.args, p)...)
		b, err := os.ReadFile(p)
		if err != nil || code == 2 {
			t.Fatalf("%v %s: exit %d, %v: %s", c.args, c.file, code, err, stderr)
		}
		if !strings.HasPrefix(string(b), c.prefix) {
			t.Errorf("%v %s: starts %q, want %q", c.args, c.file, string(b[:min(len(b), 60)]), c.prefix)
		}
	}
	p := filepath.Join(dir, "r.html")
	_, stderr, code := runCLI(t, "", "report", in, "-o", p)
	if want := "report: -o " + p + ": -o writes the markdown report; write the HTML page with --html " + p + " (see ldanalyze report --help)"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("report -o r.html: exit %d, %q; want 2, %q", code, stderr, want)
	}
	if _, err := os.Stat(p); err == nil {
		t.Error("report -o r.html wrote the file")
	}
	// knee writes no JUnit: -o k.xml is refused, not filled with a table.
	p = filepath.Join(dir, "k.xml")
	_, stderr, code = runCLI(t, "", "knee", in, "-o", p)
	if want := "knee: -o " + p + ": a .xml file is junit, which knee does not write"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("knee -o k.xml: exit %d, %q; want 2, %q", code, stderr, want)
	}
	if _, err := os.Stat(p); err == nil {
		t.Error("knee -o k.xml wrote the file")
	}
}
