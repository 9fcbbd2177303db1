package ingest

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestSeeTimes: seeTimes leaves a timeOrder as the readers' loop does
// (see of each time that differs from the one before): the first time and
// line, the last time, and every step back of more than BackStepNS with
// its line, over batches of repeated, rising and falling times.
func TestSeeTimes(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 26))
	var want, got timeOrder
	start := int64(0)
	for batch := range 200 {
		times := make([]int64, rng.IntN(40))
		ns := int64(1_700_000_000e9) + int64(batch)*3e9
		for i := range times {
			switch rng.IntN(6) {
			case 0:
				ns -= BackStepNS + int64(rng.IntN(3))*1e9 // a step back
			case 1:
				ns -= BackStepNS + int64(rng.IntN(2)) // just a step, or just not
			case 2, 3:
				ns += int64(rng.IntN(2e9))
			}
			times[i] = ns
		}
		for i, ts := range times {
			if !want.set || ts != want.last {
				want.see(ts, start+int64(i)+1)
			}
		}
		seeTimes(&got, times, start)
		start += int64(len(times))
	}
	if want.steps == 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}
