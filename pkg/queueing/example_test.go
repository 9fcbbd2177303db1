package queueing_test

import (
	"fmt"

	"github.com/ldanalyze/ldanalyze/pkg/queueing"
)

// Issue 7: an open-model k6 test at 600 iterations/s whose iterations take
// 2.8 s keeps 1680 VUs busy (Little's law).
func ExampleInFlight() {
	l, err := queueing.InFlight(600, 2.8)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.0f in flight\n", l)
	// Output: 1680 in flight
}

// Three servers offered 2 Erlangs: an arrival waits with probability 4/9.
func ExampleErlangC() {
	c, err := queueing.ErlangC(3, 2)
	if err != nil {
		panic(err)
	}
	fmt.Printf("P(wait) = %.4f\n", c)
	// Output: P(wait) = 0.4444
}

// M/M/1 at 90 % utilisation: the mean response time is ten service times.
func ExampleMM1() {
	q, err := queueing.MM1(90, 0.010)
	if err != nil {
		panic(err)
	}
	p95, _ := q.ResponseQuantile(0.95)
	fmt.Printf("U = %.2f, R = %.0f ms, p95 = %.0f ms\n", q.Utilisation, q.ResponseSeconds*1000, p95*1000)
	// Output: U = 0.90, R = 100 ms, p95 = 300 ms
}

// The SPEC SDM91 benchmark (Gunther 2007; the R usl package's example):
// contention σ ≈ 0.028, coherency κ ≈ 0.0001, a peak near 96 users.
func ExampleFitUSL() {
	users := []float64{1, 18, 36, 72, 108, 144, 216}
	scriptsPerHour := []float64{65, 996, 1652, 1853, 1829, 1775, 1702}
	f, err := queueing.FitUSL(users, scriptsPerHour, 0.95)
	if err != nil {
		panic(err)
	}
	fmt.Printf("σ = %.4f, κ = %.6f, λ = %.1f\n", f.Sigma, f.Kappa, f.Lambda)
	fmt.Printf("peak %.0f at N* = %.1f, R² = %.3f\n", f.XMax, f.NStar, f.R2)
	fmt.Printf("Amdahl: σ = %.4f, ceiling %.0f, R² = %.3f\n", f.Amdahl.Sigma, f.Amdahl.Ceiling, f.Amdahl.R2)
	// Output:
	// σ = 0.0277, κ = 0.000104, λ = 90.0
	// peak 1884 at N* = 96.5, R² = 0.990
	// Amdahl: σ = 0.0736, ceiling 1985, R² = 0.950
}
