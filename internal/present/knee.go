package present

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/checks"
	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/over"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
	"github.com/ldanalyze/ldanalyze/pkg/saturation"
	"github.com/ldanalyze/ldanalyze/pkg/window"
)

// KneeDoc is the JSON document of `knee` (the README's JSON contract): the
// knee.Result plus the validity checks, the per-tag windows, the summary
// comparison, the input counts and the attribution.
type KneeDoc struct {
	*knee.Result
	// Checks are the validity verdicts of `ldanalyze check` on the same run.
	Checks []checks.Check `json:"checks"`
	Groups []GroupRow     `json:"groups,omitempty"`
	// Summary compares k6's own summary (--summary) with the computed
	// whole-run figures.
	Summary []pipeline.SummaryRow `json:"summary_comparison,omitempty"`
	Input   Input                 `json:"input"`
	// Attribution (with --prom) adds saturated, imbalance, invalid_holds.
	*saturation.Attribution
	// ShowWindows adds the windows table to the text (knee --windows).
	ShowWindows bool `json:"-"`
	// Over is the count of samples above --over's limit, nil without it.
	Over *over.Result `json:"over,omitempty"`
}

// GroupRow is one window of one tag set of the --by table: count, rate per
// second, mean/min/max and percentiles of the metric (ms), and the failed
// requests of the same window and tag set.
type GroupRow struct {
	Start time.Time         `json:"start"`
	Tags  map[string]string `json:"tags"`
	// Other marks the row that sums the tag values past --by-limit.
	Other       bool              `json:"other,omitempty"`
	Count       uint64            `json:"count"`
	Rate        knee.F            `json:"rate"`
	Mean        knee.F            `json:"mean"`
	Min         knee.F            `json:"min"`
	Max         knee.F            `json:"max"`
	Percentiles map[string]knee.F `json:"percentiles"`
	Failed      uint64            `json:"failed"`
}

// GroupRows turns the window rows into their JSON form.
func GroupRows(rows []window.Row, by []string, pcts []float64) []GroupRow {
	out := make([]GroupRow, len(rows))
	for i, r := range rows {
		g := GroupRow{Start: time.Unix(0, r.StartNS).UTC(), Tags: map[string]string{}, Other: r.Other, Count: r.Count, Rate: knee.F(r.Rate),
			Mean: knee.F(r.Mean), Min: knee.F(r.Min), Max: knee.F(r.Max), Failed: r.Failed, Percentiles: map[string]knee.F{}}
		for j, k := range by {
			g.Tags[k] = r.Tags[j]
		}
		for j, p := range pcts {
			g.Percentiles[knee.PercentileName(p)] = knee.F(r.Percentiles[j])
		}
		out[i] = g
	}
	return out
}

// WriteKnee renders the document of `knee` in format f: JSON (the
// document), GitHub job-summary markdown, CSV (the --by rows when by is
// set, else the levels and windows table) or the text/markdown report
// (KneeText). rows are the --by rows (window.Aggregator), pcts the
// percentile columns.
func WriteKnee(w io.Writer, f render.Format, rep *KneeDoc, rows []window.Row, by []string, pcts []float64) error {
	switch f {
	case render.JSON:
		return render.WriteJSON(w, rep)
	case render.GitHub:
		return KneeGitHub(w, rep, pcts)
	case render.CSV:
		if len(by) > 0 {
			return WriteByCSV(w, rows, by, pcts)
		}
		return LevelGrid(rep.Result.Windows, rep.Result, pcts, true).Write(w, f)
	}
	return KneeText(w, f, rep, rows, by, pcts)
}

