package main

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/cliapp"
	"github.com/ldanalyze/ldanalyze/internal/present"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
	"github.com/ldanalyze/ldanalyze/pkg/queueing"
	"github.com/ldanalyze/ldanalyze/pkg/scale"
	"github.com/urfave/cli/v2"
)

func queueCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "queue",
		Usage: "queueing models: Little's law, M/M/1, M/M/c (Erlang C), USL",
		Subcommands: []*cli.Command{
			{
				Name:  "little",
				Usage: "Little's law L = λW: give two of --rate, --latency, --in-flight and get the third",
				UsageText: "ldanalyze queue little --rate 600 --latency 2.8s [--max-vus 1500]\n" +
					"ldanalyze queue little --run run.csv.gz",
				Description: "With --max-vus, checks whether an open-model k6 test had enough VUs:\n" +
					"busy VUs = rate × iteration duration (pass the iteration duration as --latency).\n\n" +
					"With --run, checks Little's law on a k6 run per hold (per --ramp-step of 10 s when it has < 3\n" +
					"holds; --ramp-step 0 cuts ramps as `ldanalyze knee` does): the mean vus gauge L against the iterations that\n" +
					"ended per second λ times their mean iteration_duration W. In a closed model every VU is\n" +
					"inside an iteration (sleep included), so L ≈ λW; in an open model the gauge counts busy VUs,\n" +
					"so L ≈ λW as well. λW well below L means VUs idled (think time outside the iteration,\n" +
					"ramping, dropped or interrupted iterations); above L, iterations from before the level\n" +
					"ended in it (ramp-down, short levels).",
				Flags: append([]cli.Flag{
					&cli.StringFlag{Name: "rate", Aliases: []string{"r"}, Usage: "completed `RATE` per second, e.g. 600, 600/s, 1.5k"},
					&cli.StringFlag{Name: "latency", Aliases: []string{"w"}, Usage: "mean time in the system, a `DURATION` such as 2.8s or 350ms (a bare number is seconds)"},
					&cli.StringFlag{Name: "in-flight", Aliases: []string{"l"}, Usage: "mean `NUMBER` in the system (requests, iterations, VUs)"},
					&cli.IntFlag{Name: "max-vus", Usage: "the k6 maxVUs the test allowed, to check against rate × latency"},
					&cli.StringSliceFlag{Name: "run", Usage: "check Little's law on this k6 output `FILE` per hold (repeat for the files of one distributed run; - is stdin)"},
					&cli.Float64Flag{Name: "tolerance", Value: 0.10, Usage: "with --run: the relative mismatch |λW/L − 1| still counted as agreement, a `RATIO`"},
					&cli.DurationFlag{Name: "ramp-step", Value: 10 * time.Second, Usage: "with --run: width of the steps a continuous ramp is cut into (0: chosen per ramp, as knee does)"},
				}, outputFlags()...),
				Action: e.queueLittle,
			},
			{
				Name:      "mm1",
				Usage:     "M/M/1: utilisation, mean and percentile response time for one server",
				UsageText: "ldanalyze queue mm1 --rate 90 --service 10ms [--quantile 0.95]",
				Flags:     append(queueModelFlags(false), outputFlags()...),
				Action:    e.queueModel(false),
			},
			{
				Name:  "mmc",
				Usage: "M/M/c (Erlang C): probability of waiting, mean wait and response time, servers for a target",
				UsageText: "ldanalyze queue mmc --rate 600 --service 20ms --servers 16\n" +
					"ldanalyze queue mmc --rate 600 --service 20ms --target 50ms [--quantile 0.95]\n" +
					"ldanalyze queue mmc --rates 100,300,500,700 --service 20ms --servers 16\n" +
					"ldanalyze queue mmc --run run.csv.gz [--service 10ms] [--servers 2]",
				Description: "Assumes Poisson arrivals and exponential service; real service times are heavier-tailed,\n" +
					"so treat the predicted waits as a lower bound.\n\n" +
					"With --run, estimates the queue from a k6 run's holds (ramp steps when it has fewer than three)\n" +
					"and prints the model beside them: the service time S is the mean response time of the levels\n" +
					"below 30% of the ceiling, the servers c = X_max·S rounded (utilisation law at the ceiling,\n" +
					"where every server is busy); --service and --servers override either. Each level is offered\n" +
					"its offered rate (open model) or its measured throughput (closed model).",
				Flags:  append(queueModelFlags(true), outputFlags()...),
				Action: e.queueModel(true),
			},
			{
				Name:      "usl",
				Usage:     "fit the Universal Scalability Law to (concurrency, throughput) points (same as scale --usl)",
				UsageText: "ldanalyze queue usl --point 1=65 --point 18=996 ... | sweep.csv",
				ArgsUsage: "[FILE...] (CSV of N,X points; - is stdin)",
				Flags:     append(uslFlags(), outputFlags()...),
				Action:    e.uslAction,
			},
		},
	}
}

