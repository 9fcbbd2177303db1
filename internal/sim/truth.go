package sim

import (
	"math"
	"slices"
	"time"
)

// Limits that can bound a run first (Truth.Limit).
const (
	LimitServer      = "server"       // the server's utilisation reached 1
	LimitRateLimiter = "rate-limiter" // the offered request rate reached the limiter's rate
	LimitGenerator   = "generator"    // a scenario's schedule outran what MaxVUs can run
	LimitWSLock      = "ws-lock"      // the WebSocket lock's utilisation reached 1
)

// Truth is what is true of a simulated run by construction: the figures a
// knee or ceiling analysis should find, each defined from the Config
// alone, and what the simulation measured (Measured).
//
// Notation. c = Server.Servers. For class k: E[S_k] its mean service time,
// f_k its FailFraction. For scenario s: n_{s,k} the mean number of requests
// of class k per iteration (Flow counts, or the Mix shares normalised to one
// request), n_s = Σ_k n_{s,k}, and
//
//	W_s = Σ_k n_{s,k}·(1−f_k)·E[S_k]      slot time one iteration costs (ms)
//	D_s = Σ_k n_{s,k}·((1−f_k)·E[S_k] + f_k·max(FailLatency_k, 0.1 ms))
//	      + Overhead + Think              iteration time with no queueing (ms)
//
// The offered iteration rate λ_s(t) is the schedule for arrival-rate
// executors (iterations/s, linear within stages as k6 ramps) and N_s(t)/D_s
// for VU executors (N_s(t) the VUs k6's plan runs: the interactive
// response-time law's throughput bound without queueing). The server's
// utilisation is then ρ(t) = Σ_s λ_s(t)·W_s / (1000·c): failed requests and
// refusals take no slot time.
type Truth struct {
	// Servers is c.
	Servers int
	// MeanServiceMS is E[S], the mean service time (ms) of the requests the
	// server serves, weighted by the served mix Σ_s λ_s·n_{s,k}·(1−f_k) at
	// RhoOneAt (or at the peak of ρ when ρ never reaches 1).
	MeanServiceMS float64
	// CapacityPerS is C = 1000·c / E[S]: the successful responses per
	// second the server completes when saturated by that mix. Shedding and
	// MaxWait rejections shift the served mix under overload, so goodput
	// may drift somewhat above C (the corpus shows it); C is the figure at
	// the knee.
	CapacityPerS float64
	// RhoOneAt is the first time ρ(t) ≥ 1, −1 if never; RhoOneOfferedPerS
	// and RhoOneIterationsPerS are the offered requests/s (Σ_s λ_s·n_s) and
	// iterations/s (Σ_s λ_s) then: the true knee of the server.
	RhoOneAt             time.Duration
	RhoOneOfferedPerS    float64
	RhoOneIterationsPerS float64
	// RateLimitPerS is Server.RateLimit's rate (req/s; 0 without a
	// limiter) and RateLimitAt the first time the offered request rate
	// reaches it (−1 never): from then refusals rise while latency has not.
	RateLimitPerS float64
	RateLimitAt   time.Duration
	// GeneratorLimitAt is the first time an arrival-rate scenario's
	// schedule λ_s(t) exceeds its MaxIterationsPerS (−1 never); from then
	// it drops iterations even if the server keeps up.
	// GeneratorLimitScenario names it and GeneratorLimitIterationsPerS is
	// that scenario's MaxIterationsPerS.
	GeneratorLimitAt             time.Duration
	GeneratorLimitScenario       string
	GeneratorLimitIterationsPerS float64
	// Limit is what binds first (LimitServer, LimitRateLimiter,
	// LimitGenerator, LimitWSLock; "" if nothing does): the earliest of
	// RhoOneAt, RateLimitAt, GeneratorLimitAt and WS.RhoOneAt. KneeAt is
	// then, and KneeOfferedPerS and KneeIterationsPerS the offered requests/s
	// and iterations/s then (0 for a WebSocket run).
	Limit              string
	KneeAt             time.Duration
	KneeOfferedPerS    float64
	KneeIterationsPerS float64
	// GeneratorLimited is Limit == LimitGenerator: the run measured its
	// generator, not the server.
	GeneratorLimited bool
	// CeilingPerS is the most successful responses per second the run can
	// get: C, or R·(1−f̄) when the rate limiter binds lower (R its rate, f̄
	// the load-independent error fraction of the mix).
	CeilingPerS float64
	// LoadIndependentErrorFraction is f̄ = Σ_k p_k·f_k over the offered
	// request mix p at the knee (or at the peak of ρ): the error rate at
	// every load.
	LoadIndependentErrorFraction float64
	// Scenarios are the per-scenario figures, in Config order.
	Scenarios []ScenarioTruth
	// WS is the WebSocket server's truth; nil without one.
	WS *WSTruth
	// Measured is what the simulation measured; complete once the run is
	// over (Stream's end, WriteCSV, WriteJSON, Simulate).
	Measured Measured
}

