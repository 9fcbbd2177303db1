package sim

// vuRT is one VU. epoch counts its iterations: an event or a response that
// carries an older epoch belongs to an iteration that is over.
type vuRT struct {
	scen      int32
	id        int32 // k6's VU id, 1-based, unique in the run
	epoch     uint32
	running   bool  // in an iteration
	active    bool  // counted by the vus gauge (closed model)
	scheduled bool  // the closed-model plan wants it looping
	stopAt    int64 // hard-stop deadline of a ramped-down VU's iteration
	pushed    int64 // when its last samples reached the output (emitter.begin)
	iterStart int64
	iters     int64 // iterations started (k6's iterationInScenario)
	step      int32
	req       int32
	sent      float64
	recv      float64
	ws        *wsClass
}

// newVU adds a VU to scenario sc and returns its index.
func (e *engine) newVU(sc *scenRT) int32 {
	e.nextVUID++
	e.vus = append(e.vus, vuRT{scen: int32(sc.i), id: e.nextVUID, req: -1})
	vi := int32(len(e.vus) - 1)
	sc.vus = append(sc.vus, vi)
	return vi
}

// startIteration starts an iteration of VU vi at the current time.
func (e *engine) startIteration(vi int32) {
	v := &e.vus[vi]
	sc := e.scens[v.scen]
	v.epoch++
	v.running = true
	v.iterStart = e.now
	v.step = 0
	v.sent, v.recv = 0, 0
	v.req = -1
	sc.running++
	s := e.meas.sec(e.now)
	s.Started++
	s.Offered++
	if sc.cfg.WS != nil {
		e.wsStart(vi)
		v.iters++
		return
	}
	v.iters++
	e.send(vi, e.pick(sc, 0))
}

// pick returns the class of request step of an iteration of sc.
func (e *engine) pick(sc *scenRT, step int32) int16 {
	if sc.flow != nil {
		return sc.flow[step]
	}
	u := e.rng.Float64() * sc.mixCum[len(sc.mixCum)-1]
	for i, c := range sc.mixCum {
		if u < c {
			return sc.mixCls[i]
		}
	}
	return sc.mixCls[len(sc.mixCls)-1]
}

// send makes VU vi request class k now.
func (e *engine) send(vi int32, k int16) {
	id := e.newReq()
	v := &e.vus[vi]
	r := &e.reqs[id]
	r.arrive = e.now
	r.class = k
	r.scen = int16(v.scen)
	r.vu = vi
	r.vuEpoch = v.epoch
	v.req = id
	v.sent += float64(e.classes[k].cfg.RequestBytes)
	e.arrive(id)
}

// answer gives request id's client its answer now (out) and lets the VU go
// on, unless the VU left that iteration.
func (e *engine) answer(id int32, out uint8) {
	r := &e.reqs[id]
	r.cliDone = true
	vi := r.vu
	v := &e.vus[vi]
	live := v.running && v.epoch == r.vuEpoch && v.req == id
	if live {
		v.req = -1
		e.record(r, out)
	}
	e.release(id)
	if live {
		e.next(vi)
	}
}

// record counts and emits the samples of an answered request.
func (e *engine) record(r *request, out uint8) {
	k := &e.classes[r.class]
	v := &e.vus[r.vu]
	sec := e.meas.sec(e.now)
	status := k.status(out)
	switch {
	case out == outOK:
		e.meas.m.OK++
		sec.OK++
	default:
		e.meas.m.Errors++
		sec.Errors++
		if out == outTimeout {
			e.meas.m.TimedOut++
			sec.TimedOut++
		}
	}
	switch out {
	case outOK:
		v.recv += float64(k.cfg.ResponseBytes)
	case outTimeout:
	default:
		v.recv += float64(k.cfg.ErrorBytes)
	}
	if e.out == nil {
		return
	}
	sc := e.scens[r.scen]
	ts := sc.requestTags(e, r.class, out)
	ms := float64(e.now-r.arrive) / 1e6
	o := e.out
	o.begin(e.now, &v.pushed)
	if k.grpc {
		o.add(mGRPCDuration, e.now, ms, ts)
	} else {
		o.add(mHTTPReqs, e.now, 1, ts)
		o.add(mHTTPDuration, e.now, ms, ts)
		if e.timings {
			o.add(mHTTPBlocked, e.now, 0, ts)
			o.add(mHTTPConnecting, e.now, 0, ts)
			o.add(mHTTPTLS, e.now, 0, ts)
			o.add(mHTTPSending, e.now, 0, ts)
		}
		o.add(mHTTPWaiting, e.now, ms, ts)
		if e.timings {
			o.add(mHTTPReceiving, e.now, 0, ts)
		}
		failed := 1.0
		if status >= 200 && status < 400 {
			failed = 0
		}
		o.add(mHTTPFailed, e.now, failed, ts)
	}
	if k.cfg.Check != "" {
		pass := 0.0
		if status == k.cfg.CheckStatus {
			pass = 1
		}
		o.begin(e.now, &v.pushed)
		o.add(mChecks, e.now, pass, sc.checkTags(e, r.class))
	}
}

