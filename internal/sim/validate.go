package sim

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// Validate reports every problem that keeps c from being simulated, one
// per line of the joined error, each naming the field (e.g.
// `scenarios[1] "breakpoint": maxVUs (10) can't be less than
// preAllocatedVUs (20)`). A nil error means Stream, WriteCSV, WriteJSON and
// Simulate accept c.
func (c Config) Validate() error {
	_, err := normalize(c)
	return err
}

// problems collects validation errors.
type problems struct{ errs []error }

func (p *problems) add(format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf(format, args...))
}

func (p *problems) err() error {
	if len(p.errs) == 0 {
		return nil
	}
	return fmt.Errorf("sim: invalid config:\n%w", errors.Join(p.errs...))
}

// finite reports whether x is a finite number.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// normalize returns a deep-enough copy of c with defaults filled in, or the
// validation errors.
func normalize(c Config) (Config, error) {
	var p problems
	if c.Start.IsZero() {
		c.Start = DefaultStart
	}
	if c.Source == "" {
		c.Source = "sim"
	}
	if len(c.Scenarios) == 0 {
		p.add("scenarios: at least one scenario is needed")
	}
	c.Server = normalizeServer(c.Server, &p)
	c.Scenarios = slices.Clone(c.Scenarios)
	needServer, needWS := false, false
	seen := map[string]bool{}
	for i := range c.Scenarios {
		s := &c.Scenarios[i]
		where := fmt.Sprintf("scenarios[%d] %q", i, s.Name)
		if s.Name == "" {
			p.add("scenarios[%d]: name is missing", i)
		} else if seen[s.Name] {
			p.add("%s: name is used by an earlier scenario", where)
		}
		seen[s.Name] = true
		normalizeScenario(s, where, &c, &p)
		if s.WS != nil {
			needWS = true
		} else {
			needServer = true
		}
	}
	if needServer {
		if c.Server.Servers < 1 {
			p.add("server.servers: need at least 1 server, not %d", c.Server.Servers)
		}
		if len(c.Server.Classes) == 0 {
			p.add("server.classes: at least one request class is needed")
		}
	}
	if needWS {
		if c.WS == nil {
			p.add("ws: a scenario runs WebSocket classes but the config has no ws server")
		} else if err := c.WS.PerMessage.validate(); err != nil {
			p.add("ws.perMessage: %v", err)
		}
	}
	normalizeOutput(&c.Output, &p)
	return c, p.err()
}

func normalizeServer(s Server, p *problems) Server {
	s.Classes = slices.Clone(s.Classes)
	seen := map[string]bool{}
	for i := range s.Classes {
		k := &s.Classes[i]
		where := fmt.Sprintf("server.classes[%d] %q", i, k.Name)
		if k.Name == "" {
			p.add("server.classes[%d]: name is missing", i)
		} else if seen[k.Name] {
			p.add("%s: name is used by an earlier class", where)
		}
		seen[k.Name] = true
		normalizeClass(k, where, p)
	}
	if r := s.RateLimit; r != nil {
		rl := *r
		if !(rl.RatePerS > 0) || !finite(rl.RatePerS) {
			p.add("server.rateLimit.rate must be a finite rate > 0 req/s, not %g", rl.RatePerS)
		}
		if !(rl.Burst >= 0) || !finite(rl.Burst) {
			p.add("server.rateLimit.burst must be finite and ≥ 0, not %g", rl.Burst)
		}
		if rl.Burst < 1 {
			rl.Burst = 1
		}
		s.RateLimit = &rl
	}
	return s
}

