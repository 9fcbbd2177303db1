package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputInsideSuiteDir: an -o that is one of the runs or summaries a
// directory argument holds is refused before anything is read, as an -o
// that is a file argument is (before: `suite DIR -o DIR/run.csv` replaced
// the run with the table, exit 0); a new file in the directory is written.
func TestOutputInsideSuiteDir(t *testing.T) {
	src, err := os.ReadFile(td + "timefmt_rfc3339_nano.csv")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := filepath.Join(dir, "run.csv")
	if err := os.WriteFile(run, src, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"suite", dir, "-o", run},
		{"summary", dir, "-o", run},
		{"compare", dir, dir, "-o", run},
	} {
		out, errOut, code := runCLI(t, "", args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "is also an input") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and a refusal", args, code, out, errOut)
		}
		if b, _ := os.ReadFile(run); !bytes.Equal(b, src) {
			t.Fatalf("%q replaced the run", args)
		}
	}
	table := filepath.Join(dir, "suite.md")
	if _, errOut, code := runCLI(t, "", "suite", dir, "--format", "markdown", "-o", table); code != 0 {
		t.Fatalf("suite -o a new file in the directory: exit %d, %s", code, errOut)
	}
	if _, errOut, code := runCLI(t, "", "suite", dir, "--format", "markdown", "-o", table); code != 0 {
		t.Errorf("suite -o its own earlier table (not a run): exit %d, %s", code, errOut)
	}
}
