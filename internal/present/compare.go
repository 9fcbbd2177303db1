package present

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/compare"
)

// CompareDoc is the JSON document of `compare`: the labels of the two runs
// and the comparison. Run names the pair in a comparison of two suites
// (its file name), empty otherwise.
type CompareDoc struct {
	Run string `json:"run,omitempty"`
	// Before and After are the runs' labels ("before", "after" unless
	// given as label=FILE).
	Before string `json:"before"`
	After  string `json:"after"`
	*compare.Result
}

// Labels are the two runs' labels, before first.
func (d *CompareDoc) Labels() [2]string { return [2]string{d.Before, d.After} }

// Write renders the comparison: JSON as the document, CSV as one row per
// level and metric at full precision, a table or markdown as that table
// (each run's figure with its interval, the change with its interval, or
// "~" when not significant, and the test) followed by the notes, the knee,
// the ceiling and what was not matched.
func (d *CompareDoc) Write(w io.Writer, f render.Format) error {
	switch f {
	case render.JSON:
		return render.WriteJSON(w, d)
	case render.CSV:
		g, _ := CompareGrid([]*CompareDoc{d}, true)
		return g.Write(w, f)
	}
	g, notes := CompareGrid([]*CompareDoc{d}, false)
	if err := g.Write(w, f); err != nil {
		return err
	}
	_, err := fmt.Fprint(w, compareFooter(d, notes, f))
	return err
}

// compareHeader is the CSV header of a comparison, one column per figure.
var compareHeader = []string{"offered", "after_offered", "start_s", "metric",
	"before_value", "before_low", "before_high", "before_n", "before_failed",
	"after_value", "after_low", "after_high", "after_n", "after_failed",
	"delta", "delta_low", "delta_high", "delta_pct", "p", "significant", "better", "test", "interval", "note"}

// CompareGrid is one row per matched level and metric of every
// comparison (one, or one per pair of runs of two suites, with a run
// column): each run's figure with its interval, the change with its
// interval ("~" when not significant) and the test. machine gives the CSV
// form (full precision, a column per figure, the note in a column). In the
// human form a row's note is a numbered mark in the test column ("[1]"):
// notes are the distinct notes, in order of first use.
func CompareGrid(docs []*CompareDoc, machine bool) (g *render.Grid, notes []string) {
	suite := len(docs) > 1 || (len(docs) == 1 && docs[0].Run != "")
	if machine {
		g = &render.Grid{Header: compareHeader}
		if suite {
			g.Header = append([]string{"run"}, g.Header...)
		}
		for _, d := range docs {
			for _, r := range d.Rows {
				row := []string{CSVNum(float64(r.Offered)), CSVNum(float64(r.AfterOffered)), CSVNum(r.StartS), r.Metric}
				for _, s := range []compare.Side{r.Before, r.After} {
					failed := ""
					if s.Failed != nil {
						failed = strconv.FormatInt(*s.Failed, 10)
					}
					row = append(row, CSVNum(float64(s.Value)), CSVNum(float64(s.Low)), CSVNum(float64(s.High)), strconv.FormatInt(s.N, 10), failed)
				}
				row = append(row, CSVNum(float64(r.Delta)), CSVNum(float64(r.DeltaLow)), CSVNum(float64(r.DeltaHigh)), CSVNum(float64(r.DeltaPct)),
					CSVNum(float64(r.P)), strconv.FormatBool(r.Significant), strconv.FormatBool(r.Better), r.Test, r.Interval, r.Note)
				if suite {
					row = append([]string{d.Run}, row...)
				}
				g.Rows = append(g.Rows, row)
			}
		}
		return g, nil
	}
	labels := docs[0].Labels()
	index := map[string]int{}
	g = &render.Grid{Header: []string{"offered (" + docs[0].OfferedUnit + ")", "metric", labels[0], labels[1], "change", "test"}, Drop: []string{"test"}}
	if suite {
		g.Header = append([]string{"run"}, g.Header...)
	}
	for _, d := range docs {
		for _, r := range d.Rows {
			offered := Num(float64(r.Offered))
			if r.AfterOffered != r.Offered {
				offered += " / " + Num(float64(r.AfterOffered))
			}
			offered += " @+" + Num(r.StartS) + "s"
			test := testCell(r)
			if r.Note != "" {
				n, seen := index[r.Note]
				if !seen {
					notes = append(notes, r.Note)
					n = len(notes)
					index[r.Note] = n
				}
				test += " [" + strconv.Itoa(n) + "]"
			}
			row := []string{offered, r.Metric, sideCell(r.Metric, r.Before), sideCell(r.Metric, r.After), changeCell(r), test}
			if suite {
				row = append([]string{d.Run}, row...)
			}
			g.Rows = append(g.Rows, row)
		}
	}
	return g, notes
}

