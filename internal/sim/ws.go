package sim

import (
	"strconv"
)

// Bytes of the WebSocket exchange, for data_sent and data_received: an
// upgrade request and its 101 response, a host's ask, a question frame, a
// close frame.
const (
	wsUpgradeBytes  = 180
	wsResponseBytes = 129
	wsAskBytes      = 64
	wsQuestionBytes = 92
	wsCloseBytes    = 6
)

// wsRT is the WebSocket server: one lock, a FIFO of broadcasts waiting for
// it. A broadcast writes one player message per turn and then queues again,
// so broadcasts in progress take turns (recsrv's goroutine per ask, each
// locking the global mutex per player message).
type wsRT struct {
	svc    sampler
	busy   bool
	cur    int32
	q      []int32
	qHead  int
	bcasts []broadcast
	free   []int32
}

// broadcast is one ask being written to its game's players.
type broadcast struct {
	cls   *wsClass
	vu    int32
	epoch uint32
	ask   int64 // ns of run time
	order []int16
	next  int
}

// wsClass is the state of one WebSocket iteration (a class: players and a
// host on their own connections).
type wsClass struct {
	open  bool
	conns []wsConn // players 0…n−1, then the host
	asked int
}

// wsConn is one connection of a class.
type wsConn struct {
	ts      *tagSet
	connect int64 // ns to open
	openAt  int64 // ns of run time, −1 until open
}

func newWSRT(c *WSServer) *wsRT { return &wsRT{svc: newSampler(c.PerMessage)} }

// wsStart starts VU vi's class: every connection dials at once.
func (e *engine) wsStart(vi int32) {
	v := &e.vus[vi]
	sc := e.scens[v.scen]
	w := sc.cfg.WS
	game := "g" + strconv.Itoa(int(v.id)) + "-" + strconv.FormatInt(v.iters, 10)
	cls := &wsClass{open: true, conns: make([]wsConn, w.Players+1)}
	v.ws = cls
	cs := newSampler(w.Connect)
	for j := range cls.conns {
		c := &cls.conns[j]
		role, url := "player", w.URL+"?game="+game+"&role=player&id="+strconv.Itoa(j)
		if j == w.Players {
			role, url = "host", w.URL+"?game="+game+"&role=host"
		}
		if e.out != nil {
			c.ts = e.cols.newTagSet([]kv{{"name", url}, {"url", url}, {"status", "101"},
				{"scenario", sc.cfg.Name}, {"group", ""}}, e.cfg.RunTags, map[string]string{"role": role})
		}
		c.connect = cs.draw(e.rng)
		c.openAt = -1
		v.sent += wsUpgradeBytes
		e.h.push(event{t: e.now + c.connect, kind: evWSOpen, a: vi, b: v.epoch, c: int32(j)})
	}
}

// wsLive returns VU vi's class if the event (epoch) still belongs to it.
func (e *engine) wsLive(vi int32, epoch uint32) *wsClass {
	v := &e.vus[vi]
	if !v.running || v.epoch != epoch || v.ws == nil || !v.ws.open {
		return nil
	}
	return v.ws
}

// wsOpen is connection j of VU vi's class opening.
func (e *engine) wsOpen(vi int32, epoch uint32, j int32) {
	cls := e.wsLive(vi, epoch)
	if cls == nil {
		return
	}
	v := &e.vus[vi]
	c := &cls.conns[j]
	c.openAt = e.now
	v.recv += wsResponseBytes
	if o := e.out; o != nil {
		o.begin(e.now, &v.pushed)
		o.add(mWSSessions, e.now, 1, c.ts)
		o.add(mWSConnecting, e.now, float64(c.connect)/1e6, c.ts)
	}
	if int(j) == len(cls.conns)-1 {
		w := e.scens[v.scen].cfg.WS
		e.h.push(event{t: e.now + int64(w.Interval), kind: evWSAsk, a: vi, b: epoch})
	}
}

// wsAsk is the host of VU vi's class asking a question: the server
// broadcasts it to the players connected now.
func (e *engine) wsAsk(vi int32, epoch uint32) {
	cls := e.wsLive(vi, epoch)
	if cls == nil {
		return
	}
	v := &e.vus[vi]
	sc := e.scens[v.scen]
	w := sc.cfg.WS
	cls.asked++
	v.sent += wsAskBytes
	if o := e.out; o != nil {
		o.begin(e.now, &v.pushed)
		o.add(mQuestionsAsked, e.now, 1, e.wsCustomTags(sc, 0))
		o.add(mWSMsgsSent, e.now, 1, cls.conns[len(cls.conns)-1].ts)
	}
	var order []int16
	for j := 0; j < w.Players; j++ {
		if cls.conns[j].openAt >= 0 {
			order = append(order, int16(j))
		}
	}
	e.rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
	if len(order) > 0 {
		e.wsEnqueue(broadcast{cls: cls, vu: vi, epoch: epoch, ask: e.now, order: order})
	}
	if cls.asked < w.Questions {
		e.h.push(event{t: e.now + int64(w.Interval), kind: evWSAsk, a: vi, b: epoch})
	} else {
		e.h.push(event{t: e.now + int64(w.CloseAfter), kind: evWSClose, a: vi, b: epoch})
	}
}

