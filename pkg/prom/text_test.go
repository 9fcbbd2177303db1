package prom

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// openMetricsSeries is OpenMetrics text with n timed series of 3 labels
// and one sample each, as a federation dump converted for backfill.
func openMetricsSeries(n int) []byte {
	var b bytes.Buffer
	b.WriteString("# TYPE container_cpu_usage_seconds counter\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "container_cpu_usage_seconds_total{namespace=\"shop\",pod=\"api-%d\",container=\"app\"} %d 1700000000.%03d\n", i, i, i%1000)
	}
	b.WriteString("# EOF\n")
	return b.Bytes()
}

// 2,000 timed series cost a bounded number of allocations each (Prometheus'
// textparse, linear; expfmt's OpenMetrics decoder spent 4–18 s here, 75 % of
// it in go-abnf). The bound, 40 allocations per series, is about 3× what
// it takes now (map, labels, points, keys), so a return of the slow path
// fails it; a count, not a timer.
func TestOpenMetricsAllocsPerSeries(t *testing.T) {
	in := openMetricsSeries(2000)
	allocs := testing.AllocsPerRun(3, func() {
		d, err := ReadText(bytes.NewReader(in), "om")
		if err != nil || len(d.Series) != 2000 {
			t.Fatalf("%v, %d series", err, len(d.Series))
		}
	})
	if per := allocs / 2000; per > 40 {
		t.Errorf("%.1f allocations per series, want at most 40", per)
	}
}

// One series with more labels than MaxLabelsPerSeries is an error naming
// the cap and the line (a 100,000-label series took > 60 s and 648 MB).
func TestTextLabelCap(t *testing.T) {
	var b strings.Builder
	b.WriteString("ok 1 1700000000\nwide{")
	for i := 0; i <= MaxLabelsPerSeries; i++ {
		fmt.Fprintf(&b, "l%d=\"v\",", i)
	}
	b.WriteString("} 1 1700000000\n# EOF\n")
	_, err := ReadText(strings.NewReader(b.String()), "w.om")
	want := fmt.Sprintf("w.om:2: wide: %d labels, more than %d (the cap MaxLabelsPerSeries)", MaxLabelsPerSeries+2, MaxLabelsPerSeries)
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

func BenchmarkOpenMetrics2000(b *testing.B) {
	in := openMetricsSeries(2000)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ReadText(bytes.NewReader(in), "om"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(2000*b.N)/b.Elapsed().Seconds(), "series/s")
}
