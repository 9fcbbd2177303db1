package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConvertKneeRoundTrip: converting breakpoint.csv.gz (325,555 rows,
// testdata/k6/README.md) to Parquet and Arrow keeps every row, and knee
// reads the result to the same answer as the CSV; so does check, whose
// cardinality check counts the series (the columnar reader hashes tag
// values once per distinct value, the CSV reader per row: the counts must
// agree).
func TestConvertKneeRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("converts 325,555 rows twice")
	}
	in := td + "breakpoint.csv.gz"
	want, errOut, code := runCLI(t, "", "knee", "--format", "json", in)
	if code != 0 {
		t.Fatalf("knee csv: exit %d: %s", code, errOut)
	}
	wantCheck, errOut, wantCode := runCLI(t, "", "check", "--format", "json", in)
	if wantCode > 1 || !strings.Contains(wantCheck, `"cardinality"`) {
		t.Fatalf("check csv: exit %d: %s\n%s", wantCode, errOut, wantCheck)
	}
	for _, ext := range []string{"parquet", "arrow"} {
		out := filepath.Join(t.TempDir(), "bp."+ext)
		stdout, errOut, code := runCLI(t, "", "convert", in, "-o", out)
		if code != 0 {
			t.Fatalf("convert %s: exit %d: %s", ext, code, errOut)
		}
		wantOut := "rows in: 325555\nrows out: 325555\nwrote " + out + " (" + ext + ", timestamp unit s, 14 tag columns)\n"
		if stdout != wantOut {
			t.Errorf("convert %s printed %q, want %q", ext, stdout, wantOut)
		}
		got, errOut, code := runCLI(t, "", "knee", "--format", "json", out)
		if code != 0 {
			t.Fatalf("knee %s: exit %d: %s", ext, code, errOut)
		}
		// The inputs list names the file read; everything else must agree.
		norm := func(s string) string { return strings.ReplaceAll(s, out, in) }
		if norm(got) != want {
			t.Errorf("knee %s differs from knee csv:\n%s\n---\n%s", ext, got, want)
		}
		gotCheck, errOut, code := runCLI(t, "", "check", "--format", "json", out)
		if code != wantCode || norm(gotCheck) != wantCheck {
			t.Errorf("check %s: exit %d (%s), differs from check csv (exit %d):\n%s\n---\n%s", ext, code, errOut, wantCode, gotCheck, wantCheck)
		}
	}
}

func TestConvertUsage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"convert", td + "timefmt_rfc3339_nano.csv"}, "convert: want -o FILE (.parquet or .arrow)"},
		{[]string{"convert", "-o", filepath.Join(dir, "x.parquet")}, "convert: want one or more input files"},
		{[]string{"convert", td + "timefmt_rfc3339_nano.csv", "-o", filepath.Join(dir, "x.txt")}, "unknown output format: want a name ending in .parquet or .arrow, or give --to"},
		{[]string{"convert", td + "timefmt_rfc3339_nano.csv", "-o", filepath.Join(dir, "x.parquet"), "--time-unit", "h"}, `unknown --time-unit "h"`},
		{[]string{"convert", td + "timefmt_rfc3339_nano.csv", "-o", filepath.Join(dir, "x.parquet"), "--bogus", "1"}, "flag provided but not defined: -bogus"},
		// rfc3339_nano timestamps do not fit whole seconds.
		{[]string{"convert", td + "timefmt_rfc3339_nano.csv", "-o", filepath.Join(dir, "x.parquet"), "--time-unit", "s"}, "finer than the s unit"},
	} {
		_, errOut, code := runCLI(t, "", c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args[1:], code, errOut, c.want)
		}
	}
	// Flags before the inputs work too, and --to overrides the extension.
	out := filepath.Join(dir, "t.bin")
	stdout, errOut, code := runCLI(t, "", "convert", "--to", "arrow", "-o", out, td+"timefmt_rfc3339_nano.csv")
	if code != 0 || !strings.HasPrefix(stdout, "rows in: 1424\nrows out: 1424\n") || !strings.Contains(stdout, "timestamp unit ns") {
		t.Errorf("exit %d stdout %q stderr %q", code, stdout, errOut)
	}
}

// TestConvertRefusesInputAsOutput: -o naming an input (here through a hard
// link) is a usage error that names both paths, and the input is left as
// it was.
func TestConvertRefusesInputAsOutput(t *testing.T) {
	dir := t.TempDir()
	pq := filepath.Join(dir, "in.parquet")
	if _, errOut, code := runCLI(t, "", "convert", td+"timefmt_rfc3339_nano.csv", "-o", pq); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, errOut)
	}
	before, _ := os.ReadFile(pq)
	link := filepath.Join(dir, "link.parquet")
	if err := os.Link(pq, link); err != nil {
		t.Skip(err)
	}
	_, errOut, code := runCLI(t, "", "convert", pq, "-o", link)
	want := "output " + link + " is the same file as the input " + pq
	if code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, want)
	}
	if after, _ := os.ReadFile(pq); !bytes.Equal(after, before) {
		t.Error("the input changed")
	}
}
