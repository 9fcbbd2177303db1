package present

import (
	"fmt"
	"io"
	"strconv"

	"github.com/ldanalyze/ldanalyze/internal/render"
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
