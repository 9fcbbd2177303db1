package present

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/suite"
)

// SuiteDoc is the JSON document of `suite` (the README's contract): one
// row per run and scenario, and the files of the directories that were
// not k6 outputs or summaries.
type SuiteDoc struct {
	Runs    []suite.Row     `json:"runs"`
	Skipped []suite.Skipped `json:"skipped"`
}

// Write renders the suite: JSON as the document, CSV as one row per run
// at full precision, a table or markdown as the table followed by a
// count of valid runs and the files skipped.
func (d *SuiteDoc) Write(w io.Writer, f render.Format) error {
	switch f {
	case render.JSON:
		return render.WriteJSON(w, d)
	case render.CSV:
		return SuiteGrid(d.Runs, true).Write(w, f)
	}
	if err := SuiteGrid(d.Runs, false).Write(w, f); err != nil {
		return err
	}
	valid := 0
	var bad []string
	for _, r := range d.Runs {
		if r.Scenario != "" {
			continue
		}
		if r.Valid {
			valid++
		} else {
			bad = append(bad, r.File)
		}
	}
	files := valid + len(bad)
	lines := []string{fmt.Sprintf("%d of %d run%s valid (no validity check failed: `ldanalyze check FILE` shows the evidence; a summary alone is judged by its k6 checks, any failed one failing it, while with the run's samples the checks that failed only past the knee are warnings); figures of an invalid run are not a result", valid, files, Plural(files))}
	for _, r := range d.Runs {
		if r.Error != "" {
			lines = append(lines, "error: "+r.Error)
		}
	}
	if n := len(d.Skipped); n > 0 {
		names := make([]string, 0, min(n, 8))
		for _, s := range d.Skipped[:min(n, 8)] {
			names = append(names, filepath.Base(s.Path))
		}
		more := ""
		if n > 8 {
			more = fmt.Sprintf(" and %d more", n-8)
		}
		lines = append(lines, fmt.Sprintf("skipped %d file%s, not k6 outputs or summaries (--format json gives each reason): %s%s", n, Plural(n), strings.Join(names, ", "), more))
	}
	return Lines(w, f, lines, nil)
}

// suiteMachineHeader is the CSV header of `suite`: the JSON names.
var suiteMachineHeader = []string{"file", "scenario", "kind", "model", "offered_unit", "vus", "rate", "requests", "rps", "metric",
	"p50_ms", "p95_ms", "p99_ms", "min_ms", "max_ms", "error_rate", "checks_pass_rate", "thresholds_passed", "thresholds_failed",
	"valid", "invalid_because", "knee", "knee_reached", "ceiling", "ceiling_reached", "error"}

