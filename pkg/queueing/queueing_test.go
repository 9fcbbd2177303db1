package queueing

import (
	"errors"
	"math"
	"testing"
)

// Issue 7: 600 req/s × 2.8 s = 1680 in flight (Little's law, exact in
// decimal; float64 tolerance 1e-9).
func TestLittle(t *testing.T) {
	l, err := InFlight(600, 2.8)
	if err != nil || math.Abs(l-1680) > 1e-9 {
		t.Errorf("InFlight(600, 2.8) = %v, %v; want 1680", l, err)
	}
	r, err := Rate(1680, 2.8)
	if err != nil || math.Abs(r-600) > 1e-9 {
		t.Errorf("Rate(1680, 2.8) = %v, %v; want 600", r, err)
	}
	w, err := Latency(1680, 600)
	if err != nil || math.Abs(w-2.8) > 1e-12 {
		t.Errorf("Latency(1680, 600) = %v, %v; want 2.8", w, err)
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{second(InFlight(-1, 1)), "queueing: rate must be finite and ≥ 0, got -1"},
		{second(Rate(1, 0)), "queueing: latency must be finite and > 0, got 0"},
		{second(Latency(1, math.NaN())), "queueing: rate must be finite and > 0, got NaN"},
	} {
		if c.err == nil || c.err.Error() != c.want {
			t.Errorf("error %v, want %q", c.err, c.want)
		}
	}
}

func second(_ float64, err error) error { return err }

// Issue 7: an open-model test at 600 iterations/s of 2.8 s needs ≈ 1680
// VUs; maxVUs 1500 is short by 1 − 1500/1680 = 10.7 % (hand calculation).
func TestCheckVUs(t *testing.T) {
	c, err := CheckVUs(600, 2.8, 1500)
	if err != nil {
		t.Fatal(err)
	}
	if c.Sufficient || math.Abs(c.Required-1680) > 1e-9 || math.Abs(c.Headroom-(1500.0/1680-1)) > 1e-12 {
		t.Errorf("CheckVUs = %+v", c)
	}
	c, _ = CheckVUs(600, 2.8, 2000)
	if !c.Sufficient {
		t.Errorf("2000 VUs for 1680 needed: %+v", c)
	}
	if _, err := CheckVUs(600, 2.8, 0); err == nil {
		t.Error("maxVUs 0: no error")
	}
}

// Operational laws by hand: U = 200/s × 4 ms = 0.8; S = 0.8/200 = 4 ms;
// R = 100 users / 40 per s − 1 s = 1.5 s; N* = (0.5 + 2)/0.1 = 25.
func TestLaws(t *testing.T) {
	u, _ := Utilisation(200, 0.004)
	s, _ := ServiceTime(0.8, 200)
	r, _ := InteractiveResponseTime(100, 40, 1)
	n, _ := SaturationUsers(0.5, 2, 0.1)
	for _, c := range []struct {
		what      string
		got, want float64
	}{{"U", u, 0.8}, {"S", s, 0.004}, {"R", r, 1.5}, {"N*", n, 25}} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	if _, err := InteractiveResponseTime(10, 40, 1); err == nil {
		t.Error("R < 0: no error")
	}
	if _, err := SaturationUsers(0.1, 0, 0.5); err == nil {
		t.Error("D_max > D: no error")
	}
}

// M/M/1 (methods.md §3): R = S/(1−U), so R = 2S at U = 0.5 and R = 10S at
// U = 0.9; the response time is exponential with mean R, so
// p95 = R·ln 20 = 2.995732·R.
func TestMM1(t *testing.T) {
	q, err := MM1(50, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "U", q.Utilisation, 0.5, 1e-12)
	near(t, "R at U=0.5", q.ResponseSeconds, 0.02, 1e-12)
	near(t, "L = U/(1−U)", q.InSystem, 1, 1e-12)
	q, _ = MM1(90, 0.01)
	near(t, "R at U=0.9", q.ResponseSeconds, 0.1, 1e-12)
	p95, err := q.ResponseQuantile(0.95)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "p95", p95, 0.1*math.Log(20), 1e-10)
	if _, err := MM1(100, 0.01); !errors.Is(err, ErrUnstable) {
		t.Errorf("U = 1: error %v, want ErrUnstable", err)
	}
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > tol {
		t.Errorf("%s = %.10g, want %.10g ± %g", what, got, want, tol)
	}
}

