package pipeline

import (
	"math"
	"testing"
)

// TestBreakpointBytes checks the first hold's network figures on a real
// k6 file against a hand sum: from 02:07:10 to 02:07:19 (Unix seconds
// 1796004430–1796004438, 9 s) breakpoint.csv.gz has 541 http_reqs, and
// data_received and data_sent rows summing to 113,877 and 47,753 bytes
// (awk over the CSV), so 12,653 B/s received, 5,305.9 B/s sent and
// 113877 ÷ 541 = 210.49 bytes per request.
func TestBreakpointBytes(t *testing.T) {
	an, err := Run([]string{"../../testdata/k6/breakpoint.csv.gz"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := an.Knee.Holds[0]
	if h.Start.Unix() != 1796004430 || h.Seconds != 9 {
		t.Fatalf("first hold %v, %v s; want 1796004430, 9 s", h.Start.Unix(), h.Seconds)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"bytes_received_per_s", float64(h.BytesReceivedPerS), 113877.0 / 9},
		{"bytes_sent_per_s", float64(h.BytesSentPerS), 47753.0 / 9},
		{"bytes_per_request", float64(h.BytesPerRequest), 113877.0 / 541},
		{"bytes_sent_per_request", float64(h.BytesSentPerRequest), 47753.0 / 541},
	} {
		if math.Abs(c.got-c.want) > 1e-9*c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
