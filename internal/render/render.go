// Package render writes the CLI's results as terminal tables, markdown
// tables, CSV or JSON. Every renderer writes to an io.Writer; the commands
// choose the format from --format.
package render

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Format is an output format chosen with --format.
type Format string

// The output formats.
const (
	Table    Format = "table"
	Markdown Format = "markdown"
	JSON     Format = "json"
	CSV      Format = "csv"
	// JUnit is JUnit XML for CI test reporters (check).
	JUnit Format = "junit"
	// GitHub is markdown for a GitHub Actions job summary
	// ($GITHUB_STEP_SUMMARY): check, knee, compare.
	GitHub Format = "github"
)

// ParseFormat checks a --format value; it returns an error naming the
// accepted values.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case Table, Markdown, JSON, CSV, JUnit, GitHub:
		return f, nil
	case "md":
		return Markdown, nil
	}
	return "", fmt.Errorf("unknown --format %q: want table, markdown, json or csv", s)
}

// Grid is a table of strings: a header and rows of the same width.
type Grid struct {
	Header []string
	Rows   [][]string
	// Drop names the columns (by header) a terminal table may leave out,
	// first to last, when it is wider than the terminal (see Fit). Names
	// not in Header are ignored.
	Drop []string
}

// Write renders g in format f (Table, Markdown or CSV; JSON is refused, use
// WriteJSON). Markdown cells are escaped so a '|' in a tag value cannot
// break the table; a terminal table's cells have their invalid UTF-8 and
// control characters escaped as Go does (\xff, \x1b), so a tag value
// cannot garble the terminal (CSV and markdown keep the bytes).
func (g *Grid) Write(w io.Writer, f Format) error {
	switch f {
	case CSV:
		cw := csv.NewWriter(w)
		if err := cw.Write(g.Header); err != nil {
			return err
		}
		if err := cw.WriteAll(g.Rows); err != nil {
			return err
		}
		return cw.Error()
	case Markdown, GitHub:
		return g.markdown(w)
	case Table:
		g = g.printable()
		if width := widthOf(w); width > 0 {
			return g.fit(w, width)
		}
		return g.table(w, 60)
	}
	return fmt.Errorf("render: grid cannot be written as %q", f)
}

// table writes g as a terminal table whose text cells wrap at wrap
// columns.
func (g *Grid) table(w io.Writer, wrap int) error {
	t := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{Global: tw.AlignRight, PerColumn: g.alignments()}),
		tablewriter.WithHeaderAlignment(tw.AlignCenter),
		tablewriter.WithRenderer(renderer.NewBlueprint()),
		// Long sentences (a check's meaning, a reason) wrap at word
		// boundaries instead of making the table hundreds of columns
		// wide; numbers are never that long.
		tablewriter.WithRowAutoWrap(tw.WrapNormal),
		tablewriter.WithRowMaxWidth(wrap),
	)
	t.Header(toAny(g.Header)...)
	for _, r := range g.Rows {
		if err := t.Append(r); err != nil {
			return err
		}
	}
	return t.Render()
}

// alignments right-aligns the columns whose cells all read as numbers
// (with units such as %, ms, ×, or "-" for none) and left-aligns text.
func (g *Grid) alignments() []tw.Align {
	al := make([]tw.Align, len(g.Header))
	for c := range g.Header {
		al[c] = tw.AlignRight
		for _, r := range g.Rows {
			if c < len(r) && !numeric(r[c]) {
				al[c] = tw.AlignLeft
				break
			}
		}
	}
	return al
}

// numeric reports whether a cell reads as a number: digits with an
// optional sign, decimal point, exponent, leading + and a short unit.
func numeric(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || s == "-" {
		return true
	}
	s = strings.TrimLeft(s, "+-")
	s = strings.TrimRight(s, "%×sxmµ ")
	if s == "" {
		return false
	}
	for _, ch := range s {
		if (ch < '0' || ch > '9') && ch != '.' && ch != 'e' && ch != 'E' && ch != '-' && ch != '+' && ch != ',' {
			return false
		}
	}
	return s[0] >= '0' && s[0] <= '9'
}

