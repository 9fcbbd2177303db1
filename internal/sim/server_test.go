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

func TestQueueIsFIFO(t *testing.T) {
	// One slot, deterministic 10 ms, a 25-ms max wait, 200 req/s offered
	// (ρ = 2): requests are served in arrival order even though rejected
	// requests' slots are reused by later ones, and none waited longer than
	// the max wait.
	cfg := Config{Server: Server{Servers: 1, Classes: []Class{{Name: "a", Share: 1, ServiceTime: Det(10),
		MaxWait: 25 * time.Millisecond}}},
		Scenarios: []Scenario{{Name: "s", Executor: ConstantArrivalRate, Rate: 200, Duration: 10 * time.Second,
			PreAllocatedVUs: 20, MaxVUs: 100}}}
	e, err := newEngine(cfg, false)
	if err != nil {
		t.Fatal(err)
	}
	var lastArrive int64 = -1
	for !e.done && e.h.len() > 0 {
		ev := e.h.pop()
		e.now = ev.t
		if ev.kind == evServed {
			r := e.reqs[ev.a] // before its slot is released
			if r.start-r.arrive > int64(25*time.Millisecond) {
				t.Fatalf("a request waited %v, past the 25-ms max wait", time.Duration(r.start-r.arrive))
			}
			if r.arrive < lastArrive {
				t.Fatalf("served a request of %v after one of %v", time.Duration(r.arrive), time.Duration(lastArrive))
			}
			lastArrive = r.arrive
		}
		e.dispatch(ev)
	}
	if e.meas.m.Served < 900 || e.meas.m.Errors < 900 {
		t.Fatalf("served %d, rejected %d; want about 1000 each", e.meas.m.Served, e.meas.m.Errors)
	}
}
