package sim

import (
	"math/rand/v2"
	"slices"
	"strconv"
)

// engine is one simulated run.
type engine struct {
	cfg     Config // normalized
	rng     *rand.Rand
	now     int64 // ns since the run's start
	h       eventHeap
	cols    *columns
	out     *emitter // nil when only the truth is wanted
	meas    *measure
	timings bool
	abandon bool

	classes  []classRT
	byName   map[string]int16
	servers  int
	busy     int
	waiting  int
	waitq    []dentry // the FIFO queue
	wqHead   int
	limiter  *limiterRT
	reqs     []request
	freeReqs []int32

	scens    []*scenRT
	vus      []vuRT
	nextVUID int32
	ws       *wsRT

	vusMaxInit int
	unplanned  int
	active     int // the vus gauge
	left       int // scenarios not finished
	done       bool
	end        int64
	vusTags    *tagSet
}

// scenRT is a compiled scenario.
type scenRT struct {
	cfg                   *Scenario
	i                     int
	start, regEnd, stopAt int64 // ns of run time
	open                  bool
	arr                   *arrivals
	steps                 []vuStep
	step, planned         int
	flow                  []int16
	mixCls                []int16
	mixCum                []float64
	vus                   []int32
	free                  []int32
	allocated             int
	initializing          bool
	running               int
	ended, finished       bool

	iterTags, dropTags *tagSet
	reqTags            [][numOutcomes]*tagSet // per class, built on first use
	chkTags            []*tagSet
	wsTags             [2]*tagSet // custom ws metrics: host, player
}

// newEngine compiles a validated config. emit false simulates without
// producing samples (truth only).
func newEngine(c Config, emit bool) (*engine, error) {
	c, err := normalize(c)
	if err != nil {
		return nil, err
	}
	e := &engine{
		cfg:     c,
		rng:     rand.New(rand.NewPCG(c.Seed, 0x6b36_73696d)),
		cols:    newColumns(c.Output.SystemTags),
		meas:    newMeasure(),
		timings: c.Output.HTTPTimings,
		abandon: c.Server.AbandonTimedOut,
		servers: c.Server.Servers,
		byName:  map[string]int16{},
	}
	if emit {
		e.out = newEmitter(c.Start.UnixNano(), int64(c.Output.PushJitter), c.Seed^0x5eed)
	}
	e.vusTags = e.cols.newTagSet(nil, c.RunTags)
	e.compileServer()
	for i := range e.cfg.Scenarios {
		e.compileScenario(i)
	}
	if c.WS != nil {
		e.ws = newWSRT(c.WS)
	}
	e.vusMaxInit = initialVUs(e.scens)
	e.left = len(e.scens)
	e.h.push(event{t: 1e9, kind: evTick})
	return e, nil
}

func (e *engine) compileServer() {
	s := &e.cfg.Server
	for i := range s.Classes {
		k := &s.Classes[i]
		rt := classRT{cfg: k, grpc: k.Protocol == ProtoGRPC, svc: newSampler(k.ServiceTime),
			meanNS: k.ServiceTime.Mean() * 1e6, failLat: int64(k.FailLatency)}
		rt.mw.delay, rt.mw.next = int64(k.MaxWait), -1
		rt.to.delay, rt.to.next = int64(k.Timeout), -1
		rt.limitStatus = 429
		if rt.grpc {
			rt.limitStatus = 8
		}
		if s.RateLimit != nil && s.RateLimit.Status != 0 {
			rt.limitStatus = s.RateLimit.Status
		}
		e.classes = append(e.classes, rt)
		e.byName[k.Name] = int16(i)
	}
	if r := s.RateLimit; r != nil {
		e.limiter = &limiterRT{perNS: r.RatePerS / 1e9, burst: r.Burst, tokens: r.Burst}
	}
}

