package present

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/jsonnum"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/queueing"
	"github.com/ldanalyze/ldanalyze/pkg/scale"
)

// LittleDoc is the JSON document of `queue little` (issue 7 contract:
// in_flight, or the solved quantity).
type LittleDoc struct {
	Solved         string     `json:"solved"`
	InFlight       float64    `json:"in_flight"`
	RatePerSecond  float64    `json:"rate_per_second"`
	LatencySeconds float64    `json:"latency_seconds"`
	VUs            *LittleVUs `json:"vus,omitempty"`
	Warnings       []string   `json:"warnings"`
}

// LittleVUs checks the k6 maxVUs against the VUs rate × latency keeps
// busy: Required VUs, Headroom (MaxVUs − Required) ÷ Required, a ratio.
type LittleVUs struct {
	Required   float64 `json:"required"`
	MaxVUs     int     `json:"max_vus"`
	Sufficient bool    `json:"sufficient"`
	Headroom   float64 `json:"headroom"`
}

// Write renders the document in format f: JSON as it is, CSV as the
// table alone, a terminal table or markdown followed by the summary lines.
func (r *LittleDoc) Write(w io.Writer, f render.Format) error {
	if f == render.JSON {
		return render.WriteJSON(w, r)
	}
	mark := func(k string) string {
		if k == r.Solved {
			return "(solved)"
		}
		return "(given)"
	}
	g := render.Grid{Header: []string{"quantity", "value", ""}}
	val := func(v float64, u scale.Unit) string {
		if f == render.CSV {
			return full(v)
		}
		return u.Format(v)
	}
	g.Rows = [][]string{
		{"in flight L", val(r.InFlight, scale.Count), mark("in_flight")},
		{"rate λ", val(r.RatePerSecond, scale.PerSecond), mark("rate_per_second")},
		{"latency W", val(r.LatencySeconds, scale.Seconds), mark("latency_seconds")},
	}
	if v := r.VUs; v != nil {
		g.Rows = append(g.Rows,
			[]string{"VUs needed", val(v.Required, scale.Count), "rate × latency"},
			[]string{"maxVUs", strconv.Itoa(v.MaxVUs), fmt.Sprintf("sufficient: %v, headroom %.0f%%", v.Sufficient, 100*v.Headroom)})
	}
	if err := g.Write(w, f); err != nil {
		return err
	}
	if f == render.CSV {
		return nil
	}
	return Lines(w, f, nil, r.Warnings)
}

// QueueRow is one M/M/c prediction in the JSON of `queue mm1` and
// `queue mmc`; times in seconds, rates per second, utilisation 0–1.
type QueueRow struct {
	RatePerSecond   float64 `json:"rate_per_second"`
	ServiceSeconds  float64 `json:"service_seconds"`
	Servers         int     `json:"servers"`
	OfferedErlangs  float64 `json:"offered_erlangs"`
	Utilisation     float64 `json:"utilisation"`
	PWait           float64 `json:"p_wait"`
	WaitSeconds     float64 `json:"wait_seconds"`
	ResponseSeconds float64 `json:"response_seconds"`
	Quantile        float64 `json:"quantile"`
	QuantileSeconds float64 `json:"response_quantile_seconds"`
	QueueLength     float64 `json:"queue_length"`
	InSystem        float64 `json:"in_system"`
}

// QueueDoc is the JSON document of `queue mm1` and `queue mmc`: one row,
// or one per --rates value (unstable rates are left out and named in the
// warnings).
type QueueDoc struct {
	Model  string   `json:"model"`
	Target *float64 `json:"target_seconds,omitempty"`
	// TargetQuantile is the quantile the target applies to; 0 is the mean.
	TargetQuantile *float64   `json:"target_quantile,omitempty"`
	Rows           []QueueRow `json:"rows"`
	Warnings       []string   `json:"warnings"`
}

