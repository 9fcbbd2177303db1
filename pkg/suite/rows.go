package suite

import (
	"math"
	"slices"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/checks"
	"github.com/ldanalyze/ldanalyze/pkg/jsonnum"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/summary"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
	"github.com/ldanalyze/ldanalyze/pkg/window"
)

// F is a JSON-safe float (NaN encodes as null).
type F = jsonnum.Float

// Row is one run, or one scenario of a run with several, as `suite`
// lists it (the JSON contract in the README). Figures a row cannot have
// are NaN (null): a summary has no knee, a scenario no vus gauge of its
// own.
type Row struct {
	// File is the input as found; Scenario names the scenario of a run
	// with several ("" for the whole file).
	File     string `json:"file"`
	Scenario string `json:"scenario"`
	// Kind is "run" (a k6 output, analysed) or "summary" (a k6 summary's
	// own figures).
	Kind Kind `json:"kind"`
	// Model is "open" or "closed" (runs only); OfferedUnit the unit of
	// Knee.
	Model       string `json:"model,omitempty"`
	OfferedUnit string `json:"offered_unit,omitempty"`
	// VUs is the most VUs running in any second (the vus gauge).
	VUs F `json:"vus"`
	// Rate is the highest offered load of a level, iterations per second
	// (open model only).
	Rate F `json:"rate"`
	// Requests is the number of requests; RPS all requests per second
	// over the run.
	Requests uint64 `json:"requests"`
	RPS      F      `json:"rps"`
	// P50MS … MaxMS are the analysed Trend (Metric) over the run, every
	// sample, as k6's end-of-test summary computes them, ms.
	Metric string `json:"metric"`
	P50MS  F      `json:"p50_ms"`
	P95MS  F      `json:"p95_ms"`
	P99MS  F      `json:"p99_ms"`
	MinMS  F      `json:"min_ms"`
	MaxMS  F      `json:"max_ms"`
	// ErrorRate is failed ÷ all requests, 0–1.
	ErrorRate F `json:"error_rate"`
	// ChecksPassRate is k6's checks that passed ÷ all, 0–1; NaN without
	// checks (or per scenario: k6 does not tag checks of a scenario
	// apart in the counts kept).
	ChecksPassRate F `json:"checks_pass_rate"`
	// Thresholds are k6's own threshold results, from the run's summary;
	// nil (null) without a summary or threshold results (the
	// machine-readable summary has none).
	Thresholds *Thresholds `json:"thresholds"`
	// Valid is false when a validity check failed (ldanalyze check; for
	// a summary: a k6 check failed): the run measured something else than
	// the system, so its figures are not a result. InvalidBecause names
	// the failed checks.
	Valid          bool     `json:"valid"`
	InvalidBecause []string `json:"invalid_because"`
	// Truncated marks a run whose file ended early (the input check): its
	// later levels are missing, its knee and ceiling may be the cut's.
	Truncated bool `json:"truncated"`
	// Knee is the offered load at the knee (OfferedUnit) and Ceiling the
	// highest sustained goodput (CompletedUnit); KneeReached and CeilingReached are
	// false when they are lower bounds (never reached). NaN without load
	// levels.
	Knee           F    `json:"knee"`
	KneeReached    bool `json:"knee_reached"`
	Ceiling        F    `json:"ceiling"`
	CeilingReached bool `json:"ceiling_reached"`
	// CompletedUnit is Ceiling's unit: "req/s", "calls/s" (gRPC),
	// "msgs/s" (WebSocket messages received); knee.Result.CompletedUnit.
	CompletedUnit string `json:"completed_unit"`
	// Error says why the file could not be analysed (its figures are
	// then NaN and Valid false).
	Error string `json:"error,omitempty"`
}

// Thresholds counts k6's thresholds of a run by outcome.
type Thresholds struct {
	Passed int `json:"passed"`
	Failed int `json:"failed"`
	// Failures are the failed ones, "metric: expression".
	Failures []string `json:"failures"`
}

