package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/over"
)

// TestBatchesFeedEveryAggregator: the breakpoint run and its Parquet copy
// (read a batch at a time) give the same --over counts, --by rows and
// endpoint rows, and the same totals, as the CSV read a row at a time:
// the timeline takes the batches whole, the other aggregators each row.
func TestBatchesFeedEveryAggregator(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "k6", "breakpoint.csv.gz")
	r, err := ingest.Open(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_, err = ingest.WriteColumnar(&buf, r, ingest.ColumnarOptions{})
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	pq := filepath.Join(t.TempDir(), "breakpoint.parquet")
	if err := os.WriteFile(pq, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := Options{By: []string{"name"}, Endpoints: "name", Over: &over.Options{Limit: 20, By: []string{"status"}}, Workers: 1}
	want, err := Run([]string{src}, opt)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Run([]string{pq}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if want.Over == nil || want.Over.Total == 0 || len(want.Groups) == 0 || len(want.Endpoints) == 0 {
		t.Fatalf("nothing to compare: over %+v, %d groups, %d endpoints", want.Over, len(want.Groups), len(want.Endpoints))
	}
	if !reflect.DeepEqual(got.Over, want.Over) {
		t.Errorf("over %+v, want %+v", got.Over, want.Over)
	}
	if !reflect.DeepEqual(got.Groups, want.Groups) {
		t.Errorf("--by rows differ")
	}
	if !reflect.DeepEqual(got.Endpoints, want.Endpoints) {
		t.Errorf("endpoint rows differ")
	}
	if got.Input.Rows != want.Input.Rows || got.Timeline.Rows() != want.Timeline.Rows() {
		t.Errorf("rows %d (timeline %d), want %d (%d)", got.Input.Rows, got.Timeline.Rows(), want.Input.Rows, want.Timeline.Rows())
	}
}
