package pipeline

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strings"

	"github.com/ldanalyze/ldanalyze/pkg/checks"
	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/k6metric"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/over"
	"github.com/ldanalyze/ldanalyze/pkg/prom"
	"github.com/ldanalyze/ldanalyze/pkg/saturation"
	"github.com/ldanalyze/ldanalyze/pkg/summary"
	"github.com/ldanalyze/ldanalyze/pkg/threshold"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
	"github.com/ldanalyze/ldanalyze/pkg/window"
)

// Options configure Analyze. The zero value analyses the run's own
// protocol's request Trend with the knee package's defaults.
type Options struct {
	// Metric is the Trend whose latency is analysed; empty: the run's own
	// (timeline.Options.Metric).
	Metric string
	// Knee configures the load-level analysis (window, ramp step,
	// percentiles, SLO). WindowNS 0 is chosen from the run's span when
	// AutoWindows is set, else knee's default (30 s).
	Knee knee.Options
	// AutoWindows, when set and Knee.WindowNS is 0, cuts the run into
	// about AutoWindows windows of whole seconds (report's plots).
	AutoWindows int
	// Checks configure the validity checks (their error window, the load
	// generator's data). Checks.WindowNS 0 is checks.DefaultWindowNS in
	// every command (so knee, report, suite, ledger and check quote the
	// same worst window whatever their tables' windows), widened to whole
	// seconds of the input's resolution when that is coarser.
	Checks checks.Options
	// Thresholds are k6 thresholds re-evaluated per load level by the
	// checks (check --threshold; with SummaryThresholds, those of the
	// summary file too).
	Thresholds []threshold.Threshold
	// Queries select metrics whose aggregate the timeline keeps
	// (timeline.Options.Queries; QueryStats reads them).
	Queries []timeline.Query
	// SummaryPath is k6's own end-of-test summary of the same run
	// (--summary): its figures are put beside the computed ones.
	SummaryPath string
	// SummaryThresholds adds the summary's thresholds to Thresholds.
	SummaryThresholds bool
	// PromDir is a Prometheus export (`prom pull` folder): saturation
	// attribution and the load generator's health.
	PromDir string
	// Attribution names what saturated from PromDir's series (knee,
	// report, ledger); without it PromDir only feeds the generator check.
	Attribution bool
	// LinkMbps is the network link speed for the attribution, Mb/s (0:
	// not judged).
	LinkMbps float64
	// GeneratorPods matches the load generator's pods in PromDir (nil:
	// checks.DefaultGeneratorPods).
	GeneratorPods *regexp.Regexp
	// By, when not empty, adds per-window, per-tag rows of the metric
	// (knee --by), of windows Knee.WindowNS wide.
	By []string
	// ByLimit bounds the tag values of By and Endpoints with rows of their
	// own (window.Options.MaxGroups; 0: window.DefaultMaxGroups); the rest
	// are summed in (other) rows.
	ByLimit int
	// Endpoints, when not empty, adds whole-run rows of the metric per
	// value of this tag (the report's endpoint table).
	Endpoints string
	// EndpointPercentiles are the percentiles of the endpoint rows
	// (default 50, 95, 99).
	EndpointPercentiles []float64
	// Over, when not nil, counts the samples of the metric above a limit,
	// per value of its By tags (knee --over); Over.Metric is set from
	// Metric. Files only (a Source has no samples).
	Over *over.Options
	// WidenWindow widens Knee.WindowNS to the input's resolution when it is
	// finer (check, whose windows are not shown), instead of refusing it.
	WidenWindow bool
	// AllowNoMetric keeps going when the run has no sample of the metric
	// (check): Knee is then nil and KneeErr says why.
	AllowNoMetric bool
	// Stdin is read for the path "-".
	Stdin io.Reader
	// OnRead, when not nil, is told the bytes read from the files as the
	// read goes on (a progress bar's feed), from the reading goroutine.
	OnRead func(n int)
	// Workers is the read parallelism (0: runtime.GOMAXPROCS).
	Workers int
}

