package pipeline

import (
	"strings"
	"testing"
)

// FuzzParseRuns: the runs of --run X=FILE hold every file given, once, in
// order, under distinct x values.
func FuzzParseRuns(f *testing.F) {
	f.Add("100=room100.csv\n250=a.csv\n250=b.csv")
	f.Add("1k=x\n1000=y\n=z\nq=")
	f.Fuzz(func(t *testing.T, s string) {
		vals := strings.Split(s, "\n")
		runs, err := ParseSweepRuns(vals)
		if err != nil {
			return
		}
		var files []string
		for i, r := range runs {
			for _, o := range runs[:i] {
				if o.X == r.X {
					t.Fatalf("%q: x %v twice", s, r.X)
				}
			}
			files = append(files, r.Files...)
		}
		if len(files) != len(vals) {
			t.Fatalf("%q → %d files, want %d", s, len(files), len(vals))
		}
		for _, fl := range files {
			if fl == "" || fl != strings.TrimSpace(fl) {
				t.Fatalf("%q: file %q", s, fl)
			}
		}
	})
}
