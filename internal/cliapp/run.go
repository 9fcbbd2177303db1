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
// --window default (0: chosen from the run) and windowUsage what its
// windows are for.
func RunFlags(window time.Duration, windowUsage string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "metric", Aliases: []string{"m"}, Usage: MetricUsage},
		&cli.DurationFlag{Name: "window", Aliases: []string{"w"}, Value: window, Usage: windowUsage},
		&cli.DurationFlag{Name: "ramp-step", Usage: "width of the steps a continuous ramp is cut into (default: chosen per ramp, at least 8 steps of at least 40 requests each where the ramp allows)"},
		&cli.StringFlag{Name: "percentiles", Value: "50,90,95,99", Usage: "percentiles per window and level, comma-separated (k6's definition)"},
		&cli.Float64Flag{Name: "users-per-vu", Usage: "`N` users driven by one VU (a class of 20 players and its host: 21): offered load, knee and SLO capacity of a VU executor in users"},
		&cli.StringFlag{Name: "slo", Usage: "latency objective in k6 threshold syntax, e.g. 'p95<500ms' or 'p(99)<800': the highest load that meets it"},
		&cli.StringFlag{Name: "summary", Usage: "k6's own end-of-test summary `FILE` of the same run (--summary-export or handleSummary JSON): its figures beside the computed ones, its thresholds re-evaluated per load level"},
		&cli.StringSliceFlag{Name: "threshold", Aliases: []string{"t"}, Usage: "k6 threshold re-evaluated per load level, e.g. 'http_req_failed:rate<0.01' or 'http_req_duration{name:order}:p(95)<500' (repeatable)"},
		&cli.StringFlag{Name: "prom", Usage: "`DIR` written by `ldanalyze prom pull`: what saturated at the ceiling, imbalanced pods, restarts, and the load generator's own CPU and throttling"},
		&cli.Float64Flag{Name: "link-mbps", Usage: "network link speed for --prom, megabits per second (0: network not judged)"},
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
		win := c.Duration("window")
		if win <= 0 {
			return opt, fmt.Errorf("%s: --window must be at least 1s", c.Command.Name)
		}
		opt.Knee.WindowNS = int64(win)
	}
	if Defines(c, "ramp-step") {
		step := c.Duration("ramp-step")
		if step != 0 && step < time.Second {
			return opt, fmt.Errorf("%s: --ramp-step must be at least 1s (or 0: chosen per ramp)", c.Command.Name)
		}
		opt.Knee.RampStepNS = int64(step)
	}
	if Defines(c, "users-per-vu") {
		n := c.Float64("users-per-vu")
		if n < 0 || math.IsNaN(n) || math.IsInf(n, 0) {
			return opt, fmt.Errorf("%s: --users-per-vu %v: want a positive number of users per VU", c.Command.Name, n)
		}
		opt.Knee.UsersPerVU = n
	}
	if Defines(c, "percentiles") {
		pcts, err := Percentiles(c.String("percentiles"))
		if err != nil {
			return opt, err
		}
		opt.Knee.Percentiles = pcts
	}
	if s := c.String("slo"); Defines(c, "slo") && s != "" {
		slo, err := knee.ParseSLO(s)
		if err != nil {
			return opt, err
		}
		opt.Knee.SLO = slo
	}
	if Defines(c, "summary") {
		opt.SummaryPath = c.String("summary")
	}
	if Defines(c, "prom") {
		opt.PromDir = c.String("prom")
	}
	if Defines(c, "link-mbps") {
		opt.LinkMbps = c.Float64("link-mbps")
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
			return opt, err
		}
		opt.GeneratorPods = pods
	}
	return opt, nil
}
