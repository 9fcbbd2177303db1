package cliapp

import (
	"fmt"
	"math"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ldanalyze/ldanalyze/pkg/checks"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
	"github.com/ldanalyze/ldanalyze/pkg/threshold"
)

// MetricUsage is the help of --metric, the same on every command.
const MetricUsage = "the Trend `METRIC` whose latency is analysed (any Trend, custom ones too; default: the run's own request Trend: http_req_duration, grpc_req_duration, ws_connecting or browser_http_req_duration)"

// RunFlags are the flags of every command that analyses a run (knee,
// check, report, compare, ledger add): the same names, meanings and
// defaults everywhere (RunOptions reads them). window is the command's
// --window default (0: chosen from the run, shown as "auto" in the help)
// and windowUsage what its windows are for.
func RunFlags(window time.Duration, windowUsage string) []cli.Flag {
	win := &cli.DurationFlag{Name: "window", Aliases: []string{"w"}, Value: window, Usage: windowUsage}
	if window == 0 {
		win.DefaultText = "auto"
	}
	return []cli.Flag{
		&cli.StringFlag{Name: "metric", Aliases: []string{"m"}, Usage: MetricUsage},
		win,
		&cli.DurationFlag{Name: "ramp-step", DefaultText: "auto", Usage: "width of the steps a continuous ramp is cut into, whole seconds (auto, also given as 0: chosen per ramp, at least 8 steps of at least 40 requests each where the ramp allows)"},
		&cli.StringFlag{Name: "percentiles", Value: "50,90,95,99", Usage: "percentiles per window and level, comma-separated (k6's definition)"},
		&cli.Float64Flag{Name: "users-per-vu", DefaultText: "none: load in VUs", Usage: "`N` users driven by one VU (a class of 20 players and its host: 21): offered load, knee and SLO capacity of a VU executor in users"},
		&cli.StringFlag{Name: "slo", Usage: "latency objective in k6 threshold syntax, e.g. 'p95<500ms' or 'p(99)<800': the highest load that meets it"},
		&cli.StringFlag{Name: "summary", Usage: "k6's own end-of-test summary `FILE` of the same run (--summary-export or handleSummary JSON): its figures beside the computed ones, its thresholds judged over the whole run (the thresholds check) and per load level (summary-vs-knee)"},
		&cli.StringSliceFlag{Name: "threshold", Aliases: []string{"t"}, Usage: "k6 threshold judged over the whole run (the thresholds check) and per load level (summary-vs-knee), e.g. 'http_req_failed:rate<0.01' or 'http_req_duration{name:order}:p(95)<500' (repeatable)"},
		&cli.StringFlag{Name: "prom", Usage: "`DIR` written by `ldanalyze prom pull`: what saturated at the ceiling, imbalanced pods, restarts, and the load generator's own CPU and throttling"},
		&cli.Float64Flag{Name: "link-mbps", DefaultText: "none: the network is not judged", Usage: "network link speed for --prom, megabits per second"},
		&cli.StringFlag{Name: "generator-pod", Value: checks.DefaultGeneratorPods, Usage: "`REGEX` matching the whole name of the load generator's pods in --prom"},
	}
}