// KneeText renders the knee report as a terminal or markdown document:
// run facts, the levels table, then the knee, ceiling and SLO in words.
func KneeText(w io.Writer, f render.Format, rep *KneeDoc, rows []window.Row, by []string, pcts []float64) error {
	r := rep.Result
	var b strings.Builder
	h := func(s string) {
		if f == render.Markdown {
			fmt.Fprintf(&b, "\n## %s\n\n", s)
		} else {
			fmt.Fprintf(&b, "\n%s\n", s)
		}
	}
	if f == render.Markdown {
		b.WriteString("# Knee analysis\n\n")
	}
	fmt.Fprintf(&b, "%s: %d samples, %s to %s (%s s at %s resolution), %s model (%s)\n",
		strings.Join(rep.Input.Files, ", "), rep.Input.Rows, r.Start.Format(time.RFC3339), r.End.Format(time.RFC3339),
		Num(float64(r.DurationS)), time.Duration(float64(r.ResolutionS)*1e9), r.Model, r.ModelEvidence)
	if f == render.Markdown {
		b.WriteString("\n") // its own paragraph, not run into the next line
	}
	o := r.Overall
	u := UnitSuffix(r)
	of := ""
	if o.Of != "" {
		of = " (percentiles and max of " + o.Of + ")"
	}
	qs := fmt.Sprintf("p50 %s%s, p90 %s%s, p95 %s%s, p99 %s%s", Num(float64(o.P50MS)), u, Num(float64(o.P90MS)), u, Num(float64(o.P95MS)), u, Num(float64(o.P99MS)), u)
	if len(o.Percentiles) > 0 && len(pcts) > 0 { // --percentiles asked for others
		parts := make([]string, 0, len(pcts))
		for _, q := range pcts {
			parts = append(parts, fmt.Sprintf("%s %s%s", knee.PercentileName(q), Num(float64(o.Percentiles[knee.PercentileName(q)])), u))
		}
		qs = strings.Join(parts, ", ")
	}
	fmt.Fprintf(&b, "%s over the run%s: %d samples, %s, max %s%s; %d %s, %s failed, %d dropped iterations\n",
		r.Metric, of, o.Count, qs, Num(float64(o.MaxMS)), u,
		o.Requests, streamNoun(r), Pct(float64(o.ErrorRate)), o.Dropped)
	if len(rep.Summary) > 0 {
		h("k6's own summary beside the computed whole-run figures")
		if err := flushText(w, &b, f); err != nil {
			return err
		}
		if err := SummaryGrid(rep.Summary).Write(w, f); err != nil {
			return err
		}
	}
	levels, title := r.AllLevels(), r.LevelsTitle()
	if r.Levels != "none" {
		h(title)
		if f == render.Markdown {
			b.WriteString("Latency is of successful responses; percentiles by k6's definition.\n\n")
		}
		if err := flushText(w, &b, f); err != nil {
			return err
		}
		if err := LevelGrid(levels, r, pcts, false).Write(w, f); err != nil {
			return err
		}
		h("Verdict")
		Findings(&b, r)
	}
	if rep.Attribution != nil {
		for _, line := range rep.Attribution.Summary() {
			b.WriteString(line + "\n")
		}
	}
	if f == render.Markdown { // a terminal gets them on stderr
		for _, wn := range r.Warnings {
			fmt.Fprintf(&b, "warning: %s\n", wn)
		}
	}
	if rep.Over != nil {
		OverLines(&b, rep.Over)
	}
	CheckLines(&b, rep.Checks)
	if rep.ShowWindows && len(r.Windows) > 0 {
		if err := windowsText(w, f, &b, r, pcts); err != nil {
			return err
		}
	}
	if len(rows) > 0 {
		h(fmt.Sprintf("%s per %s window by %s", r.Metric, time.Duration(r.WindowS*1e9), strings.Join(by, ",")))
		if err := flushText(w, &b, f); err != nil {
			return err
		}
		if err := ByGrid(rows, by, pcts, false).Write(w, f); err != nil {
			return err
		}
	}
	if f == render.Markdown {
		fmt.Fprintf(&b, "\n_%s._\n", r.PercentileMethod)
	}
	return flushText(w, &b, f)
}

