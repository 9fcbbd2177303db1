package ingest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlainFileCutMidLine: a plain CSV or JSON file whose last line ends
// without a newline and is malformed (k6 killed mid-write) reads as
// truncated, with a warning naming the line, by Next and by Drain, over
// small and mapped (multi-MiB) files; a last line without a newline that
// parses, or a malformed line elsewhere, is not a cut.
func TestPlainFileCutMidLine(t *testing.T) {
	csvLine := func(i int) string {
		return fmt.Sprintf("http_reqs,%d,1,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,,\n", 1796004429+i/100)
	}
	jsonLine := func(i int) string {
		return fmt.Sprintf(`{"metric":"http_reqs","type":"Point","data":{"time":"2026-11-30T02:07:%02d.000Z","value":1,"tags":{"name":"menu","status":"200"}}}`+"\n", (i/100)%60)
	}
	for _, f := range []struct {
		name string
		head string
		line func(int) string
	}{{"run.csv", hdr, csvLine}, {"run.json", "", jsonLine}} {
		for _, n := range []int{200, 60000} {
			var whole, bad bytes.Buffer
			whole.WriteString(f.head)
			bad.WriteString(f.head)
			for i := range n {
				whole.WriteString(f.line(i))
				if i == n/2 {
					bad.WriteString("garbage\n")
				} else {
					bad.WriteString(f.line(i))
				}
			}
			full := whole.String()
			lines := strings.Count(full, "\n")
			for _, c := range []struct {
				what string
				data string
				cut  bool
			}{
				{"cut mid-line", full[:len(full)-20], true},
				{"last line whole, no newline", full[:len(full)-1], false},
				{"a bad line inside", bad.String(), false},
			} {
				path := filepath.Join(t.TempDir(), f.name)
				if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
					t.Fatal(err)
				}
				for _, drain := range []bool{false, true} {
					r, err := Open(path, nil)
					if err != nil {
						t.Fatal(err)
					}
					if drain {
						err = r.(*closingReader).Drain([]func(*Sample){func(*Sample) {}, func(*Sample) {}})
					} else {
						for r.Next() {
						}
						err = r.Err()
					}
					if err != nil {
						t.Fatalf("%s %d lines %s: %v", f.name, n, c.what, err)
					}
					st := r.Stats()
					r.Close()
					warned := anyContains(st.Warnings, fmt.Sprintf("the last line (%d) ends without a newline and is malformed", lines))
					if st.Truncated != c.cut || warned != c.cut {
						t.Errorf("%s, %d lines, %s, drain %v: truncated %v, warned %v (%q), want %v", f.name, n, c.what, drain, st.Truncated, warned, st.Warnings, c.cut)
					}
				}
			}
		}
	}
}

// anyContains reports whether one of ws contains sub.
func anyContains(ws []string, sub string) bool {
	for _, w := range ws {
		if strings.Contains(w, sub) {
			return true
		}
	}
	return false
}
