package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/checks"
	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/prom"
	"github.com/ldanalyze/ldanalyze/pkg/summary"
	"github.com/urfave/cli/v2"
)

func checkCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "did the test measure the system, or itself? validity checks with evidence (exit 1 when one fails)",
		ArgsUsage: "FILE... (k6 CSV or JSON output, plain/gzip/zstd; several files are one distributed run; - is stdin)",
		Flags: append([]cli.Flag{
			&cli.DurationFlag{Name: "window", Aliases: []string{"w"}, Value: 10 * time.Second, Usage: "window width for saying when errors and 429s happened (whole seconds)"},
			&cli.StringFlag{Name: "metric", Aliases: []string{"m"}, Value: "http_req_duration", Usage: "the latency Trend the checks read"},
			&cli.StringSliceFlag{Name: "threshold", Aliases: []string{"t"}, Usage: "k6 threshold re-evaluated per load level, e.g. 'http_req_failed:rate<0.01' or 'http_req_duration{name:order}:p(95)<500' (repeatable)"},
			&cli.StringFlag{Name: "summary", Usage: "k6 summary `FILE` (--summary-export or handleSummary JSON) whose thresholds are re-evaluated per load level"},
			&cli.DurationFlag{Name: "ramp-step", Value: 10 * time.Second, Usage: "width of the load levels a continuous ramp is cut into"},
			&cli.StringFlag{Name: "prom", Usage: "`PATH` as knee --prom takes it (pod CPU, limits, throttling): judge the load generator's CPU and throttling"},
			&cli.StringFlag{Name: "generator-pod", Value: checks.DefaultGeneratorPods, Usage: "`REGEX` matching the whole name of the load generator's pods in --prom"},
		}, outputFlags()...),
		Action: func(c *cli.Context) error { return e.check(c) },
	}
}

// checkReport is the JSON document of `check`: the checks plus the input
// counts.
type checkReport struct {
	*checks.Report
	Input inputSummary `json:"input"`
}

func (e *env) check(c *cli.Context) error {
	paths := c.Args().Slice()
	if len(paths) == 0 {
		return usageError{fmt.Errorf("check: no input files: give one or more k6 output files, or - for stdin")}
	}
	win := c.Duration("window")
	if win < time.Second || win%time.Second != 0 || c.Duration("ramp-step") < time.Second {
		return usageError{fmt.Errorf("check: --window and --ramp-step must be whole seconds, at least 1s")}
	}
	opt := checks.Options{Metric: c.String("metric"), WindowNS: int64(win)}
	for _, s := range splitThresholds(c.StringSlice("threshold")) {
		t, err := checks.ParseThreshold(s)
		if err != nil {
			return usageError{err}
		}
		opt.Thresholds = append(opt.Thresholds, t)
	}
	if p := c.String("summary"); p != "" {
		sum, err := summary.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range sum.Metrics {
			for _, th := range m.Thresholds {
				t, err := checks.ParseThresholdExpr(m.Name, th.Source)
				if err != nil {
					fmt.Fprintf(e.stderr, "ldanalyze: %s: skipping threshold: %v\n", p, err)
					continue
				}
				opt.Thresholds = append(opt.Thresholds, t)
			}
		}
	}
	pods, err := checks.GeneratorPods(c.String("generator-pod"))
	if err != nil {
		return usageError{err}
	}
	if dir := c.String("prom"); dir != "" {
		exp, err := prom.ReadExport(dir)
		if err != nil {
			return fmt.Errorf("--prom %s: %w", dir, err)
		}
		opt.Generator = checks.GeneratorFromExport(exp, pods)
	}
	w, format, closeOut, err := e.output(c)
	if err != nil {
		return err
	}
	newAcc := checkAccs(opt)
	acc, st, rerr := readParallel(paths, e.stdin, e.stderr,
		func() *checkAcc { a := newAcc(); return &a },
		func(a *checkAcc) func(*ingest.Sample) { return a.add }, (*checkAcc).merge, (*checkAcc).setInput)
	col, kc := acc.cc, acc.kc
	reportStats(e.stderr, st)
	if rerr != nil {
		closeOut()
		return rerr
	}
	kopt := knee.Options{RampStepNS: int64(c.Duration("ramp-step")), WindowNS: 30e9}
	if r := st.ResolutionNS; r > kopt.WindowNS {
		kopt.WindowNS = (r + 1e9 - 1) / 1e9 * 1e9
	}
	res, err := knee.Analyze(kc, st.ResolutionNS, kopt)
	if err != nil && (!errors.Is(err, knee.ErrNoSamples) || st.Rows == 0) {
		// A run without the latency metric is still checked; a file
		// without any sample is not a run.
		closeOut()
		return fmt.Errorf("%s: %w", strings.Join(paths, ", "), err)
	}
	warnSpans(e.stderr, strings.Join(paths, ", "), res)
	rep := checks.Evaluate(col, res)
	if err := col.Err(); err != nil {
		closeOut()
		return fmt.Errorf("%s: %w", strings.Join(paths, ", "), err)
	}
	switch format {
	case render.JSON:
		err = render.WriteJSON(w, checkReport{Report: rep, Input: summarizeInput(paths, st)})
	default:
		err = checkGrid(rep, format == render.CSV).Write(w, format)
	}
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if rep.Failed() {
		var ids []string
		for _, ch := range rep.Checks {
			if ch.Status == checks.Fail {
				ids = append(ids, ch.ID)
			}
		}
		return errFinding{msg: "failed checks: " + strings.Join(ids, ", ")}
	}
	return nil
}

