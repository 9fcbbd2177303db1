package report

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ldanalyze/ldanalyze/pkg/knee"
)

// Plot is one chart of a report. It holds the data and draws only when
// written, as PNG or SVG.
type Plot struct {
	// Name is the plot's file stem, e.g. "latency": a report written to
	// report.md links report-latency.png and report-latency.svg.
	Name string
	// Title is the heading drawn on the plot.
	Title string
	// Alt describes the plot in one sentence, for the image's alt text.
	Alt string
	// Width and Height are the drawing's size in points (1/72 in).
	Width, Height vg.Length

	draw func(dc draw.Canvas) error
	// png and svg are the drawn images once Report.DrawPlots drew them.
	png, svg []byte
}

// PNGDPI is the resolution of the PNG images, in dots per inch.
const PNGDPI = 110

// PNG returns a writer of the plot as a PNG image.
func (p *Plot) PNG() io.WriterTo { return image{p, "png"} }

// SVG returns a writer of the plot as an SVG document.
func (p *Plot) SVG() io.WriterTo { return image{p, "svg"} }

// File is the plot's file name for a report whose images are named with
// prefix, in format ext ("png" or "svg"): File("report-", "png") is
// "report-latency.png".
func (p *Plot) File(prefix, ext string) string { return prefix + p.Name + "." + ext }

type image struct {
	p      *Plot
	format string
}

// WriteTo writes the plot: the image Report.DrawPlots drew, or else it
// draws it now. A failure to draw (gonum/plot panics on some degenerate
// data) is returned as an error and nothing is written.
func (im image) WriteTo(w io.Writer) (int64, error) {
	b := im.p.png
	if im.format == "svg" {
		b = im.p.svg
	}
	if b == nil {
		var err error
		if b, err = im.render(); err != nil {
			return 0, fmt.Errorf("report: plot %q: %w", im.p.Name, err)
		}
	}
	n, err := w.Write(b)
	return int64(n), err
}

// render draws the image into memory; an empty image is an error.
func (im image) render() ([]byte, error) {
	var buf bytes.Buffer
	if _, err := im.draw(&buf); err != nil {
		return nil, err
	}
	if buf.Len() == 0 {
		return nil, fmt.Errorf("the %s image came out empty", im.format)
	}
	return buf.Bytes(), nil
}

// draw draws the plot and writes it in its format.
func (im image) draw(w io.Writer) (n int64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	switch im.format {
	case "png":
		c := vgimg.NewWith(vgimg.UseWH(im.p.Width, im.p.Height), vgimg.UseDPI(PNGDPI))
		if err := im.p.draw(draw.New(c)); err != nil {
			return 0, err
		}
		return vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	case "svg":
		c := vgsvg.New(im.p.Width, im.p.Height)
		if err := im.p.draw(draw.New(c)); err != nil {
			return 0, err
		}
		return c.WriteTo(w)
	}
	return 0, fmt.Errorf("unknown image format %q", im.format)
}

// DrawPlots draws every plot of the report as PNG and SVG, in memory, so
// that the files written afterwards are whole: a plot that cannot be drawn
// (gonum/plot fails on its data, or an image comes out empty) is taken out
// of its section, a note in the section says why, and the reason is added
// to r.Warnings and returned; the rest of the report is unchanged. After
// it, each plot's PNG and SVG writers write the drawn images.
func (r *Report) DrawPlots() []string {
	var warns []string
	for i := range r.Sections {
		s := &r.Sections[i]
		var kept []*Plot
		for _, p := range s.Plots {
			png, err := image{p, "png"}.render()
			var svg []byte
			if err == nil {
				svg, err = image{p, "svg"}.render()
			}
			if err != nil {
				msg := fmt.Sprintf("plot %q left out: %v", p.Title, err)
				s.Notes = append(s.Notes, "The "+msg+".")
				warns = append(warns, msg)
				continue
			}
			p.png, p.svg = png, svg
			kept = append(kept, p)
		}
		s.Plots = kept
	}
	r.Warnings = append(r.Warnings, warns...)
	return warns
}

// grown is v × f, or v when that overflows (a latency of 1e308 ms).
func grown(v, f float64) float64 {
	if g := v * f; !math.IsInf(g, 0) {
		return g
	}
	return v
}