// OverLines states the count above --over's limit and the worst tag
// values (the ten with the most samples above it).
func OverLines(b *strings.Builder, o *over.Result) {
	fmt.Fprintf(b, "%s above %s: %d of %d samples (%s)", o.Metric, limitText(o.LimitMS), o.Count, o.Total, pctFine(float64(o.Share)))
	if o.WorstMS.Valid() {
		fmt.Fprintf(b, ", worst %s ms", Num(float64(o.WorstMS)))
	}
	b.WriteString("\n")
	for i, k := range o.By {
		if i == 10 {
			fmt.Fprintf(b, "  … %d more %s values above it (--format json lists them all)\n", len(o.By)-10, strings.Join(o.ByTags, ","))
			break
		}
		fmt.Fprintf(b, "  %s=%s: %d of %d (%s), worst %s ms\n", strings.Join(o.ByTags, ","), k.Key, k.Count, k.Total, pctFine(float64(k.Share)), Num(float64(k.WorstMS)))
	}
}

// limitText is a limit in ms as a duration when whole ("1s", "200ms").
func limitText(ms float64) string {
	if d := time.Duration(ms * float64(time.Millisecond)); float64(d)/float64(time.Millisecond) == ms && ms > 0 {
		return d.String()
	}
	return Num(ms)
}

// CheckLines lists the validity checks that did not pass, one line
// each; `ldanalyze check` shows them all with their evidence.
func CheckLines(b *strings.Builder, cs []checks.Check) {
	n := 0
	for _, c := range cs {
		if c.Status != checks.Warn && c.Status != checks.Fail {
			continue
		}
		if n == 0 {
			b.WriteString("Validity (ldanalyze check shows the evidence):\n")
		}
		n++
		fmt.Fprintf(b, "  %-4s %s: %s\n", c.Status, c.ID, c.Message)
	}
}

// flushText is flush for a document in format f: a terminal's text has
// its invalid UTF-8 and control characters escaped (render.Printable), as
// its tables have, since check messages and findings quote tag values.
func flushText(w io.Writer, b *strings.Builder, f render.Format) error {
	if f == render.Table {
		s := render.WrapProse(w, render.Printable(b.String()))
		b.Reset()
		b.WriteString(s)
	}
	return flush(w, b)
}

func flush(w io.Writer, b *strings.Builder) error {
	_, err := io.WriteString(w, b.String())
	b.Reset()
	return err
}

// UnitSuffix is " ms", " bytes" or "" (a plain number such as the CLS
// score): what follows a value of r's metric.
func UnitSuffix(r *knee.Result) string {
	if r.MetricUnit == "" && r.Metric != "" && r.CompletedUnit == "" {
		return " ms" // a result from before metric_unit
	}
	if r.MetricUnit == "" {
		return ""
	}
	return " " + r.MetricUnit
}

// streamNoun is what r's request stream counts: requests, calls,
// sessions.
func streamNoun(r *knee.Result) string {
	switch CompletedUnit(r) {
	case "calls/s":
		return "calls"
	case "msgs/s", "sessions/s":
		return "sessions"
	}
	return "requests"
}

// CompletedUnit is the unit of r's completed rates ("req/s" for a result
// that does not say).
func CompletedUnit(r *knee.Result) string {
	if r.CompletedUnit == "" {
		return "req/s"
	}
	return r.CompletedUnit
}

// completedWhat says what a completed rate counts, by its unit.
var completedWhat = map[string]string{
	"req/s":        "of successful responses",
	"calls/s":      "of OK calls",
	"msgs/s":       "of messages received",
	"sessions/s":   "of WebSocket sessions",
	"iterations/s": "of iterations",
}