func normalizeClass(k *Class, where string, p *problems) {
	grpc := false
	switch k.Protocol {
	case "", ProtoHTTP:
		k.Protocol = ProtoHTTP
	case ProtoGRPC:
		grpc = true
	default:
		p.add("%s: unknown protocol %q (http or grpc)", where, k.Protocol)
	}
	if err := k.ServiceTime.validate(); err != nil {
		p.add("%s: serviceTime: %v", where, err)
	} else if !(k.ServiceTime.Mean() > 0) {
		p.add("%s: serviceTime: the mean must be > 0 ms", where)
	}
	if !(k.Share >= 0) || !finite(k.Share) {
		p.add("%s: share must be finite and ≥ 0, not %g", where, k.Share)
	}
	if !(k.FailFraction >= 0 && k.FailFraction <= 1) {
		p.add("%s: failFraction must be in [0, 1], not %g", where, k.FailFraction)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"failLatency", k.FailLatency}, {"maxWait", k.MaxWait}, {"timeout", k.Timeout}} {
		if d.v < 0 {
			p.add("%s: %s must be ≥ 0, not %s", where, d.name, d.v)
		}
	}
	if k.ShedWaiting < 0 {
		p.add("%s: shedWaiting must be ≥ 0, not %d", where, k.ShedWaiting)
	}
	if k.RequestBytes < 0 || k.ResponseBytes < 0 || k.ErrorBytes < 0 {
		p.add("%s: byte sizes must be ≥ 0", where)
	}
	def := func(v *int, http, g int) {
		if *v == 0 {
			*v = http
			if grpc {
				*v = g
			}
		}
	}
	def(&k.FailStatus, 500, 5)
	def(&k.ShedStatus, 503, 14)
	def(&k.MaxWaitStatus, 429, 8)
	def(&k.CheckStatus, 200, 0)
	def(&k.RequestBytes, 100, 100)
	def(&k.ResponseBytes, 200, 200)
	def(&k.ErrorBytes, 150, 150)
	if k.CheckFailStatus {
		k.CheckStatus = k.FailStatus
	}
	for _, st := range []struct {
		name string
		v    int
	}{{"failStatus", k.FailStatus}, {"shedStatus", k.ShedStatus}, {"maxWaitStatus", k.MaxWaitStatus}} {
		if grpc && (st.v < 0 || st.v > 16) {
			p.add("%s: %s %d is not a gRPC code (0–16)", where, st.name, st.v)
		}
		if !grpc && (st.v < 100 || st.v > 599) {
			p.add("%s: %s %d is not an HTTP status (100–599)", where, st.name, st.v)
		}
	}
	if k.Timeout == 0 {
		k.Timeout = 60 * time.Second
	}
	if k.FailLatency >= k.Timeout && k.FailFraction > 0 {
		p.add("%s: failLatency (%s) must be shorter than the timeout (%s)", where, k.FailLatency, k.Timeout)
	}
	if k.Method == "" {
		k.Method = "GET"
		if grpc {
			k.Method = "Check"
		}
	}
	if grpc {
		if k.Service == "" {
			k.Service = "grpc.health.v1.Health"
		}
		if k.Address == "" {
			k.Address = "127.0.0.1:18081"
		}
	}
	if k.URL == "" {
		k.URL = k.Name
		if grpc {
			k.URL = k.Address + "/" + k.Service + "/" + k.Method
		}
	}
}

