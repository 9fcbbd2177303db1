package window

import (
	"math"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
)

func sample(metric string, sec int64, v float64, name, status string) *ingest.Sample {
	return &ingest.Sample{Metric: metric, TimeNS: sec * 1e9, Value: v,
		Tags: ingest.NewTags([]string{"name", "status"}, []string{name, status}, "", "")}
}

// TestWindows is hand-checked: 30 s epoch-aligned windows; in the window
// starting at 1796004420 the /a durations are 10, 20, 30, 40 (p50 by k6's
// definition: rank 1.5 → 25; p90 rank 2.7 → 37), one failed /a request.
func TestWindows(t *testing.T) {
	a, err := New(Options{Metric: "http_req_duration", WidthNS: 30e9, By: []string{"name"}})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range []float64{10, 20, 30, 40} {
		a.Add(sample("http_req_duration", 1796004420+int64(i), v, "a", "200"))
	}
	a.Add(sample("http_req_failed", 1796004421, 1, "a", "500"))
	a.Add(sample("http_req_failed", 1796004421, 0, "a", "200"))
	a.Add(sample("http_req_duration", 1796004449, 5, "b", "200"))
	a.Add(sample("http_req_duration", 1796004450, 7, "a", "200")) // next window
	a.Add(sample("http_reqs", 1796004420, 1, "a", "200"))         // ignored
	rows := a.Close()
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	r := rows[0]
	if r.StartNS != 1796004420e9 || strings.Join(r.Tags, ",") != "a" || r.Count != 4 || r.Failed != 1 || r.Mean != 25 || r.Min != 10 || r.Max != 40 || r.Rate != 4.0/30 {
		t.Errorf("row 0 = %+v", r)
	}
	want := []float64{25, 37, 38.5, 39.7}
	for i, w := range want {
		if math.Abs(r.Percentiles[i]-w) > 1e-9 {
			t.Errorf("p%v = %v, want %v", DefaultPercentiles[i], r.Percentiles[i], w)
		}
	}
	// The last window holds one second of the run (its last sample is at
	// 1796004450): its rate is per that second, not per 30 s.
	if rows[2].Rate != 1 || rows[2].Seconds != 1 {
		t.Errorf("last window rate %v over %v s, want 1 over 1", rows[2].Rate, rows[2].Seconds)
	}
	if rows[1].Tags[0] != "b" || rows[2].StartNS != 1796004450e9 {
		t.Errorf("order: %+v %+v", rows[1], rows[2])
	}
}

func TestMultipleBy(t *testing.T) {
	a, _ := New(Options{Metric: "m", WidthNS: 10e9, By: []string{"name", "status"}, Percentiles: []float64{99.9}})
	a.Add(sample("m", 0, 1, "x", "200"))
	a.Add(sample("m", 1, 2, "x", "500"))
	a.Add(sample("m", 2, 3, "x", "200"))
	rows := a.Close()
	if len(rows) != 2 || strings.Join(rows[0].Tags, "/") != "x/200" || rows[0].Count != 2 || len(rows[0].Percentiles) != 1 {
		t.Errorf("rows %+v", rows)
	}
}

func TestOptionsErrors(t *testing.T) {
	for _, o := range []Options{{WidthNS: 1}, {Metric: "m"}, {Metric: "m", WidthNS: 1, Percentiles: []float64{0}}} {
		if _, err := New(o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}
