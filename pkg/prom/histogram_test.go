package prom

import (
	"compress/gzip"
	"encoding/json"
	"math"
	"os"
	"testing"
)

// corpusResponses reads one section ("query_range" or "raw_samples") of a
// k6-v2 corpus export file into one Data per metric name.
func corpusResponses(t testing.TB, file, section string) map[string]*Data {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Skipf("corpus file: %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := ReadResponses(zr, file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*Data{}
	for _, r := range rs {
		if r.Section == section {
			out[r.Name] = r.Data
		}
	}
	return out
}

const corpusV2 = "../../../shared/corpus/k6-v2/"

// The native run's query_range export has the histograms field for every
// trend: 7 series of k6_http_req_duration_seconds (README, Run 5). The last
// sample of the status-0 timeout series holds 3 observations of 1.41–1.68 s
// at t ≈ 15 s (README: "3 at t ≈ 15 s") in its first sample.
func TestReadNativeHistograms(t *testing.T) {
	rs := corpusResponses(t, corpusV2+"prom_rw_native.prom_query_range.json.gz", "query_range")
	d := rs["k6_http_req_duration_seconds"]
	if d == nil {
		t.Fatal("no k6_http_req_duration_seconds")
	}
	if len(d.Series) != 7 {
		t.Fatalf("%d series, want 7", len(d.Series))
	}
	total := 0.0
	for _, s := range d.Series {
		if len(s.Points) != 0 || len(s.Histograms) == 0 {
			t.Errorf("%s: %d float points and %d histograms, want only histograms", s.Key(), len(s.Points), len(s.Histograms))
			continue
		}
		total += s.Histograms[len(s.Histograms)-1].Count
	}
	// 36,541 requests in the CSV (README totals); the last query_range step
	// has them all.
	if total != 36541 {
		t.Errorf("final count over all series %v, want 36541 (the CSV's http_reqs)", total)
	}
	for _, s := range d.Series {
		if s.Labels["status"] == "0" && s.Labels["name"] == "slow" {
			h := s.Histograms[0]
			if h.Count != 3 || len(h.Buckets) != 2 || h.Buckets[0].Lower != 1.414213562373095 {
				t.Errorf("first timeout sample %+v", h)
			}
		}
	}
}

// Hand-checked quantiles on a two-bucket histogram: (1, 2] holds 2, (2, 4]
// holds 2. q = 0.5 → rank 2, reached at the end of (1, 2] → 2; q = 0.75 →
// rank 3, one of two into (2, 4] → 3; q = 0.1 → rank 0.4, 0.2 of (1, 2] →
// 1.2.
func TestHistogramQuantile(t *testing.T) {
	h := HistogramPoint{Count: 4, Sum: 10, Buckets: []Bucket{{0, 1, 2, 2}, {0, 2, 4, 2}}}
	for q, want := range map[float64]float64{0.5: 2, 0.75: 3, 0.1: 1.2, 1: 4} {
		if got := HistogramQuantile(q, h); math.Abs(got-want) > 1e-12 {
			t.Errorf("q=%v: %v, want %v", q, got, want)
		}
	}
	if !math.IsNaN(HistogramQuantile(0.5, HistogramPoint{})) {
		t.Error("empty histogram: want NaN")
	}
	later := HistogramPoint{TimeNS: 5, Count: 7, Sum: 20, Buckets: []Bucket{{0, 1, 2, 3}, {0, 2, 4, 2}, {0, 4, 8, 2}}}
	d := HistogramDelta(h, later)
	if d.Count != 3 || d.Sum != 10 || len(d.Buckets) != 2 || d.Buckets[0].Count != 1 || d.Buckets[1].Lower != 4 {
		t.Errorf("delta %+v, want 3 observations: 1 in (1,2], 2 in (4,8]", d)
	}
	// A reset: the later count is below the earlier one.
	if r := HistogramDelta(later, h); r.Count != 4 {
		t.Errorf("reset delta %+v, want the later sample itself", r)
	}
	b, _ := json.Marshal(AddHistograms(h, later).Buckets)
	if string(b) != `[{"Boundaries":0,"Lower":1,"Upper":2,"Count":5},{"Boundaries":0,"Lower":2,"Upper":4,"Count":4},{"Boundaries":0,"Lower":4,"Upper":8,"Count":2}]` {
		t.Errorf("sum %s", b)
	}
}
