package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/outfile"
	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/checks"
	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/report"
	"github.com/urfave/cli/v2"
)

// reportCommand is `report`. Its flags may also follow the files
// (`report run.csv -o report.md`), see interspersed.
func reportCommand(e *env) *cli.Command { return interspersed(e, reportParsed(e)) }

// interspersed wraps parsed so that its flags may follow the positional
// arguments: the wrapper takes its arguments unparsed, moves the flags
// first and runs parsed on them.
func interspersed(e *env, parsed *cli.Command) *cli.Command {
	outer := *parsed
	outer.SkipFlagParsing = true
	outer.Action = func(c *cli.Context) error {
		app := &cli.App{
			Name: "ldanalyze", Writer: e.stdout, ErrWriter: e.stderr, Reader: e.stdin,
			ExitErrHandler: func(*cli.Context, error) {}, HideHelpCommand: true,
			Commands: []*cli.Command{parsed},
		}
		return app.RunContext(c.Context, append([]string{"ldanalyze", parsed.Name}, flagsFirst(parsed.Flags, c.Args().Slice())...))
	}
	return &outer
}

// flagsFirst moves the flags of args (with their values) before the
// positional arguments, which follow a "--". Everything after a "--" in
// args stays positional.
func flagsFirst(flags []cli.Flag, args []string) []string {
	takesValue := map[string]bool{}
	for _, f := range flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var fl, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' {
			fl = append(fl, a)
			if name := strings.TrimLeft(a, "-"); !strings.Contains(name, "=") && takesValue[name] && i+1 < len(args) {
				fl = append(fl, args[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	return append(append(fl, "--"), pos...)
}

func reportParsed(e *env) *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "write a shareable report: markdown with PNG/SVG plots next to it, and a self-contained HTML page",
		Description: "The markdown opens with the verdict (knee, ceiling, SLO capacity, failed validity checks), then run facts,\n" +
			"the holds or ramp steps with inline bar charts, the endpoints and the checks. Plots are written next to\n" +
			"the markdown as NAME-load.png, NAME-latency.png, ... (and .svg) and linked relatively.",
		ArgsUsage: "FILE... (k6 CSV or JSON output, plain/gzip/zstd; several files are one distributed run; - is stdin)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the markdown to `FILE` and the plots next to it (default: markdown on standard output, no plots)"},
			&cli.StringFlag{Name: "html", Usage: "also write one self-contained HTML page to `FILE`"},
			&cli.StringFlag{Name: "slo", Usage: "latency objective in k6 threshold syntax, e.g. 'p95<500ms'; drawn on the latency plot"},
			&cli.DurationFlag{Name: "window", Aliases: []string{"w"}, Usage: "window width of the plots over time (whole seconds; default: about 80 windows over the run)"},
			&cli.StringFlag{Name: "metric", Aliases: []string{"m"}, Value: "http_req_duration", Usage: "the Trend metric whose latency is analysed"},
			&cli.StringFlag{Name: "by", Value: "name", Usage: "the tag that names an endpoint in the per-endpoint table"},
			&cli.DurationFlag{Name: "ramp-step", Value: 10 * time.Second, Usage: "width of the load levels a continuous ramp is cut into"},
			&cli.StringFlag{Name: "title", Usage: "report title (default: \"Load-test report: FILES\")"},
		},
		Action: func(c *cli.Context) error { return e.report(c) },
	}
}

// reportPercentiles are the percentile columns of the levels table.
var reportPercentiles = []float64{50, 95, 99}