var (
	colOffered   = color.RGBA{R: 0x88, G: 0x88, B: 0x88, A: 0xff}
	colCompleted = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	colResponses = color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}
	colBad       = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	colVUs       = color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}
	dashed       = []vg.Length{vg.Points(6), vg.Points(3)}
)

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Legend.Top = true
	p.Legend.Left = true
	p.X.Tick.Marker = cleanTicks{}
	p.Y.Tick.Marker = cleanTicks{}
	p.Add(plotter.NewGrid())
	return p
}

// cleanTicks are gonum's default ticks labelled with the fewest digits
// ("250", not "250.00").
type cleanTicks struct{}

// Ticks returns the default ticks of [lo, hi] with short labels.
func (cleanTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 6, 64)
		}
	}
	return ts
}

// fewLogTicks are gonum's log-scale ticks, thinned when the axis spans
// more than maxLogLabels decades (one latency of 1e308 ms among
// milliseconds): then only every few decades are ticked and labelled, in
// short form, so the axis stays legible.
type fewLogTicks struct{}

// maxLogLabels is the most decades labelled on a log axis.
const maxLogLabels = 8

// Ticks returns the ticks of [lo, hi].
func (fewLogTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	var major []plot.Tick
	for _, t := range ts {
		if t.Label != "" {
			major = append(major, t)
		}
	}
	if len(major) <= maxLogLabels {
		return ts
	}
	step := (len(major) + maxLogLabels - 1) / maxLogLabels
	var out []plot.Tick
	for i, t := range major {
		if i%step == 0 {
			t.Label = strconv.FormatFloat(t.Value, 'g', 3, 64)
			out = append(out, t)
		}
	}
	return out
}

// series is a named line over time.
type series struct {
	name  string
	xs    []float64
	ys    []float64
	color color.Color
	dash  []vg.Length
}

// addLine adds s (NaN points dropped, downsampled to maxPts) to p. It
// returns false when s has no point to draw.
func addLine(p *plot.Plot, s series, maxPts int, positive bool) (bool, error) {
	var xs, ys []float64
	for i := range s.xs {
		x, y := s.xs[i], s.ys[i]
		if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(y, 0) || positive && y <= 0 {
			continue
		}
		xs, ys = append(xs, x), append(ys, y)
	}
	if len(xs) == 0 {
		return false, nil
	}
	xs, ys = downsample(xs, ys, maxPts)
	pts := make(plotter.XYs, len(xs))
	for i := range xs {
		pts[i] = plotter.XY{X: xs[i], Y: ys[i]}
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return false, err
	}
	l.Color = s.color
	l.Width = vg.Points(1.5)
	l.Dashes = s.dash
	p.Add(l)
	p.Legend.Add(s.name, l)
	return true, nil
}

// elapsed is the x of each window: its middle, in seconds from the start
// of the run.
func elapsed(res *knee.Result, ls []knee.Level) []float64 {
	t0 := res.Start.Truncate(1e9)
	xs := make([]float64, len(ls))
	for i, l := range ls {
		xs[i] = l.Start.Sub(t0).Seconds() + l.Seconds/2
	}
	return xs
}

func column(ls []knee.Level, f func(*knee.Level) knee.F) []float64 {
	out := make([]float64, len(ls))
	for i := range ls {
		out[i] = float64(f(&ls[i]))
	}
	return out
}

