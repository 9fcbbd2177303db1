package main

import (
	"io"
	"os"
	"testing"
)

// BenchmarkKneeBench runs knee --by name --format csv on the file named by
// LDANALYZE_BENCH_FILE (e.g. a shared/bench generated CSV) and reports MB/s.
func BenchmarkKneeBench(b *testing.B) {
	f := os.Getenv("LDANALYZE_BENCH_FILE")
	if f == "" {
		b.Skip("set LDANALYZE_BENCH_FILE")
	}
	fi, err := os.Stat(f)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	for i := 0; i < b.N; i++ {
		var out io.Writer = io.Discard
		if err := run(b.Context(), []string{"ldanalyze", "knee", "--by", "name", "--format", "csv", f}, nil, out, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
