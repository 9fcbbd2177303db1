package window

import "testing"

// TestWants: an Aggregator wants every sample of its metric, the failed
// rate's samples of value 1 (HTTP's http_req_failed, by the package doc's
// failure rule), nothing else; one choosing among the protocols' Trends
// wants each candidate's.
func TestWants(t *testing.T) {
	type want struct{ all, nonZero bool }
	cases := []struct {
		metric string
		asked  string
		want   want
	}{
		{"http_req_duration", "http_req_duration", want{true, false}},
		{"http_req_duration", "http_req_failed", want{false, true}},
		{"http_req_duration", "http_reqs", want{}},
		{"grpc_req_duration", "http_req_failed", want{}},
		{"grpc_req_duration", "grpc_req_duration", want{true, false}},
		{"", "http_req_duration", want{true, false}},
		{"", "grpc_req_duration", want{true, false}},
		{"", "http_req_failed", want{false, true}},
		{"", "vus", want{}},
	}
	for _, c := range cases {
		a, err := New(Options{Metric: c.metric, WidthNS: 1e9})
		if err != nil {
			t.Fatal(err)
		}
		all, nz := a.Wants(c.asked)
		if (want{all, nz}) != c.want {
			t.Errorf("metric %q: Wants(%q) = %v, %v; want %+v", c.metric, c.asked, all, nz, c.want)
		}
	}
}