// Analysis is one run, read and analysed.
type Analysis struct {
	// Files are the inputs as given.
	Files []string
	// Options are the options the run was analysed with.
	Options Options
	// Input counts what the readers read and skipped.
	Input ingest.Stats
	// Timeline is the run's per-second record.
	Timeline *timeline.Timeline
	// Knee is the load-level analysis; nil only with AllowNoMetric when
	// the metric has no sample (KneeErr).
	Knee    *knee.Result
	KneeErr error
	// Checks are the validity verdicts.
	Checks *checks.Report
	// Attribution is what saturated (with PromDir), else nil.
	Attribution *saturation.Attribution
	// Summary is k6's own summary (SummaryPath), SummaryRows its figures
	// beside the computed ones.
	Summary     *summary.Summary
	SummaryRows []SummaryRow
	// Groups are the --by rows, Endpoints the per-endpoint rows.
	Groups    []window.Row
	Endpoints []window.Row
	// Over is the count above Options.Over's limit, nil without it.
	Over *over.Result
	// Warnings are caveats the commands print on stderr beside their
	// output (the knee result carries its own in Knee.Warnings).
	Warnings []string
}

// Name is the inputs joined for messages: "a.csv, b.csv".
func (a *Analysis) Name() string { return strings.Join(a.Files, ", ") }

// Run reads the files (several are one distributed run; "-" is
// Options.Stdin) and analyses the run. It returns an error naming the
// inputs when they cannot be read, hold no sample, or (without
// AllowNoMetric) no sample of the metric; bad options (a window finer than
// the input's resolution) are errors too. Malformed lines are not errors:
// they are counted in Analysis.Input.
func Run(paths []string, opt Options) (*Analysis, error) {
	if len(paths) == 0 {
		return nil, errors.New("no input files: give one or more k6 output files, or - for standard input")
	}
	if err := DistinctFiles(paths); err != nil {
		return nil, err
	}
	an := &Analysis{Files: paths, Options: opt}
	thr, exp, err := an.prepare(opt)
	if err != nil {
		return nil, err
	}
	wopt, eopt, err := windowOptions(opt)
	if err != nil {
		return nil, err
	}
	var oc *over.Counter
	if opt.Over != nil {
		oo := *opt.Over
		oo.Metric = opt.Metric
		if oc, err = over.New(oo); err != nil {
			return nil, err
		}
	}
	acc, st, err := read(paths, opt, timeline.Options{Metric: opt.Metric, Thresholds: thr, Queries: opt.Queries}, wopt, eopt, oc)
	an.Input = st
	if err != nil {
		return an, err
	}
	// The group tables (--by, the endpoints) are closed on another core
	// while the timeline is (each is tens of milliseconds on a day-long
	// run); the analyses start once both are.
	acc.groups = closeGroups(acc)
	tl := acc.tl.Close(st.ResolutionNS)
	acc.groups.wait()
	an.Timeline = tl
	if tl.Rows() == 0 && st.Rows == 0 && len(st.Metrics) > 0 {
		return an, fmt.Errorf("%s: no Point lines: only metric declarations (%d Metric lines of k6's JSON output) (%w)", an.Name(), len(st.Metrics), knee.ErrNoSamples)
	}
	if tl.Rows() == 0 && st.Rows == 0 && st.Skipped > 0 {
		return an, fmt.Errorf("%s: all %d data lines were malformed and skipped (the errors above say why) (%w)", an.Name(), st.Skipped, knee.ErrNoSamples)
	}
	if tl.Rows() == 0 && st.Rows == 0 {
		return an, fmt.Errorf("%s: the input has a header but no data rows (%w)", an.Name(), knee.ErrNoSamples)
	}
	for _, d := range tl.Duplicates() {
		if d.SameRun {
			return an, fmt.Errorf("%s and %s hold the same %d samples of %s over the same span: one run given twice (or its CSV and JSON outputs), whose figures would be added together — give one of them (%w)",
				d.Files[0], d.Files[1], d.Samples, tl.Metric(), ErrSameRunTwice)
		}
	}
	return an, an.analyse(opt, exp, acc, func(kopt knee.Options, metric string) error {
		return scenarios(an, paths, opt, kopt, metric)
	})
}