func (e *engine) compileScenario(i int) {
	s := &e.cfg.Scenarios[i]
	sc := &scenRT{cfg: s, i: i, start: int64(s.StartTime)}
	sc.regEnd = sc.start + regularEnd(s)
	sc.stopAt = sc.regEnd + int64(s.GracefulStop)
	rt := e.cfg.RunTags
	sc.iterTags = e.cols.newTagSet([]kv{{"scenario", s.Name}, {"group", ""}}, rt)
	sc.dropTags = e.cols.newTagSet([]kv{{"scenario", s.Name}}, rt)
	sc.reqTags = make([][numOutcomes]*tagSet, len(e.classes))
	sc.chkTags = make([]*tagSet, len(e.classes))
	switch {
	case s.WS != nil:
	case len(s.Flow) > 0:
		for _, n := range s.Flow {
			sc.flow = append(sc.flow, e.byName[n])
		}
	case len(s.Mix) > 0:
		sum := 0.0
		for _, m := range s.Mix {
			sum += m.Share
			sc.mixCls = append(sc.mixCls, e.byName[m.Class])
			sc.mixCum = append(sc.mixCum, sum)
		}
	default:
		sum := 0.0
		for j, k := range e.cfg.Server.Classes {
			if k.Share > 0 {
				sum += k.Share
				sc.mixCls = append(sc.mixCls, int16(j))
				sc.mixCum = append(sc.mixCum, sum)
			}
		}
	}
	e.scens = append(e.scens, sc)
	switch s.Executor {
	case ConstantArrivalRate, RampingArrivalRate:
		sc.open = true
		sc.arr = newArrivals(s, e.rng)
		for j := 0; j < s.PreAllocatedVUs; j++ {
			sc.free = append(sc.free, e.newVU(sc))
		}
		slices.Reverse(sc.free) // VU 1 runs first
		sc.allocated = s.PreAllocatedVUs
		if t, ok := sc.arr.next(); ok {
			e.h.push(event{t: sc.start + t, kind: evArrival, a: int32(i)})
		}
	default:
		sc.steps = vuSteps(s)
		for j := 0; j < maxPlannedVUs(sc.steps); j++ {
			e.newVU(sc)
		}
		e.h.push(event{t: sc.start + sc.steps[0].At, kind: evVUSteps, a: int32(i)})
	}
	e.h.push(event{t: sc.regEnd, kind: evScenarioEnd, a: int32(i)})
}

// initialVUs is the run's initial vus_max: k6 initialises, before the
// start, the most VUs the scenarios plan to run at once (arrival rate:
// preAllocatedVUs; VU executors: their largest stage), over each scenario's
// [startTime, end + gracefulStop).
func initialVUs(scens []*scenRT) int {
	type edge struct {
		t int64
		d int
	}
	var edges []edge
	for _, sc := range scens {
		n := sc.cfg.PreAllocatedVUs
		if !sc.open {
			n = maxPlannedVUs(sc.steps)
		}
		edges = append(edges, edge{sc.start, n}, edge{sc.stopAt, -n})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if a.t != b.t {
			if a.t < b.t {
				return -1
			}
			return 1
		}
		return a.d - b.d // ends before starts at one instant
	})
	cur, best := 0, 0
	for _, x := range edges {
		cur += x.d
		best = max(best, cur)
	}
	return best
}

// status returns the status a request of class k gets for outcome out.
func (k *classRT) status(out uint8) int {
	switch out {
	case outOK:
		if k.grpc {
			return 0
		}
		return 200
	case outFail:
		return k.cfg.FailStatus
	case outShed:
		return k.cfg.ShedStatus
	case outMaxWait:
		return k.cfg.MaxWaitStatus
	case outLimited:
		return k.limitStatus
	}
	if k.grpc {
		return 4 // DEADLINE_EXCEEDED
	}
	return 0
}

