package summary

import (
	"strings"
	"testing"
)

// TestUnknownTypeIsTrend: a metric of a type k6 does not have is read as
// the warning says, a trend (found by FuzzSummary: the type was kept), and
// a metric without a name is left out with a warning.
func TestUnknownTypeIsTrend(t *testing.T) {
	s, err := Read(strings.NewReader(`{"metrics":{"x":{"type":"histogram","values":{"avg":1}},"":{"type":"trend","values":{}}}}`), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Metrics) != 1 || s.Metrics[0].Type != "trend" || s.Metrics[0].Avg == nil || *s.Metrics[0].Avg != 1 {
		t.Errorf("metrics %+v", s.Metrics)
	}
	want := []string{`s.json: a metric without a name; ignored`, `s.json: metric "x": unknown type "histogram"; statistics kept as a trend's`}
	got := strings.Join(s.Warnings, "\n")
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("warnings %q lack %q", s.Warnings, w)
		}
	}
}