// prepare reads what the analysis needs beside the run: k6's summary
// (with its thresholds, for SummaryThresholds) and the Prometheus export
// (PromDir). It returns the thresholds to re-evaluate.
func (an *Analysis) prepare(opt Options) ([]threshold.Threshold, *prom.Export, error) {
	var thr []threshold.Threshold
	thr = append(thr, opt.Thresholds...)
	if opt.SummaryPath != "" {
		sum, err := summary.ReadFile(opt.SummaryPath)
		if err != nil {
			return nil, nil, err
		}
		an.Summary = sum
		if opt.SummaryThresholds {
			for _, m := range sum.Metrics {
				for _, th := range m.Thresholds {
					t, err := threshold.ParseExpr(m.Name, th.Source)
					if err != nil {
						an.Warnings = append(an.Warnings, fmt.Sprintf("%s: skipping threshold: %v", opt.SummaryPath, err))
						continue
					}
					thr = append(thr, t)
				}
			}
		}
	}
	var exp *prom.Export
	if opt.PromDir != "" {
		e, err := prom.ReadExport(opt.PromDir)
		if err != nil {
			return nil, nil, fmt.Errorf("--prom %s: %w", opt.PromDir, err)
		}
		exp = e
	}
	return thr, exp, nil
}

// analyse runs every analysis on an.Timeline: the knee (and each
// scenario's, through perScenario), the checks, the attribution, the
// summary comparison, the --by and endpoint rows (acc's aggregators, as
// Run closed them; acc is nil for a Source).
func (an *Analysis) analyse(opt Options, exp *prom.Export, acc *accs, perScenario func(kopt knee.Options, metric string) error) error {
	tl := an.Timeline
	kopt := opt.Knee
	if kopt.WindowNS == 0 && opt.AutoWindows > 0 {
		kopt.WindowNS = autoWindowNS(tl, opt.AutoWindows)
	}
	if opt.WidenWindow {
		w := kopt.WindowNS
		if w <= 0 {
			w = 30e9
		}
		kopt.WindowNS = atLeastResolution(w, tl)
	}
	if mi, ok := an.Input.Metrics[tl.Metric()]; ok && kopt.MetricContains == "" {
		kopt.MetricContains = k6metric.Contains(mi.Contains)
	}
	res, kerr := knee.Analyze(tl, kopt)
	if kerr != nil {
		if !opt.AllowNoMetric || !errors.Is(kerr, knee.ErrNoSamples) {
			return fmt.Errorf("%s: %w", an.Name(), kerr)
		}
		an.KneeErr = kerr
		res = nil
	}
	if res != nil {
		mergeSeparateRuns(res, an.Files)
	}
	an.Knee = res
	if err := perScenario(kopt, tl.Metric()); err != nil {
		return fmt.Errorf("%s: %w", an.Name(), err)
	}
	copt := opt.Checks
	if copt.WindowNS <= 0 {
		copt.WindowNS = atLeastResolution(checks.DefaultWindowNS, tl)
	}
	copt.Input = checks.Input{Rows: an.Input.Rows, Skipped: an.Input.Skipped, Truncated: an.Input.Truncated, Corrupt: an.Input.Corrupt, Set: true,
		TimeSteps: an.Input.TimeSteps, Steps: an.Input.Steps}
	if exp != nil && copt.Generator == nil {
		copt.Generator = GeneratorFromExport(exp, opt.GeneratorPods)
	}
	an.Checks = checks.Evaluate(tl, res, copt)
	if res != nil {
		concatCaveat(res, an.Checks)
	}
	if exp != nil && res != nil && opt.Attribution {
		levels, ci := saturationLevels(res)
		var err error
		if an.Attribution, err = saturation.Attribute(exp, levels, ci, res.Start, res.End, saturation.AttributeOptions{LinkMbps: opt.LinkMbps}); err != nil {
			return fmt.Errorf("--prom %s: %w", opt.PromDir, err)
		}
	}
	if res != nil && opt.Metric == "" {
		if m := handshakeOnly(tl, an.Input.Metrics); m != "" {
			res.Warnings = append(res.Warnings, knee.Warning{Code: knee.WarnHandshakeOnly, Message: m})
		}
	}
	if an.Summary != nil && res != nil {
		rows, err := CompareSummary(an.Summary, tl.Metric(), res.Overall)
		if err != nil {
			if !opt.SummaryThresholds {
				return err
			}
			// check reads the summary for its thresholds only.
		}
		an.SummaryRows = rows
		for _, m := range summaryMismatch(an.SummaryRows, opt.SummaryPath) {
			res.Warnings = append(res.Warnings, knee.Warning{Code: knee.WarnSummaryMismatch, Message: m})
		}
	}
	if acc != nil {
		for i, rows := range []*[]window.Row{&an.Groups, &an.Endpoints} {
			g := &acc.groups.g[i]
			if g.agg == nil {
				continue
			}
			*rows = g.rows
			if g.err != nil {
				return fmt.Errorf("%s: %w", an.Name(), g.err)
			}
			if res != nil {
				for _, w := range g.warnings {
					res.Warnings = append(res.Warnings, knee.Warning{Code: knee.WarnCardinality, Message: w})
				}
			}
		}
	}
	if acc != nil && acc.over != nil {
		r := acc.over.Close(tl.Metric())
		an.Over = &r
	}
	if err := tl.Err(); err != nil {
		return fmt.Errorf("%s: %w", an.Name(), err)
	}
	return nil
}

