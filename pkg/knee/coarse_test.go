package knee

import (
	"slices"
	"testing"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// At 1 s resolution segmentsAt is segments, whatever the phase.
func TestSegmentsAtOneSecond(t *testing.T) {
	x := k6counts(7, 20, [2]float64{60, 20}, [2]float64{120, 200}, [2]float64{60, 200})
	want := shapes(segments(x, nil, 3, true))
	if got := shapes(segmentsAt(x, nil, 3, true, 1, 3)); !slices.Equal(got, want) {
		t.Errorf("segmentsAt at 1 s = %v, segments %v", got, want)
	}
}

// A coarse source: a linear ramp of 10 → 400 iterations/s over 180 s read
// at 5 s steps, each step's count spread evenly over its seconds (no
// per-second noise, a staircase of 5 s treads; the step starts at the
// run's first second). It is one ramp, its steps whole multiples of the
// 5 s resolution on the steps' grid and at least two of them, so that no
// level mixes parts of steps or holds a single one.
func TestCoarseRampLevels(t *testing.T) {
	acc := timeline.New(timeline.Options{Metric: "http_req_duration"})
	t0 := int64(1_800_000_000)
	s := &ingest.Sample{Source: "prometheus"}
	ok := ingest.NewTags([]string{"expected_response", "status"}, []string{"true", "200"}, "", "")
	for step := range 36 {
		rate := 10 + 390*(float64(step)+0.5)/36
		n := 5 * rate
		for j := range 5 {
			sec := t0 + int64(5*step+j)
			c := float64(int(n*float64(j+1)/5) - int(n*float64(j)/5))
			s.TimeNS, s.Tags = sec*1e9, ok
			for _, m := range []string{"iterations", "http_reqs"} {
				s.Metric, s.Value = m, c
				acc.Add(s)
			}
			s.Metric, s.Value = "vus", 5
			acc.Add(s)
			acc.AddHistogram(&ingest.Sample{Metric: "http_req_duration", TimeNS: sec * 1e9, Tags: ok}, []timeline.HistogramBucket{{Lower: 10, Upper: 11, Count: uint64(c)}})
		}
	}
	res, err := Analyze(acc.Close(int64(5*time.Second)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Holds) != 0 || len(res.RampSteps) < 8 {
		t.Fatalf("%d holds, %d ramp steps; want one ramp cut into steps", len(res.Holds), len(res.RampSteps))
	}
	for _, l := range res.RampSteps {
		off := l.Start.Unix() - t0
		if off%5 != 0 || int(l.Seconds)%5 != 0 || l.Seconds < 10 {
			t.Errorf("ramp step at +%d s, %v s long: want whole 5 s steps of the grid, at least 10 s", off, l.Seconds)
		}
	}
}
