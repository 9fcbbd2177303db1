package queueing

import (
	"math"
	"testing"
)

// TestSolveLittle: the NaN quantity is solved (600/s × 2.8 s = 1680 in
// flight, and back), and any other number of NaNs is refused.
func TestSolveLittle(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		in     Little
		want   Little
		solved string
	}{
		{Little{nan, 600, 2.8}, Little{1680, 600, 2.8}, "in_flight"},
		{Little{1680, nan, 2.8}, Little{1680, 600, 2.8}, "rate_per_second"},
		{Little{1680, 600, nan}, Little{1680, 600, 2.8}, "latency_seconds"},
	} {
		got, solved, err := SolveLittle(c.in)
		if err != nil || solved != c.solved || math.Abs(got.InFlight-c.want.InFlight) > 1e-9 || math.Abs(got.RatePerSecond-c.want.RatePerSecond) > 1e-9 || math.Abs(got.LatencySeconds-c.want.LatencySeconds) > 1e-12 {
			t.Errorf("%+v: %+v %s %v, want %+v %s", c.in, got, solved, err, c.want, c.solved)
		}
	}
	for _, in := range []Little{{1, 2, 3}, {nan, nan, 3}, {nan, nan, nan}} {
		if _, _, err := SolveLittle(in); err == nil {
			t.Errorf("%+v: no error", in)
		}
	}
	if _, _, err := SolveLittle(Little{1, nan, 0}); err == nil {
		t.Error("latency 0: no error")
	}
}
