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

// Two low-load levels at 10 ms give S = 10 ms; a ceiling of 200/s then
// means X_max·S = 2 servers, and at 150/s offered the M/M/2 queue waits
// with probability C(2, 1.5) = 9/14 and answers in 22.86 ms on average.
func ExampleEstimateMMc() {
	levels := []queueing.LoadLevel{
		{ThroughputPerSecond: 20, MeanSeconds: 0.010, Samples: 100},
		{ThroughputPerSecond: 50, MeanSeconds: 0.010, Samples: 100},
		{OfferedPerSecond: 150, ThroughputPerSecond: 150, MeanSeconds: 0.018, Samples: 1000},
	}
	e, err := queueing.EstimateMMc(levels, 200, queueing.EstimateOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("S = %.0f ms, c = %d (X_max·S = %.2f)\n", e.ServiceSeconds*1000, e.Servers, e.ServersExact)
	l := e.Levels[2]
	fmt.Printf("at %.0f/s: U = %.2f, P(wait) = %.4f, R = %.2f ms (measured %.0f ms)\n", l.ArrivalPerSecond, l.Utilisation, l.PWait, l.PredictedMeanSeconds*1000, l.MeanSeconds*1000)
	// Output:
	// S = 10 ms, c = 2 (X_max·S = 2.00)
	// at 150/s: U = 0.75, P(wait) = 0.6429, R = 22.86 ms (measured 18 ms)
}