// requestTags returns the tags of class k's requests in sc with outcome
// out, as k6's HTTP transport or gRPC client sets them.
func (sc *scenRT) requestTags(e *engine, k int16, out uint8) *tagSet {
	if ts := sc.reqTags[k][out]; ts != nil {
		return ts
	}
	c := &e.classes[k]
	st := c.status(out)
	sys := []kv{{"scenario", sc.cfg.Name}, {"group", ""}, {"status", strconv.Itoa(st)}}
	if c.grpc {
		sys = append(sys, kv{"name", "/" + c.cfg.Service + "/" + c.cfg.Method},
			kv{"method", c.cfg.Method}, kv{"service", c.cfg.Service}, kv{"url", c.cfg.URL})
	} else {
		sys = append(sys, kv{"name", c.cfg.Name}, kv{"method", c.cfg.Method}, kv{"url", c.cfg.URL},
			kv{"expected_response", strconv.FormatBool(st >= 200 && st < 400)})
		switch {
		case out == outTimeout:
			sys = append(sys, kv{"error", "request timeout"}, kv{"error_code", "1050"})
		default:
			sys = append(sys, kv{"proto", "HTTP/1.1"}, kv{"ip", "127.0.0.1"})
			if st >= 400 {
				sys = append(sys, kv{"error_code", strconv.Itoa(1000 + st)})
			}
		}
	}
	ts := e.cols.newTagSet(sys, e.cfg.RunTags, c.cfg.Tags)
	sc.reqTags[k][out] = ts
	return ts
}

// checkTags returns the tags of class k's check samples in sc.
func (sc *scenRT) checkTags(e *engine, k int16) *tagSet {
	if ts := sc.chkTags[k]; ts != nil {
		return ts
	}
	ts := e.cols.newTagSet([]kv{{"check", e.classes[k].cfg.Check}, {"group", ""}, {"scenario", sc.cfg.Name}}, e.cfg.RunTags)
	sc.chkTags[k] = ts
	return ts
}

// advance runs every event before until (ns of run time) and reports
// whether the run goes on.
func (e *engine) advance(until int64) bool {
	for !e.done && e.h.len() > 0 && e.h.top().t < until {
		ev := e.h.pop()
		e.now = ev.t
		e.dispatch(ev)
	}
	if !e.done && e.h.len() == 0 {
		e.done, e.end = true, e.now
	}
	return !e.done
}

func (e *engine) dispatch(ev event) {
	switch ev.kind {
	case evArrival:
		e.arrival(e.scens[ev.a])
	case evServed:
		e.served(ev.a)
	case evRespond:
		e.answer(ev.a, e.reqs[ev.a].outcome)
	case evDeadline:
		e.deadline(ev.a)
	case evVUNext:
		if v := &e.vus[ev.a]; v.running && v.epoch == ev.b {
			e.endIteration(ev.a)
		}
	case evVUStop:
		e.vuStop(ev.a, ev.b)
	case evVUSteps:
		e.vuStep(e.scens[ev.a])
	case evScenarioEnd:
		e.scenarioEnd(e.scens[ev.a], ev.c == 1)
	case evVUReady:
		e.vuReady(e.scens[ev.a])
	case evTick:
		e.tick()
	case evWSOpen:
		e.wsOpen(ev.a, ev.b, ev.c)
	case evWSAsk:
		e.wsAsk(ev.a, ev.b)
	case evWSMsg:
		e.wsMsgDone()
	case evWSClose:
		e.wsClose(ev.a, ev.b)
	}
}

// tick emits k6's once-a-second vus and vus_max gauges.
func (e *engine) tick() {
	if o := e.out; o != nil {
		o.begin(e.now, nil)
		o.add(mVUs, e.now, float64(e.active), e.vusTags)
		o.add(mVUsMax, e.now, float64(e.vusMaxInit+e.unplanned), e.vusTags)
	}
	e.h.push(event{t: e.now + 1e9, kind: evTick})
}

// measured finishes the run's measurements.
func (e *engine) measured() Measured {
	m := e.meas.finish(e.end, e.servers)
	m.VUsMax = e.vusMaxInit + e.unplanned
	return m
}
