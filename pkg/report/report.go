// Package report turns one run's analysis into a report people share: a
// GitHub-flavoured markdown document (verdict first, then run facts, k6's
// own summary beside the computed figures with --summary, the load-level
// table with inline unicode bar charts, what saturated with --prom, the
// plots over time, the per-endpoint table, the validity checks and the
// method), PNG and SVG plots drawn with gonum/plot and linked next to it,
// and one self-contained HTML page.
//
// Use it in two steps: Build the Report from a pipeline.Analysis (the
// knee analysis made; Endpoints set for the per-endpoint table), then
// render it with WriteMarkdown or WriteHTML and write its Plots with
// their PNG and SVG writers.
package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/present"
	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/checks"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/outcome"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
	"github.com/ldanalyze/ldanalyze/pkg/saturation"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
	"github.com/ldanalyze/ldanalyze/pkg/window"
)

// Options configure Build. The zero value works.
type Options struct {
	// Title heads the report (default "Load-test report: FILES").
	Title string
	// MaxPoints caps the points of each series over time; longer series
	// are downsampled (largest-triangle-three-buckets). Default 400.
	MaxPoints int
	// TopEndpoints caps the endpoints in the per-endpoint table and plot,
	// the busiest first. Default 20.
	TopEndpoints int
}

// Report is the model every renderer reads: a verdict, then sections.
// Strings are plain text; the renderers escape them for their format.
type Report struct {
	// Title heads the report.
	Title string
	// Verdict are the sentences of the opening paragraph: knee, ceiling,
	// SLO capacity and the validity checks that failed.
	Verdict []string
	// Warnings are caveats of the analysis and the input.
	Warnings []string
	// Sections follow the verdict, in order.
	Sections []Section
}

// Section is one titled part of a report: paragraphs, then an optional
// table, then plots.
type Section struct {
	// Title is the section heading.
	Title string
	// Text are paragraphs of plain text.
	Text []string
	// Table is nil when the section has none.
	Table *render.Grid
	// Plots are drawn after the table.
	Plots []*Plot
	// Notes are paragraphs printed after the table and plots.
	Notes []string
}

// Plots returns every plot of the report, in section order.
func (r *Report) Plots() []*Plot {
	var out []*Plot
	for _, s := range r.Sections {
		out = append(out, s.Plots...)
	}
	return out
}

func (o *Options) defaults() {
	if o.MaxPoints <= 0 {
		o.MaxPoints = 400
	}
	if o.TopEndpoints <= 0 {
		o.TopEndpoints = 20
	}
}

// Build assembles the report of one analysed run (pipeline.Run with the
// knee analysis made; Endpoints set for the per-endpoint table). It does
// not draw: plots render when written.
func Build(an *pipeline.Analysis, opt Options) *Report {
	opt.defaults()
	res := an.Knee
	r := &Report{Title: opt.Title}
	if r.Title == "" {
		r.Title = "Load-test report: " + an.Name()
	}
	r.Verdict = verdict(res, an.Checks, an.Attribution)
	r.Warnings = knee.Messages(res.Warnings)
	if an.Attribution != nil {
		r.Warnings = append(r.Warnings, an.Attribution.PromWarnings...)
	}

	r.Sections = append(r.Sections, facts(an))
	if s, ok := summarySection(an); ok {
		r.Sections = append(r.Sections, s)
	}

	levels, title, what := res.AllLevels(), "Holds", "Holds are plateaus of offered load; the seconds between them are left out."
	switch {
	case len(res.Holds) == 0:
		title = "Ramp steps"
		what = fmt.Sprintf("The run ramped without plateaus, so it is cut into %d steps across each ramp.", len(res.RampSteps))
	case len(res.RampSteps) > 0:
		title = "Load levels"
		what = fmt.Sprintf("The run held %d plateaus of offered load and ramped between others, cut into %d steps across each ramp; the seconds between levels are left out.", len(res.Holds), len(res.RampSteps))
	}
	if res.Levels != "none" && len(levels) > 0 {
		s := Section{Title: title, Text: []string{what + " Latency is of successful responses. Bars: completed load and p95, each against its largest value in the table."}}
		s.Table = withBars(present.LevelGrid(levels, res, an.Options.Knee.Percentiles, false), levels)
		if p := kneePlot(res, levels); p != nil {
			s.Plots = append(s.Plots, p)
		}
		if res.Knee != nil && res.Knee.Method != "" {
			s.Notes = append(s.Notes, "Knee method: "+res.Knee.Method+".")
		}
		r.Sections = append(r.Sections, s)
	}

	if s, ok := saturationSection(an); ok {
		r.Sections = append(r.Sections, s)
	}

	over := Section{Title: "Over time", Text: []string{fmt.Sprintf("Per %s window from the start of the run.", time.Duration(res.WindowS*1e9))}}
	fails := failures(an.Timeline)
	lat, latNote := latencyPlot(res, an.Options.Knee.SLO, opt.MaxPoints)
	for _, p := range []*Plot{loadPlot(res, opt.MaxPoints), lat, errorPlot(res, fails, opt.MaxPoints)} {
		if p != nil {
			over.Plots = append(over.Plots, p)
		}
	}
	if latNote != "" {
		over.Notes = append(over.Notes, latNote)
	}
	if len(fails) == 0 {
		over.Notes = append(over.Notes, "No failed responses: no errors-by-status plot.")
	}
	if len(over.Plots) > 0 {
		r.Sections = append(r.Sections, over)
	}

	if s, ok := endpoints(an, opt); ok {
		r.Sections = append(r.Sections, s)
	}

	cs := Section{Title: "Validity checks"}
	if an.Checks != nil {
		cs.Text = []string{"Did the test measure the system, or itself? Each check's status, the numbers it was decided on, and what it means."}
		cs.Table = present.CheckGrid(an.Checks, false)
	} else {
		cs.Text = []string{"The validity checks were not run."}
	}
	r.Sections = append(r.Sections, cs)

	m := Section{Title: "Method"}
	m.Text = append(m.Text, res.PercentileMethod+".")
	m.Text = append(m.Text, fmt.Sprintf("Model: %s (%s). Offered load is in %s.", res.Model, res.ModelEvidence, res.OfferedUnit))
	r.Sections = append(r.Sections, m)
	return r
}