func normalizeScenario(s *Scenario, where string, c *Config, p *problems) {
	if s.TimeUnit == 0 {
		s.TimeUnit = time.Second
	}
	if s.GracefulStop == 0 {
		s.GracefulStop = 30 * time.Second
	}
	if s.GracefulRampDown == 0 {
		s.GracefulRampDown = 30 * time.Second
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"startTime", s.StartTime}, {"duration", s.Duration}, {"timeUnit", s.TimeUnit},
		{"gracefulStop", s.GracefulStop}, {"gracefulRampDown", s.GracefulRampDown},
		{"think", s.Think}, {"overhead", s.Overhead}, {"vuInitTime", s.VUInitTime},
	} {
		if d.v < 0 {
			p.add("%s: %s must be ≥ 0, not %s", where, d.name, d.v)
		}
	}
	for i, st := range s.Stages {
		if st.Duration < 0 {
			p.add("%s: stages[%d].duration must be ≥ 0, not %s", where, i, st.Duration)
		}
		if !(st.Target >= 0) || !finite(st.Target) {
			p.add("%s: stages[%d].target must be finite and ≥ 0, not %g", where, i, st.Target)
		}
	}
	switch s.Executor {
	case ConstantArrivalRate:
		if !(s.Rate > 0) || !finite(s.Rate) {
			p.add("%s: rate must be > 0 iterations per timeUnit, not %g", where, s.Rate)
		}
		if s.Duration == 0 {
			p.add("%s: duration is missing (must be > 0)", where)
		}
		noStages(s, where, p)
		checkPool(s, where, p)
	case RampingArrivalRate:
		if len(s.Stages) == 0 {
			p.add("%s: ramping-arrival-rate needs at least one stage", where)
		} else if stagesDuration(s.Stages) <= 0 {
			p.add("%s: the stages last 0 s", where)
		}
		if !(s.StartRate >= 0) || !finite(s.StartRate) {
			p.add("%s: startRate must be finite and ≥ 0, not %g", where, s.StartRate)
		}
		if s.Duration != 0 {
			p.add("%s: duration is not used by ramping-arrival-rate (the stages set it)", where)
		}
		checkPool(s, where, p)
	case ConstantVUs:
		if s.VUs < 1 {
			p.add("%s: vus must be ≥ 1, not %d", where, s.VUs)
		}
		if s.Duration == 0 {
			p.add("%s: duration is missing (must be > 0)", where)
		}
		noStages(s, where, p)
	case RampingVUs:
		if len(s.Stages) == 0 {
			p.add("%s: ramping-vus needs at least one stage", where)
		} else if stagesDuration(s.Stages) <= 0 {
			p.add("%s: the stages last 0 s", where)
		}
		if s.StartVUs < 0 {
			p.add("%s: startVUs must be ≥ 0, not %d", where, s.StartVUs)
		}
		peak := s.StartVUs
		for i, st := range s.Stages {
			if st.Target != math.Trunc(st.Target) {
				p.add("%s: stages[%d].target %g is not a whole number of VUs", where, i, st.Target)
			}
			peak = max(peak, int(st.Target))
		}
		if peak < 1 && len(s.Stages) > 0 {
			p.add("%s: no stage has any VU", where)
		}
		if s.Duration != 0 {
			p.add("%s: duration is not used by ramping-vus (the stages set it)", where)
		}
	case "":
		p.add("%s: executor is missing (%s, %s, %s or %s)", where,
			ConstantArrivalRate, RampingArrivalRate, ConstantVUs, RampingVUs)
	default:
		p.add("%s: unknown executor %q (%s, %s, %s or %s)", where, s.Executor,
			ConstantArrivalRate, RampingArrivalRate, ConstantVUs, RampingVUs)
	}
	if s.WS != nil {
		normalizeWSIteration(s, where, p)
		return
	}
	checkIteration(s, where, &c.Server, p)
}

func noStages(s *Scenario, where string, p *problems) {
	if len(s.Stages) > 0 {
		p.add("%s: stages are not used by %s", where, s.Executor)
	}
}

// checkPool checks an arrival-rate executor's VU pool.
func checkPool(s *Scenario, where string, p *problems) {
	if s.PreAllocatedVUs < 0 {
		p.add("%s: preAllocatedVUs must be ≥ 0, not %d", where, s.PreAllocatedVUs)
	}
	if s.MaxVUs == 0 {
		s.MaxVUs = s.PreAllocatedVUs
	}
	if s.MaxVUs < s.PreAllocatedVUs {
		p.add("%s: maxVUs (%d) can't be less than preAllocatedVUs (%d)", where, s.MaxVUs, s.PreAllocatedVUs)
	}
	if s.MaxVUs < 1 {
		p.add("%s: needs at least one VU (preAllocatedVUs or maxVUs)", where)
	}
	if s.VUs != 0 || s.StartVUs != 0 {
		p.add("%s: vus and startVUs are not used by %s (use preAllocatedVUs and maxVUs)", where, s.Executor)
	}
}