// valueText is a figure in a row's unit: error rates in percent, other
// figures as Num.
func valueText(metric string, v float64) string {
	if metric == "error_rate" {
		return pctFine(v)
	}
	return Num(v)
}

// pctFine is a 0–1 ratio in percent with two decimals below 1 % and two
// significant digits below 0.01 %: 0.0012 → "0.12%", 4.3e-5 →
// "0.0043%", 0 → "0%".
func pctFine(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "-"
	case v == 0:
		return "0%"
	case a < 0.0001:
		return strconv.FormatFloat(100*v, 'g', 2, 64) + "%"
	case a < 0.01:
		return strconv.FormatFloat(100*v, 'f', 2, 64) + "%"
	}
	return Pct(v)
}

// sideCell is one run's figure with its interval, "212 [205, 219]"; an
// error rate with its counts, "1.2% [0.7%, 2.1%] 12/1000"; "-" when there
// is no figure.
func sideCell(metric string, s compare.Side) string {
	if !s.Value.Valid() {
		return "-"
	}
	out := valueText(metric, float64(s.Value))
	if s.Low.Valid() && s.High.Valid() {
		out += " [" + valueText(metric, float64(s.Low)) + ", " + valueText(metric, float64(s.High)) + "]"
	}
	if s.Failed != nil {
		out += fmt.Sprintf(" %d/%d", *s.Failed, s.N)
	}
	return out
}

// signed is a change with its sign: "+12.3", "-0.50"; error rates in
// percentage points.
func signed(metric string, v float64) string {
	if metric == "error_rate" {
		if math.IsNaN(v) {
			return "-"
		}
		if v == 0 {
			return "0 pp"
		}
		if math.Abs(v) < 0.0001 {
			return fmt.Sprintf("%+.2g pp", 100*v)
		}
		return fmt.Sprintf("%+.2f pp", 100*v)
	}
	s := Num(v)
	if v > 0 {
		s = "+" + s
	}
	return s
}

// changeCell is the change with its interval and in percent, "+10
// [+5.0, +15] (+67.8%)", prefixed "~ " when not significant.
func changeCell(r compare.Row) string {
	if !r.Delta.Valid() {
		return "-"
	}
	out := signed(r.Metric, float64(r.Delta))
	if r.DeltaLow.Valid() && r.DeltaHigh.Valid() {
		out += " [" + signed(r.Metric, float64(r.DeltaLow)) + ", " + signed(r.Metric, float64(r.DeltaHigh)) + "]"
	}
	if r.DeltaPct.Valid() && r.Metric != "error_rate" {
		out += fmt.Sprintf(" (%+.1f%%)", float64(r.DeltaPct))
	}
	if !r.Significant {
		return "~ " + out
	}
	return out
}

// testCell names the test and its p-value, "U p=0.002 6+6" or "Fisher
// p=0.0033".
func testCell(r compare.Row) string {
	name := "U"
	if r.Test == compare.TestFisher {
		name = "Fisher"
	}
	out := name + " p=" + pValue(float64(r.P))
	if r.Test == compare.TestMannWhitney {
		out += fmt.Sprintf(" %d+%d", r.Before.N, r.After.N)
	}
	return out
}

