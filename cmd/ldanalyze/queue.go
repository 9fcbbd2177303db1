package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/present"
	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/jsonnum"
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
					"With --run, checks Little's law on a k6 run per hold (per ramp step when the run has fewer\n" +
					"than three holds, as `ldanalyze knee` does): the mean vus gauge L against the iterations that\n" +
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
					&cli.DurationFlag{Name: "ramp-step", Value: 10 * time.Second, Usage: "with --run: width of the levels a run without holds is cut into"},
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
			&cli.StringFlag{Name: "metric", Aliases: []string{"m"}, Usage: "with --run: " + metricUsage},
			&cli.DurationFlag{Name: "ramp-step", Value: 10 * time.Second, Usage: "with --run: width of the levels a run without holds is cut into"},
		)
	}
	return fl
}

// queueQuantity parses a flag value as a rate (per second) or a duration
// (seconds); a bare number is taken in the base unit.
func queueQuantity(name, s string, want scale.Unit) (float64, error) {
	q, err := scale.ParseQuantity(s)
	if err != nil {
		return 0, usageError{fmt.Errorf("--%s: %w", name, err)}
	}
	ok := q.Unit == want || q.Unit == scale.Count
	if want == scale.Count {
		ok = q.Unit == scale.Count
	}
	if !ok {
		return 0, usageError{fmt.Errorf("--%s %s: want %s, got a value in %q", name, s, map[scale.Unit]string{scale.PerSecond: "a rate per second", scale.Seconds: "a duration", scale.Count: "a number"}[want], q.Unit)}
	}
	return q.Value, nil
}

// littleReport is the JSON document of `queue little` (issue 7 contract:
// in_flight, or the solved quantity).
type littleReport struct {
	Solved         string     `json:"solved"`
	InFlight       float64    `json:"in_flight"`
	RatePerSecond  float64    `json:"rate_per_second"`
	LatencySeconds float64    `json:"latency_seconds"`
	VUs            *littleVUs `json:"vus,omitempty"`
	Warnings       []string   `json:"warnings"`
}

type littleVUs struct {
	Required   float64 `json:"required"`
	MaxVUs     int     `json:"max_vus"`
	Sufficient bool    `json:"sufficient"`
	Headroom   float64 `json:"headroom"`
}

func (e *env) queueLittle(c *cli.Context) error {
	if len(c.StringSlice("run")) > 0 {
		return e.queueLittleRun(c)
	}
	has := map[string]bool{}
	n := 0
	for _, k := range []string{"rate", "latency", "in-flight"} {
		if c.String(k) != "" {
			has[k] = true
			n++
		}
	}
	if n != 2 {
		return usageError{errors.New("queue little: give exactly two of --rate, --latency and --in-flight")}
	}
	var rep littleReport
	var err error
	if has["rate"] {
		if rep.RatePerSecond, err = queueQuantity("rate", c.String("rate"), scale.PerSecond); err != nil {
			return err
		}
	}
	if has["latency"] {
		if rep.LatencySeconds, err = queueQuantity("latency", c.String("latency"), scale.Seconds); err != nil {
			return err
		}
	}
	if has["in-flight"] {
		if rep.InFlight, err = queueQuantity("in-flight", c.String("in-flight"), scale.Count); err != nil {
			return err
		}
	}
	switch {
	case !has["in-flight"]:
		rep.Solved = "in_flight"
		rep.InFlight, err = queueing.InFlight(rep.RatePerSecond, rep.LatencySeconds)
	case !has["rate"]:
		rep.Solved = "rate_per_second"
		rep.RatePerSecond, err = queueing.Rate(rep.InFlight, rep.LatencySeconds)
	default:
		rep.Solved = "latency_seconds"
		rep.LatencySeconds, err = queueing.Latency(rep.InFlight, rep.RatePerSecond)
	}
	if err != nil {
		return usageError{err}
	}
	rep.Warnings = []string{}
	if c.IsSet("max-vus") {
		v, err := queueing.CheckVUs(rep.RatePerSecond, rep.LatencySeconds, c.Int("max-vus"))
		if err != nil {
			return usageError{err}
		}
		rep.VUs = &littleVUs{Required: v.Required, MaxVUs: v.MaxVUs, Sufficient: v.Sufficient, Headroom: v.Headroom}
		switch {
		case !v.Sufficient:
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("maxVUs %d is below the %.0f VUs the rate needs: k6 will drop iterations", v.MaxVUs, math.Ceil(v.Required)))
		case v.Headroom < 0.2:
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("maxVUs %d leaves only %.0f%% headroom over the mean %.0f busy VUs: bursts will drop iterations", v.MaxVUs, 100*v.Headroom, v.Required))
		}
	}
	return e.emit(c, func(w io.Writer, f render.Format) error { return writeLittle(w, e.stderr, f, &rep) })
}

