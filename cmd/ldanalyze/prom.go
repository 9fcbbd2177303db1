package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/cliapp"
	"github.com/ldanalyze/ldanalyze/internal/present"
	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/prom"
	"github.com/urfave/cli/v2"
)

func promCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "prom",
		Usage: "pull Prometheus data for a run, or read Prometheus exports",
		Subcommands: []*cli.Command{
			{
				Name:  "pull",
				Usage: "run the preset (and custom) queries as query_range over the run and save them as a directory for knee --prom",
				Description: "The bearer token or password, if any, comes from a file or an environment variable, never from a flag value; credentials are never printed or saved.\n" +
					"Presets: " + presetNames(),
				Flags: append(cliapp.PromClientFlags(),
					&cli.StringFlag{Name: "start", Usage: "range start, RFC 3339 or Unix seconds"},
					&cli.StringFlag{Name: "end", Usage: "range end, RFC 3339 or Unix seconds"},
					&cli.StringSliceFlag{Name: "run", Usage: "k6 output `FILE` whose first and last sample give the range (instead of --start/--end)"},
					&cli.DurationFlag{Name: "step", Value: 15 * time.Second, Usage: "query_range resolution"},
					&cli.DurationFlag{Name: "rate-window", Value: time.Minute, Usage: "range of rate() in the queries ($window)"},
					&cli.DurationFlag{Name: "pad", Usage: "widen the range by this much on both sides"},
					&cli.StringFlag{Name: "queries", Usage: "YAML `FILE` of custom queries (added to the presets unless it says presets: false)"},
					&cli.StringFlag{Name: "dir", Aliases: []string{"o"}, Required: true, Usage: "output `DIR` (created; manifest.json plus one query_range JSON file per query)"},
				),
				Action: func(c *cli.Context) error { return e.promPull(c) },
			},
			promK6Command(e),
			{
				Name:      "read",
				Usage:     "read Prometheus exports (API JSON, Grafana CSV, VictoriaMetrics JSON lines, Prometheus/OpenMetrics text) and list their series",
				ArgsUsage: "FILE...",
				Flags: append([]cli.Flag{
					&cli.StringFlag{Name: "tz", Value: "UTC", Usage: "time zone of formatted times in Grafana CSV exports (IANA name)"},
					&cli.BoolFlag{Name: "rate", Usage: "turn counters into per-second rates (resets handled)"},
				}, outputFlags()...),
				Action: func(c *cli.Context) error { return e.promRead(c) },
			},
		},
	}
}

func presetNames() string {
	var n []string
	for _, q := range prom.Presets {
		n = append(n, q.Name)
	}
	return strings.Join(n, ", ")
}

func (e *env) promPull(c *cli.Context) error {
	copt, secrets, err := cliapp.PromClientOptions(c, "prom pull", os.Getenv)
	if err != nil {
		return cliapp.Scrub(err, secrets)
	}
	return cliapp.Scrub(e.promPullWith(c, copt), secrets)
}

func (e *env) promPullWith(c *cli.Context, copt prom.ClientOptions) error {
	opt, st, err := cliapp.PullOptions(c, copt, e.stdin)
	reportStats(e.stderr, st)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(c.Context, c.Duration("deadline"))
	defer cancel()
	exp, err := prom.Pull(ctx, opt)
	if err != nil {
		return err
	}
	dir := c.String("dir")
	if err := prom.WriteDir(dir, exp); err != nil {
		return err
	}
	for _, q := range exp.Manifest.Queries {
		for _, w := range q.Warnings {
			fmt.Fprintf(e.stderr, "ldanalyze: warning: %s: %s\n", q.Name, w)
		}
	}
	fmt.Fprintf(e.stdout, "%s: %d queries, %s to %s at %s steps\n", dir, len(exp.Manifest.Queries),
		opt.Start.Format(time.RFC3339), opt.End.Format(time.RFC3339), opt.Step)
	return present.PullGrid(exp).Write(e.stdout, render.Table)
}

func (e *env) promRead(c *cli.Context) error {
	paths := c.Args().Slice()
	if len(paths) == 0 {
		return usageError{fmt.Errorf("prom read: no input files")}
	}
	gopt := prom.GrafanaOptions{}
	var err error
	if gopt.Location, err = time.LoadLocation(c.String("tz")); err != nil {
		return usageError{fmt.Errorf("--tz: %w", err)}
	}
	format, err := render.ParseFormat(c.String("format"))
	if err != nil {
		return usageError{err}
	}
	g := present.NewPromReadGrid()
	var rows []present.PromSeries
	for _, p := range paths {
		r, err := e.open(p)
		if err != nil {
			return cliapp.PromReadOpenError(p, err)
		}
		var warns []string
		var skipped []*prom.SyntaxError
		if format != render.JSON && !c.Bool("rate") {
			// The table needs counts and extremes only: streamed, so
			// listing a file of any size takes the memory of its largest
			// series.
			var sums []prom.SeriesSummary
			sums, warns, skipped, err = prom.Summaries(r, p, gopt)
			for _, s := range sums {
				g.AddSummary(p, s)
			}
		} else {
			var d *prom.Data
			if d, err = prom.Read(r, p, gopt); err == nil {
				warns, skipped = d.Warnings, d.Skipped
				for _, s := range d.Series {
					if c.Bool("rate") {
						s.Points = prom.Rate(s.Points)
					}
					rows = append(rows, present.NewPromSeries(p, s))
					g.AddSeries(rows[len(rows)-1])
				}
			}
		}
		r.Close()
		if err != nil {
			return err
		}
		for _, s := range skipped {
			fmt.Fprintf(e.stderr, "ldanalyze: skipped: %v\n", s)
		}
		e.warn(warns...)
	}
	return e.emit(c, func(w io.Writer, f render.Format) error {
		if f == render.JSON {
			return render.WriteJSON(w, rows)
		}
		return g.Write(w, f)
	}, format)
}

// open opens the input path, standard input for "-", gunzipped when its
// first bytes say gzip (prom.OpenInput).
func (e *env) open(path string) (io.ReadCloser, error) { return prom.OpenInput(path, e.stdin) }
