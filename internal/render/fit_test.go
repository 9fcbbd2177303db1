package render

import (
	"bytes"
	"testing"
)

// TestWrapProse: at 24 columns a check line wraps at spaces with its
// continuation two columns past its indent, a table line and a word
// wider than the line stay whole, and piped output (no width) is
// unchanged.
func TestWrapProse(t *testing.T) {
	in := "  warn errors: 3298 of 23232 requests failed (14.20 %)\n│ a table line wider than twenty-four │\nhttps://example.com/a/very/long/url ok"
	want := "  warn errors: 3298 of\n    23232 requests\n    failed (14.20 %)\n│ a table line wider than twenty-four │\nhttps://example.com/a/very/long/url\n  ok"
	var b bytes.Buffer
	if got := WrapProse(Fit(&b, 24), in); got != want {
		t.Errorf("wrapped:\n%s\nwant:\n%s", got, want)
	}
	if got := WrapProse(&b, in); got != in {
		t.Errorf("piped: %q, want it unchanged", got)
	}
}
