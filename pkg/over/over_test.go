package over

import (
	"math"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
)

func sample(metric string, v float64, ip string) *ingest.Sample {
	return &ingest.Sample{Metric: metric, Value: v, Tags: ingest.NewTags([]string{"ip"}, []string{ip}, "", "")}
}

// TestCounter: 50 teachers behind one IP wait 100 ms … 53 s; another IP
// answers in 200 ms. Above 1 s: 2 of 4 samples of 10.0.0.1 (53,000 and
// 1,500 ms; 1,000 ms is not above), none of 10.0.0.2; 2 of 5 in all.
// Counted on two goroutines' counters and merged, the same.
func TestCounter(t *testing.T) {
	c, err := New(Options{Limit: 1000, By: []string{"ip"}})
	if err != nil {
		t.Fatal(err)
	}
	d := c.Fork()
	c.Add(sample("http_req_duration", 100, "10.0.0.1"))
	c.Add(sample("http_req_duration", 53000, "10.0.0.1"))
	d.Add(sample("http_req_duration", 1000, "10.0.0.1"))
	d.Add(sample("http_req_duration", 1500, "10.0.0.1"))
	d.Add(sample("http_req_duration", 200, "10.0.0.2"))
	d.Add(sample("http_req_waiting", 9999, "10.0.0.2")) // not the metric
	c.Merge(d)
	r := c.Close("http_req_duration")
	if r.Count != 2 || r.Total != 5 || r.Share != 0.4 || r.WorstMS != 53000 || r.LimitMS != 1000 {
		t.Errorf("%+v", r)
	}
	if len(r.By) != 1 || r.By[0] != (Key{Key: "10.0.0.1", Count: 2, Total: 4, Share: 0.5, WorstMS: 53000}) {
		t.Errorf("by %+v", r.By)
	}
	// No sample above: count 0, no worst value.
	if r := c.Close("grpc_req_duration"); r.Count != 0 || r.WorstMS.Valid() || r.Share.Valid() {
		t.Errorf("grpc: %+v", r)
	}
	if _, err := New(Options{Limit: math.NaN()}); err == nil {
		t.Error("NaN limit: no error")
	}
}

// TestCounterMaxKeys: past MaxKeys tag values the rest count together.
func TestCounterMaxKeys(t *testing.T) {
	c, _ := New(Options{Metric: "wait", Limit: 1, By: []string{"ip"}, MaxKeys: 2})
	for _, ip := range []string{"a", "b", "c", "d"} {
		c.Add(sample("wait", 5, ip))
	}
	r := c.Close("ignored")
	if r.Metric != "wait" || len(r.By) != 3 || r.By[2].Key != OtherKey || r.By[2].Count != 2 || len(r.Warnings) != 1 {
		t.Errorf("%+v", r)
	}
}
