package queueing

import (
	"fmt"
	"math"
	"strconv"
)

// MMC is the steady state of an M/M/c queue: Poisson arrivals at
// ArrivalRate per second, exponential service of mean ServiceSeconds, c
// identical servers, one FIFO queue (Kleinrock 1975 ch. 3, M/M/m). M/M/1 is c = 1.
// Real service times are usually heavier-tailed than exponential, so treat
// the model's waits as a lower bound.
type MMC struct {
	// ArrivalRate λ, per second.
	ArrivalRate float64
	// ServiceSeconds S = 1/μ, the mean service time in seconds.
	ServiceSeconds float64
	// Servers c.
	Servers int
	// OfferedLoad a = λS, in Erlangs (busy servers on average).
	OfferedLoad float64
	// Utilisation ρ = a/c, a 0–1 ratio per server.
	Utilisation float64
	// PWait is the Erlang C probability that an arrival waits, 0–1.
	PWait float64
	// WaitSeconds Wq = C·S/(c(1−ρ)), the mean time in the queue.
	WaitSeconds float64
	// ResponseSeconds R = S + Wq, the mean time in the system.
	ResponseSeconds float64
	// QueueLength Lq = λ·Wq, the mean number waiting (Little's law).
	QueueLength float64
	// InSystem L = λ·R, the mean number in the system (Little's law).
	InSystem float64
}

// ErlangC returns C(c, a), the probability that an arrival to an M/M/c
// queue with c servers and offered load a Erlangs has to wait (Erlang C
// formula, Kleinrock 1975 ch. 3; methods.md §3):
//
//	C(c, a) = [aᶜ/c! · c/(c−a)] / [Σ_{k<c} aᵏ/k! + aᶜ/c! · c/(c−a)]
//
// computed without factorials through the Erlang B recursion
// B(0) = 1, B(k) = a·B(k−1)/(k + a·B(k−1)), C = c·B/(c − a(1−B)), which is
// stable for thousands of servers. c must be ≥ 1 and 0 ≤ a < c; a ≥ c
// returns an error wrapping ErrUnstable. C(3, 2) = 4/9.
func ErlangC(c int, a float64) (pWait float64, err error) {
	if c < 1 {
		return 0, errorf("servers must be ≥ 1, got %d", c)
	}
	if err := nonNegative("offered load", a); err != nil {
		return 0, err
	}
	if a >= float64(c) {
		return 0, fmt.Errorf("%w: offered load %g Erlangs with %d server(s)", ErrUnstable, a, c)
	}
	b := 1.0
	for k := 1; k <= c; k++ {
		b = a * b / (float64(k) + a*b)
	}
	return float64(c) * b / (float64(c) - a*(1-b)), nil
}

// MM1 returns the M/M/1 queue for arrivals at ratePerSecond and mean
// service time serviceSeconds (Kleinrock 1975 ch. 3, M/M/1): U = λS and
// R = S/(1−U), so R doubles S at U = 0.5 and is 10·S at U = 0.9.
// It is MMc with one server; U ≥ 1 returns an error wrapping ErrUnstable.
func MM1(ratePerSecond, serviceSeconds float64) (MMC, error) {
	return MMc(ratePerSecond, serviceSeconds, 1)
}

// MMc returns the M/M/c queue for arrivals at ratePerSecond, mean service
// time serviceSeconds and c servers (Kleinrock 1975 ch. 3, M/M/m; methods.md §3):
//
//	a = λS,  ρ = a/c,  C = ErlangC(c, a)
//	Wq = C·S/(c(1−ρ)),  R = S + Wq,  Lq = λWq,  L = λR
//
// ratePerSecond must be ≥ 0, serviceSeconds > 0, c ≥ 1; ρ ≥ 1 returns an
// error wrapping ErrUnstable.
func MMc(ratePerSecond, serviceSeconds float64, c int) (MMC, error) {
	if err := nonNegative("arrival rate", ratePerSecond); err != nil {
		return MMC{}, err
	}
	if err := positive("service time", serviceSeconds); err != nil {
		return MMC{}, err
	}
	a := ratePerSecond * serviceSeconds
	pw, err := ErlangC(c, a)
	if err != nil {
		return MMC{}, err
	}
	rho := a / float64(c)
	wq := pw * serviceSeconds / (float64(c) * (1 - rho))
	r := serviceSeconds + wq
	return MMC{
		ArrivalRate: ratePerSecond, ServiceSeconds: serviceSeconds, Servers: c,
		OfferedLoad: a, Utilisation: rho, PWait: pw,
		WaitSeconds: wq, ResponseSeconds: r,
		QueueLength: ratePerSecond * wq, InSystem: ratePerSecond * r,
	}, nil
}

