package cliapp

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
)

// runOpts runs a command named knee with the first n of RunFlags (all
// for n 0), made anew, on args and returns what RunOptions made of them.
func runOpts(t *testing.T, n int, defWindow time.Duration, args ...string) (pipeline.Options, error) {
	t.Helper()
	flags := RunFlags(defWindow, "window")
	if n > 0 {
		flags = flags[:n]
	}
	var opt pipeline.Options
	var err error
	app := &cli.App{Name: "x", Writer: &strings.Builder{}, ErrWriter: &strings.Builder{}, Commands: []*cli.Command{{
		Name: "knee", Flags: flags,
		Action: func(c *cli.Context) error { opt, err = RunOptions(c, defWindow); return nil },
	}}}
	if rerr := app.Run(append([]string{"x", "knee"}, args...)); rerr != nil {
		t.Fatalf("%v: %v", args, rerr)
	}
	return opt, err
}

// TestRunOptions: the shared run flags reach pipeline.Options in their
// units (ns), the defaults apply, flags the command does not define are
// left at their zero values, and bad values name the command and flag.
func TestRunOptions(t *testing.T) {
	opt, err := runOpts(t, 0, 30*time.Second, "--metric", "grpc_req_duration", "--window", "10s", "--ramp-step", "5s",
		"--percentiles", "50,99.9", "--slo", "p95<500ms", "--threshold", "http_req_failed:rate<0.01", "--prom", "dir", "--generator-pod", "k6-.*")
	if err != nil {
		t.Fatal(err)
	}
	if opt.Metric != "grpc_req_duration" || opt.Knee.WindowNS != 10e9 || opt.Knee.RampStepNS != 5e9 || !slices.Equal(opt.Knee.Percentiles, []float64{50, 99.9}) ||
		opt.Knee.SLO == nil || len(opt.Thresholds) != 1 || opt.PromDir != "dir" || opt.GeneratorPods == nil || !opt.GeneratorPods.MatchString("k6-1") {
		t.Errorf("%+v", opt)
	}
	if opt, err := runOpts(t, 0, 30*time.Second); err != nil || opt.Knee.WindowNS != 30e9 || !slices.Equal(opt.Knee.Percentiles, []float64{50, 90, 95, 99}) || opt.Knee.SLO != nil {
		t.Errorf("defaults: %+v, %v", opt, err)
	}
	// A command with --metric and --window only (no --percentiles, no
	// --generator-pod): their defaults are not applied.
	if opt, err := runOpts(t, 2, 0); err != nil || opt.Knee.WindowNS != 0 || opt.Knee.Percentiles != nil || opt.GeneratorPods != nil {
		t.Errorf("subset: %+v, %v", opt, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--window", "0s"}, "knee: --window 0s: want a whole number of seconds, at least 1s (see ldanalyze knee --help)"},
		{[]string{"--window", "1500ms"}, "knee: --window 1.5s: want a whole number of seconds, at least 1s (see ldanalyze knee --help)"},
		{[]string{"--ramp-step", "500ms"}, "knee: --ramp-step 500ms: want a whole number of seconds, at least 1s; or 0: chosen automatically (see ldanalyze knee --help)"},
		{[]string{"--ramp-step", "1500ms"}, "knee: --ramp-step 1.5s: want a whole number of seconds, at least 1s; or 0: chosen automatically (see ldanalyze knee --help)"},
		{[]string{"--ramp-step", "-2s"}, "knee: --ramp-step -2s: want a whole number of seconds, at least 1s; or 0: chosen automatically (see ldanalyze knee --help)"},
		{[]string{"--users-per-vu", "-2"}, "knee: --users-per-vu -2: want a number of users per VU above 0 and at most 1e+06 (see ldanalyze knee --help)"},
		{[]string{"--users-per-vu", "0"}, "knee: --users-per-vu 0: want a number of users per VU above 0 and at most 1e+06 (see ldanalyze knee --help)"},
		{[]string{"--users-per-vu", "1e300"}, "knee: --users-per-vu 1e+300: want a number of users per VU above 0 and at most 1e+06 (see ldanalyze knee --help)"},
		{[]string{"--users-per-vu", "NaN"}, "knee: --users-per-vu NaN: want a number of users per VU above 0 and at most 1e+06 (see ldanalyze knee --help)"},
		{[]string{"--percentiles", ""}, `knee: --percentiles "": want one or more percentiles in (0, 100], comma-separated, e.g. 50,90,95,99 (see ldanalyze knee --help)`},
		{[]string{"--percentiles", "95,p95"}, "knee: --percentiles 95,p95: 95 is given twice (see ldanalyze knee --help)"},
		{[]string{"--percentiles", "0,50"}, `knee: --percentiles: "0" is not a percentile in (0, 100] (see ldanalyze knee --help)`},
		{[]string{"--percentiles", "101"}, `knee: --percentiles: "101" is not a percentile in (0, 100] (see ldanalyze knee --help)`},
		{[]string{"--slo", "p95<-5"}, `knee: --slo: SLO "p95<-5": the limit -5 is not a latency (a finite number of ms ≥ 0): no level can meet it; ` + SLOGrammar + " (see ldanalyze knee --help)"},
		{[]string{"--slo", "p95 under 5"}, `knee: --slo: SLO "p95 under 5": column 5: want an operator: <, <=, >, >=, == or !=; ` + SLOGrammar + " (see ldanalyze knee --help)"},
		{[]string{"--link-mbps", "0"}, "knee: --link-mbps 0: want the link's speed in megabits per second, a finite number above 0 (see ldanalyze knee --help)"},
		{[]string{"--link-mbps", "-10"}, "knee: --link-mbps -10: want the link's speed in megabits per second, a finite number above 0 (see ldanalyze knee --help)"},
		{[]string{"--link-mbps", "Inf"}, "knee: --link-mbps +Inf: want the link's speed in megabits per second, a finite number above 0 (see ldanalyze knee --help)"},
	} {
		if _, err := runOpts(t, 0, 30*time.Second, c.args...); err == nil || err.Error() != c.want {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

// TestRampStepZeroIsAuto: --ramp-step 0s means auto, as 0 does for
// queue's --ramp-step and an auto --window, and the error of a bad value
// offers it ("or 0: chosen automatically"); the help says so (before, it
// named only "auto", so 0 looked like a width that was silently ignored).
func TestRampStepZeroIsAuto(t *testing.T) {
	opt, err := runOpts(t, 0, 30*time.Second, "--ramp-step", "0s")
	if err != nil || opt.Knee.RampStepNS != 0 {
		t.Errorf("--ramp-step 0s: %v, step %d ns; want auto (0)", err, opt.Knee.RampStepNS)
	}
	for _, f := range RunFlags(30*time.Second, "window") {
		if d, ok := f.(*cli.DurationFlag); ok && d.Name == "ramp-step" && !strings.Contains(d.Usage, "auto, also given as 0") {
			t.Errorf("--ramp-step help %q does not say that 0 is auto", d.Usage)
		}
	}
}
