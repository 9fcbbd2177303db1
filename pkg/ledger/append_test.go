package ledger

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// zeros is an endless stream of zero bytes, as /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestReadCap: an endless stream of blank lines (which a line limit does
// not stop) fails on the size cap, naming it and the file.
func TestReadCap(t *testing.T) {
	nl := strings.NewReader(strings.Repeat("\n", MaxLedgerBytes+1))
	_, err := Read(nl, "l.jsonl")
	if want := "l.jsonl: larger than 64 MiB: not a ledger (JSON Lines, one run per line)"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	if _, err := Read(zeros{}, "/dev/zero"); err == nil || err.Error() != "/dev/zero:1: line longer than 1048576 bytes: not a ledger" {
		t.Errorf("zeros: %v", err)
	}
}

// TestAppendAtomic: an append keeps the old bytes as they were (a hand
// edit's spacing too) and the file's mode, and leaves only the ledger in
// its directory; appending to a missing ledger in a missing directory
// creates both.
func TestAppendAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.jsonl")
	old := "{\"date\":\"2026-11-30T02:07:09Z\",  \"label\":\"hand edit\"}\n\n"
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	e := NewEntry("next", []string{"b.csv"}, breakpointResult(), breakpointChecks, nil)
	if err := AppendFile(path, e); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	line, _ := Marshal(e)
	if string(b) != old+string(line) {
		t.Errorf("ledger:\n%s\nwant the old bytes then the entry", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", fi.Mode().Perm())
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("%d files in the directory, want the ledger alone", len(es))
	}
	fresh := filepath.Join(dir, "new", "l.jsonl")
	if err := AppendFile(fresh, e); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(fresh); string(b) != string(line) {
		t.Errorf("new ledger %q", b)
	}
}

// TestAppendRaced: a line another add wrote while this one was writing is
// kept (the append starts again from the new content); a ledger that
// keeps changing is left as the other writer made it, with an error.
func TestAppendRaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	other := "{\"date\":\"2026-11-30T02:07:09Z\",\"label\":\"other\"}\n"
	once := false
	err := appendFile(path, []byte("{\"mine\":1}\n"), func() {
		if !once {
			once = true
			os.WriteFile(path, []byte(other), 0o644)
		}
	})
	if b, _ := os.ReadFile(path); err != nil || string(b) != other+"{\"mine\":1}\n" {
		t.Errorf("ledger %q, %v", b, err)
	}
	n := 0
	err = appendFile(path, []byte("{\"lost\":1}\n"), func() {
		n++
		os.WriteFile(path, []byte(strings.Repeat("x\n", n)), 0o644)
	})
	if want := path + " changed while the entry was added, 5 times: not added; add it again"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	if b, _ := os.ReadFile(path); string(b) != strings.Repeat("x\n", 5) {
		t.Errorf("ledger %q, want the other writer's", b)
	}
}
