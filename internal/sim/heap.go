package sim

// Event kinds.
const (
	evArrival     uint8 = iota // a = scenario: its next scheduled iteration start
	evServed                   // a = request: service completed
	evRespond                  // a = request: a fast answer (failure, refusal) reaches the client
	evDeadline                 // a = deadline list (class×2 + kind): check its head
	evVUNext                   // a = VU, b = epoch: the VU's iteration goes on (think over, next step)
	evVUStop                   // a = VU, b = epoch: hard stop (graceful period over)
	evVUSteps                  // a = scenario: next ramping-vus / constant-vus plan step
	evScenarioEnd              // a = scenario: regular duration over
	evVUReady                  // a = scenario: a VU initialised in the background is ready
	evTick                     // every second: vus, vus_max and the per-second truth
	evWSOpen                   // a = VU, b = epoch, c = connection: a WebSocket connection is open
	evWSAsk                    // a = VU, b = epoch: the host asks a question
	evWSMsg                    // the lock finished writing its current player message
	evWSClose                  // a = VU, b = epoch: close the class's connections
)

// event is one scheduled happening at simulated time t (ns); seq breaks
// ties in scheduling order, so runs are deterministic.
type event struct {
	t    int64
	seq  uint64
	a    int32
	c    int32
	b    uint32
	kind uint8
}

func (e *event) before(o *event) bool {
	return e.t < o.t || (e.t == o.t && e.seq < o.seq)
}

// eventHeap is a binary min-heap of events by (t, seq).
type eventHeap struct {
	ev  []event
	seq uint64
}

func (h *eventHeap) len() int { return len(h.ev) }

// push schedules an event.
func (h *eventHeap) push(e event) {
	h.seq++
	e.seq = h.seq
	h.ev = append(h.ev, e)
	i := len(h.ev) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.ev[i].before(&h.ev[p]) {
			break
		}
		h.ev[i], h.ev[p] = h.ev[p], h.ev[i]
		i = p
	}
}

// top returns the earliest event; the heap must not be empty.
func (h *eventHeap) top() *event { return &h.ev[0] }

// pop removes and returns the earliest event.
func (h *eventHeap) pop() event {
	e := h.ev[0]
	n := len(h.ev) - 1
	h.ev[0] = h.ev[n]
	h.ev = h.ev[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h.ev[r].before(&h.ev[l]) {
			m = r
		}
		if !h.ev[m].before(&h.ev[i]) {
			break
		}
		h.ev[i], h.ev[m] = h.ev[m], h.ev[i]
		i = m
	}
	return e
}