// Findings states the knee, the ceiling and the SLO capacity of r, one
// sentence per line.
func Findings(b *strings.Builder, r *knee.Result) {
	if r.Caveat != "" {
		defer fmt.Fprintf(b, "Caveat: %s.\n", r.Caveat)
	}
	if r.NoVerdict != "" {
		fmt.Fprintf(b, "Knee, ceiling: not judged: %s.\n", r.NoVerdict)
		return
	}
	unit := r.OfferedUnit
	cu := CompletedUnit(r)
	if k := r.Knee; k != nil && !k.Reached {
		fmt.Fprintf(b, "Knee: not reached: every level had headroom, up to %s %s offered (%s %s completed, p95 %s%s); test higher to find it.\n",
			Num(float64(k.Offered)), unit, Num(float64(k.CompletedRPS)), cu, Num(float64(k.P95MS)), UnitSuffix(r))
	} else if k != nil {
		fmt.Fprintf(b, "Knee: %s %s offered, %s %s completed, p95 %s%s (%s).", Num(float64(k.Offered)), unit, Num(float64(k.CompletedRPS)), cu, Num(float64(k.P95MS)), UnitSuffix(r), k.Method)
		if k.Next != "" {
			fmt.Fprintf(b, " Next level %s.", k.Next)
		}
		b.WriteString("\n")
	} else {
		b.WriteString("Knee: none found: the lowest level tested already lacked headroom.\n")
	}
	if c := r.Ceiling; c != nil {
		fmt.Fprintf(b, "Ceiling: %s %s %s (95%% interval %s–%s) at %s %s offered, %s errors.",
			Num(float64(c.CompletedRPS)), cu, completedWhat[cu], Num(float64(c.Low)), Num(float64(c.High)), Num(float64(c.Offered)), unit, Pct(float64(c.ErrorRate)))
		if c.Note != "" {
			fmt.Fprintf(b, " %s.", strings.TrimSuffix(c.Note, "."))
		}
		b.WriteString("\n")
	} else {
		b.WriteString("Ceiling: none: every level shed more than 5% of its requests.\n")
	}
	if s := r.SLO; s != nil {
		var line string
		switch {
		case s.Met:
			line = fmt.Sprintf("SLO %s: met at every level, up to %s %s (%s %s)", s.Expr, Num(float64(s.MaxOffered)), unit, Num(float64(s.MaxCompletedRPS)), cu)
		case math.IsNaN(float64(s.MaxOffered)) && s.ErrorLimited:
			line = fmt.Sprintf("SLO %s: not met even at the lowest level: its errors were more than 5%% above the low-load rate", s.Expr)
		case math.IsNaN(float64(s.MaxOffered)):
			line = fmt.Sprintf("SLO %s: not met even at the lowest level", s.Expr)
		case s.ErrorLimited:
			// The walk stopped at a level that shed: the answer is the
			// level before it, not an interpolation.
			line = fmt.Sprintf("SLO %s: met up to %s %s (%s %s completed), the last level before one whose errors were more than 5%% above the low-load rate: errors end the SLO there however fast the successful responses, so it is not interpolated", s.Expr, Num(float64(s.MaxOffered)), unit, Num(float64(s.MaxCompletedRPS)), cu)
		default:
			line = fmt.Sprintf("SLO %s: met up to %s %s (%s %s completed), interpolated between levels", s.Expr, Num(float64(s.MaxOffered)), unit, Num(float64(s.MaxCompletedRPS)), cu)
		}
		if s.Passed > 0 {
			line += fmt.Sprintf("; %d lower level(s) missed it while the levels above met it: a stall, not the capacity, as the knee judges them", s.Passed)
		}
		b.WriteString(line + ".\n")
	}
}

// ByGrid is the per-window, per-tag table. Its first columns are the ones
// shared/bench compares: window (unix s), the --by tags, count, the
// percentiles, failed. With machine false (terminal and markdown) windows
// are UTC clock times and numbers are rounded for reading.
func ByGrid(rows []window.Row, by []string, pcts []float64, machine bool) *render.Grid {
	g := &render.Grid{Header: byHeader(by, pcts, machine)}
	if !machine {
		g.Drop = byDrop
	}
	for _, r := range rows {
		g.Rows = append(g.Rows, byRow(nil, &r, machine))
	}
	return g
}

// WriteByCSV writes ByGrid(rows, by, pcts, true) as CSV a row at a time,
// without holding the table's cells (a 24-hour run at 30 s windows has
// tens of thousands of rows).
func WriteByCSV(w io.Writer, rows []window.Row, by []string, pcts []float64) error {
	split := len(rows)
	if len(rows) >= parByRows && runtime.GOMAXPROCS(0) > 1 {
		split = len(rows) / 2
	}
	return writeByCSV(w, rows, by, pcts, split)
}

