package main

import (
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/internal/cliapp"
)

// TestBadFlagValues: a value no analysis can use is one line on stderr
// naming the command, the flag and --help, exit 2, nothing on stdout,
// before the file is read (the file here does not exist: reading it
// would be another error). Before, --ramp-step 1500ms failed deep in the
// analysis, --over 0 counted every sample, --link-mbps -10 and
// --users-per-vu 1e300 gave nonsense figures, --percentiles ” the
// defaults silently and --slo 'p95<-5' a capacity of nothing.
func TestBadFlagValues(t *testing.T) {
	const missing = "testdata/no-such-file.csv"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"knee", "--ramp-step", "1500ms"}, "knee: --ramp-step 1.5s: want a whole number of seconds, at least 1s; or 0: chosen automatically (see ldanalyze knee --help)"},
		{[]string{"knee", "--window", "1500ms"}, "knee: --window 1.5s: want a whole number of seconds, at least 1s (see ldanalyze knee --help)"},
		{[]string{"report", "--window", "2500ms"}, "report: --window 2.5s: want a whole number of seconds, at least 1s; or 0: chosen automatically (see ldanalyze report --help)"},
		{[]string{"check", "--window", "500ms"}, "check: --window 500ms: want a whole number of seconds, at least 1s (see ldanalyze check --help)"},
		{[]string{"queue", "mmc", "--servers", "4", "--run", missing, "--ramp-step", "1500ms"}, "queue mmc: --ramp-step 1.5s: want a whole number of seconds, at least 1s; or 0: chosen automatically (see ldanalyze queue mmc --help)"},
		{[]string{"knee", "--over", "0"}, "knee: --over 0: want a limit above 0 (see ldanalyze knee --help)"},
		{[]string{"knee", "--over", "-1s"}, "knee: --over -1s: want a limit above 0 (see ldanalyze knee --help)"},
		{[]string{"knee", "--link-mbps", "-10"}, "knee: --link-mbps -10: want the link's speed in megabits per second, a finite number above 0 (see ldanalyze knee --help)"},
		{[]string{"knee", "--users-per-vu", "1e300"}, "knee: --users-per-vu 1e+300: want a number of users per VU above 0 and at most 1e+06 (see ldanalyze knee --help)"},
		{[]string{"knee", "--users-per-vu", "0"}, "knee: --users-per-vu 0: want a number of users per VU above 0 and at most 1e+06 (see ldanalyze knee --help)"},
		{[]string{"knee", "--percentiles", ""}, `knee: --percentiles "": want one or more percentiles in (0, 100], comma-separated, e.g. 50,90,95,99 (see ldanalyze knee --help)`},
		{[]string{"knee", "--percentiles", "50,95,95"}, "knee: --percentiles 50,95,95: 95 is given twice (see ldanalyze knee --help)"},
		{[]string{"knee", "--slo", "p95<-5"}, `knee: --slo: SLO "p95<-5": the limit -5 is not a latency (a finite number of ms ≥ 0): no level can meet it; ` + cliapp.SLOGrammar + " (see ldanalyze knee --help)"},
		{[]string{"knee", "--generator-pod", "k6("}, `knee: --generator-pod "k6(": not a regular expression (missing closing ) in "k6("): want a Go (RE2) regexp that matches the whole name of the load generator's pods, e.g. 'k6-.*' (see ldanalyze knee --help)`},
		{[]string{"knee", "--slo", "p95<NaN"}, `knee: --slo: SLO "p95<NaN": column 5: want a number (decimal, e.g. 500 or 0.01); ` + cliapp.SLOGrammar + " (see ldanalyze knee --help)"},
	} {
		out, errOut, code := runCLI(t, "", append(c.args, missing)...)
		if want := "ldanalyze: " + c.want + "\n"; code != 2 || out != "" || errOut != want {
			t.Errorf("%v: exit %d, stdout %q, stderr\n%q\nwant 2, nothing, and\n%q", c.args, code, out, errOut, want)
		}
	}
}

// TestByUnknownTag: --by a tag no sample has is warned about on stderr,
// naming the tags the file has (before, every sample went silently into
// one row with an empty value).
func TestByUnknownTag(t *testing.T) {
	_, errOut, code := runCLI(t, "", "knee", "--by", "nope", "../../testdata/k6/breakpoint.csv.gz")
	want := `ldanalyze: warning: tag "nope": no http_req_duration sample has it, so its rows hold every sample under an empty value; the samples have the tags expected_response, method, name, proto, scenario, status, url` + "\n"
	if code != 0 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant 0 and %q", code, errOut, want)
	}
}

// TestNoArguments: ldanalyze alone is a usage error: the help on stderr,
// nothing on stdout, exit 2 (before: the help on stdout, exit 0).
func TestNoArguments(t *testing.T) {
	out, errOut, code := runCLI(t, "")
	if code != 2 || out != "" || !strings.HasPrefix(errOut, "NAME:\n   ldanalyze - ") || !strings.HasSuffix(errOut, "\nldanalyze: no command given (see ldanalyze --help)\n") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
}

// TestHelpDefaultAuto: a flag whose unset value means "chosen by the
// tool" says "(default: auto)" in the help, not a 0 that looks like a
// value.
func TestHelpDefaultAuto(t *testing.T) {
	for _, c := range []struct{ cmd, flag string }{{"knee", "--ramp-step"}, {"report", "--window"}, {"report", "--ramp-step"}, {"knee", "--step"}} {
		out, _, code := runCLI(t, "", c.cmd, "--help")
		var line string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), c.flag+" ") {
				line = l
			}
		}
		if code != 0 || !strings.HasSuffix(line, "(default: auto)") || strings.Contains(line, "0s") {
			t.Errorf("%s %s: exit %d, help line %q", c.cmd, c.flag, code, line)
		}
	}
}

// TestScaleHelpByteUnits: scale's help names the byte figures in the units
// its table prints them in (kB/s, B: scale.BytesPerSecond and
// scale.Bytes), not "bytes/s" beside a column of "kB/s".
func TestScaleHelpByteUnits(t *testing.T) {
	out, _, code := runCLI(t, "", "scale", "--help")
	if code != 0 || strings.Contains(out, "bytes/s") || !strings.Contains(out, "bytes_sent_per_s (B/s)") || !strings.Contains(out, "(data_received per response, B)") {
		t.Errorf("exit %d, help:\n%s", code, out)
	}
}