// checkIteration checks a request scenario's Mix or Flow against the
// server's classes.
func checkIteration(s *Scenario, where string, srv *Server, p *problems) {
	known := map[string]bool{}
	for _, k := range srv.Classes {
		known[k.Name] = true
	}
	switch {
	case len(s.Flow) > 0:
		for i, n := range s.Flow {
			if !known[n] {
				p.add("%s: flow[%d] names unknown class %q", where, i, n)
			}
		}
	case len(s.Mix) > 0:
		sum := 0.0
		for i, m := range s.Mix {
			if !known[m.Class] {
				p.add("%s: mix[%d] names unknown class %q", where, i, m.Class)
			}
			if !(m.Share >= 0) || !finite(m.Share) {
				p.add("%s: mix[%d].share must be finite and ≥ 0, not %g", where, i, m.Share)
			} else {
				sum += m.Share
			}
		}
		if !(sum > 0) {
			p.add("%s: the mix's shares sum to 0", where)
		}
	default:
		sum := 0.0
		for _, k := range srv.Classes {
			if k.Share > 0 {
				sum += k.Share
			}
		}
		if !(sum > 0) && len(srv.Classes) > 0 {
			p.add("%s: has no mix or flow and the classes' shares sum to 0", where)
		}
	}
}

func normalizeWSIteration(s *Scenario, where string, p *problems) {
	w := *s.WS
	if len(s.Flow) > 0 || len(s.Mix) > 0 {
		p.add("%s: a WebSocket scenario has no flow or mix", where)
	}
	if w.URL == "" {
		w.URL = "ws://127.0.0.1:18082/ws"
	}
	if w.Players == 0 {
		w.Players = 20
	}
	if w.Questions == 0 {
		w.Questions = 10
	}
	if w.Interval == 0 {
		w.Interval = time.Second
	}
	if w.CloseAfter == 0 {
		w.CloseAfter = 1500 * time.Millisecond
	}
	if w.Connect.Kind == "" && w.Connect.MeanMS == 0 && w.Connect.MaxMS == 0 {
		w.Connect = Uniform(3, 12)
	}
	if w.Players < 1 || w.Questions < 1 {
		p.add("%s: ws needs players ≥ 1 and questions ≥ 1, not %d and %d", where, w.Players, w.Questions)
	}
	if w.Interval < 0 || w.CloseAfter < 0 {
		p.add("%s: ws interval and closeAfter must be ≥ 0", where)
	}
	if err := w.Connect.validate(); err != nil {
		p.add("%s: ws.connect: %v", where, err)
	}
	s.WS = &w
}

func normalizeOutput(o *Output, p *problems) {
	if o.SystemTags == nil {
		o.SystemTags = DefaultSystemTags
	}
	var tags []string
	for _, t := range o.SystemTags {
		switch t {
		case "vu", "iter":
			p.add("output.systemTags: %q is not supported (a per-VU metadata tag)", t)
			continue
		case "ip", "ocsp_status":
		default:
			if !slices.Contains(DefaultSystemTags, t) {
				p.add("output.systemTags: unknown system tag %q", t)
				continue
			}
		}
		if (t == "expected_response" && o.NoExpectedResponse) || (t == "status" && o.NoStatus) {
			continue
		}
		if !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	o.SystemTags = tags
	if o.Sending < 0 || o.Receiving < 0 || o.PushJitter < 0 {
		p.add("output: sending, receiving and pushJitter must be ≥ 0")
	}
}

// stagesDuration is the sum of the stages' durations.
func stagesDuration(st []Stage) time.Duration {
	var d time.Duration
	for _, s := range st {
		d += s.Duration
	}
	return d
}
