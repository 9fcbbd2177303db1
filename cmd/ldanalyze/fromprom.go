package main

import (
	"context"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/ldanalyze/ldanalyze/internal/cliapp"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
)

// fromPromFlags are the flags of a run read from Prometheus instead of
// files (knee, check, report): where, which run, and the client's
// credentials and bounds (cliapp.PromClientFlags without --url).
func fromPromFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "from-prom", Usage: "read the run from Prometheus instead of FILEs: a base `URL` (a k6 run streamed with -o experimental-prometheus-rw, read live; Mimir, Thanos, VictoriaMetrics too) or saved query_range JSON (a file or a directory of them)"},
		&cli.StringFlag{Name: "match", Usage: "with --from-prom: label `SELECTOR` of the run, e.g. '{testid=\"run-42\"}'"},
		&cli.StringFlag{Name: "start", Usage: "with --from-prom: run start, RFC 3339 or Unix seconds (default: the first sample of k6_iterations_total)"},
		&cli.StringFlag{Name: "end", Usage: "with --from-prom: run end, RFC 3339 or Unix seconds (default: its last sample)"},
		&cli.DurationFlag{Name: "step", DefaultText: "auto", Usage: "with --from-prom: resolution of the read (auto: k6's push interval found in the data, a multiple of it past 4096 steps)"},
	}, cliapp.PromClientFlags()[1:]...)
}

// analyzeRun analyses the run of the command: from --from-prom when it is
// given (no FILE then), else from the files.
func (e *env) analyzeRun(c *cli.Context, paths []string, opt pipeline.Options) (*pipeline.Analysis, error) {
	target := c.String("from-prom")
	if target == "" {
		return e.analyze(paths, opt)
	}
	cmd := c.Command.Name
	if len(paths) > 0 {
		return nil, usageError{fmt.Errorf("%s: give FILEs or --from-prom, not both", cmd)}
	}
	copt, secrets, err := cliapp.PromClientOptions(c, cmd, os.Getenv)
	secrets = append(secrets, cliapp.URLPassword(target))
	if err != nil {
		return nil, cliapp.Scrub(err, secrets)
	}
	kopt, err := cliapp.K6Options(c, cmd)
	if err != nil {
		return nil, err
	}
	src, err := pipeline.OpenPrometheus(target, copt, kopt)
	if err != nil {
		return nil, cliapp.Scrub(fmt.Errorf("%s: --from-prom: %w", cmd, err), secrets)
	}
	ctx, cancel := context.WithTimeout(c.Context, c.Duration("deadline"))
	defer cancel()
	an, err := pipeline.RunSource(ctx, src, opt)
	if an != nil {
		e.warn(an.Warnings...)
	}
	return an, cliapp.Scrub(err, secrets)
}
