package present

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/prom"
)

// PullGrid is the table `prom pull` prints of an export it wrote: per
// query its name, role, unit and how many series and points came back.
func PullGrid(exp *prom.Export) *render.Grid {
	g := &render.Grid{Header: []string{"query", "role", "unit", "series", "points"}}
	for _, q := range exp.Manifest.Queries {
		g.Rows = append(g.Rows, []string{q.Name, string(q.Role), q.Unit, strconv.Itoa(q.Series), strconv.Itoa(q.Points)})
	}
	return g
}

// PromSeries is one series of `prom read --format json`: the file it was
// read from, its labels and its points.
type PromSeries struct {
	Source string            `json:"source"`
	Labels map[string]string `json:"labels"`
	Points []PromPoint       `json:"points"`
}

// PromPoint is one point of a PromSeries; NaN and ±Inf are null in JSON.
type PromPoint struct {
	Time  time.Time `json:"t"`
	Value knee.F    `json:"v"`
}

// NewPromSeries is the JSON form of the series s of the file source.
func NewPromSeries(source string, s prom.Series) PromSeries {
	r := PromSeries{Source: source, Labels: s.Labels, Points: make([]PromPoint, len(s.Points))}
	for i, p := range s.Points {
		r.Points[i] = PromPoint{time.Unix(0, p.TimeNS).UTC(), knee.F(p.Value)}
	}
	return r
}

// PromReadGrid is the table of `prom read`: one row per series, its
// source (file, and section of a file of several responses), labels,
// number of points, first and last time (RFC 3339) and the smallest and
// largest finite value. Build it with AddSummary or AddSeries.
type PromReadGrid struct{ render.Grid }

// NewPromReadGrid is an empty `prom read` table.
func NewPromReadGrid() *PromReadGrid {
	return &PromReadGrid{render.Grid{Header: []string{"source", "series", "points", "first", "last", "min", "max"}}}
}

// AddSummary adds the row of a series summarised while streaming
// (prom.Summaries) from the file source.
func (g *PromReadGrid) AddSummary(source string, s prom.SeriesSummary) {
	if s.Section != "" {
		source += " " + s.Section
	}
	row := []string{source, prom.LabelsKey(s.Labels), strconv.Itoa(s.Points), "", "", CSVNum(s.Min), CSVNum(s.Max)}
	if s.Points > 0 {
		row[3] = time.Unix(0, s.FirstNS).UTC().Format(time.RFC3339)
		row[4] = time.Unix(0, s.LastNS).UTC().Format(time.RFC3339)
	}
	g.Rows = append(g.Rows, row)
}

// AddSeries adds the row of a series read whole.
func (g *PromReadGrid) AddSeries(r PromSeries) {
	row := []string{r.Source, prom.LabelsKey(r.Labels), strconv.Itoa(len(r.Points)), "", "", "", ""}
	if n := len(r.Points); n > 0 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range r.Points {
			if p.Value.Valid() {
				lo, hi = min(lo, float64(p.Value)), max(hi, float64(p.Value))
			}
		}
		row[3] = r.Points[0].Time.Format(time.RFC3339)
		row[4] = r.Points[n-1].Time.Format(time.RFC3339)
		row[5], row[6] = CSVNum(lo), CSVNum(hi)
	}
	g.Rows = append(g.Rows, row)
}

// K6RunText writes `prom k6`'s table of a k6 run read from Prometheus: a
// line with the range, the step, the model and the latency source (not
// in CSV), then one row per step (end time, offered and completed load, requests,
// errors, dropped iterations, VUs, latency percentiles and mean in ms).
// JSON is the K6Run itself.
func K6RunText(w io.Writer, f render.Format, run *prom.K6Run) error {
	if f == render.JSON {
		return render.WriteJSON(w, run)
	}
	src := run.LatencySource
	if src == "" {
		src = "none"
	}
	// CSV is the table alone, times in RFC 3339 and missing values empty,
	// so that it reads back as one table.
	num, end := Num, func(t time.Time) string { return t.Format("15:04:05") }
	if f == render.CSV {
		num, end = CSVNum, func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	} else if _, err := fmt.Fprintf(w, "%s to %s at %s steps; model %s (%s); latency: %s\n", run.Start.Format(time.RFC3339), run.End.Format(time.RFC3339), run.Step, run.Model, run.ModelEvidence, src); err != nil {
		return err
	}
	g := &render.Grid{Header: []string{"end", "offered", "completed_rps", "requests", "errors", "dropped", "vus", "p50_ms", "p95_ms", "p99_ms", "mean_ms"}}
	whole := func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }
	for i, s := range run.Steps {
		g.Rows = append(g.Rows, []string{end(s.End), num(run.Offered(i)), num(run.CompletedRPS(i)),
			whole(s.Requests), whole(s.Requests - s.OK), whole(s.DroppedIterations),
			num(s.VUs), num(s.P50MS), num(s.P95MS), num(s.P99MS), num(s.MeanMS)})
	}
	return g.Write(w, f)
}