// secondStatus is a second since the epoch and a status.
type secondStatus struct {
	sec    int64
	status string
}

// failures counts the run's failed requests per (second, status label).
func failures(tl *timeline.Timeline) map[secondStatus]uint64 {
	out := map[secondStatus]uint64{}
	tl.Each(func(sec int64, s *timeline.Second) {
		for _, f := range s.Failures {
			label := f.Status
			if tl.Protocol() == outcome.GRPC || label == "" {
				label = strings.TrimSpace(f.Status + " " + tl.StatusLabel(f.Status))
			}
			out[secondStatus{sec, label}] += f.N
		}
	})
	return out
}

// verdict is the opening paragraph: the knee analysis's findings, what
// saturated (with --prom; the Saturation section has the rest), then the
// validity checks that failed or warn.
func verdict(res *knee.Result, cks *checks.Report, sat *saturation.Attribution) []string {
	var out []string
	if res.Levels != "none" {
		var b strings.Builder
		present.Findings(&b, res)
		for _, l := range strings.Split(b.String(), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
	} else {
		out = append(out, "No load levels: the run had neither holds nor a ramp to find a knee on.")
	}
	if sat != nil {
		out = append(out, sat.Summary()[0])
	}
	if cks == nil {
		return out
	}
	var fail, warn []string
	for _, c := range cks.Checks {
		switch c.Status {
		case checks.Fail:
			fail = append(fail, string(c.ID))
		case checks.Warn:
			warn = append(warn, string(c.ID))
		}
	}
	switch {
	case len(fail) > 0:
		out = append(out, fmt.Sprintf("Validity: %d check(s) failed: %s (see Validity checks: read the numbers above with that in mind).", len(fail), strings.Join(fail, ", ")))
	default:
		out = append(out, "Validity: no check failed.")
	}
	if len(warn) > 0 {
		out = append(out, fmt.Sprintf("Warnings from the checks: %s.", strings.Join(warn, ", ")))
	}
	return out
}

func facts(an *pipeline.Analysis) Section {
	num, pct := present.Num, present.Pct
	res := an.Knee
	o := res.Overall
	g := &render.Grid{Header: []string{"fact", "value"}}
	add := func(k, v string) { g.Rows = append(g.Rows, []string{k, v}) }
	add("files", an.Name())
	if an.Input.Rows > 0 {
		add("samples", strconv.FormatInt(an.Input.Rows, 10))
	}
	add("start", res.Start.Format(time.RFC3339))
	add("duration", num(float64(res.DurationS))+" s")
	add("model", string(res.Model)+" ("+res.ModelEvidence+")")
	if scs := an.Timeline.Scenarios(); len(scs) > 0 {
		sc := slices.Clone(scs)
		slices.Sort(sc)
		add("scenarios", strings.Join(sc, ", "))
	}
	add("peak VUs", num(float64(o.MaxVUs)))
	// The run's own request stream: requests, gRPC calls, WebSocket
	// sessions.
	proto := an.Timeline.Protocol()
	add(proto.Noun(), fmt.Sprintf("%d (%s failed), %s %s", o.Requests, pct(float64(o.ErrorRate)), num(float64(o.RPS)), proto.Unit()))
	add("iterations", fmt.Sprintf("%d, %d dropped", o.Iterations, o.Dropped))
	add(res.Metric, fmt.Sprintf("p50 %s ms, p90 %s ms, p95 %s ms, p99 %s ms, max %s ms (%d samples)",
		num(float64(o.P50MS)), num(float64(o.P90MS)), num(float64(o.P95MS)), num(float64(o.P99MS)), num(float64(o.MaxMS)), o.Count))
	add("time resolution", time.Duration(float64(res.ResolutionS)*1e9).String())
	add("window", time.Duration(res.WindowS*1e9).String())
	return Section{Title: "Run facts", Table: g}
}

// endpoints is the per-endpoint table over the whole run, busiest first.
func endpoints(an *pipeline.Analysis, opt Options) (Section, bool) {
	res := an.Knee
	rows := slices.Clone(an.Endpoints)
	tag := an.Options.Endpoints
	pcts := an.Options.EndpointPercentiles
	if len(pcts) == 0 {
		pcts = []float64{50, 95, 99}
	}
	// The row of the endpoints past the aggregator's bound is a note, not
	// an endpoint.
	var other uint64
	rows = slices.DeleteFunc(rows, func(r window.Row) bool {
		if r.Other {
			other += r.Count
		}
		return r.Other
	})
	if len(rows) == 0 || len(rows) == 1 && rows[0].Tags[0] == "" {
		return Section{}, false
	}
	slices.SortStableFunc(rows, func(a, b window.Row) int {
		if a.Count != b.Count {
			if a.Count > b.Count {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Tags[0], b.Tags[0])
	})
	num, pct := present.Num, present.Pct
	proto := an.Timeline.Protocol()
	g := &render.Grid{Header: []string{tag, proto.Noun(), proto.Unit(), "failed"}}
	p95 := -1
	for i, p := range pcts {
		g.Header = append(g.Header, knee.PercentileName(p)+" ms")
		if p == 95 {
			p95 = i
		}
	}
	if p95 < 0 {
		p95 = len(pcts) - 1
	}
	g.Header = append(g.Header, knee.PercentileName(pcts[p95])+" (bar)")
	shown := rows[:min(len(rows), opt.TopEndpoints)]
	top := 0.0
	for _, r := range shown {
		top = math.Max(top, nz(r.Percentiles[p95]))
	}
	secs := float64(res.DurationS)
	var eps []endpointP
	for _, r := range shown {
		name := endpointName(r.Tags[0])
		row := []string{name, strconv.FormatUint(r.Count, 10), num(float64(r.Count) / secs), pct(ratio(r.Failed, r.Count))}
		for _, v := range r.Percentiles {
			row = append(row, num(v))
		}
		row = append(row, Bar(r.Percentiles[p95], top, barWidth))
		g.Rows = append(g.Rows, row)
		eps = append(eps, endpointP{name, r.Percentiles[p95]})
	}
	s := Section{Title: "Endpoints", Table: g,
		Text: []string{fmt.Sprintf("%s by the %q tag over the whole run, busiest first; latency of all responses, failed ones included.", res.Metric, tag)}}
	if n := len(rows) - len(shown); n > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d more endpoint(s) not shown.", n))
	}
	if other > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d more samples are of endpoints past the %d counted one by one (see the warning above).", other, len(rows)))
	}
	if p := endpointPlot(eps, knee.PercentileName(pcts[p95])); p != nil {
		s.Plots = append(s.Plots, p)
	}
	return s, true
}

func endpointName(s string) string {
	if s == "" {
		return "(untagged)"
	}
	return s
}

func ratio(a, b uint64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

func nz(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// withBars appends the completed-load and p95 bar columns to a levels
// table whose rows are the levels in order.
func withBars(g *render.Grid, levels []knee.Level) *render.Grid {
	if g == nil || len(g.Rows) != len(levels) {
		return g
	}
	var topC, topP float64
	for _, l := range levels {
		topC = math.Max(topC, nz(float64(l.CompletedRPS)))
		topP = math.Max(topP, nz(float64(l.P95MS)))
	}
	g.Header = append(slices.Clone(g.Header), "completed (bar)", "p95 (bar)")
	for i, l := range levels {
		g.Rows[i] = append(slices.Clone(g.Rows[i]), Bar(float64(l.CompletedRPS), topC, barWidth), Bar(float64(l.P95MS), topP, barWidth))
	}
	return g
}
