package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/queueing"
	"github.com/ldanalyze/ldanalyze/pkg/scale"
	"github.com/urfave/cli/v2"
)

// TODO(issue 7): Little's-law check on a k6 run (mean vus vs completed
// rate × mean iteration duration per hold) and service time/servers
// estimated from a run's holds, once the k6 reader in pkg/ingest settles.

func queueCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "queue",
		Usage: "queueing models: Little's law, M/M/1, M/M/c (Erlang C), USL",
		Subcommands: []*cli.Command{
			{
				Name:      "little",
				Usage:     "Little's law L = λW: give two of --rate, --latency, --in-flight and get the third",
				UsageText: "ldanalyze queue little --rate 600 --latency 2.8s [--max-vus 1500]",
				Description: "With --max-vus, checks whether an open-model k6 test had enough VUs:\n" +
					"busy VUs = rate × iteration duration (pass the iteration duration as --latency).",
				Flags: append([]cli.Flag{
					&cli.StringFlag{Name: "rate", Aliases: []string{"r"}, Usage: "completed `RATE` per second, e.g. 600, 600/s, 1.5k"},
					&cli.StringFlag{Name: "latency", Aliases: []string{"w"}, Usage: "mean time in the system, a `DURATION` such as 2.8s or 350ms (a bare number is seconds)"},
					&cli.StringFlag{Name: "in-flight", Aliases: []string{"l"}, Usage: "mean `NUMBER` in the system (requests, iterations, VUs)"},
					&cli.IntFlag{Name: "max-vus", Usage: "the k6 maxVUs the test allowed, to check against rate × latency"},
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
					"ldanalyze queue mmc --rates 100,300,500,700 --service 20ms --servers 16",
				Description: "Assumes Poisson arrivals and exponential service; real service times are heavier-tailed,\n" +
					"so treat the predicted waits as a lower bound.",
				Flags:  append(queueModelFlags(true), outputFlags()...),
				Action: e.queueModel(true),
			},
			{
				Name:      "usl",
				Usage:     "fit the Universal Scalability Law to (concurrency, throughput) points (same as scale --usl)",
				UsageText: "ldanalyze queue usl --point 1=65 --point 18=996 ... | sweep.csv",
				ArgsUsage: "[FILE...] (CSV of N,X points; - is stdin)",
				Flags:     append(scaleFlags()[2:], outputFlags()...),
				Action:    e.uslAction,
			},
		},
	}
}

func queueModelFlags(multi bool) []cli.Flag {
	fl := []cli.Flag{
		&cli.StringFlag{Name: "rate", Aliases: []string{"r"}, Usage: "arrival `RATE` per second, e.g. 600 or 1.5k/s"},
		&cli.StringFlag{Name: "service", Aliases: []string{"s"}, Required: true, Usage: "mean service time, a `DURATION` such as 20ms"},
		&cli.Float64Flag{Name: "quantile", Value: 0.95, Usage: "response-time `QUANTILE` to report, in (0, 1)"},
	}
	if multi {
		fl = append(fl,
			&cli.IntFlag{Name: "servers", Aliases: []string{"c"}, Usage: "number of servers `C`"},
			&cli.StringFlag{Name: "target", Usage: "find the fewest servers whose --quantile response time (mean with --quantile 0) is at most `DURATION`"},
			&cli.StringSliceFlag{Name: "rates", Usage: "predict the response-time curve at these `RATES` (comma-separated or repeated)"},
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
	w, f, closeOut, err := e.output(c)
	if err != nil {
		return err
	}
	if err := writeLittle(w, e.stderr, f, &rep); err != nil {
		closeOut()
		return err
	}
	return closeOut()
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
	if f == render.CSV {
		for _, s := range r.Warnings {
			fmt.Fprintln(stderr, "warning:", s)
		}
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
		w, f, closeOut, err := e.output(c)
		if err != nil {
			return err
		}
		if err := writeQueue(w, e.stderr, f, &rep); err != nil {
			closeOut()
			return err
		}
		return closeOut()
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
	if f == render.CSV {
		for _, s := range r.Warnings {
			fmt.Fprintln(stderr, "warning:", s)
		}
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
