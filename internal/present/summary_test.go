package present

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/summary"
)

// TestK6SummaryGridEveryPercentile: the public corpus's qr-code-generator
// export (shared/corpus/public README §3) has a custom summaryTrendStats
// of count, avg, min, med, max, p(99) and p(99.9); its table shows
// p(99.9) too, after p99 (before: only p90, p95 and p99 had columns, so
// p(99.9) was dropped). http_req_duration's p(99.9) is the file's 787.1129890000226 (6 digits: 787.113).
func TestK6SummaryGridEveryPercentile(t *testing.T) {
	s, err := summary.ReadFile(filepath.Join("..", "..", "..", "shared", "corpus", "public", "k6-summary-export-v0.31-qr-code-generator.json"))
	if err != nil {
		t.Fatal(err)
	}
	g := K6SummaryGrid(s, true)
	col := slices.Index(g.Header, "p99.9")
	if col < 0 || col != slices.Index(g.Header, "p99")+1 {
		t.Fatalf("header %q: want p99.9 right after p99", g.Header)
	}
	for _, r := range g.Rows {
		if r[0] == "http_req_duration" && r[col] != "787.113" {
			t.Errorf("http_req_duration p99.9 = %q, want 787.113", r[col])
		}
	}
}
