package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets a test run this binary as the ldanalyze command: with
// LDANALYZE_TEST_MAIN=1 it runs main instead of the tests.
func TestMain(m *testing.M) {
	if os.Getenv("LDANALYZE_TEST_MAIN") == "1" {
		os.Args = append([]string{"ldanalyze"}, os.Args[1:]...)
		main()
	}
	os.Exit(m.Run())
}

// TestSignalAbandonsOutputs: SIGINT during the read of a run (stdin left
// open) stops the command with exit 130 and a message, and leaves no file
// (issue 21: orphan files after a kill).
func TestSignalAbandonsOutputs(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "knee", "-", "-o", filepath.Join(dir, "out", "knee.txt"))
	cmd.Env = append(os.Environ(), "LDANALYZE_TEST_MAIN=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	// 1 MB of rows: the write returns once the command has read all but a
	// pipe buffer (64 KiB) of it, so it is past installing its signal
	// handler and reading.
	rows := strings.Repeat("http_reqs,1796004258,1\n", 1<<20/23)
	if _, err := stdin.Write([]byte("metric_name,timestamp,metric_value\n" + rows)); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("exit: %v, want code 130", err)
	}
	if want := "ldanalyze: interrupt signal received - stopped; no output written\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("files left: %q", got)
	}
}
