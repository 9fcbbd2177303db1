package main

import (
	"fmt"

	"github.com/ldanalyze/ldanalyze/internal/cliapp"
	"github.com/ldanalyze/ldanalyze/internal/outfile"
	"github.com/ldanalyze/ldanalyze/pkg/report"
	"github.com/urfave/cli/v2"
)

// reportCommand is `report`.
func reportCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "write a shareable report: markdown with PNG/SVG plots next to it, and a self-contained HTML page",
		Description: "The markdown opens with the verdict (knee, ceiling, SLO capacity, failed validity checks), then run facts,\n" +
			"the holds or ramp steps with inline bar charts, the endpoints and the checks. Plots are written next to\n" +
			"the markdown as NAME-load.png, NAME-latency.png, ... (and .svg) and linked relatively.",
		ArgsUsage: "FILE... (k6 CSV or JSON output, plain/gzip/zstd; several files are one distributed run; - is stdin)",
		Flags: append(append(runFlags(0, "window width of the plots over time (whole seconds; auto: about 80 windows over the run)"),
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the markdown to `FILE` and the plots next to it (default: markdown on standard output, no plots)"},
			&cli.StringFlag{Name: "html", Usage: "also write one self-contained HTML page to `FILE`"},
			&cli.StringFlag{Name: "by", Value: "name", Usage: "the tag that names an endpoint in the per-endpoint table"},
			&cli.StringFlag{Name: "title", Usage: "report title (default: \"Load-test report: FILES\")"},
		), fromPromFlags()...),
		Action: func(c *cli.Context) error { return e.report(c) },
	}
}

// reportPercentiles are the percentile columns of the levels table.
var reportPercentiles = []float64{50, 95, 99}

func (e *env) report(c *cli.Context) error {
	paths := c.Args().Slice()
	if len(paths) == 0 && c.String("from-prom") == "" {
		return usageError{fmt.Errorf("report: no input files: give one or more k6 output files, - for stdin, or --from-prom")}
	}
	if err := outfile.Distinct(outfile.Output{Flag: "-o", Path: c.String("output")}, outfile.Output{Flag: "--html", Path: c.String("html")}); err != nil {
		return usageError{fmt.Errorf("report: %w (see ldanalyze report --help)", err)}
	}
	if err := outfile.Distinct(outfile.Output{Flag: "-o", Path: c.String("output")}, outfile.Output{Flag: "--html", Path: c.String("html")}); err != nil {
		return usageError{fmt.Errorf("report: %w (see ldanalyze report --help)", err)}
	}
	for _, out := range []string{c.String("output"), c.String("html")} {
		if out != "" && out != "-" {
			if err := outfile.Check(out, outfile.Options{Inputs: cliapp.Inputs(c)}); err != nil {
				return usageError{err}
			}
		}
	}
	opt, err := runOptions(c, 0)
	if err != nil {
		return err
	}
	opt.Knee.Percentiles = reportPercentiles
	opt.AutoWindows = 80
	opt.Endpoints = c.String("by")
	opt.Attribution = true
	an, err := e.analyzeRun(c, paths, opt)
	if err != nil {
		return err
	}
	rep := report.Build(an, report.Options{Title: c.String("title")})

	md := c.String("output")
	if md != "" && md != "-" || c.String("html") != "" {
		// Drawn before anything is written: a plot that cannot be drawn is
		// left out with a note, the rest of the report is written.
		for _, w := range rep.DrawPlots() {
			fmt.Fprintln(e.stderr, "ldanalyze: warning:", w)
		}
	}
	oopt := outfile.Options{Inputs: cliapp.Inputs(c)}
	if md == "" || md == "-" {
		// The markdown on standard output, without images (there is
		// nowhere to put them); the HTML page holds its own.
		if err := rep.WriteMarkdown(e.stdout, report.MarkdownOptions{NoImages: true}); err != nil {
			return err
		}
		md = ""
	}
	return rep.WriteFiles(e.outs, md, c.String("html"), oopt)
}
