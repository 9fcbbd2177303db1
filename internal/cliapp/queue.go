package cliapp

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
	"github.com/ldanalyze/ldanalyze/pkg/queueing"
	"github.com/ldanalyze/ldanalyze/pkg/scale"
)

// QueueRequest reads the flags of `queue mm1` (multi false) and `queue
// mmc` (multi true) into a model request: --service (a duration),
// --quantile (in (0, 1); 0 with --target asks for the mean), --rate and,
// for mmc, --rates (rates per second, --rate first) and either --servers
// or --target (a duration: the fewest servers that meet it, for one rate).
// Errors name the flag.
func QueueRequest(c *cli.Context, multi bool) (pipeline.QueueRequest, error) {
	var req pipeline.QueueRequest
	if c.String("service") == "" {
		return req, errors.New("queue mmc: give --service, or --run to estimate it from a k6 run")
	}
	svc, err := Quantity("service", c.String("service"), scale.Seconds)
	if err != nil {
		return req, err
	}
	p := c.Float64("quantile")
	if !(p > 0 && p < 1) && !(multi && p == 0 && c.String("target") != "") {
		return req, fmt.Errorf("--quantile %g: want a value in (0, 1)", p)
	}
	var rates []float64
	if multi {
		for _, s := range List(c.StringSlice("rates")) {
			r, err := Quantity("rates", s, scale.PerSecond)
			if err != nil {
				return req, err
			}
			rates = append(rates, r)
		}
	}
	if c.String("rate") != "" {
		r, err := Quantity("rate", c.String("rate"), scale.PerSecond)
		if err != nil {
			return req, err
		}
		rates = append([]float64{r}, rates...)
	}
	if len(rates) == 0 {
		return req, errors.New("queue: give --rate (or --rates for mmc)")
	}
	req = pipeline.QueueRequest{RatesPerSecond: rates, ServiceSeconds: svc, Servers: 1, Quantile: p}
	switch {
	case multi && c.String("target") != "":
		if c.IsSet("servers") || len(rates) != 1 {
			return req, errors.New("queue mmc: --target solves for the servers: give one --rate and no --servers")
		}
		if req.TargetSeconds, err = Quantity("target", c.String("target"), scale.Seconds); err != nil {
			return req, err
		}
	case multi:
		if !c.IsSet("servers") {
			return req, errors.New("queue mmc: give --servers, or --target to solve for them")
		}
		req.Servers = c.Int("servers")
	}
	return req, nil
}

// EstimateOptions reads the flags of `queue mmc --run FILE`: the rates
// come from the run, so --rate, --rates and --target are refused;
// --quantile (in (0, 1)), and --service (a duration > 0) and --servers
// (at least 1) when given override the estimate. Errors name the flag.
func EstimateOptions(c *cli.Context) (queueing.EstimateOptions, error) {
	var opt queueing.EstimateOptions
	for _, k := range []string{"rate", "rates", "target"} {
		if c.IsSet(k) {
			return opt, fmt.Errorf("queue mmc: --run takes the rates from the run; drop --%s", k)
		}
	}
	if opt.Quantile = c.Float64("quantile"); !(opt.Quantile > 0 && opt.Quantile < 1) {
		return opt, fmt.Errorf("--quantile %g: want a value in (0, 1)", opt.Quantile)
	}
	if s := c.String("service"); s != "" {
		v, err := Quantity("service", s, scale.Seconds)
		if err != nil {
			return opt, err
		}
		if !(v > 0) {
			return opt, fmt.Errorf("--service %s: want a duration > 0", s)
		}
		opt.ServiceSeconds = v
	}
	if c.IsSet("servers") {
		if opt.Servers = c.Int("servers"); opt.Servers < 1 {
			return opt, fmt.Errorf("--servers %d: want at least 1", opt.Servers)
		}
	}
	return opt, nil
}
