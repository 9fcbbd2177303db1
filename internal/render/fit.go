package render

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mattn/go-runewidth"
)

// sized is a writer that tables written to should fit: a terminal of
// width columns.
type sized struct {
	io.Writer
	width int
}

// Fit returns w marked so that the terminal tables Grid.Write writes to it
// fit width columns: long text cells wrap narrower and then the columns
// of Grid.Drop are left out, with a note, until the table fits. width 0
// (output piped to a file or a program) returns w itself: such tables are
// written as they are, whatever their width.
func Fit(w io.Writer, width int) io.Writer {
	if width <= 0 {
		return w
	}
	return sized{Writer: w, width: width}
}

// widthOf is the width w's tables should fit, 0 for any.
func widthOf(w io.Writer) int {
	if s, ok := w.(sized); ok {
		return s.width
	}
	return 0
}

// wraps are the widths text cells are wrapped at, widest first, before
// columns are dropped.
var wraps = []int{60, 40, 30, 20}

// fit writes g as a terminal table at most width columns wide if it can:
// first with narrower text cells, then leaving out the Drop columns one by
// one (a note after the table names them). A table that cannot be made to
// fit is written in its narrowest form.
func (g *Grid) fit(w io.Writer, width int) error {
	var best []byte
	try := func(t *Grid, wrap int) (bool, error) {
		var b bytes.Buffer
		if err := t.table(&b, wrap); err != nil {
			return false, err
		}
		if best == nil || maxWidth(b.Bytes()) < maxWidth(best) {
			best = b.Bytes()
		}
		return maxWidth(b.Bytes()) <= width, nil
	}
	for _, wrap := range wraps {
		if ok, err := try(g, wrap); ok || err != nil {
			if err != nil {
				return err
			}
			_, err := w.Write(best)
			return err
		}
	}
	t, wrap := g, wraps[len(wraps)-1]
	var dropped []string
	for _, name := range g.Drop {
		c := slices.Index(t.Header, name)
		if c < 0 {
			continue
		}
		t = t.without(c)
		dropped = append(dropped, name)
		best = nil
		ok, err := try(t, wrap)
		if err != nil {
			return err
		}
		if ok {
			break
		}
	}
	if _, err := w.Write(best); err != nil {
		return err
	}
	if len(dropped) > 0 {
		_, err := io.WriteString(w, WrapProse(w, fmt.Sprintf("(not shown, to fit %d columns: %s; --format csv shows every column)", width, strings.Join(dropped, ", ")))+"\n")
		return err
	}
	return nil
}

// without is g without column c.
func (g *Grid) without(c int) *Grid {
	t := &Grid{Header: slices.Delete(slices.Clone(g.Header), c, c+1), Drop: g.Drop}
	for _, r := range g.Rows {
		if c < len(r) {
			r = slices.Delete(slices.Clone(r), c, c+1)
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// maxWidth is the display width of the widest line of b.
func maxWidth(b []byte) int {
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		n = max(n, runewidth.StringWidth(line))
	}
	return n
}

// WrapProse wraps the lines of s wider than the terminal w was marked
// with by Fit at spaces, each continuation indented two columns past its
// line's own indent; lines of a table (box-drawing characters) and words
// wider than the line are left whole. For a w without a width (output
// piped) it returns s unchanged.
func WrapProse(w io.Writer, s string) string {
	width := widthOf(w)
	if width <= 0 {
		return s
	}
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		if runewidth.StringWidth(line) <= width || strings.ContainsAny(line, "│┌└├─") {
			b.WriteString(line)
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		cont := strings.Repeat(" ", min(indent+2, width/2))
		col := 0
		for j, word := range strings.Fields(line) {
			ww := runewidth.StringWidth(word)
			switch {
			case j == 0:
				b.WriteString(line[:indent])
				col = indent
			case col+1+ww > width:
				b.WriteString("\n" + cont)
				col = len(cont)
			default:
				b.WriteByte(' ')
				col++
			}
			b.WriteString(word)
			col += ww
		}
	}
	return b.String()
}
