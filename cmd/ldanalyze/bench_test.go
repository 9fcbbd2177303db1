package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// benchCommand runs ldanalyze with args and the file named by
// LDANALYZE_BENCH_FILE (e.g. a shared/bench generated CSV) last, and
// reports MB/s of that file.
func benchCommand(b *testing.B, args ...string) {
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
		err := run(b.Context(), append(append([]string{"ldanalyze"}, args...), f), nil, io.Discard, io.Discard)
		if _, finding := err.(errFinding); err != nil && !finding {
			b.Fatal(err)
		}
	}
}

// BenchmarkKneeBench is the bench harness's command: knee --window 30s
// --metric http_req_duration --by name --format csv.
func BenchmarkKneeBench(b *testing.B) {
	benchCommand(b, "knee", "--window", "30s", "--metric", "http_req_duration", "--by", "name", "--format", "csv")
}

// BenchmarkCheckBench is check --format json (a failed check is not an
// error here).
func BenchmarkCheckBench(b *testing.B) { benchCommand(b, "check", "--format", "json") }

// BenchmarkReportBench is report -o with its plots.
func BenchmarkReportBench(b *testing.B) {
	benchCommand(b, "report", "-o", filepath.Join(b.TempDir(), "report.md"))
}
