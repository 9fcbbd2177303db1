package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/ldanalyze/ldanalyze/internal/cliapp"
	"github.com/ldanalyze/ldanalyze/internal/present"
	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/prom"
	"github.com/urfave/cli/v2"
)

// promK6Command reads a k6 run streamed with -o experimental-prometheus-rw,
// live or from saved query_range JSON, and prints it step by step.
func promK6Command(e *env) *cli.Command {
	flags := cliapp.PromClientFlags()
	flags[0] = &cli.StringFlag{Name: "url", Usage: "Prometheus base `URL` to read the run from live (else the FILE arguments: saved API JSON)"}
	return &cli.Command{
		Name:      "k6",
		Usage:     "read a k6 run streamed with -o experimental-prometheus-rw (live with --url, or saved API JSON files) and print it step by step",
		ArgsUsage: "[FILE...]",
		Flags: append(append(flags,
			&cli.StringFlag{Name: "match", Usage: "label `SELECTOR` narrowing every query, e.g. '{testid=\"run-42\"}'"},
			&cli.StringFlag{Name: "start", Usage: "run start, RFC 3339 or Unix seconds (default: found from k6_iterations_total)"},
			&cli.StringFlag{Name: "end", Usage: "run end, RFC 3339 or Unix seconds (default: found from k6_iterations_total)"},
			&cli.DurationFlag{Name: "step", DefaultText: "auto", Usage: "resolution (auto: k6's push interval found in the data)"},
		), outputFlags()...),
		Action: func(c *cli.Context) error {
			copt, secrets, err := cliapp.PromClientOptions(c, "prom k6", os.Getenv)
			if err != nil && c.String("url") != "" {
				return cliapp.Scrub(err, secrets)
			}
			return cliapp.Scrub(e.promK6(c, copt), secrets)
		},
	}
}

func (e *env) promK6(c *cli.Context, copt prom.ClientOptions) error {
	opt, err := cliapp.K6Options(c, "prom k6")
	if err != nil {
		return err
	}
	var src prom.Source
	switch {
	case copt.URL != "" && c.NArg() > 0:
		return usageError{fmt.Errorf("prom k6: give --url or files, not both")}
	case copt.URL != "":
		if src, err = prom.NewClient(copt); err != nil {
			return usageError{err}
		}
	case c.NArg() > 0:
		var rs []prom.Response
		for _, p := range c.Args().Slice() {
			f, err := e.open(p)
			if err != nil {
				return err
			}
			r, err := prom.ReadResponsesAuto(f, p)
			f.Close()
			if err != nil {
				return err
			}
			rs = append(rs, r...)
		}
		src = prom.FilesFromResponses(rs)
	default:
		return usageError{fmt.Errorf("prom k6: give --url URL or saved API JSON files")}
	}
	ctx, cancel := context.WithTimeout(c.Context, c.Duration("deadline"))
	defer cancel()
	run, err := prom.ReadK6Run(ctx, src, opt)
	if err != nil {
		return err
	}
	for _, w := range run.Warnings {
		fmt.Fprintf(e.stderr, "ldanalyze: warning: %s\n", w)
	}
	return e.emit(c, func(w io.Writer, f render.Format) error { return present.K6RunText(w, f, run) })
}