// loadPlot is completed vs offered load over time (top) and the VUs and
// dropped iterations (bottom).
func loadPlot(res *knee.Result, maxPts int) *Plot {
	ws := res.Windows
	if len(ws) == 0 {
		return nil
	}
	xs := elapsed(res, ws)
	lines := []series{
		{"offered (" + rateUnit(res) + ")", xs, column(ws, func(l *knee.Level) knee.F { return l.OfferedRPS }), colOffered, dashed},
		{"all responses", xs, column(ws, func(l *knee.Level) knee.F { return l.RequestsRPS }), colResponses, nil},
		{"completed (successful)", xs, column(ws, func(l *knee.Level) knee.F { return l.CompletedRPS }), colCompleted, nil},
	}
	lower := []series{
		{"VUs (mean)", xs, column(ws, func(l *knee.Level) knee.F { return l.VUs }), colVUs, nil},
	}
	if res.Model == knee.Open {
		lower = append(lower, series{"dropped iterations/s", xs, column(ws, func(l *knee.Level) knee.F { return l.DroppedPerS }), colBad, nil})
	}
	return &Plot{Name: "load", Title: "Completed vs offered load over time", Width: 8 * vg.Inch, Height: 5.5 * vg.Inch,
		Alt: fmt.Sprintf("Offered, completed and all responses per second over %s s, with VUs below", trimNum(float64(res.DurationS))),
		draw: func(dc draw.Canvas) error {
			top := newPlot("Completed vs offered load", "", rateUnit(res))
			bottom := newPlot("", "seconds from start", "VUs")
			if res.Model == knee.Open {
				bottom.Y.Label.Text = "VUs, iterations/s"
			}
			drew := false
			for _, s := range lines {
				ok, err := addLine(top, s, maxPts, false)
				if err != nil {
					return err
				}
				drew = drew || ok
			}
			for _, s := range lower {
				if _, err := addLine(bottom, s, maxPts, false); err != nil {
					return err
				}
			}
			if !drew {
				return fmt.Errorf("no rates to draw")
			}
			top.Y.Min, bottom.Y.Min = 0, 0
			top.Y.Max = grown(top.Y.Max, 1.3) // room for the legend
			bottom.Y.Max = math.Max(grown(bottom.Y.Max, 1.3), 1)
			top.X.Min, bottom.X.Min = 0, 0
			top.X.Max = math.Max(top.X.Max, bottom.X.Max)
			bottom.X.Max = top.X.Max
			tiles := draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Points(6), PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}
			cs := plot.Align([][]*plot.Plot{{top}, {bottom}}, tiles, dc)
			top.Draw(cs[0][0])
			bottom.Draw(cs[1][0])
			return nil
		}}
}

// latencyPlot is the percentiles per window on a log scale, with the SLO
// limit as a line. note counts the values a log scale leaves out (0 ms or
// less, or infinite), "" when none or all are (the plot is then left out
// when drawn).
func latencyPlot(res *knee.Result, slo *knee.SLO, maxPts int) (p *Plot, note string) {
	ws := res.Windows
	if len(ws) == 0 {
		return nil, ""
	}
	xs := elapsed(res, ws)
	lines := []series{
		{"p50", xs, column(ws, func(l *knee.Level) knee.F { return l.P50MS }), plotutil.Color(0), nil},
		{"p90", xs, column(ws, func(l *knee.Level) knee.F { return l.P90MS }), plotutil.Color(1), nil},
		{"p95", xs, column(ws, func(l *knee.Level) knee.F { return l.P95MS }), plotutil.Color(2), nil},
		{"p99", xs, column(ws, func(l *knee.Level) knee.F { return l.P99MS }), plotutil.Color(3), nil},
	}
	alt := "Latency percentiles p50, p90, p95 and p99 per window, log scale"
	if slo != nil {
		alt += ", with the SLO " + slo.Source
	}
	var n, left int
	for _, s := range lines {
		for _, y := range s.ys {
			if !math.IsNaN(y) {
				n++
				if y <= 0 || math.IsInf(y, 0) {
					left++
				}
			}
		}
	}
	if left > 0 && left < n {
		note = fmt.Sprintf("The latency plot leaves out %d of its %d window percentiles: values of 0 ms or less (or infinite) have no place on a log scale.", left, n)
	}
	return &Plot{Name: "latency", Title: "Latency percentiles over time", Alt: alt, Width: 8 * vg.Inch, Height: 4 * vg.Inch,
		draw: func(dc draw.Canvas) error {
			p := newPlot("Latency percentiles over time ("+res.Metric+", successful responses)", "seconds from start", "ms (log scale)")
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = fewLogTicks{}
			drew := false
			for _, s := range lines {
				ok, err := addLine(p, s, maxPts, true)
				if err != nil {
					return err
				}
				drew = drew || ok
			}
			if !drew {
				return fmt.Errorf("no positive latency to draw on a log scale")
			}
			if slo != nil && slo.Limit > 0 {
				lo, hi := xs[0], xs[len(xs)-1]
				if _, err := addLine(p, series{"SLO " + slo.Source, []float64{lo, hi}, []float64{slo.Limit, slo.Limit}, colBad, dashed}, maxPts, true); err != nil {
					return err
				}
			}
			// Room above the data for the legend (a factor, on a log scale).
			p.Y.Max = grown(p.Y.Max, 4)
			p.X.Min = 0
			p.Draw(dc)
			return nil
		}}, note
}

