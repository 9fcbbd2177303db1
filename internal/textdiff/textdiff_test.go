package textdiff

import "testing"

func TestFirst(t *testing.T) {
	for _, c := range []struct{ got, want, out string }{
		{"a\nb\nc", "a\nx\nc", "line 2:\ngot  b\nwant x"},
		{"a", "b", "line 1:\ngot  a\nwant b"},
		{"a\nb", "a\nb\nc", "got 2 lines, want 3"},
	} {
		if out := First(c.got, c.want); out != c.out {
			t.Errorf("First(%q, %q) = %q, want %q", c.got, c.want, out, c.out)
		}
	}
}
