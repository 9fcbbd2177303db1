package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/cost"
	"github.com/urfave/cli/v2"
)

// repeated is a flag value that may be given several times; unlike
// cli.StringSliceFlag it does not split on commas (item names and paths
// may hold them).
type repeated []string

func (r *repeated) Set(s string) error { *r = append(*r, s); return nil }
func (r *repeated) String() string     { return strings.Join(*r, "; ") }

// costOptions are the parsed flags of `ldanalyze cost`.
type costOptions struct {
	usage      string
	offerFiles []string
	price      cost.Options
}

func costCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "cost",
		Usage:     "price a load test's peak usage at AWS on-demand prices (USD per hour and per month)",
		UsageText: "ldanalyze cost --usage usage.yaml [--region us-west-2] [--what-if 'NAME=0.09'] [--project 30000:100000] [--offer-file index.json] [--format json]",
		Description: "Prices each line item of a usage file (YAML: region and items, each a kind and its usage per hour)\n" +
			"with the embedded, dated on-demand catalogue or AWS Price List offer files, and prints each item's\n" +
			"usage, unit price, price status and source, USD per hour, share and USD per month, and the total.\n" +
			"Prices whose status is unverified are named in the warnings.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "usage", Aliases: []string{"u"}, Required: true, Usage: "usage `FILE` (YAML)"},
			&cli.StringFlag{Name: "region", Usage: "AWS `REGION` code; overrides the usage file's region"},
			&cli.GenericFlag{Name: "what-if", Value: &repeated{}, Usage: "scale item NAME's usage by FACTOR, `NAME=FACTOR` (repeatable)"},
			&cli.StringFlag{Name: "project", Usage: "project from load FROM to load TO by each item's growth exponent, `FROM:TO`"},
			&cli.GenericFlag{Name: "offer-file", Value: &repeated{}, Usage: "AWS Price List offer `FILE` (JSON) whose on-demand prices override the catalogue (repeatable)"},
			&cli.Float64Flag{Name: "hours-per-month", Usage: "duty for the monthly figures, `HOURS` per month (default: the catalogue's 730)"},
			&cli.DurationFlag{Name: "run-duration", Usage: "duration of the load test, to price the run itself, e.g. `6m`"},
		}, outputFlags()...),
		Action: func(c *cli.Context) error {
			opt, err := costFlags(c)
			if err != nil {
				return err
			}
			rep, err := runCost(opt)
			if err != nil {
				return err
			}
			w, f, closeOut, err := e.output(c)
			if err != nil {
				return err
			}
			if err := writeCost(w, e.stderr, f, rep); err != nil {
				closeOut()
				return err
			}
			return closeOut()
		},
	}
}

// costFlags turns the flags into costOptions; bad values are usage errors.
func costFlags(c *cli.Context) (costOptions, error) {
	opt := costOptions{usage: c.String("usage")}
	opt.price.Region = c.String("region")
	for _, s := range *c.Generic("what-if").(*repeated) {
		w, err := cost.ParseWhatIf(s)
		if err != nil {
			return opt, usageError{err}
		}
		opt.price.WhatIf = append(opt.price.WhatIf, w)
	}
	if s := c.String("project"); s != "" {
		p, err := cost.ParseProjection(s)
		if err != nil {
			return opt, usageError{err}
		}
		opt.price.Projection = &p
	}
	opt.offerFiles = *c.Generic("offer-file").(*repeated)
	if h := c.Float64("hours-per-month"); c.IsSet("hours-per-month") && !(h > 0 && h <= 744) {
		return opt, usageError{fmt.Errorf("--hours-per-month %g: want hours in (0, 744]", h)}
	}
	opt.price.HoursPerMonth = c.Float64("hours-per-month")
	if d := c.Duration("run-duration"); d < 0 {
		return opt, usageError{fmt.Errorf("--run-duration %v: want a positive duration", d)}
	} else {
		opt.price.RunHours = d.Hours()
	}
	return opt, nil
}

