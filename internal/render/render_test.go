package render

import (
	"bytes"
	"strings"
	"testing"
	"unicode"

	"github.com/olekukonko/tablewriter/tw"
)

// TestMarkdownEscape pins the exact escaped form of hostile and ordinary
// cell values. The expected strings are written by hand from the rules in
// the CommonMark 0.31 spec (backslash escapes §2.4, entity references
// §2.5, emphasis flanking rules §6.2) and the GFM table extension (§4.10,
// "\|" inside a cell).
func TestMarkdownEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"plain text 123", "plain text 123"},
		{"a|b", `a\|b`},
		{`back\slash`, `back\\slash`},
		{"two\nlines\r\n", "two lines  "},
		{"<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{"a & b &lt;", "a &amp; b &amp;lt;"},
		// A link, an image and a reference cannot form.
		{"[x](http://evil)", `\[x\](http://evil)`},
		{"![img](http://evil/p.png)", `!\[img\](http://evil/p.png)`},
		{"[x][1]", `\[x\]\[1\]`},
		// Code spans, emphasis, strikethrough.
		{"`rm -rf`", "\\`rm -rf\\`"},
		{"**bold** *em*", `\*\*bold\*\* \*em\*`},
		{"~~gone~~", `\~\~gone\~\~`},
		{"_em_ __strong__", `\_em_ \_\_strong_\_`}, // a closing "_" after a letter has no opener left
		// An underscore inside a word cannot open emphasis: left alone.
		{"http_req_duration", "http_req_duration"},
		{"p95_ms 1_000", "p95_ms 1_000"},
		{"(_x_)", `(\_x_)`},
		{"é_b", "é_b"},
		// Several rules at once, in order.
		{`[a|b]\_`, `\[a\|b\]\\\_`},
		{"<a href=\"x\">|</a>", `&lt;a href="x"&gt;\|&lt;/a&gt;`},
	} {
		if got := MarkdownEscape(c.in); got != c.want {
			t.Errorf("MarkdownEscape(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// TestGridMarkdown: every cell, header included, goes through
// MarkdownEscape, so a hostile tag value stays inside its cell.
func TestGridMarkdown(t *testing.T) {
	g := &Grid{Header: []string{"url", "n"}, Rows: [][]string{{"[x](http://evil)|<b>", "1"}, {"/menu", "2"}}}
	var b bytes.Buffer
	if err := g.Write(&b, Markdown); err != nil {
		t.Fatal(err)
	}
	want := "| url | n |\n" +
		"| --- | --- |\n" +
		`| \[x\](http://evil)\|&lt;b&gt; | 1 |` + "\n" +
		"| /menu | 2 |\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// FuzzMarkdownEscape checks properties every output must have: one line,
// no unescaped '|', '[', ']', '`', '*', '~', no '<' or '>', and an escaped
// underscore wherever one could open emphasis.
func FuzzMarkdownEscape(f *testing.F) {
	for _, s := range []string{"[x](http://evil)", "a|b", "_x_", "<script>", "a\\|b", "`x`", "http_req_duration"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := MarkdownEscape(s)
		if bytes.ContainsAny([]byte(out), "<>\n\r") {
			t.Fatalf("MarkdownEscape(%q) = %q holds a raw '<', '>' or newline", s, out)
		}
		rs := []rune(out)
		for i := 0; i < len(rs); i++ {
			switch rs[i] {
			case '\\':
				i++ // the escaped character
			case '|', '[', ']', '`', '*', '~':
				t.Fatalf("MarkdownEscape(%q) = %q: unescaped %q at rune %d", s, out, rs[i], i)
			case '_':
				if i == 0 || !isWordRune(rs[i-1]) {
					t.Fatalf("MarkdownEscape(%q) = %q: '_' at rune %d can open emphasis", s, out, i)
				}
			}
		}
	})
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// TestAlignments: numeric columns (units and "-" allowed) are right-aligned,
// text columns left-aligned, in terminal tables.
func TestAlignments(t *testing.T) {
	g := &Grid{Header: []string{"start", "rate", "errors", "verdict", "ratio"},
		Rows: [][]string{{"+1s", "60.22", "0.0%", "headroom", "7.94×"}, {"+12s", "-", "5.7%", "overloaded", "-"}}}
	got := g.alignments()
	want := []string{"right", "right", "right", "left", "right"} // "+1s" is a number of seconds
	for i, a := range got {
		w := tw.AlignRight
		if want[i] == "left" {
			w = tw.AlignLeft
		}
		if a != w {
			t.Errorf("column %s: %v, want %s", g.Header[i], a, want[i])
		}
	}
}

// TestFit: a table wider than the terminal wraps its text cells and then
// leaves out its Drop columns, with a note naming them; every line fits.
// Fit(w, 0) (piped output) writes the table as it is.
func TestFit(t *testing.T) {
	g := &Grid{Header: []string{"id", "status", "evidence", "meaning", "extra"}, Drop: []string{"extra", "evidence"}}
	for i := 0; i < 3; i++ {
		g.Rows = append(g.Rows, []string{"dropped-iterations", "warn", "dropped=47, offered=23279, peak=8, vus_max=87",
			"47 iterations were never started, from +73 s to +124 s: their latency was never measured", "a column of little value here"})
	}
	var plain, piped bytes.Buffer
	if err := g.Write(&plain, Table); err != nil {
		t.Fatal(err)
	}
	if err := g.Write(Fit(&piped, 0), Table); err != nil {
		t.Fatal(err)
	}
	if plain.String() != piped.String() {
		t.Errorf("Fit(w, 0) changed the table")
	}
	if maxWidth(plain.Bytes()) <= 80 {
		t.Fatalf("test table is only %d columns wide", maxWidth(plain.Bytes()))
	}
	for _, width := range []int{100, 80, 60} {
		var b bytes.Buffer
		if err := g.Write(Fit(&b, width), Table); err != nil {
			t.Fatal(err)
		}
		table, _, _ := bytes.Cut(b.Bytes(), []byte("\n("))
		if got := maxWidth(table); got > width {
			t.Errorf("width %d: table is %d columns wide:\n%s", width, got, b.String())
		}
		if width == 60 && !bytes.Contains(b.Bytes(), []byte("(not shown, to fit 60 columns: extra")) {
			t.Errorf("width 60: no note of the columns left out:\n%s", b.String())
		}
	}
}

// TestTableEscapesTagBytes: a tag value with invalid UTF-8 and an ANSI
// escape (the new-user trial's name "se\xffar\x1b[31mch") reaches a
// terminal table escaped as Go quotes it, while CSV and markdown keep the
// bytes; before, the raw bytes reached the terminal.
func TestTableEscapesTagBytes(t *testing.T) {
	raw := "se\xffar\x1b[31mch"
	g := &Grid{Header: []string{"name", "n"}, Rows: [][]string{{raw, "1"}, {"menu", "2"}}}
	var tb, cb strings.Builder
	if err := g.Write(&tb, Table); err != nil {
		t.Fatal(err)
	}
	if err := g.Write(&cb, CSV); err != nil {
		t.Fatal(err)
	}
	if want := `se\xffar\x1b[31mch`; !strings.Contains(tb.String(), want) || strings.Contains(tb.String(), "\xff") || strings.Contains(tb.String(), "\x1b") {
		t.Errorf("table:\n%s\nwant %s and no raw bytes", tb.String(), want)
	}
	if !strings.Contains(cb.String(), raw) || g.Rows[0][0] != raw {
		t.Errorf("CSV %q or the grid changed; want the bytes kept", cb.String())
	}
	for in, want := range map[string]string{"menu": "menu", "a\nb": "a\nb", "\xc3": `\xc3`, "é\u0085": `é\u0085`, "tab\t": `tab\t`} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMarkdownProse pins the escaped form of messages holding code spans:
// a span is kept (CommonMark 0.31 §6.1: its content is literal), the text
// around it is escaped as MarkdownEscape escapes it, and a backtick that
// cannot pair is escaped.
func TestMarkdownProse(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"no code [x](y)", `no code \[x\](y)`},
		{"run `ldanalyze check --threshold EXPR` to see", "run `ldanalyze check --threshold EXPR` to see"},
		{"`a` and `b`", "`a` and `b`"},
		{"tag `<b>|[x](y)` here", "tag `<b>|[x](y)` here"},
		{"one ` alone", "one \\` alone"},
		{"``double`` and `ok`", "\\`\\`double\\`\\` and `ok`"},
		{"`open <b>", "\\`open &lt;b&gt;"},
		{"``", "\\`\\`"},
		{"`x``", "\\`x\\`\\`"},
		{"`a\nb` c_ *d*", "`a b` c_ \\*d\\*"},
		{"a\\`b` c", "a\\\\`b` c"},
	} {
		if got := MarkdownProse(c.in); got != c.want {
			t.Errorf("MarkdownProse(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// FuzzMarkdownProse checks that every output is one line and that, read
// as CommonMark reads backticks, each raw backtick opens a code span that a
// single raw backtick closes with no backtick inside, and the text outside
// the spans keeps MarkdownEscape's properties: no raw '<' or '>', no
// unescaped '|', '[', ']', '*', '~', no '_' that could open emphasis.
func FuzzMarkdownProse(f *testing.F) {
	for _, s := range []string{"run `x` now", "`", "``a``", "`a` `b", "[x](y) `<b>`", "a\\`b`"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := MarkdownProse(s)
		if strings.ContainsAny(out, "\n\r") {
			t.Fatalf("MarkdownProse(%q) = %q holds a newline", s, out)
		}
		rs := []rune(out)
		for i := 0; i < len(rs); i++ {
			switch rs[i] {
			case '\\':
				i++
			case '`':
				j := i + 1
				for j < len(rs) && rs[j] != '`' {
					j++
				}
				if j == len(rs) || j == i+1 || (j+1 < len(rs) && rs[j+1] == '`') {
					t.Fatalf("MarkdownProse(%q) = %q: raw backtick at rune %d opens no closed single code span", s, out, i)
				}
				i = j
			case '<', '>', '|', '[', ']', '*', '~':
				t.Fatalf("MarkdownProse(%q) = %q: unescaped %q at rune %d outside a code span", s, out, rs[i], i)
			case '_':
				if i == 0 || !isWordRune(rs[i-1]) {
					t.Fatalf("MarkdownProse(%q) = %q: '_' at rune %d can open emphasis", s, out, i)
				}
			}
		}
	})
}