// ResponseSurvival returns P(T > t), the probability that a request spends
// longer than t seconds in the system. In M/M/c the wait is 0 with
// probability 1−C and otherwise exponential with rate θ = cμ − λ, and the
// service is exponential with rate μ (Kleinrock 1975 ch. 3; Gross & Harris,
// Fundamentals of Queueing Theory, ch. 2, M/M/c), so
//
//	P(T > t) = (1−C)·e^(−μt) + C·(θe^(−μt) − μe^(−θt))/(θ − μ)
//
// with C·(1+μt)e^(−μt) in the second term when θ = μ. For c = 1 this is
// e^(−(μ−λ)t). t < 0 gives 1.
func (m MMC) ResponseSurvival(t float64) float64 {
	if t <= 0 {
		return 1
	}
	mu := 1 / m.ServiceSeconds
	theta := float64(m.Servers)*mu - m.ArrivalRate
	var conv float64
	if d := theta - mu; math.Abs(d) < 1e-9*mu {
		conv = (1 + mu*t) * math.Exp(-mu*t)
	} else {
		conv = (theta*math.Exp(-mu*t) - mu*math.Exp(-theta*t)) / d
	}
	s := (1-m.PWait)*math.Exp(-mu*t) + m.PWait*conv
	return math.Min(1, math.Max(0, s))
}

// ResponseQuantile returns the p-quantile (0 < p < 1; 0.95 for p95) of the
// time in the system, in seconds: the t with P(T > t) = 1−p, found by
// bisection on ResponseSurvival to a relative precision of 1e-12. For M/M/1
// it equals R·ln(1/(1−p)), e.g. p95 = 3.00·R.
func (m MMC) ResponseQuantile(p float64) (seconds float64, err error) {
	if !(p > 0 && p < 1) {
		return 0, errorf("quantile must be in (0, 1), got %g", p)
	}
	if m.Servers < 1 || !(m.ServiceSeconds > 0) {
		return 0, errorf("ResponseQuantile needs a queue returned by MMc")
	}
	target := 1 - p
	lo, hi := 0.0, m.ResponseSeconds
	for m.ResponseSurvival(hi) > target {
		lo, hi = hi, 2*hi
	}
	for i := 0; i < 200 && hi-lo > 1e-12*hi; i++ {
		mid := (lo + hi) / 2
		if m.ResponseSurvival(mid) > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2, nil
}

// Curve returns the M/M/c queue at each arrival rate (per second) for one
// service time and server count: the predicted response-time curve. Rates at
// or beyond capacity c/S are left out; stable holds the rates kept, in the
// order given. An invalid service time or server count is an error.
func Curve(ratesPerSecond []float64, serviceSeconds float64, c int) (stable []MMC, err error) {
	if err := positive("service time", serviceSeconds); err != nil {
		return nil, err
	}
	if c < 1 {
		return nil, errorf("servers must be ≥ 1, got %d", c)
	}
	for _, r := range ratesPerSecond {
		q, err := MMc(r, serviceSeconds, c)
		if err != nil {
			continue
		}
		stable = append(stable, q)
	}
	return stable, nil
}

// ServersFor returns the smallest M/M/c queue, by server count, whose
// response time meets targetSeconds: the mean when quantile is 0, otherwise
// the quantile-th percentile (0.95 for p95). It searches c from the least
// stable count ⌊λS⌋+1 upward, to at most ⌊λS⌋+100000 servers. A target at or
// below the service time can never be met and is an error.
func ServersFor(ratePerSecond, serviceSeconds, targetSeconds, quantile float64) (MMC, error) {
	if err := positive("arrival rate", ratePerSecond); err != nil {
		return MMC{}, err
	}
	if err := positive("service time", serviceSeconds); err != nil {
		return MMC{}, err
	}
	if err := positive("target", targetSeconds); err != nil {
		return MMC{}, err
	}
	if quantile < 0 || quantile >= 1 {
		return MMC{}, errorf("quantile must be 0 (mean) or in (0, 1), got %g", quantile)
	}
	// With infinitely many servers nobody waits: R = S, and the quantile of
	// an exponential service is S·ln(1/(1−p)). A target at or below that
	// floor is unreachable.
	floor := serviceSeconds
	if quantile > 0 {
		floor = serviceSeconds * math.Log(1/(1-quantile))
	}
	if targetSeconds <= floor {
		what := "the service time alone exceeds it"
		if quantile > 0 {
			what = fmt.Sprintf("the p%s of an exponential service time of %.4g s alone (S·ln(1/(1−p)), nobody waiting) exceeds it", strconv.FormatFloat(100*quantile, 'f', -1, 64), serviceSeconds)
		}
		return MMC{}, errorf("target %.4g s is at or below what any number of servers gives (%.4g s): %s", targetSeconds, floor, what)
	}
	a := ratePerSecond * serviceSeconds
	start := int(math.Floor(a)) + 1
	for c := start; c < start+100000; c++ {
		q, err := MMc(ratePerSecond, serviceSeconds, c)
		if err != nil {
			continue
		}
		got := q.ResponseSeconds
		if quantile > 0 {
			if got, err = q.ResponseQuantile(quantile); err != nil {
				return MMC{}, err
			}
		}
		if got <= targetSeconds {
			return q, nil
		}
	}
	return MMC{}, errorf("no server count up to %d meets the target %g s", start+100000, targetSeconds)
}
