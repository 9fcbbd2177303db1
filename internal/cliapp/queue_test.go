package cliapp

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
	"github.com/ldanalyze/ldanalyze/pkg/queueing"
)

// queueFlags run a command with queue mmc's model flags on args.
func queueFlags(t *testing.T, args []string, action func(c *cli.Context)) {
	t.Helper()
	app := &cli.App{Name: "x", Writer: &strings.Builder{}, ErrWriter: &strings.Builder{}, Flags: []cli.Flag{
		&cli.StringFlag{Name: "rate"}, &cli.StringFlag{Name: "service"}, &cli.Float64Flag{Name: "quantile", Value: 0.95},
		&cli.IntFlag{Name: "servers"}, &cli.StringFlag{Name: "target"}, &cli.StringSliceFlag{Name: "rates"},
	}, Action: func(c *cli.Context) error { action(c); return nil }}
	if err := app.Run(append([]string{"x"}, args...)); err != nil {
		t.Fatal(err)
	}
}

// TestQueueRequest: rates, service time and servers in base units (--rate
// first, then --rates), --target instead of --servers, and the refusals
// (exact messages).
func TestQueueRequest(t *testing.T) {
	var req pipeline.QueueRequest
	var err error
	queueFlags(t, []string{"--rate", "600", "--rates", "100,1.5k", "--service", "20ms", "--servers", "16"}, func(c *cli.Context) { req, err = QueueRequest(c, true) })
	if err != nil || len(req.RatesPerSecond) != 3 || req.RatesPerSecond[0] != 600 || req.RatesPerSecond[2] != 1500 || req.ServiceSeconds != 0.02 || req.Servers != 16 || req.Quantile != 0.95 {
		t.Errorf("%+v, %v", req, err)
	}
	queueFlags(t, []string{"--rate", "600", "--service", "20ms", "--target", "50ms", "--quantile", "0"}, func(c *cli.Context) { req, err = QueueRequest(c, true) })
	if err != nil || req.TargetSeconds != 0.05 || req.Servers != 1 || req.Quantile != 0 {
		t.Errorf("target: %+v, %v", req, err)
	}
	for _, c := range []struct {
		args  []string
		multi bool
		want  string
	}{
		{[]string{"--rate", "600"}, true, "queue mmc: give --service, or --run to estimate it from a k6 run"},
		{[]string{"--service", "20ms"}, false, "queue: give --rate (or --rates for mmc)"},
		{[]string{"--service", "20ms", "--rate", "6", "--quantile", "1"}, false, "--quantile 1: want a value in (0, 1)"},
		{[]string{"--service", "20ms", "--rate", "6"}, true, "queue mmc: give --servers, or --target to solve for them"},
		{[]string{"--service", "20ms", "--rate", "6", "--target", "1s", "--servers", "2"}, true, "queue mmc: --target solves for the servers: give one --rate and no --servers"},
	} {
		queueFlags(t, c.args, func(cc *cli.Context) { _, err = QueueRequest(cc, c.multi) })
		if err == nil || err.Error() != c.want {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

// TestEstimateOptions: --run's overrides, and the flags it refuses.
func TestEstimateOptions(t *testing.T) {
	var opt queueing.EstimateOptions
	var err error
	queueFlags(t, []string{"--service", "10ms", "--servers", "2", "--quantile", "0.99"}, func(c *cli.Context) { opt, err = EstimateOptions(c) })
	if err != nil || opt.ServiceSeconds != 0.01 || opt.Servers != 2 || opt.Quantile != 0.99 {
		t.Errorf("%+v, %v", opt, err)
	}
	for args, want := range map[string]string{
		"--rate 5":      "queue mmc: --run takes the rates from the run; drop --rate",
		"--servers 0":   "--servers 0: want at least 1",
		"--service 0s":  "--service 0s: want a duration > 0",
		"--quantile 0":  "--quantile 0: want a value in (0, 1)",
		"--target 50ms": "queue mmc: --run takes the rates from the run; drop --target",
	} {
		queueFlags(t, strings.Fields(args), func(c *cli.Context) { _, err = EstimateOptions(c) })
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
}