// wsCustomTags returns the tags of the script's custom metrics for role 0
// (host) or 1 (player).
func (e *engine) wsCustomTags(sc *scenRT, role int) *tagSet {
	if ts := sc.wsTags[role]; ts != nil {
		return ts
	}
	name := "host"
	if role == 1 {
		name = "player"
	}
	ts := e.cols.newTagSet([]kv{{"scenario", sc.cfg.Name}, {"group", ""}}, e.cfg.RunTags, map[string]string{"role": name})
	sc.wsTags[role] = ts
	return ts
}

func (e *engine) wsEnqueue(b broadcast) {
	ws := e.ws
	var id int32
	if n := len(ws.free); n > 0 {
		id = ws.free[n-1]
		ws.free = ws.free[:n-1]
		ws.bcasts[id] = b
	} else {
		ws.bcasts = append(ws.bcasts, b)
		id = int32(len(ws.bcasts) - 1)
	}
	ws.q = append(ws.q, id)
	if !ws.busy {
		e.wsNext()
	}
}

// wsNext gives the lock to the broadcast at the head of the queue.
func (e *engine) wsNext() {
	ws := e.ws
	e.meas.advance(e.now)
	if ws.qHead == len(ws.q) {
		ws.busy = false
		e.meas.lock = 0
		ws.q, ws.qHead = ws.q[:0], 0
		return
	}
	ws.cur = ws.q[ws.qHead]
	ws.qHead++
	if ws.qHead > 1024 && ws.qHead*2 > len(ws.q) {
		n := copy(ws.q, ws.q[ws.qHead:])
		ws.q, ws.qHead = ws.q[:n], 0
	}
	ws.busy = true
	e.meas.lock = 1
	e.h.push(event{t: e.now + ws.svc.draw(e.rng), kind: evWSMsg})
}

// wsMsgDone is the lock finishing a player message: the player gets it if
// its class is still open.
func (e *engine) wsMsgDone() {
	ws := e.ws
	b := &ws.bcasts[ws.cur]
	p := b.order[b.next]
	b.next++
	e.meas.m.WSWritten++
	e.meas.sec(e.now).WSWritten++
	if cls := e.wsLive(b.vu, b.epoch); cls != nil && cls == b.cls {
		e.meas.m.WSDelivered++
		v := &e.vus[b.vu]
		v.recv += wsQuestionBytes
		if o := e.out; o != nil {
			sc := e.scens[v.scen]
			epoch := o.epoch
			fan := float64((epoch+e.now)/1e6 - (epoch+b.ask)/1e6) // Date.now() differences
			o.begin(e.now, &v.pushed)
			o.add(mWSMsgsReceived, e.now, 1, cls.conns[p].ts)
			o.add(mFanout, e.now, fan, e.wsCustomTags(sc, 1))
			o.add(mQuestionsReceived, e.now, 1, e.wsCustomTags(sc, 1))
		}
	} else {
		e.meas.m.WSLost++
	}
	if b.next < len(b.order) {
		ws.q = append(ws.q, ws.cur)
	} else {
		ws.bcasts[ws.cur] = broadcast{}
		ws.free = append(ws.free, ws.cur)
	}
	e.wsNext()
}

// wsClose closes every connection of VU vi's class and ends the iteration.
func (e *engine) wsClose(vi int32, epoch uint32) {
	cls := e.wsLive(vi, epoch)
	if cls == nil {
		return
	}
	v := &e.vus[vi]
	if o := e.out; o != nil {
		o.begin(e.now, &v.pushed)
		for j := range cls.conns {
			if cls.conns[j].openAt >= 0 {
				o.add(mWSMsgsSent, e.now, 1, cls.conns[j].ts)
			}
		}
		for j := range cls.conns {
			if cls.conns[j].openAt >= 0 {
				o.add(mWSSessionDuration, e.now, float64(e.now-v.iterStart)/1e6, cls.conns[j].ts)
			}
		}
	}
	for j := range cls.conns {
		if cls.conns[j].openAt >= 0 {
			v.sent += wsCloseBytes
			v.recv += wsCloseBytes
		}
	}
	cls.open = false
	e.endIteration(vi)
}