// ScenarioTruth is one scenario's figures, as if it ran alone (see Truth
// for the notation).
type ScenarioTruth struct {
	// Name and Executor are the scenario's.
	Name, Executor string
	// Open is true for arrival-rate executors.
	Open bool
	// Start and End bound its regular duration (run time).
	Start, End time.Duration
	// RequestsPerIteration is n_s (0 for WebSocket scenarios).
	RequestsPerIteration float64
	// WorkPerIterationMS is W_s and ZeroLoadIterationMS is D_s (ms).
	WorkPerIterationMS  float64
	ZeroLoadIterationMS float64
	// MeanServiceMS is its served requests' E[S] (ms) and CapacityPerS =
	// 1000·c/E[S] its successful responses/s at saturation.
	MeanServiceMS float64
	CapacityPerS  float64
	// RhoOneIterationsPerS is 1000·c/W_s, the iteration rate at which it
	// alone saturates the server, and RhoOneOfferedPerS that times n_s.
	RhoOneIterationsPerS float64
	RhoOneOfferedPerS    float64
	// KneeVUs is a VU executor's N* = c·D_s/W_s, the VUs at which it alone
	// saturates the server (0 for arrival rate): N/D_s = 1000·c/W_s.
	KneeVUs float64
	// MaxIterationsPerS is an arrival-rate executor's generator bound,
	// 1000·MaxVUs/D_s: iterations/s its VUs can run with no queueing.
	MaxIterationsPerS float64
	// PeakIterationsPerS is its schedule's highest rate (arrival rate) or
	// its peak VUs / D_s (VU executors).
	PeakIterationsPerS float64
}

// WSTruth is the WebSocket fan-out server's truth.
type WSTruth struct {
	// PerMessageMS is E[PerMessage], the lock hold per player message (ms).
	PerMessageMS float64
	// CapacityMsgsPerS is 1000 / PerMessageMS player messages per second.
	CapacityMsgsPerS float64
	// MsgsPerSPerClass is what one VU looping classes offers on average
	// (msgs/s): Players·Questions messages per class of E[host connect] +
	// Questions·Interval + CloseAfter (a renewal-reward average; within a
	// class the host asks every Interval, Players/Interval msgs/s).
	MsgsPerSPerClass float64
	// KneeClasses is CapacityMsgsPerS / MsgsPerSPerClass: the number of
	// VUs (classes at once) at which the lock's utilisation reaches 1.
	KneeClasses float64
	// RhoOneAt is the first time the offered messages/s reach
	// CapacityMsgsPerS (−1 never): planned VUs × MsgsPerSPerClass for VU
	// executors, rate × Players·Questions for arrival rate.
	RhoOneAt time.Duration
}

// scenarioLoad is what truth needs of a compiled scenario.
type scenarioLoad struct {
	sc    *scenRT
	t     ScenarioTruth
	segs  []rateSeg
	steps []vuStep
	perK  []float64 // n_{s,k}
	ws    bool
}

