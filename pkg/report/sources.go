package report

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ldanalyze/ldanalyze/internal/present"
	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
)

// maxResources caps the rows of the saturation table.
const maxResources = 12

// summarySection puts k6's own end-of-test summary (--summary) beside the
// computed whole-run figures, as `knee --summary` does; false without a
// summary.
func summarySection(an *pipeline.Analysis) (Section, bool) {
	if len(an.SummaryRows) == 0 {
		return Section{}, false
	}
	return Section{
		Title: "k6's own summary",
		Text: []string{fmt.Sprintf("k6's end-of-test summary (%s) beside the figures computed from the samples; "+
			"a difference beyond the percentiles' sketch error means the files are not of the same run.", an.Options.SummaryPath)},
		Table: present.SummaryGrid(an.SummaryRows),
	}, true
}

// saturationSection is what the Prometheus export (--prom) says, as
// `knee --prom` says it: what saturated at the ceiling level, imbalanced
// workloads, levels with a restart, and the busiest resources at the
// ceiling level with bars; false without an attribution.
func saturationSection(an *pipeline.Analysis) (Section, bool) {
	a := an.Attribution
	if a == nil {
		return Section{}, false
	}
	s := Section{Title: "Saturation", Text: append([]string{fmt.Sprintf(
		"The Prometheus series of %s lined up with the load levels (same clock); a resource at or above %.0f %% of its capacity at the ceiling level is saturated.",
		an.Options.PromDir, 100*a.SaturatedRatio)}, a.Summary()...)}
	type res struct {
		name string
		u    float64
	}
	var rs []res
	for _, l := range a.Utilisation {
		if !l.Start.Equal(a.CeilingLevelStart) {
			continue
		}
		for name, u := range l.Resources {
			if u.Valid() {
				rs = append(rs, res{name, float64(u)})
			}
		}
	}
	if len(rs) == 0 {
		return s, true
	}
	slices.SortFunc(rs, func(p, q res) int {
		if c := cmp.Compare(q.u, p.u); c != 0 {
			return c
		}
		return cmp.Compare(p.name, q.name)
	})
	g := &render.Grid{Header: []string{"resource", "utilisation at the ceiling level", "(bar, 100 % full)"}}
	for _, r := range rs[:min(len(rs), maxResources)] {
		g.Rows = append(g.Rows, []string{r.name, present.Pct(r.u), Bar(r.u, 1, barWidth)})
	}
	s.Table = g
	if n := len(rs) - maxResources; n > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d less busy resource(s) not shown.", n))
	}
	return s, true
}