// Run is what RunRows needs of one analysed run.
type Run struct {
	// File is the input.
	File string
	// Knee is the run's analysis (its whole-run figures, levels and
	// per-scenario analyses).
	Knee *knee.Result
	// Checks are its validity checks; K6Checks the counts of its k6
	// checks (timeline.Timeline.Checks).
	Checks   *checks.Report
	K6Checks []timeline.CheckCount
	// Summary is the k6 summary of the same run (Input.Summary), nil
	// without one.
	Summary *summary.Summary
	// Scenarios are the whole-run rows of the analysed Trend by scenario
	// tag (pipeline.Options.Endpoints = "scenario", percentiles 50, 95,
	// 99), for the scenario rows of a run with several.
	Scenarios []window.Row
}

// Failed is the row of a file that could not be analysed.
func Failed(file string, kind Kind, err error) Row {
	r := blank(file, kind)
	r.Error = err.Error()
	r.InvalidBecause = []string{"error"}
	return r
}

func blank(file string, kind Kind) Row {
	nan := F(math.NaN())
	return Row{File: file, Kind: kind, VUs: nan, Rate: nan, RPS: nan, P50MS: nan, P95MS: nan, P99MS: nan, MinMS: nan, MaxMS: nan,
		ErrorRate: nan, ChecksPassRate: nan, Knee: nan, Ceiling: nan, InvalidBecause: []string{}}
}

// RunRows are the rows of one analysed run: the whole file, then, when
// it has two or more scenarios, one row per scenario (its own model,
// knee and ceiling; latency and errors from its samples of the analysed
// Trend; the file's validity).
func RunRows(r Run) []Row {
	res := r.Knee
	row := blank(r.File, KindRun)
	row.Model, row.OfferedUnit, row.Metric = string(res.Model), res.OfferedUnit, res.Metric
	row.CompletedUnit = res.CompletedUnit
	o := res.Overall
	row.VUs, row.Requests, row.RPS, row.ErrorRate = o.MaxVUs, o.Requests, o.RPS, o.ErrorRate
	row.P50MS, row.P95MS, row.P99MS, row.MinMS, row.MaxMS = o.P50MS, o.P95MS, o.P99MS, o.MinMS, o.MaxMS
	var pass, all uint64
	for _, c := range r.K6Checks {
		pass += c.Pass
		all += c.Pass + c.Fail
	}
	if all > 0 {
		row.ChecksPassRate = F(float64(pass) / float64(all))
	}
	row.Thresholds = thresholds(r.Summary)
	row.Valid = true
	if r.Checks != nil {
		for _, c := range r.Checks.Checks {
			if c.Status == checks.Fail {
				row.Valid = false
				row.InvalidBecause = append(row.InvalidBecause, string(c.ID))
			}
			if v, ok := c.Evidence.Get("truncated"); ok && c.ID == checks.IDInput && v == 1 {
				row.Truncated = true
			}
		}
	}
	levels(&row, res.Model, res.DecisionLevels(), res.Knee, res.Ceiling)
	rows := []Row{row}
	for _, s := range res.Scenarios {
		sr := blank(r.File, KindRun)
		sr.Scenario, sr.Model, sr.OfferedUnit, sr.Metric = s.Name, string(s.Model), s.OfferedUnit, res.Metric
		sr.CompletedUnit = s.CompletedUnit
		sr.Valid, sr.InvalidBecause = row.Valid, slices.Clone(row.InvalidBecause)
		sr.Thresholds = row.Thresholds
		ls := knee.Result{Levels: s.Levels, Holds: s.Holds, RampSteps: s.RampSteps}
		levels(&sr, s.Model, ls.DecisionLevels(), s.Knee, s.Ceiling)
		for _, w := range r.Scenarios {
			if len(w.Tags) != 1 || w.Tags[0] != s.Name || w.Other {
				continue
			}
			secs := s.End.Sub(s.Start).Truncate(time.Second).Seconds() + 1
			sr.Requests = w.Count
			sr.RPS = F(float64(w.Count) / secs)
			if w.Count > 0 {
				sr.ErrorRate = F(float64(w.Failed) / float64(w.Count))
			}
			if len(w.Percentiles) == 3 {
				sr.P50MS, sr.P95MS, sr.P99MS = F(w.Percentiles[0]), F(w.Percentiles[1]), F(w.Percentiles[2])
			}
			sr.MinMS, sr.MaxMS = F(w.Min), F(w.Max)
		}
		rows = append(rows, sr)
	}
	return rows
}

