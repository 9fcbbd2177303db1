package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/prom"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// Source is a run read from somewhere other than k6 output files — a
// Prometheus-compatible store holding a run streamed by remote write, or
// its saved query_range answers. It fills the timeline the file readers
// fill, so every analysis of RunSource is the one Run gives.
type Source interface {
	// Name names the source in messages and in Analysis.Files: a URL with
	// its credentials redacted, or a path.
	Name() string
	// Open reads the run.
	Open(ctx context.Context) (SourceRun, error)
}

// SourceRun is a run a Source read, in memory.
type SourceRun interface {
	// ResolutionNS is the resolution of the timeline it fills (the store's
	// step), ns: no analysis looks finer.
	ResolutionNS() int64
	// Fill adds the whole run to acc and returns the caveats of the read
	// and of the fill (sentences).
	Fill(acc *timeline.Accumulator) []string
	// FillScenario adds the part of scenario name (with the gauges every
	// scenario shares) to acc, for the per-scenario analysis.
	FillScenario(acc *timeline.Accumulator, name string) []string
}

// WarnSource is the code of the knee warnings a Source's caveats become
// (trend stats cumulative, percentiles of per-step means, gaps).
const WarnSource = "source"

// RunSource reads the run from src and analyses it as Run analyses files:
// the same timeline (at the source's resolution), knee, per-scenario
// analyses (filled from the source again, no second read), checks,
// attribution (PromDir) and summary comparison. By is refused (the
// per-tag windows are read from samples, which a source does not give)
// and Endpoints left out with a warning. Errors name the source.
func RunSource(ctx context.Context, src Source, opt Options) (*Analysis, error) {
	if len(opt.By) > 0 {
		return nil, fmt.Errorf("%s: --by is not available for a run read from Prometheus: its series are summed per request group by the store; use the k6 output file", src.Name())
	}
	an := &Analysis{Files: []string{src.Name()}, Options: opt}
	if opt.Endpoints != "" {
		an.Warnings = append(an.Warnings, fmt.Sprintf("%s: no per-endpoint table for a run read from Prometheus (it is computed from samples)", src.Name()))
	}
	thr, exp, err := an.prepare(opt)
	if err != nil {
		return nil, err
	}
	run, err := src.Open(ctx)
	if err != nil {
		return nil, named(src.Name(), err)
	}
	acc := timeline.New(timeline.Options{Metric: opt.Metric, Thresholds: thr, Queries: opt.Queries})
	caveats := run.Fill(acc)
	tl := acc.Close(run.ResolutionNS())
	an.Timeline = tl
	an.Input = ingest.Stats{Rows: tl.Rows(), ResolutionNS: run.ResolutionNS()}
	if tl.Rows() == 0 {
		return an, fmt.Errorf("%s: the run holds no sample (%w)", src.Name(), knee.ErrNoSamples)
	}
	if err := an.analyse(opt, exp, nil, func(kopt knee.Options, metric string) error {
		names, _ := scenarioOrder(an)
		if names == nil {
			return nil
		}
		seeds := make([]*timeline.Accumulator, len(names))
		for k, name := range names {
			seeds[k] = timeline.New(timeline.Options{Metric: metric})
			run.FillScenario(seeds[k], name)
		}
		return scenarioKnees(an, names, seeds, run.ResolutionNS(), kopt, metric)
	}); err != nil {
		an.Warnings = append(an.Warnings, caveats...)
		return an, err
	}
	if an.Knee != nil {
		if m, ok := run.(interface{ MeansOnly() bool }); ok && m.MeansOnly() {
			an.Knee.Overall.Of = "per-step means"
		}
		for _, c := range caveats {
			an.Knee.Warnings = append(an.Knee.Warnings, knee.Warning{Code: WarnSource, Message: c})
		}
	} else {
		an.Warnings = append(an.Warnings, caveats...)
	}
	return an, nil
}

// Prometheus is a Source: a k6 run streamed with
// `-o experimental-prometheus-rw` into a Prometheus-compatible store, read
// by prom.ReadK6Run (the store sums the series and evaluates
// histogram_quantile; the client splits long ranges into requests of at
// most 11,000 points a series, with its timeouts, caps, retries and
// credentials), or the same series saved as query_range answers.
type Prometheus struct {
	// Store holds the series: a *prom.Client (live) or *prom.Files.
	Store prom.Source
	// Label names the source: the redacted URL or the path.
	Label string
	// Run selects the run (label selector, window) and the step.
	Run prom.K6Options
}

// OpenPrometheus returns the Source for target: a live store when target
// is an http:// or https:// URL (client, with its bounds and
// credentials), else saved API JSON (a file, gzipped or not, or a
// directory of .json/.json.gz files; prom.FilesFromPath).
func OpenPrometheus(target string, client prom.ClientOptions, run prom.K6Options) (*Prometheus, error) {
	if i := strings.Index(target, "://"); i > 0 && schemeName.MatchString(target[:i]) {
		if err := prom.CheckScheme(target[:i]); err != nil {
			return nil, fmt.Errorf("%s: %w", prom.RedactURL(target), err)
		}
		client.URL = target
		c, err := prom.NewClient(client)
		if err != nil {
			return nil, err
		}
		return &Prometheus{Store: c, Label: c.URL(), Run: run}, nil
	}
	if target == "" {
		return nil, errors.New("no Prometheus given: a base URL (http://prometheus:9090) or saved query_range JSON (a file or directory)")
	}
	f, err := prom.FilesFromPath(target)
	if errors.Is(err, fs.ErrNotExist) && hostPort.MatchString(target) {
		return nil, fmt.Errorf("%s: no such file, and not a URL: prefix it with http:// or https:// for a Prometheus server", prom.RedactURL(target))
	}
	if err != nil {
		return nil, err
	}
	return &Prometheus{Store: f, Label: target, Run: run}, nil
}

// schemeName is a URL scheme (RFC 3986 section 3.1).
var schemeName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`)

// hostPort is a host and port without a scheme (prometheus:9090,
// localhost:9090/prefix), which a user meant as a server.
var hostPort = regexp.MustCompile(`^[A-Za-z0-9.-]+:[0-9]+(/.*)?$`)

// named prefixes err with name unless its message already starts with it
// (a client's errors name its URL): every message names the source once.
func named(name string, err error) error {
	if strings.HasPrefix(err.Error(), name) {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// Name is the redacted URL or the path.
func (p *Prometheus) Name() string { return p.Label }

// Open reads the run with prom.ReadK6Run.
func (p *Prometheus) Open(ctx context.Context) (SourceRun, error) {
	run, err := prom.ReadK6Run(ctx, p.Store, p.Run)
	if err != nil {
		return nil, err
	}
	return promRun{run}, nil
}

// promRun is a K6Run as a SourceRun: Fill adds the read's warnings to the
// fill's.
type promRun struct{ *prom.K6Run }

func (r promRun) Fill(acc *timeline.Accumulator) []string {
	return append(slices.Clone(r.Warnings), r.K6Run.Fill(acc)...)
}
