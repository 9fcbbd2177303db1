// Package textdiff names where two texts first differ, for tests that
// compare whole outputs (a table, a CSV) and must say where they part.
package textdiff

import (
	"fmt"
	"strings"
)

// First returns the first line where got and want differ, as
// "line N:\ngot  …\nwant …" (N counted from 1), or, when one is a prefix
// of the other line by line, "got G lines, want W". It does not report
// equal texts: call it once they are known to differ.
func First(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\ngot  %s\nwant %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("got %d lines, want %d", len(g), len(w))
}