func (e *env) report(c *cli.Context) error {
	paths := c.Args().Slice()
	if len(paths) == 0 {
		return usageError{fmt.Errorf("report: no input files: give one or more k6 output files, or - for stdin")}
	}
	win := c.Duration("window")
	if win < 0 || win%time.Second != 0 || c.Duration("ramp-step") < time.Second {
		return usageError{fmt.Errorf("report: --window and --ramp-step must be whole seconds, at least 1s")}
	}
	kopt := knee.Options{RampStepNS: int64(c.Duration("ramp-step")), Percentiles: reportPercentiles}
	var err error
	if s := c.String("slo"); s != "" {
		if kopt.SLO, err = knee.ParseSLO(s); err != nil {
			return usageError{err}
		}
	}
	for _, out := range []string{c.String("output"), c.String("html")} {
		if out != "" && out != "-" {
			if err := outfile.Check(out, outfile.Options{Inputs: inputsOf(c)}); err != nil {
				return usageError{err}
			}
		}
	}
	metric := c.String("metric")
	ropt := report.CollectorOptions{Metric: metric, EndpointTag: c.String("by")}
	if _, err := report.NewCollector(ropt); err != nil {
		return usageError{err}
	}
	newAcc := checkAccs(checks.Options{Metric: metric})
	acc, st, rerr := readParallel(paths, e.stdin, e.stderr,
		func() *reportAcc {
			rc, _ := report.NewCollector(ropt) // checked above
			return &reportAcc{newAcc(), rc}
		},
		func(a *reportAcc) func(*ingest.Sample) { return a.add }, (*reportAcc).merge,
		func(a *reportAcc, path string) { a.setInput(path) })
	kc, cc, rc := acc.kc, acc.cc, acc.rc
	reportStats(e.stderr, st)
	if rerr != nil {
		return rerr
	}
	kopt.WindowNS = int64(win)
	if win == 0 {
		kopt.WindowNS = rc.AutoWindowNS(st.ResolutionNS, 80)
	}
	res, err := knee.Analyze(kc, st.ResolutionNS, kopt)
	if err != nil {
		return fmt.Errorf("%s: %w", strings.Join(paths, ", "), err)
	}
	rep := report.Build(res, rc, report.Options{
		Title: c.String("title"), Files: paths, Samples: st.Rows, SLO: kopt.SLO,
		Checks: checks.Evaluate(cc, res),
		Text:   reportText(),
	})
	if err := errors.Join(cc.Err(), rc.Err()); err != nil {
		return fmt.Errorf("%s: %w", strings.Join(paths, ", "), err)
	}

	md := c.String("output")
	if md != "" && md != "-" || c.String("html") != "" {
		// Drawn before anything is written: a plot that cannot be drawn is
		// left out with a note, the rest of the report is written.
		for _, w := range rep.DrawPlots() {
			fmt.Fprintln(e.stderr, "ldanalyze: warning:", w)
		}
	}
	var mopt report.MarkdownOptions
	if md == "" || md == "-" {
		mopt.NoImages = true
		if err := rep.WriteMarkdown(e.stdout, mopt); err != nil {
			return err
		}
	} else {
		dir := filepath.Dir(md)
		mopt.ImagePrefix = strings.TrimSuffix(filepath.Base(md), filepath.Ext(md)) + "-"
		for _, p := range rep.Plots() {
			if err := e.writeFile(c, filepath.Join(dir, p.File(mopt.ImagePrefix, "png")), p.PNG()); err != nil {
				return err
			}
			if err := e.writeFile(c, filepath.Join(dir, p.File(mopt.ImagePrefix, "svg")), p.SVG()); err != nil {
				return err
			}
		}
		if err := e.writeFile(c, md, writerFunc(func(w io.Writer) error { return rep.WriteMarkdown(w, mopt) })); err != nil {
			return err
		}
	}
	if h := c.String("html"); h != "" {
		if err := e.writeFile(c, h, writerFunc(rep.WriteHTML)); err != nil {
			return err
		}
	}
	return nil
}

// reportText hands the report the wording and tables of `knee` and
// `check`, so the three print the same numbers the same way.
func reportText() report.Text {
	return report.Text{
		Num: num,
		Pct: pct,
		Findings: func(r *knee.Result) string {
			var b strings.Builder
			writeFindings(&b, r)
			return b.String()
		},
		Levels: func(ls []knee.Level, r *knee.Result) *render.Grid { return levelGrid(ls, r, reportPercentiles, false) },
		Checks: func(rep *checks.Report) *render.Grid { return checkGrid(rep, false) },
	}
}

// writerFunc adapts a renderer to io.WriterTo.
type writerFunc func(io.Writer) error

func (f writerFunc) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	err := f(cw)
	return cw.n, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeFile writes src to path as an output of the command (see
// env.output): the file replaces path only when the whole command
// succeeds. Errors name the path.
func (e *env) writeFile(c *cli.Context, path string, src io.WriterTo) error {
	f, err := e.outs.Create(path, outfile.Options{Inputs: inputsOf(c)})
	if err != nil {
		return err
	}
	_, werr := src.WriteTo(f)
	if err := f.Close(); err != nil {
		return err
	}
	if werr != nil {
		f.Abort()
		return fmt.Errorf("writing %s: %w", path, werr)
	}
	return nil
}

// reportAcc is what report accumulates from the samples; one per core.
type reportAcc struct {
	checkAcc
	rc *report.Collector
}

func (a *reportAcc) add(s *ingest.Sample) {
	a.checkAcc.add(s)
	a.rc.Add(s)
}

func (a *reportAcc) merge(o *reportAcc) {
	a.checkAcc.merge(&o.checkAcc)
	a.rc.Merge(o.rc)
}
