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
// doubles every rate, so the input check fails, naming the first line of
// the second copy, 325,557 (header + 325,555 rows + 1), stepping back from
// +130 s to +0 s, and the knee's verdict says so in its caveat; the run
// read once has no such warning, nor has the run with one stray
// timestamp.
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
	if st.TimeSteps != 1 || st.Steps[0].Line != 325557 || st.Steps[0].File != twice {
		t.Fatalf("steps back %d, %+v; want 1 at %s:325557", st.TimeSteps, st.Steps, twice)
	}
	c := an.Checks.Find(checks.IDInput)
	if c == nil || c.Status != checks.Fail || !strings.Contains(c.Message, "at line 325557, from +130 s to +0 s") {
		t.Fatalf("input check: %+v", c)
	}
	if !strings.Contains(an.Knee.Caveat, "the file holds runs written one after another") {
		t.Errorf("knee caveat %q, want the runs written one after another", an.Knee.Caveat)
	}
	an, err = Run([]string{once}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := an.Checks.Find(checks.IDInput); an.Input.TimeSteps != 0 || c.Status != checks.OK {
		t.Fatalf("the run once: %d steps back, input check %s %q", an.Input.TimeSteps, c.Status, c.Message)
	}
	// One stray timestamp after line 1000, years ahead (2030) or behind
	// (2001): time steps back once (from the stray, or to it), but from
	// or to outside the main span, so no run overlaps: the input check
	// stays ok, and the knee's spans warning names the stray.
	nl := 0
	cut := bytes.IndexFunc(raw, func(r rune) bool {
		if r == '\n' {
			nl++
		}
		return nl == 1000
	})
	for _, ts := range []string{"1900000000", "1000000000"} {
		stray := filepath.Join(dir, "stray"+ts+".csv")
		b := append(append(append([]byte(nil), raw[:cut+1]...), "vus,"+ts+",1.000000,,,,,,,,,,,,,,,,\n"...), raw[cut+1:]...)
		if err := os.WriteFile(stray, b, 0o644); err != nil {
			t.Fatal(err)
		}
		an, err := Run([]string{stray}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := an.Checks.Find(checks.IDInput)
		if an.Input.TimeSteps != 1 || c.Status != checks.OK {
			t.Errorf("stray %s: %d steps back %+v, input check %s %q; want 1 step and ok", ts, an.Input.TimeSteps, an.Input.Steps, c.Status, c.Message)
		}
		if strings.Contains(an.Knee.Caveat, "written one after another") {
			t.Errorf("stray %s: caveat %q", ts, an.Knee.Caveat)
		}
		if v, ok := c.Evidence.Get("time_steps_back"); !ok || v != 1 {
			t.Errorf("stray %s: evidence %v", ts, c.Evidence)
		}
	}
}