// markdown writes a GitHub-flavoured markdown table. It is written by hand
// rather than with tablewriter's markdown renderer so that escaping of '|'
// and newlines is certain.
func (g *Grid) markdown(w io.Writer) error {
	var b strings.Builder
	row := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" ")
			b.WriteString(MarkdownEscape(c))
			b.WriteString(" |")
		}
		b.WriteString("\n")
	}
	row(g.Header)
	b.WriteString("|")
	for range g.Header {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for _, r := range g.Rows {
		row(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// MarkdownProse makes s, a message written by ldanalyze that may quote
// values read from the input, render as the same text in a markdown
// paragraph or list item. Text outside code spans is escaped as
// MarkdownEscape escapes it. A code span, a single backtick, then text
// with no backtick, then a single backtick, is kept as it is: its content
// is literal in CommonMark (§6.1), so a command such as
// `ldanalyze check --threshold EXPR` shows as code and a quoted value
// inside it cannot form a link, emphasis or HTML. A backtick that has no
// partner, or is one of a run of two or more, is escaped. Newlines become
// spaces, in code spans too. Not for table cells: GFM splits a cell at a
// '|' even inside a code span, so cells use MarkdownEscape.
func MarkdownProse(s string) string {
	if !strings.Contains(s, "`") {
		return MarkdownEscape(s)
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	rest := s
	for rest != "" {
		i := strings.IndexByte(rest, '`')
		if i < 0 {
			b.WriteString(MarkdownEscape(rest))
			break
		}
		b.WriteString(MarkdownEscape(rest[:i]))
		rest = rest[i:]
		if span, ok := codeSpan(rest); ok {
			b.WriteByte('`')
			b.WriteString(newlineSpaces.Replace(span))
			b.WriteByte('`')
			rest = rest[len(span)+2:]
			continue
		}
		n := len(rest) - len(strings.TrimLeft(rest, "`"))
		b.WriteString(strings.Repeat("\\`", n))
		rest = rest[n:]
	}
	return b.String()
}

// newlineSpaces turns line breaks into spaces.
var newlineSpaces = strings.NewReplacer("\n", " ", "\r", " ")

// codeSpan reports the content of the code span s starts with: s begins
// with exactly one backtick, and the next backtick, also alone, ends a
// non-empty content that holds no backtick.
func codeSpan(s string) (string, bool) {
	if len(s) < 3 || s[0] != '`' || s[1] == '`' {
		return "", false
	}
	j := strings.IndexByte(s[1:], '`')
	if j <= 0 {
		return "", false
	}
	end := 1 + j
	if end+1 < len(s) && s[end+1] == '`' {
		return "", false
	}
	return s[1:end], true
}

// MarkdownEscape makes s render as the same text inside a GitHub-flavoured
// markdown table cell, whatever it holds: '|' cannot end the cell, and no
// link, image, code span, emphasis, strikethrough or HTML can start.
//   - '<', '>' and '&' become entities (&lt; &gt; &amp;), so no tag and no
//     entity is read from the value;
//   - '\', '|', '[', ']', '`', '*' and '~' are backslash-escaped, so
//     "[x](http://evil)" shows those characters instead of a link;
//   - '_' is backslash-escaped unless it follows a letter or a digit: an
//     underscore inside a word (http_req_duration) cannot open emphasis in
//     CommonMark, and stays readable in the source;
//   - newlines become spaces.
//
// Bare URLs are left as they are: GitHub may autolink them, but such a
// link shows its own target.
func MarkdownEscape(s string) string {
	if !strings.ContainsAny(s, "|\\\n\r<>&[]`*~_") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	prev := ' '
	for _, c := range s {
		switch c {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '|', '[', ']', '`', '*', '~', '#':
			b.WriteByte('\\')
			b.WriteRune(c)
		case '_':
			if !unicode.IsLetter(prev) && !unicode.IsDigit(prev) {
				b.WriteByte('\\')
			}
			b.WriteRune(c)
		case '\n', '\r':
			b.WriteByte(' ')
		default:
			b.WriteRune(c)
		}
		prev = c
	}
	return b.String()
}

// WriteJSON writes v as indented JSON followed by a newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// printable returns g, or a copy whose cells are Printable where any
// needs it.
func (g *Grid) printable() *Grid {
	var out *Grid
	for i, r := range g.Rows {
		copied := false
		for j, cell := range r {
			p := Printable(cell)
			if p == cell {
				continue
			}
			if out == nil {
				out = &Grid{Header: g.Header, Rows: slices.Clone(g.Rows), Drop: g.Drop}
			}
			if !copied {
				out.Rows[i], copied = slices.Clone(r), true
			}
			out.Rows[i][j] = p
		}
	}
	if out == nil {
		return g
	}
	return out
}

// Printable is s with each byte that is not valid UTF-8 written \xNN and
// each control character but a newline escaped as strconv.Quote does
// ("\x1b", "\u0085"): text for a terminal, from tag values a script
// wrote. s itself when it needs none.
func Printable(s string) string {
	ok := utf8.ValidString(s)
	if ok {
		for _, r := range s {
			if r != '\n' && unicode.IsControl(r) {
				ok = false
				break
			}
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r != '\n' && unicode.IsControl(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
