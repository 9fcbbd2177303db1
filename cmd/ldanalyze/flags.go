package main

import (
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/checks"
	"github.com/urfave/cli/v2"
)

// metricUsage is the help of --metric, the same on every command.
const metricUsage = "the Trend `METRIC` whose latency is analysed (any Trend, custom ones too; default: the run's own request Trend: http_req_duration, grpc_req_duration, ws_connecting or browser_http_req_duration)"

// runFlags are the flags of every command that analyses a run: the same
// names, meanings and defaults everywhere (runOptions reads them). window
// is the command's --window default (0: chosen from the run) and what its
// windows are for.
func runFlags(window time.Duration, windowUsage string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "metric", Aliases: []string{"m"}, Usage: metricUsage},
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

// usageOrNil is err as a usage error (exit 2), nil for nil.
func usageOrNil(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}
