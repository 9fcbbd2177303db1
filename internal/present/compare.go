package present

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/compare"
	"golang.org/x/perf/benchmath"
)

// CompareDoc is the JSON document of `compare`: the labels of the two runs
// and the comparison.
type CompareDoc struct {
	// Before and After are the runs' labels ("before", "after" unless
	// given as label=FILE).
	Before string `json:"before"`
	After  string `json:"after"`
	*compare.Result
}

// Labels are the two runs' labels, before first.
func (d *CompareDoc) Labels() [2]string { return [2]string{d.Before, d.After} }

// AllWarnings are the distinct warnings of the comparison and of its rows.
func (d *CompareDoc) AllWarnings() []string {
	seen := map[string]bool{}
	var out []string
	all := append([]string{}, d.Result.Warnings...)
	for _, r := range d.Rows {
		all = append(all, r.Warnings...)
	}
	for _, w := range all {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// Write renders the comparison: JSON as the document, CSV as one row per
// level and metric at full precision, a table or markdown as that table
// (median ± CI per run, the change or "~") followed by the knee, the
// ceiling and what was not matched.
func (d *CompareDoc) Write(w io.Writer, f render.Format) error {
	switch f {
	case render.JSON:
		return render.WriteJSON(w, d)
	case render.CSV:
		return CompareGrid(d.Result, d.Labels(), true).Write(w, f)
	}
	if err := CompareGrid(d.Result, d.Labels(), false).Write(w, f); err != nil {
		return err
	}
	_, err := fmt.Fprint(w, compareFooter(d, f))
	return err
}

// CompareGrid is one row per matched level and metric: before and after
// as median ± CI, and the change, "~" when not significant. machine gives
// the CSV form (full precision, a column per figure).
func CompareGrid(res *compare.Result, labels [2]string, machine bool) *render.Grid {
	if machine {
		g := &render.Grid{Header: []string{"offered", "after_offered", "start_s", "metric", "before_median", "before_low", "before_high", "before_n",
			"after_median", "after_low", "after_high", "after_n", "p", "significant", "delta_pct"}}
		for _, r := range res.Rows {
			g.Rows = append(g.Rows, []string{CSVNum(float64(r.Offered)), CSVNum(float64(r.AfterOffered)), CSVNum(r.StartS), r.Metric,
				CSVNum(float64(r.Before.Median)), CSVNum(float64(r.Before.Low)), CSVNum(float64(r.Before.High)), strconv.Itoa(r.Before.N),
				CSVNum(float64(r.After.Median)), CSVNum(float64(r.After.Low)), CSVNum(float64(r.After.High)), strconv.Itoa(r.After.N),
				CSVNum(float64(r.P)), strconv.FormatBool(r.Significant), CSVNum(float64(r.DeltaPct))})
		}
		return g
	}
	g := &render.Grid{Header: []string{"offered (" + res.OfferedUnit + ")", "metric", labels[0], labels[1], "vs " + labels[0]}}
	for _, r := range res.Rows {
		offered := Num(float64(r.Offered))
		if r.AfterOffered != r.Offered {
			offered += " / " + Num(float64(r.AfterOffered))
		}
		offered += " @+" + Num(r.StartS) + "s"
		g.Rows = append(g.Rows, []string{offered, r.Metric, medianCI(r.Metric, r.Before), medianCI(r.Metric, r.After), compareDelta(res, r)})
	}
	return g
}

// compareDelta is the change of one row, benchstat's "+12.3% (p=0.001
// n=10+10)", or "~" when not significant.
func compareDelta(res *compare.Result, r compare.Row) string {
	cmp := benchmath.Comparison{P: float64(r.P), N1: r.Before.N, N2: r.After.N, Alpha: res.Alpha}
	delta := "~"
	if r.Significant {
		delta = cmp.FormatDelta(float64(r.Before.Median), float64(r.After.Median))
	}
	return delta + " (" + cmp.String() + ")"
}

// medianCI formats a summary as benchstat does: "212 ± 3%".
func medianCI(metric string, s compare.Summary) string {
	if s.N == 0 {
		return "-"
	}
	v := Num(float64(s.Median))
	if metric == "error_rate" {
		v = Pct(float64(s.Median))
	}
	return v + " ± " + benchmath.Summary{Center: float64(s.Median), Lo: float64(s.Low), Hi: float64(s.High)}.PctRangeString()
}

// compareFooter states the knee and ceiling of each run, what was not
// matched, and (markdown only) the distinct warnings of the rows.
func compareFooter(d *CompareDoc, f render.Format) string {
	res, labels := d.Result, d.Labels()
	var b strings.Builder
	b.WriteString("\n")
	line := func(s string) {
		if f == render.Markdown {
			b.WriteString("- ")
		}
		b.WriteString(s + "\n")
	}
	for _, s := range CompareFindings(d) {
		line(s)
	}
	line(fmt.Sprintf("%s windows, U test at alpha %v, median intervals at %v; levels not matched: %d %s, %d %s",
		time.Duration(res.WindowS*1e9), res.Alpha, res.Confidence, res.UnmatchedBefore, labels[0], res.UnmatchedAfter, labels[1]))
	if f == render.Markdown {
		for _, w := range d.AllWarnings() {
			line("warning: " + w)
		}
	}
	return b.String()
}

// CompareFindings are the knee and the ceiling of both runs with their
// change: "knee: 180.8 → 199 iterations/s (+10.1%)".
func CompareFindings(d *CompareDoc) []string {
	res := d.Result
	change := func(p compare.Point) string {
		if !p.DeltaPct.Valid() {
			return ""
		}
		return fmt.Sprintf(" (%+.1f%%)", float64(p.DeltaPct))
	}
	return []string{
		fmt.Sprintf("knee: %s → %s %s%s", Num(float64(res.KneeOffered.Before)), Num(float64(res.KneeOffered.After)), res.OfferedUnit, change(res.KneeOffered)),
		fmt.Sprintf("ceiling: %s → %s req/s%s", Num(float64(res.CeilingRPS.Before)), Num(float64(res.CeilingRPS.After)), change(res.CeilingRPS)),
	}
}
