package cliapp

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ldanalyze/ldanalyze/pkg/cost"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
)

// CostOptions reads the flags of `cost --usage FILE` into the pipeline's
// options: --usage, --offer-file, --region, --what-if (cost.ParseWhatIf),
// --project (cost.ParseProjection), --hours-per-month (in (0, 744]),
// --run-duration (≥ 0) and --window (cost.ParseWindow). runs are the --run
// files whose peak hold gives the window instead (not with --window).
// Errors name the flag.
func CostOptions(c *cli.Context) (opt pipeline.CostOptions, runs []string, err error) {
	opt = pipeline.CostOptions{UsagePath: c.String("usage"), OfferFiles: Values(c, "offer-file")}
	opt.Price.Region = c.String("region")
	for _, s := range Values(c, "what-if") {
		w, err := cost.ParseWhatIf(s)
		if err != nil {
			return opt, nil, err
		}
		opt.Price.WhatIf = append(opt.Price.WhatIf, w)
	}
	if s := c.String("project"); s != "" {
		p, err := cost.ParseProjection(s)
		if err != nil {
			return opt, nil, err
		}
		opt.Price.Projection = &p
	}
	if h := c.Float64("hours-per-month"); c.IsSet("hours-per-month") && !(h > 0 && h <= 744) {
		return opt, nil, fmt.Errorf("--hours-per-month %g: want hours in (0, 744]", h)
	}
	opt.Price.HoursPerMonth = c.Float64("hours-per-month")
	if d := c.Duration("run-duration"); d < 0 {
		return opt, nil, fmt.Errorf("--run-duration %v: want a positive duration", d)
	}
	opt.Price.RunHours = c.Duration("run-duration").Hours()
	runs = Values(c, "run")
	if s := c.String("window"); s != "" {
		if len(runs) > 0 {
			return opt, nil, fmt.Errorf("--window and --run both given: want one averaging window")
		}
		w, err := cost.ParseWindow(s)
		if err != nil {
			return opt, nil, err
		}
		opt.Price.Window = &w
	}
	return opt, runs, nil
}