func writeLittle(w, stderr io.Writer, f render.Format, r *littleReport) error {
	if f == render.JSON {
		return render.WriteJSON(w, r)
	}
	mark := func(k string) string {
		if k == r.Solved {
			return "(solved)"
		}
		return "(given)"
	}
	g := render.Grid{Header: []string{"quantity", "value", ""}}
	val := func(v float64, u scale.Unit) string {
		if f == render.CSV {
			return scaleCSV(v)
		}
		return u.Format(v)
	}
	g.Rows = [][]string{
		{"in flight L", val(r.InFlight, scale.Count), mark("in_flight")},
		{"rate λ", val(r.RatePerSecond, scale.PerSecond), mark("rate_per_second")},
		{"latency W", val(r.LatencySeconds, scale.Seconds), mark("latency_seconds")},
	}
	if v := r.VUs; v != nil {
		g.Rows = append(g.Rows,
			[]string{"VUs needed", val(v.Required, scale.Count), "rate × latency"},
			[]string{"maxVUs", strconv.Itoa(v.MaxVUs), fmt.Sprintf("sufficient: %v, headroom %.0f%%", v.Sufficient, 100*v.Headroom)})
	}
	if err := g.Write(w, f); err != nil {
		return err
	}
	if csvWarnings(f, stderr, r.Warnings) {
		return nil
	}
	return writeLines(w, f, nil, r.Warnings)
}

// queueRow is one M/M/c prediction in the JSON of `queue mm1` and
// `queue mmc`; times in seconds, rates per second, utilisation 0–1.
type queueRow struct {
	RatePerSecond   float64 `json:"rate_per_second"`
	ServiceSeconds  float64 `json:"service_seconds"`
	Servers         int     `json:"servers"`
	OfferedErlangs  float64 `json:"offered_erlangs"`
	Utilisation     float64 `json:"utilisation"`
	PWait           float64 `json:"p_wait"`
	WaitSeconds     float64 `json:"wait_seconds"`
	ResponseSeconds float64 `json:"response_seconds"`
	Quantile        float64 `json:"quantile"`
	QuantileSeconds float64 `json:"response_quantile_seconds"`
	QueueLength     float64 `json:"queue_length"`
	InSystem        float64 `json:"in_system"`
}

// queueReport is the JSON document of `queue mm1` and `queue mmc`: one row,
// or one per --rates value (unstable rates are left out and named in the
// warnings).
type queueReport struct {
	Model  string   `json:"model"`
	Target *float64 `json:"target_seconds,omitempty"`
	// TargetQuantile is the quantile the target applies to; 0 is the mean.
	TargetQuantile *float64   `json:"target_quantile,omitempty"`
	Rows           []queueRow `json:"rows"`
	Warnings       []string   `json:"warnings"`
}

