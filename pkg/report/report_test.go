package report

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"flag"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./pkg/report -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (run with -update after checking):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// hostile are endpoint names an attacker (or a careless script) could put
// in a tag: markup, a table pipe, a markdown link, emphasis, an entity.
var hostile = []string{
	`<script>alert(1)</script>`,
	`a|b`,
	`x](http://evil.example/)`,
	`_em_ *b* ` + "`c`",
	`&amp; <img src=http://evil.example/x.png onerror=alert(2)>`,
}

// writeRun writes a synthetic k6 CSV: a 60 s open-model ramp from 10 to
// 120 iterations/s, one request per iteration spread round-robin over
// names, latency growing past 80 iterations/s and 503s past 100.
func writeRun(t *testing.T, names []string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(f)
	w.Write([]string{"metric_name", "timestamp", "metric_value", "expected_response", "name", "scenario", "status", "url"})
	const t0 = 1796004000
	n := 0
	for s := 0; s < 60; s++ {
		rate := 10 + s*110/59
		ts := fmt.Sprint(t0 + s)
		busy := 1 + rate/20
		w.Write([]string{"vus", ts, fmt.Sprint(busy), "", "", "", "", ""})
		if s%10 == 9 && rate > 90 {
			w.Write([]string{"dropped_iterations", ts, "1", "", "", "ramp", "", ""})
		}
		for i := 0; i < rate; i++ {
			name := names[n%len(names)]
			n++
			lat := 10 + float64(i%7)
			if rate > 80 {
				lat += float64(rate-80) * 5
			}
			status, ok, failed := "200", "true", "0"
			if rate > 100 && i%4 == 0 {
				status, ok, failed = "503", "false", "1"
			}
			tag := []string{ok, name, "ramp", status, "https://shop.example/" + name}
			w.Write(append([]string{"http_reqs", ts, "1"}, tag...))
			w.Write(append([]string{"http_req_duration", ts, fmt.Sprint(lat)}, tag...))
			w.Write(append([]string{"http_req_failed", ts, failed}, tag...))
			w.Write([]string{"iterations", ts, "1", "", "", "ramp", "", ""})
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// build reads path and builds its report the way `ldanalyze report` does,
// with the per-endpoint table by tag (default "name").
func build(t *testing.T, path string, tag string, slo string) *Report {
	t.Helper()
	if tag == "" {
		tag = "name"
	}
	opt := pipeline.Options{Endpoints: tag}
	opt.Knee = knee.Options{WindowNS: 5e9, Percentiles: []float64{50, 95, 99}}
	if slo != "" {
		s, err := knee.ParseSLO(slo)
		if err != nil {
			t.Fatal(err)
		}
		opt.Knee.SLO = s
	}
	an, err := pipeline.Run([]string{path}, opt)
	if err != nil {
		t.Fatal(err)
	}
	an.Files = []string{"run.csv"}
	return Build(an, Options{})
}

// TestMarkdownGolden pins the markdown of the synthetic ramp with hostile
// endpoint names, rendered with the package's default wording.
func TestMarkdownGolden(t *testing.T) {
	rep := build(t, writeRun(t, hostile), "", "p95<200ms")
	var b bytes.Buffer
	if err := rep.WriteMarkdown(&b, MarkdownOptions{ImagePrefix: "run-"}); err != nil {
		t.Fatal(err)
	}
	golden(t, "hostile.md", b.String())
}

// TestMarkdownEscaping: markup in a tag value stays text, and a '|' in a
// name does not add a cell to its table row.
func TestMarkdownEscaping(t *testing.T) {
	for _, tag := range []string{"name", "url"} {
		rep := build(t, writeRun(t, hostile), tag, "")
		var b bytes.Buffer
		if err := rep.WriteMarkdown(&b, MarkdownOptions{}); err != nil {
			t.Fatal(err)
		}
		md := b.String()
		for _, bad := range []string{"<script", "<img"} {
			if strings.Contains(md, bad) {
				t.Errorf("--by %s: markdown holds %q unescaped", tag, bad)
			}
		}
		if !strings.Contains(md, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("--by %s: the <script> name is not shown as text", tag)
		}
		// Every table row has as many unescaped pipes as its header.
		pipes := regexp.MustCompile(`(^|[^\\])\|`)
		var want int
		for _, line := range strings.Split(md, "\n") {
			if !strings.HasPrefix(line, "|") {
				want = 0
				continue
			}
			n := len(pipes.FindAllString(line, -1))
			if want == 0 {
				want = n
			} else if n != want {
				t.Errorf("--by %s: row has %d cells' pipes, header %d: %s", tag, n, want, line)
			}
		}
	}
}

// TestHTMLEscaping: the page holds no script, no event handler and no
// reference to the network, whatever the tag values; the names render as
// text in the tables and in the inlined SVG.
func TestHTMLEscaping(t *testing.T) {
	for _, tag := range []string{"name", "url"} {
		rep := build(t, writeRun(t, hostile), tag, "p95<200ms")
		var b bytes.Buffer
		if err := rep.WriteHTML(&b); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		// Text is escaped, so a '<' starts a real tag: look at tags only.
		for _, re := range []string{`(?i)<script`, `(?i)<img`, `(?i)<[^>]*\son[a-z]+\s*=`, `(?i)<[^>]*\s(src|href)\s*=`} {
			if m := regexp.MustCompile(re).FindString(page); m != "" {
				t.Errorf("--by %s: page holds %q", tag, m)
			}
		}
		if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("--by %s: the <script> name is not shown as text", tag)
		}
		if n := strings.Count(page, "<svg"); n != len(rep.Plots()) {
			t.Errorf("--by %s: %d inline SVGs for %d plots", tag, n, len(rep.Plots()))
		}
		// The page is well-formed enough for an XML reader to walk the
		// inlined SVGs (gonum escapes the text it draws).
		for _, m := range regexp.MustCompile(`(?s)<svg.*?</svg>`).FindAllString(page, -1) {
			if err := walkXML(m); err != nil {
				t.Errorf("--by %s: inlined SVG: %v", tag, err)
			}
		}
	}
}

func walkXML(s string) error {
	d := xml.NewDecoder(strings.NewReader(s))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// TestPlotsAreImages: every plot writes a PNG of the documented size at
// PNGDPI and an SVG document whose root is <svg>.
func TestPlotsAreImages(t *testing.T) {
	rep := build(t, writeRun(t, []string{"menu", "order", "search"}), "", "p95<200ms")
	var names []string
	for _, p := range rep.Plots() {
		names = append(names, p.Name)
		var b bytes.Buffer
		if _, err := p.PNG().WriteTo(&b); err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		cfg, err := png.DecodeConfig(&b)
		if err != nil {
			t.Fatalf("%s.png: %v", p.Name, err)
		}
		// Size in px = points ÷ 72 × dpi, rounded as vgimg does (±1 px).
		wantW := int(p.Width.Points() / 72 * PNGDPI)
		if cfg.Width < wantW-1 || cfg.Width > wantW+1 {
			t.Errorf("%s.png: width %d px, want %d", p.Name, cfg.Width, wantW)
		}
		b.Reset()
		if _, err := p.SVG().WriteTo(&b); err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		d := xml.NewDecoder(&b)
		for {
			tok, err := d.Token()
			if err != nil {
				t.Fatalf("%s.svg: no root element: %v", p.Name, err)
			}
			if se, ok := tok.(xml.StartElement); ok {
				if se.Name.Local != "svg" {
					t.Errorf("%s.svg: root <%s>", p.Name, se.Name.Local)
				}
				break
			}
		}
	}
	if got, want := strings.Join(names, ","), "knee,load,latency,errors,endpoints"; got != want {
		t.Errorf("plots %s, want %s", got, want)
	}
}

// TestBar checks the eighth-block arithmetic by hand: 12 cells × 8 = 96
// eighths for the full bar.
func TestBar(t *testing.T) {
	for _, c := range []struct {
		v, top float64
		width  int
		want   string
	}{
		{5, 10, 4, "██"},       // 16 of 32 eighths
		{1, 3, 3, "█"},         // 8 of 24
		{1, 10, 12, "█▎"},      // 9.6 → 10 eighths
		{0.001, 10, 12, "▏"},   // never invisible
		{20, 10, 2, "██"},      // clipped at full width
		{0, 10, 12, ""},        // nothing
		{-1, 10, 12, ""},       // negative
		{5, 0, 12, ""},         // no scale
		{nan(), 10, 12, ""},    // unknown
		{10, 10, 12, full(12)}, // full
	} {
		if got := Bar(c.v, c.top, c.width); got != c.want {
			t.Errorf("Bar(%v, %v, %d) = %q, want %q", c.v, c.top, c.width, got, c.want)
		}
	}
}

func nan() float64 { return math.NaN() }

func full(n int) string { return strings.Repeat("█", n) }

// TestDownsample: a series longer than n keeps n points, its ends and its
// spike (the point LTTB exists to keep).
func TestDownsample(t *testing.T) {
	xs := make([]float64, 1000)
	ys := make([]float64, 1000)
	for i := range xs {
		xs[i] = float64(i)
	}
	ys[517] = 100
	ox, oy := downsample(xs, ys, 50)
	if len(ox) != 50 || len(oy) != 50 {
		t.Fatalf("%d points, want 50", len(ox))
	}
	if ox[0] != 0 || ox[49] != 999 {
		t.Errorf("ends %v, %v", ox[0], ox[49])
	}
	found := false
	for i := range ox {
		found = found || ox[i] == 517 && oy[i] == 100
	}
	if !found {
		t.Error("the spike at x=517 was dropped")
	}
	if sx, _ := downsample(xs[:10], ys[:10], 50); len(sx) != 10 {
		t.Errorf("short series changed: %d points", len(sx))
	}
}

// TestCheckSVG: the inlining guard refuses what could run or fetch.
func TestCheckSVG(t *testing.T) {
	for _, c := range []struct{ svg, want string }{
		{`<svg><g><path d="M0 0"/><text>&lt;script&gt;</text></g></svg>`, ""},
		{`<svg><script>alert(1)</script></svg>`, "element <script>"},
		{`<svg><g onload="alert(1)"/></svg>`, "attribute onload"},
		{`<svg><image href="http://evil.example/x.png"/></svg>`, "element <image>"},
		{`<svg><path style="fill:url(http://evil.example/#x)"/></svg>`, `attribute style="fill:url(http://evil.example/#x)"`},
		{`<svg><path style="fill:url(#grad)"/></svg>`, ""},
	} {
		got := ""
		if err := checkSVG(c.svg); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("checkSVG(%s) = %q, want %q", c.svg, got, c.want)
		}
	}
}

// TestPlotUnitsFollowProtocol: a gRPC result's knee plot names its ceiling
// and axis in calls/s (once req/s whatever the protocol).
func TestPlotUnitsFollowProtocol(t *testing.T) {
	res := &knee.Result{OfferedUnit: "iterations/s", CompletedUnit: "calls/s", Ceiling: &knee.Ceiling{CompletedRPS: 169.8, Reached: true}}
	p := kneePlot(res, []knee.Level{{Offered: 150, OfferedRPS: 150, CompletedRPS: 140, RequestsRPS: 150}})
	if p == nil || !strings.Contains(p.Alt, "ceiling 169.8 calls/s") {
		t.Fatalf("knee plot alt %q, want the ceiling in calls/s", p.Alt)
	}
	if u := rateUnit(&knee.Result{}); u != "req/s" {
		t.Errorf("rateUnit of a result without a unit %q, want req/s", u)
	}
}

// TestMarkdownProseKeepsCode: a paragraph, a warning or the verdict that
// names a command in a code span keeps it as code, while the text around
// it is escaped; a table cell escapes its backticks (GFM splits cells at
// '|' even inside code spans).
func TestMarkdownProseKeepsCode(t *testing.T) {
	rep := &Report{
		Title:    "t",
		Verdict:  []string{"run `ldanalyze check` on *x*"},
		Warnings: []string{"see `prom pull` <b>"},
		Sections: []Section{{Title: "s", Text: []string{"`a|b` [l](u)"}, Table: &render.Grid{Header: []string{"h"}, Rows: [][]string{{"`c`"}}}}},
	}
	var b bytes.Buffer
	if err := rep.WriteMarkdown(&b, MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "# t\n\n**Verdict.** run `ldanalyze check` on \\*x\\*\n\n- **Warning:** see `prom pull` &lt;b&gt;\n\n## s\n\n`a|b` \\[l\\](u)\n\n| h |\n| --- |\n| \\`c\\` |\n\n" // a section ending in a table keeps its blank line
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}