// computeTruth derives the config-only part of the truth.
func (e *engine) computeTruth() Truth {
	c := float64(e.servers)
	tr := Truth{Servers: e.servers, RhoOneAt: -1, RateLimitAt: -1, GeneratorLimitAt: -1, KneeAt: -1}
	var loads []*scenarioLoad
	var bps []int64
	for _, sc := range e.scens {
		l := e.scenarioLoad(sc)
		loads = append(loads, l)
		tr.Scenarios = append(tr.Scenarios, l.t)
		bps = append(bps, sc.start, sc.regEnd)
		for _, g := range l.segs {
			bps = append(bps, sc.start+g.start, sc.start+g.start+g.dur)
		}
		for _, st := range l.steps {
			bps = append(bps, sc.start+st.At)
		}
	}
	slices.Sort(bps)
	bps = slices.Compact(bps)

	// λ_s(t) in iterations per second.
	lam := func(l *scenarioLoad, t int64) float64 {
		sc := l.sc
		if t < sc.start || t >= sc.regEnd {
			return 0
		}
		if l.sc.open {
			return rateAt(l.segs, t-sc.start) * 1e9
		}
		if l.t.ZeroLoadIterationMS <= 0 {
			return 0
		}
		return float64(plannedVUsAt(l.steps, t-sc.start)) / (l.t.ZeroLoadIterationMS / 1000)
	}
	rho := func(t int64) float64 {
		if c == 0 {
			return 0
		}
		r := 0.0
		for _, l := range loads {
			if !l.ws {
				r += lam(l, t) * l.t.WorkPerIterationMS / 1000 / c
			}
		}
		return r
	}
	reqRate := func(t int64) float64 {
		r := 0.0
		for _, l := range loads {
			if !l.ws {
				r += lam(l, t) * l.t.RequestsPerIteration
			}
		}
		return r
	}
	itRate := func(t int64) float64 {
		r := 0.0
		for _, l := range loads {
			if !l.ws {
				r += lam(l, t)
			}
		}
		return r
	}

	if t, ok := firstCross(rho, bps, 1); ok {
		tr.RhoOneAt = time.Duration(t)
		tr.RhoOneOfferedPerS, tr.RhoOneIterationsPerS = reqRate(t), itRate(t)
	}
	mixAt := int64(tr.RhoOneAt)
	if mixAt < 0 {
		mixAt = argmax(rho, bps)
	}
	tr.MeanServiceMS, tr.LoadIndependentErrorFraction = e.mixAt(loads, lam, mixAt)
	if tr.MeanServiceMS > 0 {
		tr.CapacityPerS = 1000 * c / tr.MeanServiceMS
	}
	tr.CeilingPerS = tr.CapacityPerS
	if r := e.cfg.Server.RateLimit; r != nil {
		tr.RateLimitPerS = r.RatePerS
		if t, ok := firstCross(reqRate, bps, r.RatePerS); ok {
			tr.RateLimitAt = time.Duration(t)
		}
		if lim := r.RatePerS * (1 - tr.LoadIndependentErrorFraction); lim < tr.CeilingPerS || tr.CeilingPerS == 0 {
			tr.CeilingPerS = lim
		}
	}
	for _, l := range loads {
		if !l.sc.open || l.t.MaxIterationsPerS <= 0 {
			continue
		}
		f := func(t int64) float64 { return lam(l, t) }
		if t, ok := firstCrossAbove(f, bps, l.t.MaxIterationsPerS); ok && (tr.GeneratorLimitAt < 0 || time.Duration(t) < tr.GeneratorLimitAt) {
			tr.GeneratorLimitAt = time.Duration(t)
			tr.GeneratorLimitScenario = l.t.Name
			tr.GeneratorLimitIterationsPerS = l.t.MaxIterationsPerS
		}
	}
	if e.ws != nil {
		tr.WS = e.wsTruth(loads, bps)
	}
	pick := func(at time.Duration, name string) {
		if at >= 0 && (tr.KneeAt < 0 || at < tr.KneeAt) {
			tr.KneeAt, tr.Limit = at, name
		}
	}
	pick(tr.RhoOneAt, LimitServer)
	pick(tr.RateLimitAt, LimitRateLimiter)
	pick(tr.GeneratorLimitAt, LimitGenerator)
	if tr.WS != nil {
		pick(tr.WS.RhoOneAt, LimitWSLock)
	}
	if tr.KneeAt >= 0 && tr.Limit != LimitWSLock {
		tr.KneeOfferedPerS, tr.KneeIterationsPerS = reqRate(int64(tr.KneeAt)), itRate(int64(tr.KneeAt))
	}
	tr.GeneratorLimited = tr.Limit == LimitGenerator
	return tr
}