func (e *env) queueModel(multi bool) cli.ActionFunc {
	return func(c *cli.Context) error {
		if multi && len(c.StringSlice("run")) > 0 {
			return e.queueMMcRun(c)
		}
		if c.String("service") == "" {
			return usageError{errors.New("queue mmc: give --service, or --run to estimate it from a k6 run")}
		}
		svc, err := queueQuantity("service", c.String("service"), scale.Seconds)
		if err != nil {
			return err
		}
		p := c.Float64("quantile")
		if !(p > 0 && p < 1) && !(multi && p == 0 && c.String("target") != "") {
			return usageError{fmt.Errorf("--quantile %g: want a value in (0, 1)", p)}
		}
		servers := 1
		rep := queueReport{Model: "M/M/1", Warnings: []string{}}
		var rates []float64
		if multi {
			rep.Model = "M/M/c"
			for _, s := range splitList(c.StringSlice("rates")) {
				r, err := queueQuantity("rates", s, scale.PerSecond)
				if err != nil {
					return err
				}
				rates = append(rates, r)
			}
		}
		if c.String("rate") != "" {
			r, err := queueQuantity("rate", c.String("rate"), scale.PerSecond)
			if err != nil {
				return err
			}
			rates = append([]float64{r}, rates...)
		}
		if len(rates) == 0 {
			return usageError{errors.New("queue: give --rate (or --rates for mmc)")}
		}
		var qs []queueing.MMC
		switch {
		case multi && c.String("target") != "":
			if c.IsSet("servers") || len(rates) != 1 {
				return usageError{errors.New("queue mmc: --target solves for the servers: give one --rate and no --servers")}
			}
			tgt, err := queueQuantity("target", c.String("target"), scale.Seconds)
			if err != nil {
				return err
			}
			q, err := queueing.ServersFor(rates[0], svc, tgt, p)
			if err != nil {
				return usageError{err}
			}
			tq := p
			rep.Target, rep.TargetQuantile = &tgt, &tq
			qs = []queueing.MMC{q}
		default:
			if multi {
				if !c.IsSet("servers") {
					return usageError{errors.New("queue mmc: give --servers, or --target to solve for them")}
				}
				servers = c.Int("servers")
			}
			qs, err = queueing.Curve(rates, svc, servers)
			if err != nil {
				return usageError{err}
			}
			if len(qs) == 0 && len(rates) == 1 {
				_, err := queueing.MMc(rates[0], svc, servers)
				return usageError{err}
			}
			if len(qs) < len(rates) {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d of the rates reach the capacity %s of %d server(s) and have no steady state; they are left out",
					len(rates)-len(qs), scale.PerSecond.Format(float64(servers)/svc), servers))
			}
		}
		if p == 0 {
			p = 0.95
		}
		for _, q := range qs {
			qt, err := q.ResponseQuantile(p)
			if err != nil {
				return usageError{err}
			}
			rep.Rows = append(rep.Rows, queueRow{
				RatePerSecond: q.ArrivalRate, ServiceSeconds: q.ServiceSeconds, Servers: q.Servers,
				OfferedErlangs: q.OfferedLoad, Utilisation: q.Utilisation, PWait: q.PWait,
				WaitSeconds: q.WaitSeconds, ResponseSeconds: q.ResponseSeconds, Quantile: p, QuantileSeconds: qt,
				QueueLength: q.QueueLength, InSystem: q.InSystem,
			})
		}
		return e.emit(c, func(w io.Writer, f render.Format) error { return writeQueue(w, e.stderr, f, &rep) })
	}
}

func writeQueue(w, stderr io.Writer, f render.Format, r *queueReport) error {
	if f == render.JSON {
		return render.WriteJSON(w, r)
	}
	qn := "p95"
	if len(r.Rows) > 0 {
		qn = "p" + strconv.FormatFloat(100*r.Rows[0].Quantile, 'g', -1, 64)
	}
	g := render.Grid{Header: []string{"rate", "servers", "utilisation", "P(wait)", "mean wait", "mean response", qn + " response", "in system"}}
	for _, q := range r.Rows {
		row := []string{scale.PerSecond.Format(q.RatePerSecond), strconv.Itoa(q.Servers),
			strconv.FormatFloat(100*q.Utilisation, 'f', 1, 64) + "%", strconv.FormatFloat(q.PWait, 'f', 4, 64),
			scale.Seconds.Format(q.WaitSeconds), scale.Seconds.Format(q.ResponseSeconds), scale.Seconds.Format(q.QuantileSeconds),
			strconv.FormatFloat(q.InSystem, 'f', 2, 64)}
		if f == render.CSV {
			row = []string{scaleCSV(q.RatePerSecond), strconv.Itoa(q.Servers), scaleCSV(q.Utilisation), scaleCSV(q.PWait),
				scaleCSV(q.WaitSeconds), scaleCSV(q.ResponseSeconds), scaleCSV(q.QuantileSeconds), scaleCSV(q.InSystem)}
		}
		g.Rows = append(g.Rows, row)
	}
	if err := g.Write(w, f); err != nil {
		return err
	}
	if csvWarnings(f, stderr, r.Warnings) {
		return nil
	}
	var lines []string
	if len(r.Rows) > 0 {
		q := r.Rows[0]
		s := fmt.Sprintf("%s, service time %s", r.Model, scale.Seconds.Format(q.ServiceSeconds))
		if len(r.Rows) == 1 {
			s += fmt.Sprintf(": offered load %.3g Erlangs, capacity %s", q.OfferedErlangs, scale.PerSecond.Format(float64(q.Servers)/q.ServiceSeconds))
		}
		lines = append(lines, s)
		if r.Target != nil {
			what := "mean"
			if *r.TargetQuantile > 0 {
				what = "p" + strconv.FormatFloat(100**r.TargetQuantile, 'g', -1, 64)
			}
			lines = append(lines, fmt.Sprintf("fewest servers whose %s response time is at most %s: %d", what, scale.Seconds.Format(*r.Target), q.Servers))
		}
	}
	lines = append(lines, "assumes Poisson arrivals and exponential service: real waits are usually longer")
	return writeLines(w, f, lines, r.Warnings)
}

