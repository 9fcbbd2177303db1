// Package render writes the CLI's results as terminal tables, markdown
// tables, CSV or JSON. Every renderer writes to an io.Writer; the commands
// choose the format from --format.
package render

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"

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
)

// ParseFormat checks a --format value; it returns an error naming the
// accepted values.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case Table, Markdown, JSON, CSV:
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
}

// Write renders g in format f (Table, Markdown or CSV; JSON is refused, use
// WriteJSON). Markdown cells are escaped so a '|' in a tag value cannot
// break the table.
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
	case Markdown:
		return g.markdown(w)
	case Table:
		t := tablewriter.NewTable(w,
			tablewriter.WithHeaderAutoFormat(tw.Off),
			tablewriter.WithRowAlignment(tw.AlignRight),
			tablewriter.WithHeaderAlignment(tw.AlignCenter),
			tablewriter.WithRenderer(renderer.NewBlueprint()),
		)
		t.Header(toAny(g.Header)...)
		for _, r := range g.Rows {
			if err := t.Append(r); err != nil {
				return err
			}
		}
		return t.Render()
	}
	return fmt.Errorf("render: grid cannot be written as %q", f)
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

// MarkdownEscape makes s safe inside a markdown table cell: '|' and '\' are
// backslash-escaped, newlines become spaces.
func MarkdownEscape(s string) string {
	if !strings.ContainsAny(s, "|\\\n\r<>") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, "|", `\|`, "\n", " ", "\r", " ", "<", "&lt;", ">", "&gt;")
	return r.Replace(s)
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