func queueModelFlags(multi bool) []cli.Flag {
	fl := []cli.Flag{
		&cli.StringFlag{Name: "rate", Aliases: []string{"r"}, Usage: "arrival `RATE` per second, e.g. 600 or 1.5k/s"},
		&cli.StringFlag{Name: "service", Aliases: []string{"s"}, Required: !multi, Usage: "mean service time, a `DURATION` such as 20ms"},
		&cli.Float64Flag{Name: "quantile", Value: 0.95, Usage: "response-time `QUANTILE` to report, in (0, 1)"},
	}
	if multi {
		fl = append(fl,
			&cli.IntFlag{Name: "servers", Aliases: []string{"c"}, Usage: "number of servers `C`"},
			&cli.StringFlag{Name: "target", Usage: "find the fewest servers whose --quantile response time (mean with --quantile 0) is at most `DURATION`"},
			&cli.StringSliceFlag{Name: "rates", Usage: "predict the response-time curve at these `RATES` (comma-separated or repeated)"},
			&cli.StringSliceFlag{Name: "run", Usage: "estimate service time and servers from this k6 output `FILE` and print the model beside its holds (repeat for the files of one distributed run)"},
			&cli.StringFlag{Name: "metric", Aliases: []string{"m"}, Usage: "with --run: " + cliapp.MetricUsage},
			&cli.DurationFlag{Name: "ramp-step", Value: 10 * time.Second, Usage: "with --run: width of the steps a continuous ramp is cut into (0: chosen per ramp, as knee does)"},
		)
	}
	return fl
}

func (e *env) queueLittle(c *cli.Context) error {
	if len(c.StringSlice("run")) > 0 {
		return e.queueLittleRun(c)
	}
	n := 0
	for _, k := range []string{"rate", "latency", "in-flight"} {
		if c.String(k) != "" {
			n++
		}
	}
	if n != 2 {
		return usageError{errors.New("queue little: give exactly two of --rate, --latency and --in-flight")}
	}
	// The quantity not given is NaN: SolveLittle finds it.
	l := queueing.Little{InFlight: math.NaN(), RatePerSecond: math.NaN(), LatencySeconds: math.NaN()}
	for _, q := range []struct {
		flag string
		unit scale.Unit
		dst  *float64
	}{{"rate", scale.PerSecond, &l.RatePerSecond}, {"latency", scale.Seconds, &l.LatencySeconds}, {"in-flight", scale.Count, &l.InFlight}} {
		if s := c.String(q.flag); s != "" {
			v, err := cliapp.Quantity(q.flag, s, q.unit)
			if err != nil {
				return err
			}
			*q.dst = v
		}
	}
	l, solved, err := queueing.SolveLittle(l)
	if err != nil {
		return usageError{err}
	}
	rep := present.LittleDoc{Solved: solved, InFlight: l.InFlight, RatePerSecond: l.RatePerSecond, LatencySeconds: l.LatencySeconds}
	rep.Warnings = []string{}
	if c.IsSet("max-vus") {
		v, err := queueing.CheckVUs(rep.RatePerSecond, rep.LatencySeconds, c.Int("max-vus"))
		if err != nil {
			return usageError{err}
		}
		rep.SetVUs(v)
	}
	return e.render(c, rep.Warnings, rep.Write)
}