// analyseRun reads the files of one k6 run with metric as the latency
// Trend and the --ramp-step flag, and the percentile pct (0: none) at
// every level.
func (e *env) analyseRun(c *cli.Context, files []string, metric string, pct float64) (*pipeline.Analysis, error) {
	opt := pipeline.Options{Metric: metric}
	opt.Knee.RampStepNS = int64(c.Duration("ramp-step"))
	if opt.Knee.RampStepNS < int64(time.Second) {
		return nil, usageError{errors.New("--ramp-step must be at least 1s")}
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

// littleRunReport is the JSON document of `queue little --run`: Little's
// law checked per level. in_flight is λ·W over all levels (the busy VUs
// the completed iterations account for) and vus the mean vus gauge.
type littleRunReport struct {
	Files     []string      `json:"files"`
	Model     knee.Model    `json:"model"`
	Levels    string        `json:"levels"`
	Tolerance float64       `json:"tolerance"`
	InFlight  float64       `json:"in_flight"`
	VUs       float64       `json:"vus"`
	Overall   littleRow     `json:"overall"`
	Rows      []littleRow   `json:"rows"`
	Warnings  []string      `json:"warnings"`
	Input     present.Input `json:"input"`
}

// littleRow is one level of `queue little --run`: L = vus, λ =
// iterations_per_second, W = iteration_seconds, busy_vus = λW, gap = L −
// λW, ratio = λW/L, band = the |gap| counted as agreement.
type littleRow struct {
	Start               time.Time `json:"start"`
	End                 time.Time `json:"end"`
	Seconds             float64   `json:"seconds"`
	VUs                 float64   `json:"vus"`
	Iterations          float64   `json:"iterations"`
	IterationsPerSecond float64   `json:"iterations_per_second"`
	IterationSeconds    float64   `json:"iteration_seconds"`
	BusyVUs             float64   `json:"busy_vus"`
	Gap                 float64   `json:"gap"`
	Ratio               float64   `json:"ratio"`
	Band                float64   `json:"band"`
	Verdict             string    `json:"verdict"`
	Reason              string    `json:"reason"`
}

func toLittleRow(l queueing.LittleLevel) littleRow {
	return littleRow{Start: l.Start, End: l.End, Seconds: l.Seconds, VUs: l.VUs, Iterations: l.Iterations,
		IterationsPerSecond: l.IterationsPerSecond, IterationSeconds: l.IterationSeconds, BusyVUs: l.BusyVUs,
		Gap: l.Gap, Ratio: l.Ratio, Band: l.Band, Verdict: l.Verdict, Reason: l.Reason}
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
	res, st := an.Knee, an.Input
	spans, err := pipeline.LittleSpans(an)
	if err != nil {
		return usageError{err}
	}
	chk, err := queueing.CheckLittle(spans, queueing.LittleOptions{Closed: res.Model == knee.Closed, Tolerance: c.Float64("tolerance")})
	if err != nil {
		return usageError{err}
	}
	rep := littleRunReport{Files: files, Model: res.Model, Levels: res.Levels, Tolerance: chk.Tolerance,
		InFlight: chk.Overall.BusyVUs, VUs: chk.Overall.VUs, Overall: toLittleRow(chk.Overall),
		Rows: []littleRow{}, Warnings: append(append([]string{}, chk.Warnings...), knee.Messages(res.Warnings)...), Input: present.InputOf(files, st)}
	for _, l := range chk.Levels {
		rep.Rows = append(rep.Rows, toLittleRow(l))
	}
	return e.emit(c, func(w io.Writer, f render.Format) error { return writeLittleRun(w, e.stderr, f, &rep) })
}

func writeLittleRun(w, stderr io.Writer, f render.Format, r *littleRunReport) error {
	if f == render.JSON {
		return render.WriteJSON(w, r)
	}
	g := render.Grid{Header: []string{"start", "seconds", "VUs L", "iterations/s λ", "iteration W", "λ·W", "L − λ·W", "λ·W ÷ L", "verdict"}}
	row := func(label string, l littleRow) []string {
		if f == render.CSV {
			return []string{l.Start.Format(time.RFC3339), scaleCSV(l.Seconds), scaleCSV(l.VUs), scaleCSV(l.IterationsPerSecond),
				scaleCSV(l.IterationSeconds), scaleCSV(l.BusyVUs), scaleCSV(l.Gap), scaleCSV(l.Ratio), l.Verdict}
		}
		return []string{label, strconv.FormatFloat(l.Seconds, 'f', 0, 64), strconv.FormatFloat(l.VUs, 'f', 1, 64),
			strconv.FormatFloat(l.IterationsPerSecond, 'f', 2, 64), scale.Seconds.Format(l.IterationSeconds),
			strconv.FormatFloat(l.BusyVUs, 'f', 1, 64), strconv.FormatFloat(l.Gap, 'f', 1, 64),
			strconv.FormatFloat(l.Ratio, 'f', 3, 64), l.Verdict}
	}
	for _, l := range r.Rows {
		g.Rows = append(g.Rows, row(l.Start.Format(time.TimeOnly), l))
	}
	if f != render.CSV {
		g.Rows = append(g.Rows, row("all levels", r.Overall))
	}
	if err := g.Write(w, f); err != nil {
		return err
	}
	if csvWarnings(f, stderr, r.Warnings) {
		return nil
	}
	kind := map[string]string{"holds": "hold", "ramp": "ramp step"}[r.Levels]
	agree := 0
	for _, l := range r.Rows {
		if l.Verdict == queueing.LittleHolds {
			agree++
		}
	}
	head := fmt.Sprintf("Little's law L = λW per %s of a %s-model run: %d of %d levels agree within %.0f%%",
		orDefault(kind, "level"), r.Model, agree, len(r.Rows), 100*r.Tolerance)
	if r.Model == knee.Open {
		head = strings.Replace(head, "a open", "an open", 1) + " or the sampling noise of the once-a-second vus gauge"
	}
	lines := []string{
		head,
		fmt.Sprintf("all levels: L = %.1f VUs, λ·W = %.2f/s × %s = %.1f (%s): %s", r.Overall.VUs, r.Overall.IterationsPerSecond,
			scale.Seconds.Format(r.Overall.IterationSeconds), r.Overall.BusyVUs, r.Overall.Verdict, r.Overall.Reason),
	}
	for _, l := range r.Rows {
		if l.Verdict != queueing.LittleHolds {
			lines = append(lines, fmt.Sprintf("%s: %s", l.Start.Format(time.TimeOnly), l.Reason))
		}
	}
	return writeLines(w, f, lines, r.Warnings)
}

// queueRunReport is the JSON document of `queue mmc --run`: an M/M/c
// queue estimated from a k6 run and its prediction beside each measured
// level. Times in seconds, rates per second, utilisation 0–1; predictions
// are null where the model has no steady state.
type queueRunReport struct {
	Files            []string      `json:"files"`
	Model            string        `json:"model"`
	Workload         knee.Model    `json:"workload_model"`
	Levels           string        `json:"levels"`
	Metric           string        `json:"metric"`
	ServiceSeconds   float64       `json:"service_seconds"`
	ServiceEstimated bool          `json:"service_estimated"`
	ServiceLevels    int           `json:"service_levels"`
	CeilingRPS       jsonnum.Float `json:"ceiling_rps"`
	ServersExact     jsonnum.Float `json:"servers_exact"`
	Servers          int           `json:"servers"`
	ServersEstimated bool          `json:"servers_estimated"`
	CapacityRPS      float64       `json:"capacity_rps"`
	Quantile         float64       `json:"quantile"`
	Rows             []queueRunRow `json:"rows"`
	Warnings         []string      `json:"warnings"`
	Input            present.Input `json:"input"`
}

// queueRunRow is one measured level beside the model.
type queueRunRow struct {
	Start                    time.Time     `json:"start"`
	End                      time.Time     `json:"end"`
	ArrivalRPS               float64       `json:"arrival_rps"`
	OfferedRPS               jsonnum.Float `json:"offered_rps"`
	ThroughputRPS            float64       `json:"throughput_rps"`
	Utilisation              float64       `json:"utilisation"`
	Stable                   bool          `json:"stable"`
	Samples                  uint64        `json:"samples"`
	MeasuredMeanSeconds      jsonnum.Float `json:"measured_mean_seconds"`
	MeasuredQuantileSeconds  jsonnum.Float `json:"measured_quantile_seconds"`
	PredictedMeanSeconds     jsonnum.Float `json:"predicted_mean_seconds"`
	PredictedQuantileSeconds jsonnum.Float `json:"predicted_quantile_seconds"`
	PWait                    jsonnum.Float `json:"p_wait"`
}

func (e *env) queueMMcRun(c *cli.Context) error {
	for _, k := range []string{"rate", "rates", "target"} {
		if c.IsSet(k) {
			return usageError{fmt.Errorf("queue mmc: --run takes the rates from the run; drop --%s", k)}
		}
	}
	q := c.Float64("quantile")
	if !(q > 0 && q < 1) {
		return usageError{fmt.Errorf("--quantile %g: want a value in (0, 1)", q)}
	}
	var opt queueing.EstimateOptions
	if s := c.String("service"); s != "" {
		v, err := queueQuantity("service", s, scale.Seconds)
		if err != nil {
			return err
		}
		if !(v > 0) {
			return usageError{fmt.Errorf("--service %s: want a duration > 0", s)}
		}
		opt.ServiceSeconds = v
	}
	if c.IsSet("servers") {
		if opt.Servers = c.Int("servers"); opt.Servers < 1 {
			return usageError{fmt.Errorf("--servers %d: want at least 1", opt.Servers)}
		}
	}
	files, metric := c.StringSlice("run"), c.String("metric")
	an, err := e.analyseRun(c, files, metric, 100*q)
	if err != nil {
		return err
	}
	res, st := an.Knee, an.Input
	metric = an.Timeline.Metric()
	in, ceiling, reached, err := pipeline.LoadLevels(an, q)
	if err != nil {
		return err
	}
	opt.CeilingNotReached = !reached
	opt.Quantile, opt.Closed = q, res.Model == knee.Closed
	est, err := queueing.EstimateMMc(in, ceiling, opt)
	if err != nil {
		return usageError{fmt.Errorf("%s: %w", strings.Join(files, ", "), err)}
	}
	nan := jsonnum.Float(math.NaN())
	rep := queueRunReport{Files: files, Model: "M/M/c", Workload: res.Model, Levels: res.Levels, Metric: metric,
		ServiceSeconds: est.ServiceSeconds, ServiceEstimated: opt.ServiceSeconds == 0, ServiceLevels: est.ServiceLevels,
		CeilingRPS: nan, ServersExact: nan, Servers: est.Servers, ServersEstimated: opt.Servers == 0,
		CapacityRPS: est.CapacityPerSecond, Quantile: est.Quantile, Rows: []queueRunRow{},
		Warnings: append(append([]string{}, est.Warnings...), knee.Messages(res.Warnings)...), Input: present.InputOf(files, st)}
	if est.CeilingPerSecond > 0 {
		rep.CeilingRPS = jsonnum.Float(est.CeilingPerSecond)
	}
	if opt.Servers == 0 {
		rep.ServersExact = jsonnum.Float(est.ServersExact)
	}
	for _, l := range est.Levels {
		row := queueRunRow{Start: l.Start, End: l.End, ArrivalRPS: l.ArrivalPerSecond, OfferedRPS: nan, ThroughputRPS: l.ThroughputPerSecond,
			Utilisation: l.Utilisation, Stable: l.Stable, Samples: l.Samples,
			MeasuredMeanSeconds: nan, MeasuredQuantileSeconds: nan, PredictedMeanSeconds: nan, PredictedQuantileSeconds: nan, PWait: nan}
		if l.OfferedPerSecond > 0 {
			row.OfferedRPS = jsonnum.Float(l.OfferedPerSecond)
		}
		if l.Samples > 0 {
			row.MeasuredMeanSeconds, row.MeasuredQuantileSeconds = jsonnum.Float(l.MeanSeconds), jsonnum.Float(l.QuantileSeconds)
		}
		if l.Stable {
			row.PredictedMeanSeconds, row.PredictedQuantileSeconds, row.PWait = jsonnum.Float(l.PredictedMeanSeconds), jsonnum.Float(l.PredictedQuantileSeconds), jsonnum.Float(l.PWait)
		}
		rep.Rows = append(rep.Rows, row)
	}
	return e.emit(c, func(w io.Writer, f render.Format) error { return writeQueueRun(w, e.stderr, f, &rep) })
}

func writeQueueRun(w, stderr io.Writer, f render.Format, r *queueRunReport) error {
	if f == render.JSON {
		return render.WriteJSON(w, r)
	}
	qn := knee.PercentileName(100 * r.Quantile)
	g := render.Grid{Header: []string{"start", "rate", "utilisation", "measured mean", "model mean", "measured " + qn, "model " + qn}}
	sec := func(v jsonnum.Float) string {
		if f == render.CSV {
			if !v.Valid() {
				return ""
			}
			return scaleCSV(float64(v))
		}
		if !v.Valid() {
			return "–"
		}
		return scale.Seconds.Format(float64(v))
	}
	for _, l := range r.Rows {
		pm, pq := sec(l.PredictedMeanSeconds), sec(l.PredictedQuantileSeconds)
		if !l.Stable && f != render.CSV {
			pm, pq = "no steady state", "–"
		}
		row := []string{l.Start.Format(time.TimeOnly), scale.PerSecond.Format(l.ArrivalRPS), strconv.FormatFloat(100*l.Utilisation, 'f', 0, 64) + "%",
			sec(l.MeasuredMeanSeconds), pm, sec(l.MeasuredQuantileSeconds), pq}
		if f == render.CSV {
			row[0], row[1], row[2] = l.Start.Format(time.RFC3339), scaleCSV(l.ArrivalRPS), scaleCSV(l.Utilisation)
		}
		g.Rows = append(g.Rows, row)
	}
	if err := g.Write(w, f); err != nil {
		return err
	}
	if csvWarnings(f, stderr, r.Warnings) {
		return nil
	}
	svc := "given"
	if r.ServiceEstimated {
		svc = fmt.Sprintf("the mean %s at the %d lowest-load level(s)", r.Metric, r.ServiceLevels)
	}
	srv := "given"
	if r.ServersEstimated {
		srv = fmt.Sprintf("X_max·S = %s × %s = %.2f, rounded; utilisation law at the ceiling", scale.PerSecond.Format(float64(r.CeilingRPS)),
			scale.Seconds.Format(r.ServiceSeconds), float64(r.ServersExact))
	}
	rate := "offered rate (open model)"
	if r.Workload == knee.Closed {
		rate = "measured throughput (closed model)"
	}
	lines := []string{
		fmt.Sprintf("M/M/c from the run: service time S = %s (%s), servers c = %d (%s)", scale.Seconds.Format(r.ServiceSeconds), svc, r.Servers, srv),
		fmt.Sprintf("model capacity c/S = %s", scale.PerSecond.Format(r.CapacityRPS)),
		"rate per level: the " + rate,
		"assumes Poisson arrivals and exponential service: waits are longer for heavier-tailed service, shorter for more regular service",
	}
	if r.CeilingRPS.Valid() {
		lines[1] += fmt.Sprintf(", measured ceiling %s", scale.PerSecond.Format(float64(r.CeilingRPS)))
	}
	return writeLines(w, f, lines, r.Warnings)
}