// Write renders the document in format f: JSON as it is, CSV as the
// table alone, a terminal table or markdown followed by the summary lines.
func (r *QueueDoc) Write(w io.Writer, f render.Format) error {
	if f == render.JSON {
		return render.WriteJSON(w, r)
	}
	qn := "p95"
	if len(r.Rows) > 0 {
		qn = "p" + strconv.FormatFloat(100*r.Rows[0].Quantile, 'g', -1, 64)
	}
	g := render.Grid{Header: []string{"rate", "servers", "utilisation", "P(wait)", "mean wait", "mean response", qn + " response", "in system"}}
	for _, q := range r.Rows {
		row := []string{scale.PerSecond.Format(q.RatePerSecond), strconv.Itoa(q.Servers),
			strconv.FormatFloat(100*q.Utilisation, 'f', 1, 64) + "%", strconv.FormatFloat(q.PWait, 'f', 4, 64),
			scale.Seconds.Format(q.WaitSeconds), scale.Seconds.Format(q.ResponseSeconds), scale.Seconds.Format(q.QuantileSeconds),
			strconv.FormatFloat(q.InSystem, 'f', 2, 64)}
		if f == render.CSV {
			row = []string{full(q.RatePerSecond), strconv.Itoa(q.Servers), full(q.Utilisation), full(q.PWait),
				full(q.WaitSeconds), full(q.ResponseSeconds), full(q.QuantileSeconds), full(q.InSystem)}
		}
		g.Rows = append(g.Rows, row)
	}
	if err := g.Write(w, f); err != nil {
		return err
	}
	if f == render.CSV {
		return nil
	}
	var lines []string
	if len(r.Rows) > 0 {
		q := r.Rows[0]
		s := fmt.Sprintf("%s, service time %s", r.Model, scale.Seconds.Format(q.ServiceSeconds))
		if len(r.Rows) == 1 {
			s += fmt.Sprintf(": offered load %.3g Erlangs, capacity %s", q.OfferedErlangs, scale.PerSecond.Format(float64(q.Servers)/q.ServiceSeconds))
		}
		lines = append(lines, s)
		if r.Target != nil {
			what := "mean"
			if *r.TargetQuantile > 0 {
				what = "p" + strconv.FormatFloat(100**r.TargetQuantile, 'g', -1, 64)
			}
			lines = append(lines, fmt.Sprintf("fewest servers whose %s response time is at most %s: %d", what, scale.Seconds.Format(*r.Target), q.Servers))
		}
	}
	lines = append(lines, "assumes Poisson arrivals and exponential service: real waits are usually longer")
	return Lines(w, f, lines, r.Warnings)
}

// LittleRunDoc is the JSON document of `queue little --run`: Little's
// law checked per level. in_flight is λ·W over all levels (the busy VUs
// the completed iterations account for) and vus the mean vus gauge.
type LittleRunDoc struct {
	Files     []string    `json:"files"`
	Model     knee.Model  `json:"model"`
	Levels    string      `json:"levels"`
	Tolerance float64     `json:"tolerance"`
	InFlight  float64     `json:"in_flight"`
	VUs       float64     `json:"vus"`
	Overall   LittleRow   `json:"overall"`
	Rows      []LittleRow `json:"rows"`
	Warnings  []string    `json:"warnings"`
	Input     Input       `json:"input"`
}

// LittleRow is one level of `queue little --run`: L = vus, λ =
// iterations_per_second, W = iteration_seconds, busy_vus = λW, gap = L −
// λW, ratio = λW/L, band = the |gap| counted as agreement.
type LittleRow struct {
	Start               time.Time `json:"start"`
	End                 time.Time `json:"end"`
	Seconds             float64   `json:"seconds"`
	VUs                 float64   `json:"vus"`
	Iterations          float64   `json:"iterations"`
	IterationsPerSecond float64   `json:"iterations_per_second"`
	IterationSeconds    float64   `json:"iteration_seconds"`
	BusyVUs             float64   `json:"busy_vus"`
	Gap                 float64   `json:"gap"`
	Ratio               float64   `json:"ratio"`
	Band                float64   `json:"band"`
	Verdict             string    `json:"verdict"`
	Reason              string    `json:"reason"`
}

func littleRowOf(l queueing.LittleLevel) LittleRow {
	return LittleRow{Start: l.Start, End: l.End, Seconds: l.Seconds, VUs: l.VUs, Iterations: l.Iterations,
		IterationsPerSecond: l.IterationsPerSecond, IterationSeconds: l.IterationSeconds, BusyVUs: l.BusyVUs,
		Gap: l.Gap, Ratio: l.Ratio, Band: l.Band, Verdict: l.Verdict, Reason: l.Reason}
}

