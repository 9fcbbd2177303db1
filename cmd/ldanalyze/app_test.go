package main

import (
	"strings"
	"testing"
)

// TestVersionAndHelp: --version names the build (module version or
// "devel", and the Go version), `help` and `help CMD` print help on
// stdout with exit 0.
func TestVersionAndHelp(t *testing.T) {
	out, errOut, code := runCLI(t, "", "--version")
	if code != 0 || !strings.HasPrefix(out, "ldanalyze version ") || !strings.Contains(out, "go1.") || errOut != "" {
		t.Errorf("--version: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, args := range [][]string{{"help"}, {"help", "knee"}, {"knee", "--help"}, {"queue", "help", "mmc"}} {
		out, errOut, code := runCLI(t, "", args...)
		if code != 0 || !strings.Contains(out, "USAGE:") || errOut != "" {
			t.Errorf("%q: exit %d, stdout %.80q, stderr %q", args, code, out, errOut)
		}
	}
}

// TestUsageErrors: a bad flag, a missing value, an unknown command or
// format is one line on stderr naming it and --help, exit 2, and nothing
// on stdout (where scripts read JSON).
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"knee", td + "breakpoint.csv.gz", "--bogus"}, "ldanalyze: knee: flag provided but not defined: -bogus (see ldanalyze knee --help)\n"},
		{[]string{"knee", td + "breakpoint.csv.gz", "--window"}, "ldanalyze: knee: flag needs an argument: -window (see ldanalyze knee --help)\n"},
		{[]string{"ledger", "add", "--label", "x", td + "breakpoint.csv.gz"}, "ldanalyze: ledger add: required flag \"ledger\" not set (see ldanalyze ledger add --help)\n"},
		{[]string{"queue", "mm1", "--rate", "5"}, "ldanalyze: queue mm1: required flag \"service\" not set (see ldanalyze queue mm1 --help)\n"},
		{[]string{"cost", "--format", "junit"}, "ldanalyze: cost: unknown --format \"junit\": want table, markdown, json or csv (see ldanalyze cost --help)\n"},
		{[]string{"bogus"}, "ldanalyze: unknown command \"bogus\": see ldanalyze help\n"},
		{[]string{"queue", "bogus"}, "ldanalyze: queue: unknown subcommand \"bogus\": see ldanalyze queue --help\n"},
		{[]string{"--bogus"}, "ldanalyze: flag provided but not defined: -bogus (see ldanalyze --help)\n"},
	} {
		out, errOut, code := runCLI(t, "", c.args...)
		if code != 2 || out != "" || errOut != c.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q\nwant exit 2, no stdout, stderr %q", c.args, code, out, errOut, c.want)
		}
	}
}

// TestCompletion: `completion SHELL` prints the script, and the hidden
// __complete command the scripts call gives commands, subcommands, flags
// and --format values.
func TestCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		out, errOut, code := runCLI(t, "", "completion", sh)
		if code != 0 || !strings.Contains(out, "__complete") {
			t.Errorf("completion %s: exit %d, %q", sh, code, errOut)
		}
	}
	for _, c := range []struct {
		words []string
		want  string
	}{
		{[]string{"kn"}, "knee\n"},
		{[]string{"queue", "m"}, "mm1\nmmc\n"},
		{[]string{"knee", "--win"}, "--window\n--windows\n"},
		{[]string{"check", "--format", "j"}, "json\njunit\n"},
		// report has no --format (its outputs are -o and --html).
		{[]string{"report", "--format", ""}, ""},
		{[]string{"knee", "run.csv", ""}, ""},
	} {
		out, errOut, code := runCLI(t, "", append([]string{"__complete"}, c.words...)...)
		if code != 0 || out != c.want {
			t.Errorf("__complete %q: exit %d, %q (stderr %q), want %q", c.words, code, out, errOut, c.want)
		}
	}
}
