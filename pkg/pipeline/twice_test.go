package pipeline

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/checks"
)

// TestSameRunTwiceInOneFile: the breakpoint run written twice into one
// file (the second copy without its header, as `tail -n +2` appends it)
// doubles every rate, so the input check warns at the first line of the
// second copy, 325,557 (header + 325,555 rows + 1), stepping back from
// +130 s to +0 s; the run read once has no such warning.
func TestSameRunTwiceInOneFile(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "testdata", "k6", "breakpoint.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	body := raw[bytes.IndexByte(raw, '\n')+1:]
	dir := t.TempDir()
	once, twice := filepath.Join(dir, "once.csv"), filepath.Join(dir, "twice.csv")
	if err := os.WriteFile(once, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(twice, append(append([]byte(nil), raw...), body...), 0o644); err != nil {
		t.Fatal(err)
	}
	an, err := Run([]string{twice}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := an.Input
	if st.TimeSteps != 1 || st.TimeStep.Line != 325557 || st.TimeStep.File != twice {
		t.Fatalf("steps back %d, first %+v; want 1 at %s:325557", st.TimeSteps, st.TimeStep, twice)
	}
	c := an.Checks.Find(checks.IDInput)
	if c == nil || c.Status != checks.Warn || !strings.Contains(c.Message, "at line 325557, from +130 s to +0 s") {
		t.Fatalf("input check: %+v", c)
	}
	an, err = Run([]string{once}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := an.Checks.Find(checks.IDInput); an.Input.TimeSteps != 0 || c.Status != checks.OK {
		t.Fatalf("the run once: %d steps back, input check %s %q", an.Input.TimeSteps, c.Status, c.Message)
	}
}
