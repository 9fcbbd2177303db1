package present

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
)

// Lines writes the sentences that follow a table. In markdown they come
// after a blank line as bullets, followed by the warnings ("warning: …"):
// a markdown document is shared, so its caveats travel with it. A
// terminal table and CSV leave the warnings out: the command prints them
// on standard error, where every warning goes, and CSV output is one
// table with no sentences.
func Lines(w io.Writer, f render.Format, lines, warnings []string) error {
	if f == render.CSV {
		return nil
	}
	bullet := ""
	if f == render.Markdown {
		bullet = "- "
		fmt.Fprintln(w)
		for _, s := range warnings {
			lines = append(lines, "warning: "+s)
		}
	}
	for _, s := range lines {
		if _, err := fmt.Fprintln(w, bullet+s); err != nil {
			return err
		}
	}
	return nil
}

// The columns a terminal table leaves out first when it is wider than the
// terminal (render.Grid.Drop): what the other columns or the JSON say too.
var (
	levelDrop   = []string{"B/req", "recv/s", "dropped/s", "all/s", "s", "VUs", "p90 ms", "p50 ms"}
	byDrop      = []string{"min ms", "max ms", "mean ms", "per s"}
	summaryDrop = []string{"min", "value", "med", "max", "p90", "rate", "count"}
	costDrop    = []string{"kind", "price source", "share %", "USD/month"}
	priceDrop   = []string{"note", "as of", "source"}
	ledgerDrop  = []string{"p95 at knee ms", "date (UTC)", "errors", "validity", "utilisation shifts"}
)

// full formats a number for CSV at full precision (NaN as "NaN", unlike
// CSVNum: the queue and scale tables print what the model computed).
func full(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// orDefault is s, or d when s is empty.
func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// windowsText writes the table of r's windows under a heading (knee
// --windows), after what b holds.
func windowsText(w io.Writer, f render.Format, b *strings.Builder, r *knee.Result, pcts []float64) error {
	title := fmt.Sprintf("Windows of %s (epoch-aligned; the level tables above leave out the seconds between levels)", time.Duration(r.WindowS*1e9))
	if f == render.Markdown {
		fmt.Fprintf(b, "\n## %s\n\n", title)
	} else {
		fmt.Fprintf(b, "\n%s\n", title)
	}
	if err := flushText(w, b, f); err != nil {
		return err
	}
	g := LevelGrid(r.Windows, r, pcts, false)
	for _, row := range g.Rows {
		// An epoch-aligned first window may start before the run.
		row[0] = strings.Replace(row[0], "+-", "-", 1)
	}
	if c := len(g.Header) - 1; c >= 0 && g.Header[c] == "verdict" && allEmpty(g.Rows, c) {
		g = &render.Grid{Header: g.Header[:c], Rows: trimColumn(g.Rows, c), Drop: g.Drop}
	}
	return g.Write(w, f)
}

func allEmpty(rows [][]string, c int) bool {
	for _, r := range rows {
		if c < len(r) && r[c] != "" {
			return false
		}
	}
	return true
}

func trimColumn(rows [][]string, c int) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = r[:min(c, len(r))]
	}
	return out
}
