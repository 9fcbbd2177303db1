package sim

// Outcomes of a request.
const (
	outOK      uint8 = iota // served
	outFail                 // load-independent failure
	outShed                 // shed: too many waiting
	outMaxWait              // waited MaxWait without a slot
	outLimited              // refused by the rate limiter
	outTimeout              // the client's timeout fired first
	numOutcomes
)

// fastFloor is the least time any answer takes (ns): a refusal "taking
// ~0 ms" still takes a loopback round trip. It also keeps a closed-model VU
// that is refused in a loop from spinning at one instant.
const fastFloor = 100_000

// request is one request in flight. A slot is reused once both the server
// and the client are done with it; gen tells reuses apart.
type request struct {
	arrive, start int64
	vu            int32
	vuEpoch       uint32
	gen           uint32
	class         int16
	scen          int16
	outcome       uint8
	queued        bool // waiting for a slot
	srvDone       bool // the server is done with it
	cliDone       bool // the client has its answer, timed out or left
}

// classRT is a compiled request class.
type classRT struct {
	cfg         *Class
	grpc        bool
	svc         sampler
	meanNS      float64
	failLat     int64
	limitStatus int
	mw, to      dlist // MaxWait and client-timeout deadline lists
}

// dentry is a request in a deadline list.
type dentry struct {
	id  int32
	gen uint32
}

// dlist is the requests of one class that may hit one constant deadline
// (MaxWait after arrival, or the client timeout), in arrival order — which
// is deadline order. One evDeadline per list is live, at next, the head's
// deadline; entries whose request has moved on are dropped lazily when it
// fires. A run's heap thus holds O(classes) deadline events instead of one
// per request. An event at another time than next is stale and ignored.
type dlist struct {
	delay int64
	q     []dentry
	head  int
	next  int64 // time of the live event, −1 when none
}

func (d *dlist) push(e *engine, id int32, a int32) {
	r := &e.reqs[id]
	d.q = append(d.q, dentry{id, r.gen})
	d.arm(e, r.arrive+d.delay, a)
}

// arm makes sure an event fires at or before deadline t.
func (d *dlist) arm(e *engine, t int64, a int32) {
	if d.next < 0 || t < d.next {
		d.next = t
		e.h.push(event{t: t, kind: evDeadline, a: a})
	}
}

// compact drops the consumed head of the list now and then.
func (d *dlist) compact() {
	if d.head > 1024 && d.head*2 > len(d.q) {
		n := copy(d.q, d.q[d.head:])
		d.q = d.q[:n]
		d.head = 0
	}
}

// newReq returns a free request slot.
func (e *engine) newReq() int32 {
	if n := len(e.freeReqs); n > 0 {
		id := e.freeReqs[n-1]
		e.freeReqs = e.freeReqs[:n-1]
		r := &e.reqs[id]
		*r = request{gen: r.gen + 1}
		return id
	}
	e.reqs = append(e.reqs, request{})
	return int32(len(e.reqs) - 1)
}

// release frees a request slot once server and client are done with it.
func (e *engine) release(id int32) {
	r := &e.reqs[id]
	if r.srvDone && r.cliDone {
		r.gen++
		e.freeReqs = append(e.freeReqs, id)
	}
}

// arrive puts request id in front of the server at the current time.
func (e *engine) arrive(id int32) {
	r := &e.reqs[id]
	k := &e.classes[r.class]
	e.meas.m.Requests++
	e.meas.sec(e.now).Arrived++
	if l := e.limiter; l != nil {
		l.tokens = min(l.burst, l.tokens+float64(e.now-l.last)*l.perNS)
		l.last = e.now
		if l.tokens < 1 {
			e.fast(id, outLimited, 0)
			return
		}
		l.tokens--
	}
	if f := k.cfg.FailFraction; f > 0 && e.rng.Float64() < f {
		e.fast(id, outFail, k.failLat)
		return
	}
	if s := k.cfg.ShedWaiting; s > 0 && e.waiting > s {
		e.fast(id, outShed, 0)
		return
	}
	k.to.push(e, id, int32(r.class)*2+1)
	e.meas.advance(e.now)
	e.meas.insys++
	if e.busy < e.servers {
		e.startService(id)
		return
	}
	r.queued = true
	e.waiting++
	e.waitq = append(e.waitq, dentry{id, r.gen})
	if k.cfg.MaxWait > 0 {
		k.mw.push(e, id, int32(r.class)*2)
	}
}

