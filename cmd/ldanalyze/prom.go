package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/present"
	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
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
				Flags: append(promClientFlags(),
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

// parseTime reads RFC 3339 or Unix seconds.
func parseTime(flag, s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return time.Unix(0, int64(f*1e9)).UTC(), nil
	}
	return time.Time{}, usageError{fmt.Errorf("--%s %q: want RFC 3339 (2026-11-30T02:07:09Z) or Unix seconds", flag, s)}
}

func (e *env) promPull(c *cli.Context) error {
	copt, secrets, err := promClientOptions(c, "prom pull")
	if err != nil {
		return scrubbed(err, secrets)
	}
	return scrubbed(e.promPullWith(c, copt), secrets)
}

func (e *env) promPullWith(c *cli.Context, copt prom.ClientOptions) error {
	opt := prom.PullOptions{Client: copt, Step: c.Duration("step"), RateWindow: c.Duration("rate-window")}
	if opt.Step < time.Second || opt.RateWindow < time.Second {
		return usageError{fmt.Errorf("prom pull: --step and --rate-window must be at least 1s")}
	}
	runs := c.StringSlice("run")
	switch {
	case len(runs) > 0 && (c.IsSet("start") || c.IsSet("end")):
		return usageError{fmt.Errorf("prom pull: give --run or --start/--end, not both")}
	case len(runs) > 0:
		first, last, seen, st, err := pipeline.Span(runs, e.stdin)
		reportStats(e.stderr, st)
		if err != nil {
			return err
		}
		if !seen {
			return usageError{fmt.Errorf("prom pull: --run %s: no samples", strings.Join(runs, ", "))}
		}
		opt.Start, opt.End = time.Unix(0, first).UTC(), time.Unix(0, last+max(st.ResolutionNS, 0)).UTC()
		// Points at whole steps, so that a series scraped at that interval
		// comes back sample for sample.
		opt.Start = opt.Start.Truncate(opt.Step)
		if t := opt.End.Truncate(opt.Step); t.Before(opt.End) {
			opt.End = t.Add(opt.Step)
		}
	case c.IsSet("start") && c.IsSet("end"):
		var err error
		if opt.Start, err = parseTime("start", c.String("start")); err != nil {
			return err
		}
		if opt.End, err = parseTime("end", c.String("end")); err != nil {
			return err
		}
	default:
		return usageError{fmt.Errorf("prom pull: give the range with --start and --end, or --run FILE")}
	}
	pad := c.Duration("pad")
	opt.Start, opt.End = opt.Start.Add(-pad), opt.End.Add(pad)
	if !opt.End.After(opt.Start) {
		return usageError{fmt.Errorf("prom pull: --end %s is not after --start %s", opt.End.Format(time.RFC3339), opt.Start.Format(time.RFC3339))}
	}
	if f := c.String("queries"); f != "" {
		r, err := os.Open(f)
		if err != nil {
			return usageError{err}
		}
		opt.Queries, err = prom.ReadQueries(r, f)
		r.Close()
		if err != nil {
			return usageError{err}
		}
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
	g := &render.Grid{Header: []string{"query", "role", "unit", "series", "points"}}
	for _, q := range exp.Manifest.Queries {
		g.Rows = append(g.Rows, []string{q.Name, string(q.Role), q.Unit, strconv.Itoa(q.Series), strconv.Itoa(q.Points)})
	}
	return g.Write(e.stdout, render.Table)
}

// seriesRow is the JSON form of one series of `prom read`.
type seriesRow struct {
	Source string            `json:"source"`
	Labels map[string]string `json:"labels"`
	Points []pointRow        `json:"points"`
}

// pointRow is one point of `prom read --format json`: NaN and ±Inf are null.
type pointRow struct {
	Time  time.Time `json:"t"`
	Value knee.F    `json:"v"`
}

func (e *env) promRead(c *cli.Context) error {
	paths := c.Args().Slice()
	if len(paths) == 0 {
		return usageError{fmt.Errorf("prom read: no input files")}
	}
	loc, err := time.LoadLocation(c.String("tz"))
	if err != nil {
		return usageError{fmt.Errorf("--tz: %w", err)}
	}
	w, format, closeOut, err := e.output(c)
	if err != nil {
		return err
	}
	if format != render.JSON && !c.Bool("rate") {
		// The table needs counts and extremes only: streamed, so listing
		// a file of any size takes the memory of its largest series.
		g := &render.Grid{Header: []string{"source", "series", "points", "first", "last", "min", "max"}}
		for _, p := range paths {
			var sums []prom.SeriesSummary
			var warns []string
			var skipped []*prom.SyntaxError
			if p == "-" {
				sums, warns, skipped, err = prom.Summaries(e.stdin, "-", prom.GrafanaOptions{Location: loc})
			} else {
				var f *os.File
				if f, err = os.Open(p); err == nil {
					sums, warns, skipped, err = prom.Summaries(f, p, prom.GrafanaOptions{Location: loc})
					f.Close()
				}
			}
			if err != nil {
				closeOut()
				return err
			}
			for _, s := range skipped {
				fmt.Fprintf(e.stderr, "ldanalyze: skipped: %v\n", s)
			}
			for _, wn := range warns {
				fmt.Fprintf(e.stderr, "ldanalyze: warning: %s\n", wn)
			}
			for _, s := range sums {
				src := p
				if s.Section != "" {
					src += " " + s.Section
				}
				row := []string{src, prom.LabelsKey(s.Labels), strconv.Itoa(s.Points), "", "", present.CSVNum(s.Min), present.CSVNum(s.Max)}
				if s.Points > 0 {
					row[3] = time.Unix(0, s.FirstNS).UTC().Format(time.RFC3339)
					row[4] = time.Unix(0, s.LastNS).UTC().Format(time.RFC3339)
				}
				g.Rows = append(g.Rows, row)
			}
		}
		err = g.Write(w, format)
		if cerr := closeOut(); err == nil {
			err = cerr
		}
		return err
	}
	var rows []seriesRow
	for _, p := range paths {
		var d *prom.Data
		if p == "-" {
			d, err = prom.Read(e.stdin, "-", prom.GrafanaOptions{Location: loc})
		} else {
			d, err = prom.ReadFile(p, prom.GrafanaOptions{Location: loc})
		}
		if err != nil {
			closeOut()
			return err
		}
		for _, s := range d.Skipped {
			fmt.Fprintf(e.stderr, "ldanalyze: skipped: %v\n", s)
		}
		for _, wn := range d.Warnings {
			fmt.Fprintf(e.stderr, "ldanalyze: warning: %s\n", wn)
		}
		for _, s := range d.Series {
			pts := s.Points
			if c.Bool("rate") {
				pts = prom.Rate(pts)
			}
			r := seriesRow{Source: p, Labels: s.Labels, Points: make([]pointRow, len(pts))}
			for i, pt := range pts {
				r.Points[i] = pointRow{time.Unix(0, pt.TimeNS).UTC(), knee.F(pt.Value)}
			}
			rows = append(rows, r)
		}
	}
	if format == render.JSON {
		err = render.WriteJSON(w, rows)
	} else {
		g := &render.Grid{Header: []string{"source", "series", "points", "first", "last", "min", "max"}}
		for _, r := range rows {
			row := []string{r.Source, prom.LabelsKey(r.Labels), strconv.Itoa(len(r.Points)), "", "", "", ""}
			if n := len(r.Points); n > 0 {
				lo, hi := math.Inf(1), math.Inf(-1)
				for _, p := range r.Points {
					if p.Value.Valid() {
						lo, hi = min(lo, float64(p.Value)), max(hi, float64(p.Value))
					}
				}
				row[3] = r.Points[0].Time.Format(time.RFC3339)
				row[4] = r.Points[n-1].Time.Format(time.RFC3339)
				row[5], row[6] = present.CSVNum(lo), present.CSVNum(hi)
			}
			g.Rows = append(g.Rows, row)
		}
		err = g.Write(w, format)
	}
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	return err
}
