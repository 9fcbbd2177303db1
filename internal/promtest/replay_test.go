package promtest

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/prom"
)

const corpus = "../../../shared/corpus/k6-v2/"

// QueryRange runs a query_range against s and reads the answer.
func queryRange(t *testing.T, s *Server, q string, start, end float64, step string) *prom.Data {
	t.Helper()
	v := url.Values{"query": {q}, "start": {fmt.Sprint(start)}, "end": {fmt.Sprint(end)}, "step": {step}}
	c := &http.Client{Timeout: 30 * time.Second}
	resp, err := c.Get(s.URL + "/api/v1/query_range?" + v.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	d, err := prom.ReadAPI(resp.Body, q)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Replaying the native run's raw samples into a fresh Prometheus 2.42 and
// asking the same query_range as the recording (step 5 s over the export's
// start–end, README "Export") gives back the recorded answer, histograms
// bucket for bucket and counters value for value: the replay loses
// nothing, native histograms included.
func TestReplayNativeRoundTrip(t *testing.T) {
	s := Start(t, Options{})
	path := corpus + "prom_rw_native.prom_query_range.json.gz"
	s.ReplayCorpus(t, path)
	recorded, err := CorpusFile(path, "query_range")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]prom.Series{}
	for _, r := range recorded {
		want[r.Key()] = r
	}
	// start/end of the recording (the file's "start" and "end").
	const start, end = 1796156825.0, 1796157034.0
	for _, name := range []string{"k6_http_req_duration_seconds", "k6_http_reqs_total", "k6_vus"} {
		d := queryRange(t, s, name, start, end, "5s")
		if len(d.Series) == 0 {
			t.Fatalf("%s: no series", name)
		}
		for _, got := range d.Series {
			w, ok := want[got.Key()]
			if !ok {
				t.Errorf("%s: series not recorded", got.Key())
				continue
			}
			if len(got.Points) != len(w.Points) || len(got.Histograms) != len(w.Histograms) {
				t.Errorf("%s: %d points, %d histograms; recorded %d, %d", got.Key(), len(got.Points), len(got.Histograms), len(w.Points), len(w.Histograms))
				continue
			}
			for i := range w.Points {
				if got.Points[i] != w.Points[i] {
					t.Errorf("%s point %d = %+v, recorded %+v", got.Key(), i, got.Points[i], w.Points[i])
					break
				}
			}
			for i := range w.Histograms {
				g, r := got.Histograms[i], w.Histograms[i]
				if g.TimeNS != r.TimeNS || g.Count != r.Count || math.Abs(g.Sum-r.Sum) > 1e-9 || len(g.Buckets) != len(r.Buckets) {
					t.Errorf("%s histogram %d = %+v, recorded %+v", got.Key(), i, g, r)
					break
				}
				for j := range r.Buckets {
					if g.Buckets[j] != r.Buckets[j] {
						t.Errorf("%s histogram %d bucket %d = %+v, recorded %+v", got.Key(), i, j, g.Buckets[j], r.Buckets[j])
						break
					}
				}
			}
		}
	}
}