// fast answers request id without queueing, after latency (at least
// fastFloor).
func (e *engine) fast(id int32, out uint8, latency int64) {
	r := &e.reqs[id]
	r.srvDone = true
	r.outcome = out
	e.meas.sojournN++
	e.h.push(event{t: e.now + max(latency, fastFloor), kind: evRespond, a: id})
}

// startService gives request id a slot.
func (e *engine) startService(id int32) {
	r := &e.reqs[id]
	k := &e.classes[r.class]
	e.meas.advance(e.now)
	e.busy++
	e.meas.busy = e.busy
	r.start = e.now
	e.meas.waitNS += float64(e.now - r.arrive)
	s := k.svc.draw(e.rng)
	e.meas.serviceNS += float64(s)
	e.h.push(event{t: e.now + s, kind: evServed, a: id})
}

// served ends request id's service and gives its slot to the next waiting
// request.
func (e *engine) served(id int32) {
	r := &e.reqs[id]
	e.meas.advance(e.now)
	e.busy--
	e.meas.busy = e.busy
	e.meas.insys--
	e.meas.m.Served++
	e.meas.sec(e.now).Served++
	e.meas.sojournNS += float64(e.now - r.arrive)
	e.meas.sojournN++
	r.srvDone = true
	if r.cliDone {
		e.meas.m.Wasted++
		e.release(id)
	} else {
		r.outcome = outOK
		e.answer(id, outOK)
	}
	e.dequeue()
}

// dequeue starts the next live waiting request, if a slot is free. Entries
// of requests that left the queue (rejected, abandoned) are skipped; gen
// tells a reused slot from the request that queued there.
func (e *engine) dequeue() {
	for e.busy < e.servers && e.wqHead < len(e.waitq) {
		en := e.waitq[e.wqHead]
		e.wqHead++
		r := &e.reqs[en.id]
		if r.gen != en.gen || !r.queued {
			continue
		}
		r.queued = false
		e.waiting--
		e.startService(en.id)
	}
	if e.wqHead > 1024 && e.wqHead*2 > len(e.waitq) {
		n := copy(e.waitq, e.waitq[e.wqHead:])
		e.waitq = e.waitq[:n]
		e.wqHead = 0
	}
}

// deadline handles an evDeadline of list a (class×2 + 0 for MaxWait, 1 for
// the client timeout).
func (e *engine) deadline(a int32) {
	k := &e.classes[a/2]
	d := &k.mw
	if a%2 == 1 {
		d = &k.to
	}
	if e.now != d.next {
		return // stale: a later event was armed before an earlier one
	}
	d.next = -1
	for d.head < len(d.q) {
		en := d.q[d.head]
		r := &e.reqs[en.id]
		live := r.gen == en.gen && ((a%2 == 0 && r.queued) || (a%2 == 1 && !r.cliDone))
		if !live {
			d.head++
			continue
		}
		if r.arrive+d.delay > e.now {
			d.arm(e, r.arrive+d.delay, a)
			break
		}
		d.head++
		if a%2 == 0 {
			e.rejectWaiting(en.id)
		} else {
			e.timeout(en.id)
		}
	}
	d.compact()
}

// rejectWaiting answers a request that waited MaxWait (no service time).
func (e *engine) rejectWaiting(id int32) {
	r := &e.reqs[id]
	r.queued = false
	e.waiting--
	r.srvDone = true
	r.outcome = outMaxWait
	e.meas.advance(e.now)
	e.meas.insys--
	e.meas.sojournNS += float64(e.now - r.arrive)
	e.meas.sojournN++
	if r.cliDone {
		e.release(id)
		return
	}
	e.answer(id, outMaxWait)
}

// timeout fires the client timeout of request id.
func (e *engine) timeout(id int32) {
	r := &e.reqs[id]
	if e.abandon && r.queued {
		r.queued = false
		e.waiting--
		r.srvDone = true
		e.meas.advance(e.now)
		e.meas.insys--
		e.meas.sojournNS += float64(e.now - r.arrive)
		e.meas.sojournN++
	}
	e.answer(id, outTimeout)
}

// limiterRT is the token bucket of Server.RateLimit.
type limiterRT struct {
	perNS, burst, tokens float64
	last                 int64
}