// kneePlot is completed vs offered load per level, with the knee and the
// ceiling marked: the saturation curve.
func kneePlot(res *knee.Result, levels []knee.Level) *Plot {
	if len(levels) == 0 {
		return nil
	}
	alt := "Completed load against offered load per level"
	if res.Knee != nil {
		alt += fmt.Sprintf(", knee at %s %s", trimNum(float64(res.Knee.Offered)), res.OfferedUnit)
	}
	if res.Ceiling != nil {
		alt += fmt.Sprintf(", ceiling %s %s", trimNum(float64(res.Ceiling.CompletedRPS)), rateUnit(res))
	}
	return &Plot{Name: "knee", Title: "Knee curve: completed vs offered load", Alt: alt, Width: 7 * vg.Inch, Height: 4.5 * vg.Inch,
		draw: func(dc draw.Canvas) error {
			p := newPlot("Completed vs offered load per level", "offered load ("+res.OfferedUnit+")", rateUnit(res))
			ls := slices.Clone(levels)
			sort.SliceStable(ls, func(i, j int) bool { return ls[i].Offered < ls[j].Offered })
			xs := column(ls, func(l *knee.Level) knee.F { return l.Offered })
			lines := []series{
				{"offered (" + rateUnit(res) + ")", xs, column(ls, func(l *knee.Level) knee.F { return l.OfferedRPS }), colOffered, dashed},
				{"all responses", xs, column(ls, func(l *knee.Level) knee.F { return l.RequestsRPS }), colResponses, nil},
				{"completed (successful)", xs, column(ls, func(l *knee.Level) knee.F { return l.CompletedRPS }), colCompleted, nil},
			}
			drew := false
			for _, s := range lines {
				ok, err := addLine(p, s, len(xs), false)
				if err != nil {
					return err
				}
				drew = drew || ok
			}
			if !drew {
				return fmt.Errorf("no levels to draw")
			}
			var pts plotter.XYs
			for i := range xs {
				if y := float64(ls[i].CompletedRPS); ls[i].Offered.Valid() && !math.IsNaN(y) {
					pts = append(pts, plotter.XY{X: xs[i], Y: y})
				}
			}
			if len(pts) > 0 {
				sc, err := plotter.NewScatter(pts)
				if err != nil {
					return err
				}
				sc.Color = colCompleted
				sc.Shape = draw.CircleGlyph{}
				p.Add(sc)
			}
			if c := res.Ceiling; c != nil && c.CompletedRPS.Valid() && len(pts) > 0 {
				lo, hi := pts[0].X, pts[len(pts)-1].X
				name := "ceiling " + trimNum(float64(c.CompletedRPS)) + " " + rateUnit(res)
				if !c.Reached {
					name += " (not reached)"
				}
				if _, err := addLine(p, series{name, []float64{lo, hi}, []float64{float64(c.CompletedRPS), float64(c.CompletedRPS)}, colBad, dashed}, 2, false); err != nil {
					return err
				}
			}
			if k := res.Knee; k != nil && k.Offered.Valid() && k.CompletedRPS.Valid() {
				sc, err := plotter.NewScatter(plotter.XYs{{X: float64(k.Offered), Y: float64(k.CompletedRPS)}})
				if err != nil {
					return err
				}
				sc.Color = colBad
				sc.Shape = draw.PyramidGlyph{}
				sc.Radius = vg.Points(6)
				p.Add(sc)
				p.Legend.Add("knee "+trimNum(float64(k.Offered))+" "+res.OfferedUnit, sc)
			}
			p.Y.Min = 0
			p.X.Min = 0
			p.Y.Max = grown(p.Y.Max, 1.25) // room for the legend
			p.Draw(dc)
			return nil
		}}
}

// endpointP is an endpoint's name and its latency percentile, ms.
type endpointP struct {
	name string
	ms   float64
}