// Erlang C values:
//   - C(3, 2) = 4/9 by hand: a³/3!·3/(3−2) = 4, Σ_{k<3} 2ᵏ/k! = 5.
//   - C(1, ρ) = ρ (M/M/1).
//   - The classic call-centre example (360 calls per half hour, 4-minute
//     calls, 55 agents; "The Erlang-C Formula", widely reprinted): a = 48
//     Erlangs; direct evaluation of the factorial form of the formula in
//     Python gives C = 0.2387009, mean wait 8.184 s, and 84.59 % answered
//     within 15 s = 1 − C·e^(−(c−a)·15/240).
func TestErlangC(t *testing.T) {
	c, err := ErlangC(3, 2)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "C(3,2)", c, 4.0/9, 1e-14)
	c, _ = ErlangC(1, 0.7)
	near(t, "C(1,0.7)", c, 0.7, 1e-14)
	q, err := MMc(360.0/1800, 240, 55)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "a", q.OfferedLoad, 48, 1e-12)
	near(t, "C(55,48)", q.PWait, 0.2387009, 1e-7)
	near(t, "Wq", q.WaitSeconds, 8.184032, 1e-6)
	// P(wait ≤ 15 s) = 1 − C·e^(−θ·15) with θ = cμ − λ = 7/240 per s.
	near(t, "service level", 1-q.PWait*math.Exp(-7.0/240*15), 0.8458831, 1e-7)
	if _, err := ErlangC(4, 4); !errors.Is(err, ErrUnstable) {
		t.Errorf("a = c: error %v, want ErrUnstable", err)
	}
	// Large c stays finite (the recursion avoids factorials): C(1000, 950)
	// lies strictly between 0 and 1.
	if c, err := ErlangC(1000, 950); err != nil || !(c > 0 && c < 1) {
		t.Errorf("C(1000, 950) = %v, %v", c, err)
	}
}

// The response-time quantile of M/M/c must agree with its survival function
// (round trip), and with c = 1 it must match the exponential closed form.
func TestResponseQuantile(t *testing.T) {
	q, _ := MMc(600, 0.02, 16)
	p99, err := q.ResponseQuantile(0.99)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "P(T > p99)", q.ResponseSurvival(p99), 0.01, 1e-10)
	if p99 <= q.ResponseSeconds {
		t.Errorf("p99 %v ≤ mean %v", p99, q.ResponseSeconds)
	}
	// θ = μ exactly: c = 2, μ = 1, λ = 1 → θ = 2 − 1 = 1.
	q, _ = MMc(1, 1, 2)
	near(t, "survival at θ = μ continuous", q.ResponseSurvival(1), func() float64 {
		c := q.PWait
		return (1-c)*math.Exp(-1) + c*2*math.Exp(-1)
	}(), 1e-12)
}

// ServersFor: 600 req/s at 20 ms needs a = 12 Erlangs; the smallest c whose
// mean response time is ≤ 25 ms is found by a scan, and c−1 must miss it.
func TestServersFor(t *testing.T) {
	q, err := ServersFor(600, 0.02, 0.025, 0)
	if err != nil {
		t.Fatal(err)
	}
	if q.ResponseSeconds > 0.025 {
		t.Errorf("c = %d: R = %v > target", q.Servers, q.ResponseSeconds)
	}
	prev, err := MMc(600, 0.02, q.Servers-1)
	if err == nil && prev.ResponseSeconds <= 0.025 {
		t.Errorf("c = %d already meets the target", q.Servers-1)
	}
	if _, err := ServersFor(600, 0.02, 0.02, 0); err == nil {
		t.Error("target = S: no error")
	}
	qp, err := ServersFor(600, 0.02, 0.08, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	p95, _ := qp.ResponseQuantile(0.95)
	if p95 > 0.08 {
		t.Errorf("p95 %v > 80 ms at c = %d", p95, qp.Servers)
	}
}

func TestCurve(t *testing.T) {
	qs, err := Curve([]float64{100, 300, 500, 600, 700}, 0.01, 6)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 3 { // capacity c/S = 600/s: 600 and 700 are unstable
		t.Fatalf("got %d stable points, want 3", len(qs))
	}
	for i := 1; i < len(qs); i++ {
		if qs[i].ResponseSeconds <= qs[i-1].ResponseSeconds {
			t.Errorf("R not increasing with rate: %v then %v", qs[i-1].ResponseSeconds, qs[i].ResponseSeconds)
		}
	}
}