// wholeRunNS is a window width longer than any run: the endpoint
// aggregator keeps one window per endpoint.
const wholeRunNS = int64(1) << 62

// windowOptions are the options of the --by and endpoint aggregators: of
// the metric, or without one of the run's own request Trend (chosen as
// the timeline chooses it, window.Options.Metric).
func windowOptions(opt Options) (by, ep *window.Options, err error) {
	metric := opt.Metric
	if len(opt.By) > 0 {
		w := opt.Knee.WindowNS
		if w <= 0 {
			w = 30e9
		}
		by = &window.Options{Metric: metric, WidthNS: w, By: opt.By, Percentiles: opt.Knee.Percentiles, MaxGroups: opt.ByLimit, LimitHint: "--by-limit N"}
		if _, err := window.New(*by); err != nil {
			return nil, nil, err
		}
	}
	if opt.Endpoints != "" {
		pcts := opt.EndpointPercentiles
		if len(pcts) == 0 {
			pcts = []float64{50, 95, 99}
		}
		ep = &window.Options{Metric: metric, WidthNS: wholeRunNS, By: []string{opt.Endpoints}, Percentiles: pcts, MaxGroups: opt.ByLimit}
		if _, err := window.New(*ep); err != nil {
			return nil, nil, err
		}
	}
	return by, ep, nil
}

// autoWindowNS is a window width, in ns, that cuts the run into about
// target windows: whole seconds, at least the input's resolution and 1 s.
// When gaps split the data (a stray timestamp, two runs in one file) it
// cuts the main span, the one the windows cover.
func autoWindowNS(tl *timeline.Timeline, target int) int64 {
	res := tl.ResolutionNS()
	span := int64(0)
	if tl.Rows() > 0 {
		span = tl.EndNS() - tl.StartNS() + max(res, 1e9)
		if len(tl.Spans()) > 1 {
			span = int64(tl.Main().Len()-1)*1e9 + max(res, 1e9)
		}
	}
	return max(atLeastResolution(wholeSeconds(span/int64(target)), tl), 1e9)
}

// wholeSeconds rounds ns up to whole seconds, ns.
func wholeSeconds(ns int64) int64 { return (ns + 1e9 - 1) / 1e9 * 1e9 }

