package queueing_test

import (
	"math"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/queueing"
)

// Hand-checked: two low-load levels (≤ 0.3 × 200/s) at 10 ms give
// S = 10 ms; X_max·S = 200 × 0.01 = 2 servers; capacity 200/s. At 150/s
// offered: a = 1.5 Erlangs, ρ = 0.75, Erlang C(2, 1.5) = 4.5/7 = 0.642857,
// Wq = C·S/(c(1−ρ)) = 0.0128571 s, R = 0.0228571 s (Kleinrock ch. 3).
// 250/s exceeds the capacity: no steady state.
func TestEstimateMMcHandChecked(t *testing.T) {
	levels := []queueing.LoadLevel{
		{ThroughputPerSecond: 20, MeanSeconds: 0.010, Samples: 100},
		{ThroughputPerSecond: 50, MeanSeconds: 0.010, Samples: 100},
		{OfferedPerSecond: 150, ThroughputPerSecond: 149, MeanSeconds: 0.030, Samples: 1000},
		{OfferedPerSecond: 250, ThroughputPerSecond: 200, MeanSeconds: 0.200, Samples: 1000},
		{ThroughputPerSecond: 0}, // nothing measured
	}
	e, err := queueing.EstimateMMc(levels, 200, queueing.EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "S", e.ServiceSeconds, 0.010, 1e-15)
	near(t, "c exact", e.ServersExact, 2, 1e-12)
	near(t, "capacity", e.CapacityPerSecond, 200, 1e-9)
	if e.Servers != 2 || e.ServiceLevels != 2 || e.Quantile != 0.95 || len(e.Levels) != 5 || len(e.Warnings) != 0 {
		t.Errorf("c = %d from %d levels, quantile %g, %d levels, warnings %q", e.Servers, e.ServiceLevels, e.Quantile, len(e.Levels), e.Warnings)
	}
	l := e.Levels[2]
	if !l.Stable || l.ArrivalPerSecond != 150 {
		t.Fatalf("level 3: %+v", l)
	}
	near(t, "utilisation", l.Utilisation, 0.75, 1e-12)
	near(t, "P(wait)", l.PWait, 4.5/7, 1e-12)
	near(t, "R", l.PredictedMeanSeconds, 0.01+0.01*4.5/7/0.5, 1e-12)
	if !(l.PredictedQuantileSeconds > l.PredictedMeanSeconds) {
		t.Errorf("p95 %g ≤ mean %g", l.PredictedQuantileSeconds, l.PredictedMeanSeconds)
	}
	if u := e.Levels[3]; u.Stable || u.PredictedMeanSeconds != 0 {
		t.Errorf("250/s on 200/s capacity: %+v", u)
	} else {
		near(t, "overload utilisation", u.Utilisation, 1.25, 1e-12)
	}
}

// Weighted service time: (10 ms·100 + 14 ms·300)/400 = 13 ms; X_max·S =
// 2.6 is not near a whole number, so c = 3 with a warning; the closed and
// not-saturated caveats are named too.
func TestEstimateMMcWarnings(t *testing.T) {
	levels := []queueing.LoadLevel{
		{ThroughputPerSecond: 20, MeanSeconds: 0.010, Samples: 100},
		{ThroughputPerSecond: 40, MeanSeconds: 0.014, Samples: 300},
		{ThroughputPerSecond: 150, MeanSeconds: 0.05, Samples: 1000},
	}
	e, err := queueing.EstimateMMc(levels, 200, queueing.EstimateOptions{Closed: true, CeilingNotReached: true})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "S", e.ServiceSeconds, 0.013, 1e-15)
	near(t, "c exact", e.ServersExact, 2.6, 1e-12)
	if e.Servers != 3 {
		t.Errorf("c = %d, want 3", e.Servers)
	}
	all := strings.Join(e.Warnings, "\n")
	for _, w := range []string{"X_max·S = 2.60 is not near a whole number", "the run never saturated", "closed model: arrivals are not Poisson"} {
		if !strings.Contains(all, w) {
			t.Errorf("warnings lack %q:\n%s", w, all)
		}
	}
	// No level below 30 % of the ceiling: the lowest one is used, with a
	// warning; given servers skip the ceiling.
	e, err = queueing.EstimateMMc(levels[2:], 0, queueing.EstimateOptions{Servers: 4})
	if err != nil {
		t.Fatal(err)
	}
	if e.ServiceSeconds != 0.05 || e.Servers != 4 || e.ServersExact != 0 || !strings.Contains(strings.Join(e.Warnings, "\n"), "no ceiling: the service time is the mean response at the lowest level (150/s)") {
		t.Errorf("%+v", e)
	}
	// Given service time.
	e, err = queueing.EstimateMMc(levels, 200, queueing.EstimateOptions{ServiceSeconds: 0.005})
	if err != nil {
		t.Fatal(err)
	}
	if e.ServiceSeconds != 0.005 || e.ServiceLevels != 0 || e.Servers != 1 {
		t.Errorf("S %g from %d levels, c %d; want 0.005, 0, 1", e.ServiceSeconds, e.ServiceLevels, e.Servers)
	}
}

func TestEstimateMMcErrors(t *testing.T) {
	ok := []queueing.LoadLevel{{ThroughputPerSecond: 20, MeanSeconds: 0.01, Samples: 10}}
	for _, c := range []struct {
		levels  []queueing.LoadLevel
		ceiling float64
		opt     queueing.EstimateOptions
		want    string
	}{
		{ok, 0, queueing.EstimateOptions{}, "queueing: no ceiling (0/s): the servers cannot be estimated; give them"},
		{nil, 100, queueing.EstimateOptions{}, "queueing: no load level with successful responses to measure"},
		{ok, 100, queueing.EstimateOptions{Quantile: 1.5}, "queueing: quantile must be in (0, 1), got 1.5"},
		{ok, 100, queueing.EstimateOptions{LowLoad: 2}, "queueing: low-load share must be in (0, 1], got 2"},
		{ok, 100, queueing.EstimateOptions{ServiceSeconds: math.Inf(1)}, "queueing: service time must be finite and > 0, got +Inf"},
		{ok, 100, queueing.EstimateOptions{Servers: -1}, "queueing: servers must be ≥ 1, got -1"},
	} {
		_, err := queueing.EstimateMMc(c.levels, c.ceiling, c.opt)
		if err == nil || err.Error() != c.want {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}