// Write renders the document in format f: JSON as it is, CSV as the
// table alone, a terminal table or markdown followed by the summary lines.
func (r *LittleRunDoc) Write(w io.Writer, f render.Format) error {
	if f == render.JSON {
		return render.WriteJSON(w, r)
	}
	g := render.Grid{Header: []string{"start", "seconds", "VUs L", "iterations/s λ", "iteration W", "λ·W", "L − λ·W", "λ·W ÷ L", "verdict"}}
	row := func(label string, l LittleRow) []string {
		if f == render.CSV {
			return []string{l.Start.Format(time.RFC3339), full(l.Seconds), full(l.VUs), full(l.IterationsPerSecond),
				full(l.IterationSeconds), full(l.BusyVUs), full(l.Gap), full(l.Ratio), l.Verdict}
		}
		return []string{label, strconv.FormatFloat(l.Seconds, 'f', 0, 64), strconv.FormatFloat(l.VUs, 'f', 1, 64),
			strconv.FormatFloat(l.IterationsPerSecond, 'f', 2, 64), scale.Seconds.Format(l.IterationSeconds),
			strconv.FormatFloat(l.BusyVUs, 'f', 1, 64), strconv.FormatFloat(l.Gap, 'f', 1, 64),
			strconv.FormatFloat(l.Ratio, 'f', 3, 64), l.Verdict}
	}
	for _, l := range r.Rows {
		g.Rows = append(g.Rows, row(l.Start.Format(time.TimeOnly), l))
	}
	if f != render.CSV {
		g.Rows = append(g.Rows, row("all levels", r.Overall))
	}
	if err := g.Write(w, f); err != nil {
		return err
	}
	if f == render.CSV {
		return nil
	}
	kind := map[string]string{"holds": "hold", "ramp": "ramp step"}[r.Levels]
	agree := 0
	for _, l := range r.Rows {
		if l.Verdict == queueing.LittleHolds {
			agree++
		}
	}
	head := fmt.Sprintf("Little's law L = λW per %s of a %s-model run: %d of %d levels agree within %.0f%%",
		orDefault(kind, "level"), r.Model, agree, len(r.Rows), 100*r.Tolerance)
	if r.Model == knee.Open {
		head = strings.Replace(head, "a open", "an open", 1) + " or the sampling noise of the once-a-second vus gauge"
	}
	lines := []string{
		head,
		fmt.Sprintf("all levels: L = %.1f VUs, λ·W = %.2f/s × %s = %.1f (%s): %s", r.Overall.VUs, r.Overall.IterationsPerSecond,
			scale.Seconds.Format(r.Overall.IterationSeconds), r.Overall.BusyVUs, r.Overall.Verdict, r.Overall.Reason),
	}
	for _, l := range r.Rows {
		if l.Verdict != queueing.LittleHolds {
			lines = append(lines, fmt.Sprintf("%s: %s", l.Start.Format(time.TimeOnly), l.Reason))
		}
	}
	return Lines(w, f, lines, r.Warnings)
}

// QueueRunDoc is the JSON document of `queue mmc --run`: an M/M/c
// queue estimated from a k6 run and its prediction beside each measured
// level. Times in seconds, rates per second, utilisation 0–1; predictions
// are null where the model has no steady state.
type QueueRunDoc struct {
	Files            []string      `json:"files"`
	Model            string        `json:"model"`
	Workload         knee.Model    `json:"workload_model"`
	Levels           string        `json:"levels"`
	Metric           string        `json:"metric"`
	ServiceSeconds   float64       `json:"service_seconds"`
	ServiceEstimated bool          `json:"service_estimated"`
	ServiceLevels    int           `json:"service_levels"`
	CeilingRPS       jsonnum.Float `json:"ceiling_rps"`
	CeilingReached   bool          `json:"ceiling_reached"`
	ServersExact     jsonnum.Float `json:"servers_exact"`
	Servers          int           `json:"servers"`
	ServersEstimated bool          `json:"servers_estimated"`
	CapacityRPS      float64       `json:"capacity_rps"`
	Quantile         float64       `json:"quantile"`
	Rows             []QueueRunRow `json:"rows"`
	Warnings         []string      `json:"warnings"`
	Input            Input         `json:"input"`
}

// QueueRunRow is one measured level beside the model.
type QueueRunRow struct {
	Start                    time.Time     `json:"start"`
	End                      time.Time     `json:"end"`
	ArrivalRPS               float64       `json:"arrival_rps"`
	OfferedRPS               jsonnum.Float `json:"offered_rps"`
	ThroughputRPS            float64       `json:"throughput_rps"`
	Utilisation              float64       `json:"utilisation"`
	Stable                   bool          `json:"stable"`
	Samples                  uint64        `json:"samples"`
	MeasuredMeanSeconds      jsonnum.Float `json:"measured_mean_seconds"`
	MeasuredQuantileSeconds  jsonnum.Float `json:"measured_quantile_seconds"`
	PredictedMeanSeconds     jsonnum.Float `json:"predicted_mean_seconds"`
	PredictedQuantileSeconds jsonnum.Float `json:"predicted_quantile_seconds"`
	PWait                    jsonnum.Float `json:"p_wait"`
}

