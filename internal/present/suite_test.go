package present

import (
	"math"
	"slices"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/suite"
)

// TestSuiteGridCeilingUnits: runs of one protocol name the ceiling's unit
// in the header; an HTTP run beside a gRPC and a WebSocket run puts each
// row's unit in its cell (once "ceiling req/s" for all three).
func TestSuiteGridCeilingUnits(t *testing.T) {
	row := func(file, unit string, ceil float64) suite.Row {
		nan := suite.F(math.NaN())
		return suite.Row{File: file, VUs: nan, Rate: nan, RPS: nan, P50MS: nan, P95MS: nan, P99MS: nan, MaxMS: nan, ErrorRate: nan,
			ChecksPassRate: nan, Knee: nan, Ceiling: suite.F(ceil), CeilingReached: true, CompletedUnit: unit, Valid: true}
	}
	last := func(g []string) string { return g[len(g)-1] }
	g := SuiteGrid([]suite.Row{row("a.csv", "calls/s", 169.8), row("b.csv", "calls/s", 150)}, false)
	if h := last(g.Header); h != "ceiling calls/s" {
		t.Errorf("one unit: header %q, want \"ceiling calls/s\"", h)
	}
	if c := last(g.Rows[0]); c != "169.8" {
		t.Errorf("one unit: cell %q, want 169.8", c)
	}
	g = SuiteGrid([]suite.Row{row("h.csv", "", 182.8), row("g.csv", "calls/s", 169.8), row("w.csv", "msgs/s", 249.3)}, false)
	if h := last(g.Header); h != "ceiling" {
		t.Errorf("mixed units: header %q, want \"ceiling\"", h)
	}
	var cells []string
	for _, r := range g.Rows {
		cells = append(cells, last(r))
	}
	if want := []string{"182.8 req/s", "169.8 calls/s", "249.3 msgs/s"}; !slices.Equal(cells, want) {
		t.Errorf("mixed units: cells %q, want %q", cells, want)
	}
}
