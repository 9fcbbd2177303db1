package pipeline

import (
	"strings"
	"testing"
	"time"
)

// TestPullRange: breakpoint.csv.gz's samples run from 02:07:09Z to
// 02:09:19Z in whole seconds (testdata/prom/generator's manifest names the
// same run), so the run ends at 02:09:20Z; at 15-s steps the range widens
// to 02:07:00Z–02:09:30Z. A file without samples is an error.
func TestPullRange(t *testing.T) {
	day := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		step       time.Duration
		start, end time.Time
	}{
		{0, day.Add(7*time.Minute + 9*time.Second), day.Add(9*time.Minute + 20*time.Second)},
		{15 * time.Second, day.Add(7 * time.Minute), day.Add(9*time.Minute + 30*time.Second)},
	} {
		a, b, st, err := PullRange([]string{"../../testdata/k6/breakpoint.csv.gz"}, nil, c.step)
		if err != nil || !a.Equal(c.start) || !b.Equal(c.end) || st.Rows != 325555 {
			t.Errorf("step %v: %v to %v (%d rows), %v; want %v to %v", c.step, a, b, st.Rows, err, c.start, c.end)
		}
	}
	_, _, _, err := PullRange([]string{"-"}, strings.NewReader("metric_name,timestamp,metric_value\n"), 0)
	if err == nil || err.Error() != "-: no samples" {
		t.Errorf("no samples: %v", err)
	}
}