// RunOptions reads the flags of RunFlags into the pipeline's options:
// --metric, --window, --ramp-step, --users-per-vu, --percentiles, --slo,
// --summary, --prom, --link-mbps, --threshold, --generator-pod, those the
// command defines. defWindow is the command's --window default (0: chosen
// from the run). Errors name the command and the flag.
func RunOptions(c *cli.Context, defWindow time.Duration) (pipeline.Options, error) {
	var opt pipeline.Options
	opt.Metric = c.String("metric")
	if c.IsSet("window") || defWindow > 0 {
		// 0 is the default of a command that chooses its windows.
		win := c.Duration("window")
		if err := WholeSeconds(c, "window", win, defWindow == 0); err != nil {
			return opt, err
		}
		opt.Knee.WindowNS = int64(win)
	}
	if Defines(c, "ramp-step") {
		step := c.Duration("ramp-step")
		if err := WholeSeconds(c, "ramp-step", step, true); err != nil {
			return opt, err
		}
		opt.Knee.RampStepNS = int64(step)
	}
	if Defines(c, "users-per-vu") && c.IsSet("users-per-vu") {
		n := c.Float64("users-per-vu")
		if !(n > 0 && n <= MaxUsersPerVU) { // NaN too
			return opt, Usagef(c, "--users-per-vu %v: want a number of users per VU above 0 and at most %g", n, float64(MaxUsersPerVU))
		}
		opt.Knee.UsersPerVU = n
	}
	if Defines(c, "percentiles") {
		pcts, err := Percentiles(c.String("percentiles"))
		if err != nil {
			return opt, Usagef(c, "%v", err)
		}
		opt.Knee.Percentiles = pcts
	}
	if Defines(c, "slo") && c.IsSet("slo") {
		slo, err := SLO(c.String("slo"))
		if err != nil {
			return opt, Usagef(c, "%v", err)
		}
		opt.Knee.SLO = slo
	}
	if Defines(c, "summary") {
		opt.SummaryPath = c.String("summary")
	}
	if Defines(c, "prom") {
		opt.PromDir = c.String("prom")
	}
	if Defines(c, "link-mbps") && c.IsSet("link-mbps") {
		v := c.Float64("link-mbps")
		if !(v > 0 && !math.IsInf(v, 0)) {
			return opt, Usagef(c, "--link-mbps %v: want the link's speed in megabits per second, a finite number above 0", v)
		}
		opt.LinkMbps = v
	}
	if Defines(c, "threshold") {
		for _, s := range Thresholds(c.StringSlice("threshold")) {
			t, err := threshold.Parse(s)
			if err != nil {
				return opt, err
			}
			opt.Thresholds = append(opt.Thresholds, t)
		}
	}
	if Defines(c, "generator-pod") {
		pods, err := checks.GeneratorPods(c.String("generator-pod"))
		if err != nil {
			return opt, Usagef(c, "%v", err)
		}
		opt.GeneratorPods = pods
	}
	return opt, nil
}

// MaxUsersPerVU is the most users one VU may stand for (--users-per-vu):
// more is a typo, not a workload.
const MaxUsersPerVU = 1e6

// SLOGrammar is what an --slo value looks like, for its errors.
const SLOGrammar = "want STAT OP LIMIT in k6 threshold syntax: STAT avg, min, max, med, pNN or p(NN); OP < or <= (an upper bound); LIMIT a latency ≥ 0, in ms unless a unit follows, e.g. 'p95<500ms', 'p(99)<800' or 'avg<200'"

// SLO reads an --slo value (knee.ParseSLO, which refuses a limit that is
// no latency). An error keeps the column of the threshold parser and adds
// the grammar expected, with examples.
func SLO(s string) (*knee.SLO, error) {
	slo, err := knee.ParseSLO(s)
	if err != nil {
		return nil, fmt.Errorf("--slo: %v; %s", err, SLOGrammar)
	}
	return slo, nil
}

// WholeSeconds checks the duration d of the flag --name: a whole number
// of seconds, at least 1s (or 0, when zeroOK: chosen automatically).
func WholeSeconds(c *cli.Context, name string, d time.Duration, zeroOK bool) error {
	if d == 0 && zeroOK {
		return nil
	}
	if d < time.Second || d%time.Second != 0 {
		auto := ""
		if zeroOK {
			auto = "; or 0: chosen automatically"
		}
		return Usagef(c, "--%s %v: want a whole number of seconds, at least 1s%s", name, d, auto)
	}
	return nil
}

// Usagef is a usage error of c's command as one line: the command, the
// message and where to read the flags ("knee: --window 1500ms: … (see
// ldanalyze knee --help)").
func Usagef(c *cli.Context, format string, args ...any) error {
	name := CommandName(c)
	return fmt.Errorf("%s: %s (see ldanalyze %s --help)", name, fmt.Sprintf(format, args...), name)
}
