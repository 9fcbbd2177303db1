package ingest

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkReadAllCorpus reads real k6 outputs of the project's corpus
// (testdata/k6) on every core with counting sinks, and reports MB/s of the
// file as stored (compressed bytes for .gz) and rows/s.
func BenchmarkReadAllCorpus(b *testing.B) {
	for _, name := range []string{"breakpoint.csv.gz", "closed_ramp.csv.gz", "timefmt_rfc3339_nano.csv"} {
		path := filepath.Join("..", "..", "testdata", "k6", name)
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(fi.Size())
			var rows int64
			for i := 0; i < b.N; i++ {
				counts := make([]int64, runtime.GOMAXPROCS(0))
				sinks := make([]func(*Sample), len(counts))
				for j := range sinks {
					sinks[j] = func(*Sample) { counts[j]++ }
				}
				st, err := ReadAll([]string{path}, nil, sinks, nil)
				if err != nil {
					b.Fatal(err)
				}
				rows = st.Rows
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkConvertFile converts the file named by LDANALYZE_BENCH_FILE
// (e.g. a shared/bench generated CSV) to Parquet in memory, as convert
// does, and reports MB/s of the input and rows/s.
func BenchmarkConvertFile(b *testing.B) {
	path := os.Getenv("LDANALYZE_BENCH_FILE")
	if path == "" {
		b.Skip("set LDANALYZE_BENCH_FILE")
	}
	format := FormatParquet
	if os.Getenv("LDANALYZE_BENCH_FORMAT") == "arrow" {
		format = FormatArrow
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	var rows int64
	for b.Loop() {
		r, err := OpenAll([]string{path}, nil)
		if err != nil {
			b.Fatal(err)
		}
		res, err := WriteColumnar(io.Discard, r, ColumnarOptions{Format: format})
		r.Close()
		if err != nil {
			b.Fatal(err)
		}
		rows += res.RowsOut
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