// scenarioLoad computes a scenario's figures.
func (e *engine) scenarioLoad(sc *scenRT) *scenarioLoad {
	s := sc.cfg
	c := float64(e.servers)
	l := &scenarioLoad{sc: sc, ws: s.WS != nil, perK: make([]float64, len(e.classes))}
	l.t = ScenarioTruth{Name: s.Name, Executor: s.Executor, Open: sc.open,
		Start: time.Duration(sc.start), End: time.Duration(sc.regEnd)}
	if sc.open {
		l.segs = rateSegments(s)
	} else {
		l.steps = sc.steps
	}
	if l.ws {
		return l
	}
	switch {
	case sc.flow != nil:
		for _, k := range sc.flow {
			l.perK[k]++
		}
	default:
		prev := 0.0
		total := sc.mixCum[len(sc.mixCum)-1]
		for i, k := range sc.mixCls {
			l.perK[k] += (sc.mixCum[i] - prev) / total
			prev = sc.mixCum[i]
		}
	}
	served := 0.0
	for k, n := range l.perK {
		cl := &e.classes[k]
		f := cl.cfg.FailFraction
		mean := cl.meanNS / 1e6
		l.t.RequestsPerIteration += n
		l.t.WorkPerIterationMS += n * (1 - f) * mean
		l.t.ZeroLoadIterationMS += n * ((1-f)*mean + f*float64(max(cl.failLat, fastFloor))/1e6)
		served += n * (1 - f)
	}
	l.t.ZeroLoadIterationMS += float64(s.Overhead+s.Think) / 1e6
	if served > 0 {
		l.t.MeanServiceMS = l.t.WorkPerIterationMS / served
		l.t.CapacityPerS = 1000 * c / l.t.MeanServiceMS
	}
	if l.t.WorkPerIterationMS > 0 {
		l.t.RhoOneIterationsPerS = 1000 * c / l.t.WorkPerIterationMS
		l.t.RhoOneOfferedPerS = l.t.RhoOneIterationsPerS * l.t.RequestsPerIteration
	}
	if sc.open {
		if l.t.ZeroLoadIterationMS > 0 {
			l.t.MaxIterationsPerS = 1000 * float64(s.MaxVUs) / l.t.ZeroLoadIterationMS
		}
		for _, g := range l.segs {
			l.t.PeakIterationsPerS = max(l.t.PeakIterationsPerS, g.from*1e9, g.to*1e9)
		}
	} else {
		if l.t.WorkPerIterationMS > 0 {
			l.t.KneeVUs = c * l.t.ZeroLoadIterationMS / l.t.WorkPerIterationMS
		}
		if l.t.ZeroLoadIterationMS > 0 {
			l.t.PeakIterationsPerS = float64(maxPlannedVUs(l.steps)) / (l.t.ZeroLoadIterationMS / 1000)
		}
	}
	return l
}