// splitThresholds splits repeated --threshold values. Commas separate
// thresholds only outside braces, so "m{a:1,b:2}:p(95)<5" stays whole.
func splitThresholds(vals []string) []string {
	var out []string
	for _, v := range vals {
		depth, start := 0, 0
		for i, r := range v {
			switch r {
			case '{':
				depth++
			case '}':
				depth--
			case ',':
				if depth == 0 {
					if s := strings.TrimSpace(v[start:i]); s != "" {
						out = append(out, s)
					}
					start = i + 1
				}
			}
		}
		if s := strings.TrimSpace(v[start:]); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// checkGrid is the checklist table: id, status, evidence, meaning. In CSV
// the evidence keeps full precision.
func checkGrid(rep *checks.Report, machine bool) *render.Grid {
	f, sep := num, ", "
	if machine {
		f, sep = csvNum, "; "
	}
	g := &render.Grid{Header: []string{"id", "status", "evidence", "meaning"}}
	for _, ch := range rep.Checks {
		ev := make([]string, len(ch.Evidence))
		for i, v := range ch.Evidence {
			ev[i] = v.Name + "=" + f(v.Value)
		}
		g.Rows = append(g.Rows, []string{ch.ID, string(ch.Status), strings.Join(ev, sep), ch.Message})
	}
	return g
}

// checkAcc is the knee and checks collectors of one core (check; knee
// and report add theirs).
type checkAcc struct {
	kc *knee.Collector
	cc *checks.Collector
}

// checkAccs returns a maker of checkAccs for one run: forks of one pair
// of collectors, so that every core's share their per-second records (one
// copy of them however many cores read).
func checkAccs(opt checks.Options) func() checkAcc {
	cseed, kseed := checks.NewCollector(opt), knee.NewCollector(opt.Metric)
	return func() checkAcc { return checkAcc{kc: kseed.Fork(), cc: cseed.Fork()} }
}

func (a *checkAcc) setInput(path string) { a.kc.SetInput(path) }

func (a *checkAcc) add(s *ingest.Sample) {
	a.kc.Add(s)
	a.cc.Add(s)
}

func (a *checkAcc) merge(o *checkAcc) {
	a.kc.Merge(o.kc)
	a.cc.Merge(o.cc)
}