func (e *env) queueModel(multi bool) cli.ActionFunc {
	return func(c *cli.Context) error {
		if multi && len(c.StringSlice("run")) > 0 {
			return e.queueMMcRun(c)
		}
		req, err := cliapp.QueueRequest(c, multi)
		if err != nil {
			return err
		}
		rep := present.QueueDoc{Model: "M/M/1", Warnings: []string{}}
		if multi {
			rep.Model = "M/M/c"
		}
		p := req.Quantile
		if multi && c.String("target") != "" {
			tq := p
			rep.Target, rep.TargetQuantile = &req.TargetSeconds, &tq
		}
		qs, warn, err := pipeline.Queues(req)
		if err != nil {
			return usageError{err}
		}
		rep.Warnings = append(rep.Warnings, warn...)
		if p == 0 {
			p = 0.95
		}
		if rep.Rows, err = present.QueueRows(qs, p); err != nil {
			return usageError{err}
		}
		return e.render(c, rep.Warnings, rep.Write)
	}
}

// analyseRun reads the files of one k6 run with metric as the latency
// Trend and the --ramp-step flag, and the percentile pct (0: none) at
// every level.
func (e *env) analyseRun(c *cli.Context, files []string, metric string, pct float64) (*pipeline.Analysis, error) {
	opt := pipeline.Options{Metric: metric}
	opt.Knee.RampStepNS = int64(c.Duration("ramp-step"))
	if err := cliapp.WholeSeconds(c, "ramp-step", c.Duration("ramp-step"), true); err != nil {
		return nil, usageError{err}
	}
	if pct > 0 {
		opt.Knee.Percentiles = []float64{pct}
	}
	an, err := e.analyze(files, opt)
	if err != nil {
		if metric == "iteration_duration" && errors.Is(err, knee.ErrNoSamples) {
			return nil, usageError{fmt.Errorf("%s: no iteration_duration samples: the run has no completed iterations to measure", strings.Join(files, ", "))}
		}
		return nil, err
	}
	return an, nil
}

func (e *env) queueLittleRun(c *cli.Context) error {
	for _, k := range []string{"rate", "latency", "in-flight", "max-vus"} {
		if c.IsSet(k) {
			return usageError{fmt.Errorf("queue little: --run measures the quantities; drop --%s", k)}
		}
	}
	files := c.StringSlice("run")
	an, err := e.analyseRun(c, files, "iteration_duration", 0)
	if err != nil {
		return err
	}
	chk, err := pipeline.CheckLittle(an, c.Float64("tolerance"))
	if err != nil {
		return usageError{err}
	}
	rep := present.NewLittleRunDoc(files, an.Knee, an.Input, chk)
	return e.render(c, rep.Warnings, rep.Write)
}

func (e *env) queueMMcRun(c *cli.Context) error {
	opt, err := cliapp.EstimateOptions(c)
	if err != nil {
		return err
	}
	files, metric := c.StringSlice("run"), c.String("metric")
	an, err := e.analyseRun(c, files, metric, 100*opt.Quantile)
	if err != nil {
		return err
	}
	est, err := pipeline.EstimateMMc(an, opt)
	if err != nil {
		return usageError{fmt.Errorf("%s: %w", strings.Join(files, ", "), err)}
	}
	rep := present.NewQueueRunDoc(files, an.Knee, an.Input, an.Timeline.Metric(), est, opt)
	return e.render(c, rep.Warnings, rep.Write)
}