// Write renders the document in format f: JSON as it is, CSV as the
// table alone, a terminal table or markdown followed by the summary lines.
func (r *QueueRunDoc) Write(w io.Writer, f render.Format) error {
	if f == render.JSON {
		return render.WriteJSON(w, r)
	}
	qn := knee.PercentileName(100 * r.Quantile)
	g := render.Grid{Header: []string{"start", "rate", "utilisation", "measured mean", "model mean", "measured " + qn, "model " + qn}}
	sec := func(v jsonnum.Float) string {
		if f == render.CSV {
			if !v.Valid() {
				return ""
			}
			return full(float64(v))
		}
		if !v.Valid() {
			return "–"
		}
		return scale.Seconds.Format(float64(v))
	}
	for _, l := range r.Rows {
		pm, pq := sec(l.PredictedMeanSeconds), sec(l.PredictedQuantileSeconds)
		if !l.Stable && f != render.CSV {
			pm, pq = "no steady state", "–"
		}
		row := []string{l.Start.Format(time.TimeOnly), scale.PerSecond.Format(l.ArrivalRPS), strconv.FormatFloat(100*l.Utilisation, 'f', 0, 64) + "%",
			sec(l.MeasuredMeanSeconds), pm, sec(l.MeasuredQuantileSeconds), pq}
		if f == render.CSV {
			row[0], row[1], row[2] = l.Start.Format(time.RFC3339), full(l.ArrivalRPS), full(l.Utilisation)
		}
		g.Rows = append(g.Rows, row)
	}
	if err := g.Write(w, f); err != nil {
		return err
	}
	if f == render.CSV {
		return nil
	}
	svc := "given"
	if r.ServiceEstimated {
		svc = fmt.Sprintf("the mean %s at the %d lowest-load level(s)", r.Metric, r.ServiceLevels)
	}
	srv := "given"
	if r.ServersEstimated {
		srv = fmt.Sprintf("X_max·S = %s × %s = %.2f, rounded; utilisation law at the ceiling", scale.PerSecond.Format(float64(r.CeilingRPS)),
			scale.Seconds.Format(r.ServiceSeconds), float64(r.ServersExact))
	}
	rate := "offered rate (open model)"
	if r.Workload == knee.Closed {
		rate = "measured goodput (closed model: the successful responses; fast rejections take little service time)"
	}
	lines := []string{
		fmt.Sprintf("M/M/c from the run: service time S = %s (%s), servers c = %d (%s)", scale.Seconds.Format(r.ServiceSeconds), svc, r.Servers, srv),
		fmt.Sprintf("model capacity c/S = %s", scale.PerSecond.Format(r.CapacityRPS)),
		"rate per level: the " + rate,
		"assumes Poisson arrivals and exponential service: waits are longer for heavier-tailed service, shorter for more regular service",
	}
	switch {
	case r.CeilingRPS.Valid() && r.CeilingReached:
		lines[1] += fmt.Sprintf(", measured ceiling %s", scale.PerSecond.Format(float64(r.CeilingRPS)))
	case r.CeilingRPS.Valid():
		lines[1] += fmt.Sprintf(", measured ceiling ≥ %s: not reached, the run never saturated, so a capacity from it is a lower bound", scale.PerSecond.Format(float64(r.CeilingRPS)))
	}
	return Lines(w, f, lines, r.Warnings)
}

// SetVUs puts the check of the k6 maxVUs against rate × latency
// (queueing.CheckVUs) into the document, with a warning when the VUs are
// short or leave under 20 % headroom.
func (r *LittleDoc) SetVUs(v queueing.VUCheck) {
	r.VUs = &LittleVUs{Required: v.Required, MaxVUs: v.MaxVUs, Sufficient: v.Sufficient, Headroom: v.Headroom}
	switch {
	case !v.Sufficient:
		r.Warnings = append(r.Warnings, fmt.Sprintf("maxVUs %d is below the %.0f VUs the rate needs: k6 will drop iterations", v.MaxVUs, math.Ceil(v.Required)))
	case v.Headroom < 0.2:
		r.Warnings = append(r.Warnings, fmt.Sprintf("maxVUs %d leaves only %.0f%% headroom over the mean %.0f busy VUs: bursts will drop iterations", v.MaxVUs, 100*v.Headroom, v.Required))
	}
}

