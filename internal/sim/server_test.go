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
	// By default the server serves requests whose client left, after any
	// wait (wasted work, counted in the utilisation); with AbandonTimedOut
	// it drops them from the queue, so no service starts after its client's
	// timeout — yet, FIFO, the head of the queue has then waited almost the
	// timeout and most requests still time out in service (the timeout
	// cliff). Little's law holds over the run, which drains.
	maxWait := func(abandon bool) (time.Duration, Measured) {
		c := LowCapacity()
		c.Server.AbandonTimedOut = abandon
		e, err := newEngine(c, false)
		if err != nil {
			t.Fatal(err)
		}
		var worst int64
		for !e.done && e.h.len() > 0 {
			ev := e.h.pop()
			e.now = ev.t
			if ev.kind == evServed {
				r := e.reqs[ev.a]
				worst = max(worst, r.start-r.arrive)
			}
			e.dispatch(ev)
		}
		if !e.done {
			e.done, e.end = true, e.now
		}
		return time.Duration(worst), e.measured()
	}
	keepWait, keep := maxWait(false)
	dropWait, drop := maxWait(true)
	if keepWait <= 10*time.Second || dropWait > 10*time.Second {
		t.Errorf("longest wait before service: %v kept, %v abandoning; want over and under the 10-s timeout", keepWait, dropWait)
	}
	if keep.Wasted == 0 || drop.Wasted == 0 {
		t.Errorf("wasted: %d kept, %d abandoning; want both > 0", keep.Wasted, drop.Wasted)
	}
	within(t, "L vs λW when abandoning", drop.MeanInSystem, drop.ArrivalRatePerS*drop.MeanSojournMS/1000, 0.01)
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