// mixAt returns E[S] (ms) of the served mix and f̄ of the offered mix at
// time t.
func (e *engine) mixAt(loads []*scenarioLoad, lam func(*scenarioLoad, int64) float64, t int64) (meanMS, failFrac float64) {
	var work, served, offered, failed float64
	for _, l := range loads {
		if l.ws {
			continue
		}
		r := lam(l, t)
		for k, n := range l.perK {
			cl := &e.classes[k]
			f := cl.cfg.FailFraction
			work += r * n * (1 - f) * cl.meanNS / 1e6
			served += r * n * (1 - f)
			offered += r * n
			failed += r * n * f
		}
	}
	if served > 0 {
		meanMS = work / served
	}
	if offered > 0 {
		failFrac = failed / offered
	}
	return meanMS, failFrac
}

// wsTruth computes the WebSocket truth.
func (e *engine) wsTruth(loads []*scenarioLoad, bps []int64) *WSTruth {
	w := &WSTruth{PerMessageMS: e.cfg.WS.PerMessage.Mean(), RhoOneAt: -1}
	if w.PerMessageMS > 0 {
		w.CapacityMsgsPerS = 1000 / w.PerMessageMS
	}
	// A VU looping classes sends Players·Questions messages per class,
	// which lasts the host's connect + Questions·Interval + CloseAfter.
	classLen := func(l *scenarioLoad) float64 {
		ws := l.sc.cfg.WS
		return ws.Connect.Mean()/1000 + (time.Duration(ws.Questions)*ws.Interval + ws.CloseAfter).Seconds()
	}
	msgs := func(l *scenarioLoad) float64 {
		ws := l.sc.cfg.WS
		return float64(ws.Players * ws.Questions)
	}
	for _, l := range loads {
		if l.ws {
			w.MsgsPerSPerClass = msgs(l) / classLen(l)
			break
		}
	}
	if w.MsgsPerSPerClass > 0 {
		w.KneeClasses = w.CapacityMsgsPerS / w.MsgsPerSPerClass
	}
	rho := func(t int64) float64 {
		r := 0.0
		for _, l := range loads {
			if !l.ws || t < l.sc.start || t >= l.sc.regEnd {
				continue
			}
			perS := 0.0
			if l.sc.open {
				perS = rateAt(l.segs, t-l.sc.start) * 1e9 * msgs(l)
			} else {
				perS = float64(plannedVUsAt(l.steps, t-l.sc.start)) * msgs(l) / classLen(l)
			}
			r += perS * w.PerMessageMS / 1000
		}
		return r
	}
	if t, ok := firstCross(rho, bps, 1); ok {
		w.RhoOneAt = time.Duration(t)
	}
	return w
}

// firstCross returns the first time f(t) ≥ level, f being linear between
// consecutive breakpoints (right-continuous at them), and whether there is
// one.
func firstCross(f func(int64) float64, bps []int64, level float64) (int64, bool) {
	return cross(f, bps, level, false)
}

// firstCrossAbove is firstCross for f(t) > level.
func firstCrossAbove(f func(int64) float64, bps []int64, level float64) (int64, bool) {
	return cross(f, bps, level, true)
}

func cross(f func(int64) float64, bps []int64, level float64, strict bool) (int64, bool) {
	hit := func(v float64) bool {
		if strict {
			return v > level*(1+1e-12)
		}
		return v >= level*(1-1e-12)
	}
	for i := 0; i+1 < len(bps); i++ {
		a, b := bps[i], bps[i+1]-1
		if b < a {
			continue
		}
		fa, fb := f(a), f(b)
		if hit(fa) {
			return a, true
		}
		if hit(fb) {
			t := a + int64(math.Ceil((level-fa)/(fb-fa)*float64(b-a)))
			for t > a && hit(f(t-1)) {
				t--
			}
			for t < b && !hit(f(t)) {
				t++
			}
			return t, true
		}
	}
	return 0, false
}

// argmax returns the breakpoint-interval end where f is highest.
func argmax(f func(int64) float64, bps []int64) int64 {
	best, at := math.Inf(-1), int64(0)
	for i := 0; i+1 < len(bps); i++ {
		for _, t := range []int64{bps[i], bps[i+1] - 1} {
			if v := f(t); v > best {
				best, at = v, t
			}
		}
	}
	return at
}