// QueueRows are the rows of `queue mm1`/`queue mmc` for the queues qs,
// with the response-time quantile p (0–1) of each.
func QueueRows(qs []queueing.MMC, p float64) ([]QueueRow, error) {
	rows := make([]QueueRow, 0, len(qs))
	for _, q := range qs {
		qt, err := q.ResponseQuantile(p)
		if err != nil {
			return nil, err
		}
		rows = append(rows, QueueRow{
			RatePerSecond: q.ArrivalRate, ServiceSeconds: q.ServiceSeconds, Servers: q.Servers,
			OfferedErlangs: q.OfferedLoad, Utilisation: q.Utilisation, PWait: q.PWait,
			WaitSeconds: q.WaitSeconds, ResponseSeconds: q.ResponseSeconds, Quantile: p, QuantileSeconds: qt,
			QueueLength: q.QueueLength, InSystem: q.InSystem,
		})
	}
	return rows, nil
}

// NewLittleRunDoc is the document of `queue little --run` on the files of
// one run: the knee result res, what was read st and Little's law checked
// per level (chk).
func NewLittleRunDoc(files []string, res *knee.Result, st ingest.Stats, chk queueing.LittleCheck) *LittleRunDoc {
	d := &LittleRunDoc{Files: files, Model: res.Model, Levels: res.Levels, Tolerance: chk.Tolerance,
		InFlight: chk.Overall.BusyVUs, VUs: chk.Overall.VUs, Overall: littleRowOf(chk.Overall),
		Rows: []LittleRow{}, Warnings: append(append([]string{}, chk.Warnings...), knee.Messages(res.Warnings)...), Input: InputOf(files, st)}
	for _, l := range chk.Levels {
		d.Rows = append(d.Rows, littleRowOf(l))
	}
	return d
}

// NewQueueRunDoc is the document of `queue mmc --run`: the M/M/c queue est
// estimated (with opt) from the run of files, res its knee result, st what
// was read, metric the latency Trend.
func NewQueueRunDoc(files []string, res *knee.Result, st ingest.Stats, metric string, est queueing.MMcEstimate, opt queueing.EstimateOptions) *QueueRunDoc {
	nan := jsonnum.Float(math.NaN())
	d := &QueueRunDoc{Files: files, Model: "M/M/c", Workload: res.Model, Levels: res.Levels, Metric: metric,
		ServiceSeconds: est.ServiceSeconds, ServiceEstimated: opt.ServiceSeconds == 0, ServiceLevels: est.ServiceLevels,
		CeilingRPS: nan, CeilingReached: !est.CeilingNotReached, ServersExact: nan, Servers: est.Servers, ServersEstimated: opt.Servers == 0,
		CapacityRPS: est.CapacityPerSecond, Quantile: est.Quantile, Rows: []QueueRunRow{},
		Warnings: append(append([]string{}, est.Warnings...), knee.Messages(res.Warnings)...), Input: InputOf(files, st)}
	if est.CeilingPerSecond > 0 {
		d.CeilingRPS = jsonnum.Float(est.CeilingPerSecond)
	}
	if opt.Servers == 0 {
		d.ServersExact = jsonnum.Float(est.ServersExact)
	}
	for _, l := range est.Levels {
		row := QueueRunRow{Start: l.Start, End: l.End, ArrivalRPS: l.ArrivalPerSecond, OfferedRPS: nan, ThroughputRPS: l.ThroughputPerSecond,
			Utilisation: l.Utilisation, Stable: l.Stable, Samples: l.Samples,
			MeasuredMeanSeconds: nan, MeasuredQuantileSeconds: nan, PredictedMeanSeconds: nan, PredictedQuantileSeconds: nan, PWait: nan}
		if l.OfferedPerSecond > 0 {
			row.OfferedRPS = jsonnum.Float(l.OfferedPerSecond)
		}
		if l.Samples > 0 {
			row.MeasuredMeanSeconds, row.MeasuredQuantileSeconds = jsonnum.Float(l.MeanSeconds), jsonnum.Float(l.QuantileSeconds)
		}
		if l.Stable {
			row.PredictedMeanSeconds, row.PredictedQuantileSeconds, row.PWait = jsonnum.Float(l.PredictedMeanSeconds), jsonnum.Float(l.PredictedQuantileSeconds), jsonnum.Float(l.PWait)
		}
		d.Rows = append(d.Rows, row)
	}
	return d
}