// levels sets a row's rate (the highest offered load of an open model's
// levels), knee and ceiling.
func levels(row *Row, model knee.Model, ls []knee.Level, k *knee.Knee, c *knee.Ceiling) {
	if model == knee.Open {
		peak := math.NaN()
		for _, l := range ls {
			if v := float64(l.Offered); !(v <= peak) && !math.IsNaN(v) {
				peak = v
			}
		}
		row.Rate = F(peak)
	}
	if k != nil {
		row.Knee, row.KneeReached = k.Offered, k.Reached
	}
	if c != nil {
		row.Ceiling, row.CeilingReached = c.CompletedRPS, c.Reached
	}
}

func thresholds(s *summary.Summary) *Thresholds {
	if s == nil {
		return nil
	}
	t := &Thresholds{Failures: []string{}}
	for _, m := range s.Metrics {
		for _, th := range m.Thresholds {
			if th.OK {
				t.Passed++
			} else {
				t.Failed++
				t.Failures = append(t.Failures, m.Name+": "+th.Source)
			}
		}
	}
	if t.Passed+t.Failed == 0 {
		return nil // none, or a machine-readable summary, which has no results
	}
	return t
}

// summaryTrends are the Trends a summary row takes its latency from, the
// first the summary has.
var summaryTrends = []string{"http_req_duration", "grpc_req_duration", "ws_connecting", "browser_http_req_duration", "iteration_duration"}

// SummaryRow is the row of a k6 summary found without its run: its own
// figures (k6's exact percentiles where it kept them; k6 prints p90 and
// p95 by default, so p99 is often missing), checks and thresholds. It is
// valid unless a k6 check failed: ldanalyze's other validity checks need
// the run's samples.
func SummaryRow(file string, s *summary.Summary) Row {
	row := blank(file, KindSummary)
	ptr := func(p *float64) F {
		if p == nil {
			return F(math.NaN())
		}
		return F(*p)
	}
	for _, name := range summaryTrends {
		m, ok := s.Metric(name)
		if !ok || m.Type != "trend" {
			continue
		}
		row.Metric = name
		row.P50MS, row.MinMS, row.MaxMS = ptr(m.Med), ptr(m.Min), ptr(m.Max)
		if v, ok := m.Percentile("p50"); ok && !row.P50MS.Valid() {
			row.P50MS = F(v)
		}
		if v, ok := m.Percentile("p95"); ok {
			row.P95MS = F(v)
		}
		if v, ok := m.Percentile("p99"); ok {
			row.P99MS = F(v)
		}
		break
	}
	if m, ok := s.Metric("http_reqs"); ok {
		row.RPS = ptr(m.Rate)
		if m.Count != nil {
			row.Requests = uint64(*m.Count)
		}
	}
	if m, ok := s.Metric("http_req_failed"); ok {
		row.ErrorRate = ptr(m.Rate)
	}
	for _, name := range []string{"vus", "vus_max"} {
		if m, ok := s.Metric(name); ok && m.Max != nil {
			row.VUs = F(*m.Max)
			break
		}
	}
	var pass, fail int64
	for _, c := range s.Checks {
		pass += c.Passes
		fail += c.Fails
	}
	if m, ok := s.Metric("checks"); ok && pass+fail == 0 && m.Rate != nil {
		row.ChecksPassRate = F(*m.Rate)
	} else if pass+fail > 0 {
		row.ChecksPassRate = F(float64(pass) / float64(pass+fail))
	}
	row.Thresholds = thresholds(s)
	row.Valid = !(row.ChecksPassRate < 1)
	if !row.Valid {
		row.InvalidBecause = append(row.InvalidBecause, string(checks.IDChecks))
	}
	return row
}