// next moves VU vi on after an answer: the next request of its flow, or the
// end of the iteration (after Overhead and Think).
func (e *engine) next(vi int32) {
	v := &e.vus[vi]
	sc := e.scens[v.scen]
	v.step++
	if sc.flow != nil && int(v.step) < len(sc.flow) {
		e.send(vi, sc.flow[v.step])
		return
	}
	if w := int64(sc.cfg.Overhead + sc.cfg.Think); w > 0 {
		e.h.push(event{t: e.now + w, kind: evVUNext, a: vi, b: v.epoch})
		return
	}
	e.endIteration(vi)
}

// endIteration completes VU vi's iteration now and starts the VU's next
// one, returns it to its pool or stops it.
func (e *engine) endIteration(vi int32) {
	v := &e.vus[vi]
	sc := e.scens[v.scen]
	e.meas.m.Iterations++
	if o := e.out; o != nil {
		ts := sc.iterTags
		o.begin(e.now, &v.pushed)
		o.add(mDataSent, e.now, v.sent, ts)
		o.add(mDataReceived, e.now, v.recv, ts)
		o.add(mIterDuration, e.now, float64(e.now-v.iterStart)/1e6, ts)
		o.add(mIterations, e.now, 1, ts)
	}
	e.leaveIteration(vi)
}

// leaveIteration is the end of VU vi's iteration, complete or interrupted.
func (e *engine) leaveIteration(vi int32) {
	v := &e.vus[vi]
	sc := e.scens[v.scen]
	v.running = false
	v.epoch++
	v.stopAt = 0
	sc.running--
	if sc.open {
		e.active--
		sc.free = append(sc.free, vi)
	} else if v.scheduled && !sc.ended {
		e.startIteration(vi)
		return
	} else {
		e.deactivate(vi)
	}
	if sc.ended && sc.running == 0 {
		e.finish(sc)
	}
}

// deactivate takes an idle closed-model VU out of the vus gauge.
func (e *engine) deactivate(vi int32) {
	v := &e.vus[vi]
	if v.active {
		v.active = false
		e.active--
	}
}

// interrupt cuts VU vi's iteration (graceful stop or ramp-down over): k6
// emits its data_sent and data_received but no iterations sample.
func (e *engine) interrupt(vi int32) {
	v := &e.vus[vi]
	sc := e.scens[v.scen]
	e.meas.m.Interrupted++
	if o := e.out; o != nil {
		o.begin(e.now, &v.pushed)
		o.add(mDataSent, e.now, v.sent, sc.iterTags)
		o.add(mDataReceived, e.now, v.recv, sc.iterTags)
	}
	if v.req >= 0 {
		id := v.req
		v.req = -1
		e.reqs[id].cliDone = true
		e.release(id)
	}
	if v.ws != nil {
		v.ws.open = false
	}
	v.scheduled = false
	e.leaveIteration(vi)
}

