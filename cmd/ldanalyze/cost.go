package main

import (
	"fmt"
	"io"

	"github.com/ldanalyze/ldanalyze/internal/cliapp"
	"github.com/ldanalyze/ldanalyze/internal/present"
	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
	"github.com/urfave/cli/v2"
)

func costCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "cost",
		Usage: "price a load test's peak usage at AWS on-demand prices (USD per hour and per month), or list the catalogue's prices",
		UsageText: "ldanalyze cost --region us-west-2                      (the catalogue's prices for a region, with source and date)\n" +
			"ldanalyze cost --usage usage.yaml [--region us-west-2] [--window START/END | --run k6.csv] [--what-if 'NAME=×0.09'] [--project 30000:100000] [--offer-file index.json] [--format json]",
		Description: "Prices each line item of a usage file (YAML: region and items, each a kind and its usage per hour)\n" +
			"with the embedded, dated on-demand catalogue or AWS Price List offer files, and prints each item's\n" +
			"usage, unit price, price status and source, USD per hour, share and USD per month, and the total.\n" +
			"Prices whose status is unverified are named in the warnings. A usage may be a series of a Prometheus\n" +
			"export (series: {file, unit, match, agg}) averaged over --window or the peak hold of the k6 run --run.\n" +
			"Without --usage, lists the catalogue's prices for --region (and the regions it covers).",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "usage", Aliases: []string{"u"}, Usage: "usage `FILE` (YAML); without it, list the catalogue's prices for --region"},
			&cli.StringFlag{Name: "region", Usage: "AWS `REGION` code; overrides the usage file's region"},
			&cli.GenericFlag{Name: "what-if", Value: &cliapp.Repeated{}, Usage: "multiply item NAME's usage (not its price) by FACTOR, `NAME=×FACTOR`: 'snapshots to Redis=×0.09' keeps 9 % of its usage (× may be written x or left out; repeatable)"},
			&cli.StringFlag{Name: "project", Usage: "project from load FROM to load TO by each item's growth exponent, `FROM:TO`"},
			&cli.GenericFlag{Name: "offer-file", Value: &cliapp.Repeated{}, Usage: "AWS Price List offer `FILE` (JSON) whose on-demand prices override the catalogue (repeatable)"},
			&cli.Float64Flag{Name: "hours-per-month", DefaultText: "the catalogue's 730", Usage: "duty for the monthly figures, `HOURS` per month"},
			&cli.DurationFlag{Name: "run-duration", Usage: "duration of the load test, to price the run itself, e.g. `6m`"},
			&cli.StringFlag{Name: "window", Usage: "average usage series over `START/END` (RFC 3339 or Unix seconds each)"},
			&cli.GenericFlag{Name: "run", Value: &cliapp.Repeated{}, Usage: "average usage series over the peak hold (highest completed_rps) of the k6 run in `FILE` (CSV or JSON output; repeat for the files of one distributed run)"},
		}, outputFlags()...),
		Action: e.cost,
	}
}

func (e *env) cost(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError{fmt.Errorf("cost: unexpected argument %q: give the usage file with --usage FILE", c.Args().First())}
	}
	offers := cliapp.Values(c, "offer-file")
	if c.String("usage") == "" {
		return e.priceList(c, offers)
	}
	opt, runs, err := cliapp.CostOptions(c)
	if err != nil {
		return err
	}
	if len(runs) > 0 {
		if err := pipeline.DistinctFiles(runs); err != nil {
			return usageError{err}
		}
		an, err := e.analyze(runs, pipeline.Options{})
		if err != nil {
			return fmt.Errorf("--run: %w", err)
		}
		if opt.Price.Window, err = pipeline.PeakWindow(an); err != nil {
			return err
		}
	}
	rep, err := pipeline.Cost(opt)
	if err != nil {
		return err
	}
	e.warn(rep.Warnings...)
	return e.emit(c, func(w io.Writer, f render.Format) error { return present.CostText(w, f, rep) })
}

// priceList is `cost` without --usage: the catalogue's prices for
// --region (with the offer files' put in), or the regions it covers.
func (e *env) priceList(c *cli.Context, offers []string) error {
	for _, f := range []string{"what-if", "project", "hours-per-month", "run-duration", "window", "run"} {
		if c.IsSet(f) {
			return usageError{fmt.Errorf("cost: --%s prices a usage file: give --usage FILE (without it, cost lists the catalogue's prices for --region)", f)}
		}
	}
	region := c.String("region")
	if len(offers) > 0 && region == "" {
		return usageError{fmt.Errorf("cost: --offer-file is read for one region: give --region")}
	}
	cat, notes, err := pipeline.Catalog(region, offers)
	if err != nil {
		return err
	}
	list, err := present.NewPriceList(cat, region, notes)
	if err != nil {
		return usageError{fmt.Errorf("--region: %w", err)}
	}
	e.warn(notes...)
	return e.emit(c, func(w io.Writer, f render.Format) error { return list.Write(w, f) })
}
