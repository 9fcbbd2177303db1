package report

import (
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
)

// TestCollectorMerge: the breakpoint run fed to two collectors in
// alternating blocks of rows (as the parallel reader does) and merged
// equals one collector fed everything: endpoint rows, failures per second
// and status, scenarios, span.
func TestCollectorMerge(t *testing.T) {
	one, _ := NewCollector(CollectorOptions{})
	a, _ := NewCollector(CollectorOptions{})
	b, _ := NewCollector(CollectorOptions{})
	r, err := ingest.Open(filepath.Join("..", "..", "testdata", "k6", "breakpoint.csv.gz"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := 0; r.Next(); i++ {
		one.Add(r.Sample())
		if i/3000%2 == 0 {
			a.Add(r.Sample())
		} else {
			b.Add(r.Sample())
		}
	}
	a.Merge(b)
	if len(one.failed) == 0 || !maps.Equal(a.failed, one.failed) {
		t.Errorf("failed per second: %d keys, want %d", len(a.failed), len(one.failed))
	}
	if a.minNS != one.minNS || a.maxNS != one.maxNS {
		t.Errorf("span %d–%d, want %d–%d", a.minNS, a.maxNS, one.minNS, one.maxNS)
	}
	sa, so := slices.Sorted(slices.Values(a.scenarios)), slices.Sorted(slices.Values(one.scenarios))
	if !slices.Equal(sa, so) {
		t.Errorf("scenarios %v, want %v", sa, so)
	}
	if got, want := a.endpoints.Close(), one.endpoints.Close(); len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("endpoint rows differ:\n%+v\nwant\n%+v", got, want)
	}
}