// runCost reads the usage file and offer files and prices the usage.
func runCost(opt costOptions) (*cost.Report, error) {
	data, err := os.ReadFile(opt.usage)
	if err != nil {
		return nil, err
	}
	u, err := cost.ParseUsage(data, opt.usage)
	if err != nil {
		return nil, err
	}
	if err := u.ResolveExponents(filepath.Dir(opt.usage)); err != nil {
		return nil, err
	}
	cat, err := cost.DefaultCatalog()
	if err != nil {
		return nil, err
	}
	region := opt.price.Region
	if region == "" {
		region = u.Region
	}
	var notes []string
	for _, path := range opt.offerFiles {
		o, err := cost.ReadOfferFile(path, region)
		if err != nil {
			return nil, err
		}
		keys := cat.Override(o)
		notes = append(notes, o.Warnings...)
		notes = append(notes, fmt.Sprintf("offer file %s (%s, published %s) set %d prices for %s", path, o.OfferCode, o.PublicationDate, len(keys), region))
	}
	rep, err := cost.Compute(cat, u, opt.price)
	if err != nil {
		return nil, err
	}
	rep.Warnings = append(rep.Warnings, notes...)
	return rep, nil
}

// writeCost renders rep: JSON as the report itself; table, markdown and
// CSV as one row per item plus the total, then (not for CSV) the summary
// lines. CSV sends the warnings to stderr so the file stays one table.
func writeCost(w, stderr io.Writer, f render.Format, rep *cost.Report) error {
	if f == render.JSON {
		return render.WriteJSON(w, rep)
	}
	usd := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	g := render.Grid{Header: []string{"item", "kind", "used per hour", "unit price (USD)", "USD/h", "share %", "USD/month", "price status", "price source"}}
	for _, l := range rep.Items {
		g.Rows = append(g.Rows, []string{l.Name, l.Kind, l.UsageText, l.PriceText, usd(l.USDPerHour),
			strconv.FormatFloat(l.SharePct, 'f', 1, 64), strconv.FormatFloat(l.USDPerMonth, 'f', 2, 64), string(l.Status), l.Source})
	}
	g.Rows = append(g.Rows, []string{"total", "", "", "", usd(rep.TotalUSDPerHour), "100.0", strconv.FormatFloat(rep.TotalUSDPerMonth, 'f', 2, 64), "", ""})
	if err := g.Write(w, f); err != nil {
		return err
	}
	if f == render.CSV {
		for _, s := range rep.Warnings {
			fmt.Fprintln(stderr, "warning:", s)
		}
		return nil
	}
	bullet := ""
	if f == render.Markdown {
		bullet = "- "
		fmt.Fprintln(w)
	}
	lines := []string{
		fmt.Sprintf("region %s (%s), on-demand prices of the catalogue dated %s", rep.Region, rep.RegionName, rep.CatalogueDate),
		fmt.Sprintf("total $%.2f per hour; dominant item: %s (%.1f%%)", rep.TotalUSDPerHour, rep.Dominant, rep.DominantSharePct),
		fmt.Sprintf("per month at %g h: $%.2f", rep.HoursPerMonth, rep.TotalUSDPerMonth),
	}
	if rep.RunHours > 0 {
		lines = append(lines, fmt.Sprintf("the test run itself (%.3g h): $%.2f", rep.RunHours, rep.RunUSD))
	}
	for _, wi := range rep.WhatIf {
		lines = append(lines, fmt.Sprintf("what-if: %s × %g", wi.Name, wi.Factor))
	}
	if p := rep.Projection; p != nil {
		lines = append(lines, fmt.Sprintf("projected from load %g to %g by each item's growth exponent", p.From, p.To))
	}
	for _, s := range rep.Warnings {
		lines = append(lines, "warning: "+s)
	}
	for _, s := range lines {
		if _, err := fmt.Fprintln(w, bullet+s); err != nil {
			return err
		}
	}
	return nil
}