// atLeastResolution is the window w, ns, widened to tl's resolution in
// whole seconds when that is coarser (a store's 15 s step).
func atLeastResolution(w int64, tl *timeline.Timeline) int64 {
	return max(w, wholeSeconds(tl.ResolutionNS()))
}

// accs is what one core accumulates.
type accs struct {
	tl     *timeline.Accumulator
	by, ep *window.Aggregator
	over   *over.Counter
	// groups are by and ep closed: Run closes them beside the timeline,
	// before the analyses.
	groups *closedGroups
	wants  batchWants // addBatch's
}

// closedGroups are the group aggregators of an accs (by, then the
// endpoints) being closed on their own goroutine: wait returns when rows,
// err and warnings are set.
type closedGroups struct {
	g [2]struct {
		agg      *window.Aggregator
		rows     []window.Row
		err      error
		warnings []string
	}
	done chan struct{}
}

// closeGroups starts closing acc's group aggregators.
func closeGroups(acc *accs) *closedGroups {
	c := &closedGroups{done: make(chan struct{})}
	c.g[0].agg, c.g[1].agg = acc.by, acc.ep
	go func() {
		defer close(c.done)
		for i := range c.g {
			g := &c.g[i]
			if g.agg != nil {
				g.rows = g.agg.Close()
				g.err = g.agg.Err()
				g.warnings = g.agg.Warnings()
			}
		}
	}()
	return c
}

// wait waits until the aggregators are closed.
func (c *closedGroups) wait() { <-c.done }

func (a *accs) add(s *ingest.Sample) {
	a.tl.Add(s)
	if a.over != nil {
		a.over.Add(s)
	}
	if a.by != nil {
		a.by.Add(s)
	}
	if a.ep != nil {
		a.ep.Add(s)
	}
}

// addBatch is add of every row of b: the timeline takes the batch whole,
// the other aggregators the rows of the metrics they count (rows; add's
// three calls are written out in both: add runs per row on the CSV path,
// where a shared helper is a call more).
func (a *accs) addBatch(b *ingest.Batch) {
	a.tl.AddBatch(b)
	if a.over == nil && a.by == nil && a.ep == nil {
		return
	}
	a.rows(b)
}

func (a *accs) merge(o *accs) {
	a.tl.Merge(o.tl)
	if a.over != nil {
		a.over.Merge(o.over)
	}
	if a.by != nil {
		a.by.Merge(o.by)
	}
	if a.ep != nil {
		a.ep.Merge(o.ep)
	}
}

// read reads the inputs with one set of accumulators per core (a k6 CSV
// is parsed and accumulated on every core; other formats feed the first),
// one input at a time so that the accumulators know which file their
// samples come from, and merges them into the first.
func read(paths []string, opt Options, topt timeline.Options, wopt, eopt *window.Options, oc *over.Counter) (*accs, ingest.Stats, error) {
	n := opt.Workers
	if n <= 0 {
		n = max(1, runtime.GOMAXPROCS(0))
	}
	seed := timeline.New(topt)
	all := make([]*accs, n)
	sinks := make([]func(*ingest.Sample), n)
	rows := make([]func(*ingest.Batch), n)
	for i := range all {
		a := &accs{tl: seed, over: oc}
		if i > 0 {
			a.tl = seed.Fork()
			if oc != nil {
				a.over = oc.Fork()
			}
		}
		if wopt != nil {
			a.by, _ = window.New(*wopt) // checked by windowOptions
		}
		if eopt != nil {
			a.ep, _ = window.New(*eopt)
		}
		all[i] = a
		sinks[i], rows[i] = a.add, a.addBatch
	}
	var st ingest.Stats
	var err error
	for _, p := range paths {
		for _, a := range all {
			a.tl.SetInput(p)
		}
		var s ingest.Stats
		s, err = ingest.ReadAllBatches([]string{p}, opt.Stdin, sinks, rows, opt.OnRead)
		st.Merge(s)
		if err != nil {
			break
		}
	}
	for _, a := range all[1:] {
		all[0].merge(a)
	}
	return all[0], st, err
}