// pValue formats a p-value with two significant digits, "<0.0001" below.
func pValue(p float64) string {
	switch {
	case math.IsNaN(p):
		return "-"
	case p < 1e-4:
		return "<0.0001"
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}

// compareFooter lists the notes, states the knee and ceiling of each run,
// the methods and what was not matched, and the comparison's warnings
// (markdown only; a terminal gets them on stderr).
func compareFooter(d *CompareDoc, notes []string, f render.Format) string {
	res, labels := d.Result, d.Labels()
	var b strings.Builder
	b.WriteString("\n")
	line := func(s string) {
		if f == render.Markdown {
			b.WriteString("- ")
		}
		b.WriteString(s + "\n")
	}
	for i, n := range notes {
		line(fmt.Sprintf("[%d] %s", i+1, n))
	}
	for _, s := range CompareFindings(d) {
		line(s)
	}
	line(CompareMethods(res, labels))
	if f == render.Markdown {
		for _, w := range res.Warnings {
			line("warning: " + w)
		}
	}
	return b.String()
}

// CompareMethods is the sentence that names a comparison's tests and
// intervals, and the levels not matched.
func CompareMethods(res *compare.Result, labels [2]string) string {
	return fmt.Sprintf("~ = not significant at alpha %v; latency and goodput: Mann–Whitney U over %s windows, %g%% intervals by a block bootstrap of the windows (%d resamples); errors: Fisher's exact test on the pooled requests, Wilson and Newcombe score intervals; levels not matched: %d %s, %d %s",
		res.Alpha, time.Duration(res.WindowS*1e9), 100*res.Confidence, res.Resamples, res.UnmatchedBefore, labels[0], res.UnmatchedAfter, labels[1])
}

// CompareFindings are the knee and the ceiling of both runs with their
// intervals and change: "ceiling: 183.9 [178.6, 188] → 150 [145, 155]
// req/s, -18.4% (p<0.0001)"; "≥ x" for a figure not reached.
func CompareFindings(d *CompareDoc) []string {
	res := d.Result
	fig := func(v, lo, hi compare.F, reached bool) string {
		s := Num(float64(v))
		if !reached && v.Valid() {
			s = "≥ " + s
		}
		if lo.Valid() && hi.Valid() {
			s += " [" + Num(float64(lo)) + ", " + Num(float64(hi)) + "]"
		}
		return s
	}
	change := func(p compare.Point) string {
		s := ""
		if p.DeltaPct.Valid() && p.BeforeReached && p.AfterReached {
			s = fmt.Sprintf(", %+.1f%%", float64(p.DeltaPct))
		}
		switch {
		case p.Significant && p.P.Valid():
			s += " (p=" + pValue(float64(p.P)) + ")"
		case p.Significant:
			s += " (brackets apart)"
		case p.P.Valid():
			s += " ~ (p=" + pValue(float64(p.P)) + ")"
		case p.Note != "":
			s += " ~ (" + p.Note + ")"
		}
		return s
	}
	k, c := res.KneeOffered, res.CeilingRPS
	return []string{
		fmt.Sprintf("knee: %s → %s %s%s", fig(k.Before, k.BeforeLow, k.BeforeHigh, k.BeforeReached), fig(k.After, k.AfterLow, k.AfterHigh, k.AfterReached), res.OfferedUnit, change(k)),
		fmt.Sprintf("ceiling: %s → %s req/s%s", fig(c.Before, c.BeforeLow, c.BeforeHigh, c.BeforeReached), fig(c.After, c.AfterLow, c.AfterHigh, c.AfterReached), change(c)),
	}
}

// CompareSuiteDoc is the JSON document of `compare` of two directories:
// the labels and one comparison per pair of runs of the same name.
type CompareSuiteDoc struct {
	Before string        `json:"before"`
	After  string        `json:"after"`
	Runs   []*CompareDoc `json:"runs"`
}

// WriteCompare renders the comparisons of `compare`: one pair of runs as
// CompareDoc.Write does, the pairs of two suites as one table with a run
// column (JSON: CompareSuiteDoc), and either as a GitHub job summary.
func WriteCompare(w io.Writer, f render.Format, docs []*CompareDoc) error {
	if f == render.GitHub {
		return CompareGitHub(w, docs)
	}
	if len(docs) == 1 && docs[0].Run == "" {
		return docs[0].Write(w, f)
	}
	switch f {
	case render.JSON:
		return render.WriteJSON(w, CompareSuiteDoc{Before: docs[0].Before, After: docs[0].After, Runs: docs})
	case render.CSV:
		g, _ := CompareGrid(docs, true)
		return g.Write(w, f)
	}
	g, notes := CompareGrid(docs, false)
	if err := g.Write(w, f); err != nil {
		return err
	}
	var lines []string
	for i, n := range notes {
		lines = append(lines, fmt.Sprintf("[%d] %s", i+1, n))
	}
	var warnings []string
	for _, d := range docs {
		for _, s := range CompareFindings(d) {
			lines = append(lines, d.Run+": "+s)
		}
		for _, s := range d.Warnings {
			warnings = append(warnings, d.Run+": "+s)
		}
	}
	lines = append(lines, CompareMethods(docs[0].Result, docs[0].Labels()))
	return Lines(w, f, lines, warnings)
}