// endpointPlot is a horizontal bar per endpoint, busiest on top.
func endpointPlot(eps []endpointP, pname string) *Plot {
	var vals plotter.Values
	var names []string
	for i := len(eps) - 1; i >= 0; i-- {
		vals = append(vals, nz(eps[i].ms))
		names = append(names, shorten(eps[i].name, 40))
	}
	if len(vals) == 0 {
		return nil
	}
	h := vg.Length(math.Max(2.5, 0.35*float64(len(vals))+1.2)) * vg.Inch
	return &Plot{Name: "endpoints", Title: pname + " by endpoint", Width: 7 * vg.Inch, Height: h,
		Alt: fmt.Sprintf("%s latency of each of %d endpoint(s), busiest on top", pname, len(vals)),
		draw: func(dc draw.Canvas) error {
			p := newPlot(pname+" latency by endpoint (whole run)", "ms", "")
			b, err := plotter.NewBarChart(vals, vg.Points(14))
			if err != nil {
				return err
			}
			b.Horizontal = true
			b.Color = colCompleted
			b.LineStyle.Width = 0
			p.Add(b)
			p.NominalY(names...)
			p.X.Min = 0
			p.X.Max = grown(p.X.Max, 1.05)
			p.Draw(dc)
			return nil
		}}
}

// maxStatuses is how many statuses get a line of their own on the errors
// plot; the rest are summed as "other".
const maxStatuses = 8

// errorPlot is failed responses per second per status, per window.
func errorPlot(res *knee.Result, failed map[secondStatus]uint64, maxPts int) *Plot {
	ws := res.Windows
	if len(ws) == 0 || len(failed) == 0 {
		return nil
	}
	total := map[string]uint64{}
	for k, n := range failed {
		total[k.status] += n
	}
	statuses := make([]string, 0, len(total))
	for s := range total {
		statuses = append(statuses, s)
	}
	sort.Slice(statuses, func(i, j int) bool {
		if total[statuses[i]] != total[statuses[j]] {
			return total[statuses[i]] > total[statuses[j]]
		}
		return statuses[i] < statuses[j]
	})
	line := map[string]int{}
	for i, s := range statuses {
		line[s] = min(i, maxStatuses)
	}
	n := min(len(statuses), maxStatuses+1)
	counts := make([][]float64, n)
	for i := range counts {
		counts[i] = make([]float64, len(ws))
	}
	for k, cnt := range failed {
		t := k.sec
		i := sort.Search(len(ws), func(i int) bool { return ws[i].End.Unix() > t })
		if i == len(ws) || ws[i].Start.Unix() > t {
			continue
		}
		counts[line[k.status]][i] += float64(cnt)
	}
	xs := elapsed(res, ws)
	var lines []series
	for i := 0; i < n; i++ {
		name := "status " + shorten(statuses[i], 20)
		if i == maxStatuses {
			name = "other statuses"
		}
		ys := make([]float64, len(ws))
		for j := range ws {
			ys[j] = counts[i][j] / math.Max(ws[j].Seconds, 1)
		}
		lines = append(lines, series{name, xs, ys, plotutil.Color(i), nil})
	}
	return &Plot{Name: "errors", Title: "Failed responses by status over time", Width: 8 * vg.Inch, Height: 3.5 * vg.Inch,
		Alt: fmt.Sprintf("Failed responses per second for each of %d status(es) per window", len(statuses)),
		draw: func(dc draw.Canvas) error {
			p := newPlot("Failed responses by status over time", "seconds from start", "failed "+rateUnit(res))
			for _, s := range lines {
				if _, err := addLine(p, s, maxPts, false); err != nil {
					return err
				}
			}
			p.Y.Min, p.X.Min = 0, 0
			p.Y.Max = grown(p.Y.Max, 1.25) // room for the legend
			p.Draw(dc)
			return nil
		}}
}

// shorten cuts s to at most n runes, marking the cut with "…".
func shorten(s string, n int) string {
	r := []rune(strings.ToValidUTF8(s, "?"))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}

// trimNum formats v for a label: at most 4 significant digits, no
// exponent for ordinary sizes.
func trimNum(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case math.Abs(v) >= 1000:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.4g", v)
}

// rateUnit is the unit of res's request rates (completed, all responses,
// offered requests): "req/s", "calls/s" for gRPC, "msgs/s" for WebSocket
// messages; "req/s" when res does not say.
func rateUnit(res *knee.Result) string {
	if res.CompletedUnit == "" {
		return "req/s"
	}
	return res.CompletedUnit
}
