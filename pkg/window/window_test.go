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
	for _, o := range []Options{{}, {Metric: "m"}, {Metric: "m", WidthNS: 1, Percentiles: []float64{0}}, {WidthNS: 1, Percentiles: []float64{101}}} {
		if _, err := New(o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// TestFailuresByProtocol: gRPC and WebSocket samples carry their own
// outcome (status 5 NotFound and 8 ResourceExhausted fail, 0 is OK; a
// handshake 101 is OK, 429 fails), HTTP's come from http_req_failed rows
// (its status tag is not read), browser's from browser_http_req_failed.
// Two gRPC failures and an OK call in one window: count 3, failed 2.
func TestFailuresByProtocol(t *testing.T) {
	for _, c := range []struct {
		metric  string
		samples []*ingest.Sample
		count   uint64
		failed  uint64
	}{
		{"grpc_req_duration", []*ingest.Sample{sample("grpc_req_duration", 10, 1, "a", "0"), sample("grpc_req_duration", 11, 2, "a", "5"),
			sample("grpc_req_duration", 12, 3, "a", "8"), sample("http_req_failed", 12, 1, "a", "500")}, 3, 2},
		{"ws_connecting", []*ingest.Sample{sample("ws_connecting", 10, 1, "a", "101"), sample("ws_connecting", 11, 2, "a", "429")}, 2, 1},
		{"http_req_duration", []*ingest.Sample{sample("http_req_duration", 10, 1, "a", "500"), sample("http_req_failed", 10, 0, "a", "500"),
			sample("http_req_duration", 11, 1, "a", "200"), sample("http_req_failed", 11, 1, "a", "200")}, 2, 1},
		{"browser_http_req_duration", []*ingest.Sample{sample("browser_http_req_duration", 10, 1, "a", "500"), sample("browser_http_req_failed", 10, 1, "a", "500"),
			sample("http_req_failed", 10, 1, "a", "500")}, 1, 1},
		{"fanout_ms", []*ingest.Sample{sample("fanout_ms", 10, 1, "a", "5"), sample("http_req_failed", 10, 1, "a", "")}, 1, 1},
	} {
		a, err := New(Options{Metric: c.metric, WidthNS: 30e9, By: []string{"name"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range c.samples {
			a.Add(s)
		}
		rows := a.Close()
		if len(rows) != 1 || rows[0].Count != c.count || rows[0].Failed != c.failed {
			t.Errorf("%s: rows %+v, want count %d failed %d", c.metric, rows, c.count, c.failed)
		}
	}
}

// TestRunOwnMetric: without a metric the Aggregator takes the run's own
// request Trend, the first of HTTP, gRPC, WebSocket, browser with samples
// (as the timeline does): grpc_req_duration in a gRPC run, also after a
// Merge; http_req_duration when both are present.
func TestRunOwnMetric(t *testing.T) {
	mk := func() *Aggregator {
		a, err := New(Options{WidthNS: 30e9, By: []string{"name"}})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a, b := mk(), mk()
	a.Add(sample("grpc_req_duration", 10, 1, "a", "0"))
	b.Add(sample("grpc_req_duration", 11, 2, "a", "8"))
	b.Add(sample("iteration_duration", 11, 2, "", ""))
	if a.Metric() != "" {
		t.Errorf("before Close: %q", a.Metric())
	}
	a.Merge(b)
	rows := a.Close()
	if a.Metric() != "grpc_req_duration" || len(rows) != 1 || rows[0].Count != 2 || rows[0].Failed != 1 || a.Err() != nil || a.Warnings() != nil {
		t.Errorf("%s: %+v", a.Metric(), rows)
	}
	h := mk()
	h.Add(sample("grpc_req_duration", 10, 1, "a", "0"))
	h.Add(sample("http_req_duration", 10, 5, "b", "200"))
	if rows := h.Close(); h.Metric() != "http_req_duration" || len(rows) != 1 || rows[0].Tags[0] != "b" {
		t.Errorf("%s: %+v", h.Metric(), rows)
	}
	// Parallel readers that saw different protocols: HTTP wins whichever
	// side saw it (the other side's gRPC candidate is dropped).
	for _, httpFirst := range []bool{true, false} {
		x, y := mk(), mk()
		x.Add(sample("http_req_duration", 10, 5, "b", "200"))
		x.Add(sample("http_req_failed", 10, 1, "b", "500"))
		y.Add(sample("grpc_req_duration", 10, 1, "a", "0"))
		if !httpFirst {
			x, y = y, x
		}
		x.Merge(y)
		if rows := x.Close(); x.Metric() != "http_req_duration" || len(rows) != 1 || rows[0].Tags[0] != "b" || rows[0].Count != 1 || rows[0].Failed != 1 {
			t.Errorf("merge, HTTP side first %v: %s %+v", httpFirst, x.Metric(), rows)
		}
	}
}

// BenchmarkAdd: one HTTP request's rows (k6 writes 14 per request: the
// durations, http_reqs, http_req_failed, checks, data), named, with the
// metric given and left to the run (the candidates after HTTP are dropped
// at its first sample, so both cost about the same).
func BenchmarkAdd(b *testing.B) {
	var rows []*ingest.Sample
	for _, m := range []string{"http_reqs", "http_req_duration", "http_req_blocked", "http_req_connecting", "http_req_tls_handshaking",
		"http_req_sending", "http_req_waiting", "http_req_receiving", "http_req_failed", "checks", "data_sent", "data_received", "iteration_duration", "iterations"} {
		rows = append(rows, sample(m, 1796004420, 1, "/menu", "200"))
	}
	for _, metric := range []string{"http_req_duration", ""} {
		b.Run("metric="+metric, func(b *testing.B) {
			a, err := New(Options{Metric: metric, WidthNS: 30e9, By: []string{"name"}})
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < b.N; i++ {
				s := rows[i%len(rows)]
				s.TimeNS = 1796004420e9 + int64(i/len(rows))*1e6
				a.Add(s)
			}
		})
	}
}
