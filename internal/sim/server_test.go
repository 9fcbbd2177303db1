package sim

import (
	"testing"
	"time"
)

func TestMaxWaitRejectsOnTime(t *testing.T) {
	// 100 closed-model VUs looping on one slot of 10 ms with a 50-ms max
	// wait: a rejected VU asks again at once (re-entering the class's
	// deadline list while it is being processed). Every 429 takes exactly
	// 50 ms, every 200 at most 50 + 10 ms, and the heap stays small.
	cfg := Config{Server: Server{Servers: 1, Classes: []Class{{Name: "a", Share: 1, ServiceTime: Det(10),
		MaxWait: 50 * time.Millisecond}}},
		Scenarios: []Scenario{{Name: "s", Executor: ConstantVUs, VUs: 100, Duration: 20 * time.Second}}}
	e, err := newEngine(cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	maxHeap, n429 := 0, 0
	for until := int64(0); ; until += 1e8 {
		more := e.advance(until)
		maxHeap = max(maxHeap, e.h.len())
		for _, r := range e.out.take() {
			if r.m != mHTTPDuration {
				continue
			}
			st := r.ts.vals[e.cols.idx["status"]]
			if st == "429" {
				n429++
			}
			if (st == "429" && r.v != 50) || (st == "200" && r.v > 60) {
				t.Fatalf("status %s took %v ms", st, r.v)
			}
		}
		if !more {
			break
		}
	}
	if n429 < 1000 {
		t.Errorf("%d rejections, want thousands", n429)
	}
	if maxHeap > 300 {
		t.Errorf("the heap grew to %d events for 100 VUs", maxHeap)
	}
}

func TestAbandonTimedOut(t *testing.T) {
	// low-capacity overloads a 5 req/s server with 10-s client timeouts.
	// By default the server serves requests whose client left (wasted
	// work, counted in the utilisation); with AbandonTimedOut it drops them
	// from the queue, wasting only those whose timeout fired in service,
	// and Little's law holds over the run.
	keep, err := Simulate(LowCapacity())
	if err != nil {
		t.Fatal(err)
	}
	c := LowCapacity()
	c.Server.AbandonTimedOut = true
	drop, err := Simulate(c)
	if err != nil {
		t.Fatal(err)
	}
	if keep.Measured.Wasted == 0 || drop.Measured.Wasted*5 > keep.Measured.Wasted {
		t.Errorf("wasted: %d kept, %d abandoning; want some and under a fifth of it", keep.Measured.Wasted, drop.Measured.Wasted)
	}
	if drop.Measured.OK <= keep.Measured.OK {
		t.Errorf("abandoning timed-out requests should serve more in time: %d vs %d OK", drop.Measured.OK, keep.Measured.OK)
	}
	m := drop.Measured
	within(t, "L vs λW when abandoning", m.MeanInSystem, m.ArrivalRatePerS*m.MeanSojournMS/1000, 0.01)
}