// arrival handles an open scenario's scheduled iteration start: a free VU
// runs it, or a new one up to MaxVUs, or it is dropped.
func (e *engine) arrival(sc *scenRT) {
	if n := len(sc.free); n > 0 {
		vi := sc.free[n-1]
		sc.free = sc.free[:n-1]
		e.active++
		e.startIteration(vi)
	} else if sc.allocated < sc.cfg.MaxVUs && sc.cfg.VUInitTime == 0 {
		sc.allocated++
		e.unplanned++
		vi := e.newVU(sc)
		e.active++
		e.startIteration(vi)
	} else {
		e.drop(sc)
		if sc.cfg.VUInitTime > 0 && sc.allocated < sc.cfg.MaxVUs && !sc.initializing {
			sc.initializing = true
			e.h.push(event{t: e.now + int64(sc.cfg.VUInitTime), kind: evVUReady, a: int32(sc.i)})
		}
	}
	if t, ok := sc.arr.next(); ok {
		e.h.push(event{t: sc.start + t, kind: evArrival, a: int32(sc.i)})
	}
}

// drop emits a dropped iteration of sc.
func (e *engine) drop(sc *scenRT) {
	e.meas.m.Dropped++
	s := e.meas.sec(e.now)
	s.Dropped++
	s.Offered++
	if e.meas.firstDrop < 0 {
		e.meas.firstDrop = e.now
	}
	if o := e.out; o != nil {
		o.begin(e.now, nil)
		o.add(mDropped, e.now, 1, sc.dropTags)
	}
}

// vuReady adds the VU initialised in the background to sc's pool.
func (e *engine) vuReady(sc *scenRT) {
	sc.initializing = false
	if sc.ended {
		return
	}
	sc.allocated++
	e.unplanned++
	vi := e.newVU(sc)
	sc.free = append(sc.free, vi)
}

// vuStep applies sc's next closed-model plan step: VUs below the new count
// loop, the ones above stop after their iteration (hard stop after
// GracefulRampDown, or at the scenario's graceful stop for the last step).
func (e *engine) vuStep(sc *scenRT) {
	st := sc.steps[sc.step]
	last := sc.step == len(sc.steps)-1
	sc.step++
	if !last {
		e.h.push(event{t: sc.start + sc.steps[sc.step].At, kind: evVUSteps, a: int32(sc.i)})
	}
	old := sc.planned
	sc.planned = st.VUs
	for i := old; i < st.VUs && !sc.ended; i++ {
		vi := sc.vus[i]
		v := &e.vus[vi]
		v.scheduled = true
		v.stopAt = 0
		if !v.active {
			v.active = true
			e.active++
		}
		if !v.running {
			e.startIteration(vi)
		}
	}
	for i := st.VUs; i < old; i++ {
		vi := sc.vus[i]
		v := &e.vus[vi]
		v.scheduled = false
		switch {
		case !v.running:
			e.deactivate(vi)
		case !last:
			v.stopAt = min(e.now+int64(sc.cfg.GracefulRampDown), sc.stopAt)
			e.h.push(event{t: v.stopAt, kind: evVUStop, a: vi, b: v.epoch})
		}
	}
}

// vuStop is the hard stop of a ramped-down VU's iteration.
func (e *engine) vuStop(vi int32, epoch uint32) {
	v := &e.vus[vi]
	if v.running && v.epoch == epoch && !v.scheduled && v.stopAt == e.now {
		e.interrupt(vi)
	}
}

// scenarioEnd is the end of sc's regular duration (stop == false) or of its
// graceful stop (stop == true).
func (e *engine) scenarioEnd(sc *scenRT, stop bool) {
	if sc.finished {
		return
	}
	if !stop {
		sc.ended = true
		for _, vi := range sc.vus {
			v := &e.vus[vi]
			v.scheduled = false
			if !v.running {
				e.deactivate(vi)
			}
		}
		if sc.running == 0 {
			e.finish(sc)
			return
		}
		e.h.push(event{t: sc.stopAt, kind: evScenarioEnd, a: int32(sc.i), c: 1})
		return
	}
	for _, vi := range sc.vus {
		if e.vus[vi].running {
			e.interrupt(vi)
		}
	}
	if !sc.finished {
		e.finish(sc)
	}
}

// finish marks sc done; the run ends with its last scenario.
func (e *engine) finish(sc *scenRT) {
	if sc.finished {
		return
	}
	sc.finished = true
	e.left--
	if e.left == 0 {
		e.done = true
		e.end = e.now
	}
}