// SuiteGrid is the suite table: one row per run (and scenario). machine
// gives the CSV form (the JSON names and full precision); the human form
// says VUs or rate, a "≥" before a knee or ceiling not reached, the
// thresholds as passed/failed and the validity with the failed checks.
func SuiteGrid(rows []suite.Row, machine bool) *render.Grid {
	if machine {
		g := &render.Grid{Header: suiteMachineHeader}
		for _, r := range rows {
			tp, tf := "", ""
			if r.Thresholds != nil {
				tp, tf = strconv.Itoa(r.Thresholds.Passed), strconv.Itoa(r.Thresholds.Failed)
			}
			g.Rows = append(g.Rows, []string{r.File, r.Scenario, string(r.Kind), r.Model, r.OfferedUnit, CSVNum(float64(r.VUs)), CSVNum(float64(r.Rate)),
				strconv.FormatUint(r.Requests, 10), CSVNum(float64(r.RPS)), r.Metric, CSVNum(float64(r.P50MS)), CSVNum(float64(r.P95MS)), CSVNum(float64(r.P99MS)),
				CSVNum(float64(r.MinMS)), CSVNum(float64(r.MaxMS)), CSVNum(float64(r.ErrorRate)), CSVNum(float64(r.ChecksPassRate)), tp, tf,
				strconv.FormatBool(r.Valid), strings.Join(r.InvalidBecause, ";"), CSVNum(float64(r.Knee)), strconv.FormatBool(r.KneeReached),
				CSVNum(float64(r.Ceiling)), strconv.FormatBool(r.CeilingReached), r.Error})
		}
		return g
	}
	scen := false
	var files []string
	for _, r := range rows {
		scen = scen || r.Scenario != ""
		files = append(files, r.File)
	}
	prefix := commonDir(files)
	// One ceiling unit for every row goes in the header; mixed protocols
	// (HTTP beside gRPC or WebSocket runs) put each row's in its cell.
	units := map[string]bool{}
	for _, r := range rows {
		units[ceilingUnit(r)] = true
	}
	ceilHead, ceilCell := "ceiling req/s", func(suite.Row) string { return "" }
	if len(units) > 1 {
		ceilHead, ceilCell = "ceiling", func(r suite.Row) string { return " " + ceilingUnit(r) }
	} else {
		for u := range units {
			ceilHead = "ceiling " + u
		}
	}
	g := &render.Grid{Header: []string{"file", "VUs / rate", "req/s", "p50 ms", "p95 ms", "p99 ms", "max ms", "errors", "checks", "thresholds", "valid", "knee", ceilHead},
		Drop: []string{"p50 ms", "max ms", "thresholds", "VUs / rate", "p99 ms"}}
	if scen {
		g.Header = append([]string{g.Header[0], "scenario"}, g.Header[1:]...)
	}
	for _, r := range rows {
		load := "-"
		switch {
		case r.Rate.Valid():
			load = Num(float64(r.Rate)) + " it/s"
		case r.VUs.Valid():
			load = Num(float64(r.VUs)) + " VUs"
		}
		th := "-"
		if t := r.Thresholds; t != nil {
			th = fmt.Sprintf("%d pass", t.Passed)
			if t.Failed > 0 {
				th = fmt.Sprintf("%d FAIL of %d", t.Failed, t.Passed+t.Failed)
			}
		}
		valid := "yes"
		if !r.Valid {
			valid = "NO: " + strings.Join(r.InvalidBecause, ", ")
		}
		if r.Truncated {
			valid += " (file cut short)"
		}
		bound := func(v suite.F, reached bool, unit string) string {
			if !v.Valid() {
				return "-"
			}
			s := Num(float64(v)) + unit
			if !reached {
				s = "≥ " + s
			}
			return s
		}
		unit := ""
		if r.OfferedUnit != "" {
			unit = " " + strings.Replace(r.OfferedUnit, "iterations/s", "it/s", 1)
		}
		row := []string{strings.TrimPrefix(r.File, prefix), load, Num(float64(r.RPS)), Num(float64(r.P50MS)), Num(float64(r.P95MS)), Num(float64(r.P99MS)), Num(float64(r.MaxMS)),
			Pct(float64(r.ErrorRate)), Pct(float64(r.ChecksPassRate)), th, valid, bound(r.Knee, r.KneeReached, unit), bound(r.Ceiling, r.CeilingReached, ceilCell(r))}
		if scen {
			file := row[0]
			if r.Scenario != "" {
				file = "  └"
			}
			row = append([]string{file, r.Scenario}, row[1:]...)
		}
		g.Rows = append(g.Rows, row)
	}
	return g
}

// commonDir is the directory prefix, slash included, that every path
// shares ("../corpus/k6/"), "" when they share none or there is one path.
func commonDir(paths []string) string {
	if len(paths) < 2 {
		return ""
	}
	p := paths[0]
	for _, q := range paths[1:] {
		for !strings.HasPrefix(q, p) {
			p = p[:len(p)-1]
		}
	}
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[:i+1]
	}
	return ""
}

// ceilingUnit is the unit of a suite row's ceiling, "req/s" when the row
// does not say.
func ceilingUnit(r suite.Row) string {
	if r.CompletedUnit == "" {
		return "req/s"
	}
	return r.CompletedUnit
}
