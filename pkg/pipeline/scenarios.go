package pipeline

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"slices"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// scenarios analyses each scenario of a run with two or more on its own
// (knee.Result.SetScenarios): a second pass over the inputs routes each
// sample to its scenario's timeline by its scenario tag, and the samples
// without one (the vus and vus_max gauges) to every scenario running then. Standard
// input cannot be read twice: the run is then analysed as a whole, with a
// warning.
func scenarios(an *Analysis, paths []string, opt Options, kopt knee.Options, metric string) error {
	names, span := scenarioOrder(an)
	if names == nil {
		return nil
	}
	if slices.Contains(paths, "-") {
		an.Warnings = append(an.Warnings, fmt.Sprintf("the run has %d scenarios, but standard input cannot be read a second time to analyse each on its own: give the file to analyse them apart", len(names)))
		return nil
	}
	n := opt.Workers
	if n <= 0 {
		n = max(1, runtime.GOMAXPROCS(0))
	}
	topt := timeline.Options{Metric: metric}
	seeds := make([]*timeline.Accumulator, len(names))
	for k := range seeds {
		seeds[k] = timeline.New(topt)
	}
	index := make(map[string]int, len(names))
	for k, name := range names {
		index[name] = k
	}
	per := make([][]*timeline.Accumulator, n) // per core, per scenario
	sinks := make([]func(*ingest.Sample), n)
	for i := range per {
		per[i] = make([]*timeline.Accumulator, len(names))
		for k := range names {
			per[i][k] = seeds[k]
			if i > 0 {
				per[i][k] = seeds[k].Fork()
			}
		}
		accs := per[i]
		sinks[i] = func(s *ingest.Sample) {
			sc, ok := s.Tags.Get("scenario")
			if !ok {
				for k, a := range accs {
					if s.TimeNS >= span[k][0] && s.TimeNS <= span[k][1] {
						a.Add(s)
					}
				}
				return
			}
			if k, ok := index[sc]; ok {
				accs[k].Add(s)
			}
		}
	}
	for _, p := range paths {
		for i := range per {
			for _, a := range per[i] {
				a.SetInput(p)
			}
		}
		if _, err := ingest.ReadAll([]string{p}, nil, sinks, nil); err != nil {
			return err
		}
	}
	for k := range names {
		for i := 1; i < n; i++ {
			seeds[k].Merge(per[i][k])
		}
	}
	return scenarioKnees(an, names, seeds, an.Input.ResolutionNS, kopt, metric)
}

// scenarioOrder is the run's scenarios in the order they started, and
// each one's span of the shared gauges: from a second before its first
// sample to a second after its last. nil when the run has fewer than two
// or no knee result.
func scenarioOrder(an *Analysis) ([]string, [][2]int64) {
	names := slices.Clone(an.Timeline.Scenarios())
	if len(names) < 2 || an.Knee == nil {
		return nil, nil
	}
	spans := make(map[string][2]int64, len(names))
	for _, name := range names {
		first, last, _ := an.Timeline.ScenarioSpan(name)
		spans[name] = [2]int64{first - 1e9, last + 1e9}
	}
	slices.SortStableFunc(names, func(a, b string) int { return cmp.Compare(spans[a][0], spans[b][0]) })
	span := make([][2]int64, len(names))
	for k, name := range names {
		span[k] = spans[name]
	}
	return names, span
}

// scenarioKnees closes each scenario's accumulator (seeds, in names'
// order) at resolutionNS, analyses it with the run's knee options and
// sets the results on an.Knee.
func scenarioKnees(an *Analysis, names []string, seeds []*timeline.Accumulator, resolutionNS int64, kopt knee.Options, metric string) error {
	kopt.SharedGauges = true
	var kept []string
	var parts []*knee.Result
	for k, name := range names {
		tl := seeds[k].Close(resolutionNS)
		r, err := knee.Analyze(tl, kopt)
		if errors.Is(err, knee.ErrNoSamples) {
			an.Warnings = append(an.Warnings, fmt.Sprintf("scenario %s has no sample of %s: it is not analysed on its own", name, metric))
			continue
		}
		if err != nil {
			return fmt.Errorf("scenario %s: %w", name, err)
		}
		if err := tl.Err(); err != nil {
			return fmt.Errorf("scenario %s: %w", name, err)
		}
		kept, parts = append(kept, name), append(parts, r)
	}
	an.Knee.SetScenarios(kept, parts)
	return nil
}