// parByRows is the fewest rows WriteByCSV formats on two cores: a day's
// run at 30-s windows has ~14,000 (~7 ms of number formatting on one
// core, at the end of the command), a 30-minute run's few hundred take
// well under a millisecond.
const parByRows = 4096

// writeByCSV is WriteByCSV with rows[split:] formatted on another
// goroutine, into one buffer, while the rows before it are written.
func writeByCSV(w io.Writer, rows []window.Row, by []string, pcts []float64, split int) error {
	var later chan []byte
	if split < len(rows) {
		later = make(chan []byte, 1)
		go func() {
			// Sized by the first row (a little over): grown by
			// doubling, the buffer left its outgrown copies to collect.
			b := appendByCSV(nil, &rows[split])
			b = append(make([]byte, 0, len(b)*(len(rows)-split)*5/4), b...)
			for i := split + 1; i < len(rows); i++ {
				b = appendByCSV(b, &rows[i])
			}
			later <- b
		}()
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var line []byte
	for i, h := range byHeader(by, pcts, true) {
		if i > 0 {
			line = append(line, ',')
		}
		line = appendCSVField(line, h)
	}
	line = append(line, '\n')
	for i := range rows[:split] {
		if _, err := bw.Write(line); err != nil {
			return err
		}
		line = appendByCSV(line[:0], &rows[i])
	}
	if _, err := bw.Write(line); err != nil {
		return err
	}
	if later != nil {
		if _, err := bw.Write(<-later); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// appendByCSV appends r as a CSV line of WriteByCSV: byRow's machine
// cells, formatted straight into dst (a day's run at 30-s windows is
// ~14,000 rows of ~12 numbers).
func appendByCSV(dst []byte, r *window.Row) []byte {
	dst = strconv.AppendInt(dst, r.StartNS/1e9, 10)
	for _, t := range r.Tags {
		dst = appendCSVField(append(dst, ','), t)
	}
	dst = strconv.AppendUint(append(dst, ','), r.Count, 10)
	for _, v := range r.Percentiles {
		dst = appendCSVNum(append(dst, ','), v)
	}
	dst = strconv.AppendUint(append(dst, ','), r.Failed, 10)
	for _, v := range [...]float64{r.Rate, r.Mean, r.Min, r.Max} {
		dst = appendCSVNum(append(dst, ','), v)
	}
	return append(dst, '\n')
}

// appendCSVNum appends CSVNum(v).
func appendCSVNum(dst []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return dst
	}
	if b, ok := appendMicros(dst, v); ok {
		return b
	}
	return strconv.AppendFloat(dst, v, 'f', -1, 64)
}

// appendMicros appends v as strconv.AppendFloat(dst, v, 'f', -1, 64) does
// when v is a whole number of millionths below 2^29 in size (k6 writes
// every value with six decimals, and the exact percentiles are such
// values), and reports whether it did. There the shortest decimal that
// reads back as v is the one of the millionths: doubles are less than
// 1.2e-7 apart, so no other number of at most six decimals reads back as
// v, and none with more is shorter.
func appendMicros(dst []byte, v float64) ([]byte, bool) {
	if !(math.Abs(v) < 1<<29) || (v == 0 && math.Signbit(v)) {
		return dst, false
	}
	m := math.Round(v * 1e6)
	if m/1e6 != v {
		return dst, false
	}
	n := int64(m)
	if n < 0 {
		dst = append(dst, '-')
		n = -n
	}
	dst = strconv.AppendInt(dst, n/1e6, 10)
	frac := n % 1e6
	if frac == 0 {
		return dst, true
	}
	var digits [6]byte
	for i := 5; i >= 0; i-- {
		digits[i] = byte('0' + frac%10)
		frac /= 10
	}
	end := 6
	for digits[end-1] == '0' {
		end--
	}
	return append(append(dst, '.'), digits[:end]...), true
}

// appendCSVField appends field as encoding/csv's Writer writes it with a
// comma and \n line ends: quoted, its quotes doubled, when it holds a
// comma, a quote, \r or \n, begins with a space (unicode.IsSpace) or is
// \. (the Writer's own rule, kept so the bytes do not change).
func appendCSVField(dst []byte, field string) []byte {
	quote := field == `\.`
	if field != "" && !quote {
		r, _ := utf8.DecodeRuneInString(field)
		quote = strings.ContainsAny(field, ",\"\r\n") || unicode.IsSpace(r)
	}
	if !quote {
		return append(dst, field...)
	}
	dst = append(dst, '"')
	for {
		i := strings.IndexByte(field, '"')
		if i < 0 {
			break
		}
		dst = append(append(dst, field[:i+1]...), '"')
		field = field[i+1:]
	}
	return append(append(dst, field...), '"')
}

// byHeader is ByGrid's header.
func byHeader(by []string, pcts []float64, machine bool) []string {
	first := "window"
	if !machine {
		first = "window (UTC)"
	}
	h := append([]string{first}, by...)
	h = append(h, "count")
	for _, p := range pcts {
		name := knee.PercentileName(p)
		if !machine {
			name += " ms"
		}
		h = append(h, name)
	}
	if machine {
		return append(h, "failed", "rate", "mean", "min", "max")
	}
	return append(h, "failed", "per s", "mean ms", "min ms", "max ms")
}

// byRow appends ByGrid's cells of r to row.
func byRow(row []string, r *window.Row, machine bool) []string {
	f := Num
	w := strconv.FormatInt(r.StartNS/1e9, 10)
	if machine {
		f = CSVNum
	} else {
		w = time.Unix(0, r.StartNS).UTC().Format("15:04:05")
	}
	row = append(row, w)
	row = append(row, r.Tags...)
	row = append(row, strconv.FormatUint(r.Count, 10))
	for _, v := range r.Percentiles {
		row = append(row, f(v))
	}
	return append(row, strconv.FormatUint(r.Failed, 10), f(r.Rate), f(r.Mean), f(r.Min), f(r.Max))
}

// LevelGrid is a table of holds, ramp steps or windows.
func LevelGrid(ls []knee.Level, res *knee.Result, pcts []float64, machine bool) *render.Grid {
	f := Num
	if machine {
		f = CSVNum
	}
	offered := "offered it/s"
	switch res.OfferedUnit {
	case "VUs", "users":
		offered = "offered " + res.OfferedUnit
	}
	// Short headers keep the table within ~130 columns: goodput/s is
	// successful responses per second, all/s every response (of a
	// WebSocket run: messages received, and sessions).
	good, all := "goodput/s", "all/s"
	if CompletedUnit(res) == "msgs/s" {
		good, all = "msgs/s", "sessions/s"
	}
	g := &render.Grid{Header: []string{"start", "s", offered, good, all, "errors", "dropped/s", "VUs"}}
	if machine {
		g.Header = []string{"start", "seconds", "offered", "completed_rps", "requests_rps", "error_rate", "dropped_per_s", "vus", "count", "mean_ms", "min_ms", "max_ms",
			"bytes_received_per_s", "bytes_sent_per_s", "bytes_per_request", "bytes_sent_per_request"}
	}
	// A terminal or markdown table shows the network columns only when
	// the run has data_received or data_sent rows.
	bytes := machine
	for _, l := range ls {
		bytes = bytes || l.BytesReceivedPerS > 0 || l.BytesSentPerS > 0
	}
	if bytes && !machine {
		g.Header = append(g.Header, "recv/s", "B/req")
	}
	for _, p := range pcts {
		h := knee.PercentileName(p)
		if machine {
			h += "_ms"
		} else {
			h += UnitSuffix(res)
		}
		g.Header = append(g.Header, h)
	}
	vital := res.WebVital != nil
	if vital {
		if machine {
			g.Header = append(g.Header, "p75", "good_share", "needs_improvement_share", "poor_share")
		} else {
			g.Header = append(g.Header, res.WebVital.Name+" p75", "good", "needs impr.", "poor")
		}
	}
	g.Header = append(g.Header, "verdict")
	g.Drop = levelDrop
	for _, l := range ls {
		start := l.Start.Format(time.RFC3339)
		if !machine {
			start = "+" + Num(l.Start.Sub(res.Start.Truncate(time.Second)).Seconds()) + "s"
		}
		row := []string{start, f(l.Seconds), f(float64(l.Offered)), f(float64(l.CompletedRPS)), f(float64(l.RequestsRPS))}
		if machine {
			row = append(row, f(float64(l.ErrorRate)))
		} else {
			row = append(row, Pct(float64(l.ErrorRate)))
		}
		row = append(row, f(float64(l.DroppedPerS)), f(float64(l.VUs)))
		if machine {
			row = append(row, strconv.FormatUint(l.Count, 10), f(float64(l.MeanMS)), f(float64(l.MinMS)), f(float64(l.MaxMS)),
				f(float64(l.BytesReceivedPerS)), f(float64(l.BytesSentPerS)), f(float64(l.BytesPerRequest)), f(float64(l.BytesSentPerRequest)))
		} else if bytes {
			row = append(row, BytesPerS(float64(l.BytesReceivedPerS)), f(float64(l.BytesPerRequest)))
		}
		for _, p := range pcts {
			row = append(row, f(float64(l.Percentiles[knee.PercentileName(p)])))
		}
		if vital {
			v := l.WebVital
			if v == nil {
				v = &knee.VitalShares{P75: knee.F(math.NaN()), Good: knee.F(math.NaN()), NeedsImprovement: knee.F(math.NaN()), Poor: knee.F(math.NaN())}
			}
			if machine {
				row = append(row, f(float64(v.P75)), f(float64(v.Good)), f(float64(v.NeedsImprovement)), f(float64(v.Poor)))
			} else {
				row = append(row, f(float64(v.P75)), Pct(float64(v.Good)), Pct(float64(v.NeedsImprovement)), Pct(float64(v.Poor)))
			}
		}
		verdict := l.Verdict
		if res != nil && res.NoVerdict != "" && !machine {
			verdict = "–" // too short to judge: the Verdict says why
		}
		row = append(row, verdict)
		g.Rows = append(g.Rows, row)
	}
	return g
}

// CheckGrid is the checklist table: id, status, evidence, meaning. In CSV
// the evidence keeps full precision (and Unix times as numbers); for
// people a …_unix time is written as a UTC time (EvidenceValue).
func CheckGrid(rep *checks.Report, machine bool) *render.Grid {
	f, sep := Num, ", "
	if machine {
		f, sep = CSVNum, "; "
	}
	g := &render.Grid{Header: []string{"id", "status", "evidence", "meaning"}}
	for _, ch := range rep.Checks {
		ev := make([]string, len(ch.Evidence))
		for i, v := range ch.Evidence {
			ev[i] = v.Name + "=" + f(v.Value)
			if !machine {
				ev[i] = v.Name + "=" + EvidenceValue(v)
			}
		}
		g.Rows = append(g.Rows, []string{string(ch.ID), string(ch.Status), strings.Join(ev, sep), ch.Message})
	}
	return g
}

// SummaryGrid puts k6's own summary beside the computed whole-run figures.
func SummaryGrid(rows []pipeline.SummaryRow) *render.Grid {
	g := &render.Grid{Header: []string{"metric", "stat", "k6 summary", "ldanalyze", "difference"}}
	for _, r := range rows {
		d := "-"
		if r.Diff.Valid() {
			d = fmt.Sprintf("%+.3f%%", 100*float64(r.Diff))
		}
		g.Rows = append(g.Rows, []string{r.Metric, r.Stat, Num(float64(r.K6)), Num(float64(r.Ours)), d})
	}
	return g
}

// Input is the JSON form of ingest.Stats: what was read.
type Input struct {
	Files     []string `json:"files"`
	Rows      int64    `json:"rows"`
	Skipped   int64    `json:"skipped"`
	Errors    []string `json:"errors"`
	Truncated bool     `json:"truncated"`
}

// InputOf is the Input of an analysis of paths.
func InputOf(paths []string, st ingest.Stats) Input {
	s := Input{Files: paths, Rows: st.Rows, Skipped: st.Skipped, Truncated: st.Truncated, Errors: []string{}}
	for _, e := range st.Errors {
		s.Errors = append(s.Errors, e.Error())
	}
	return s
}
