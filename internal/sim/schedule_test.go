package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// starts collects an arrival-rate scenario's iteration start times (s).
func starts(t *testing.T, s Scenario) []float64 {
	t.Helper()
	c := Config{Server: Server{Servers: 1, Classes: []Class{{Name: "a", Share: 1, ServiceTime: Det(1)}}}, Scenarios: []Scenario{s}}
	n, err := normalize(c)
	if err != nil {
		t.Fatal(err)
	}
	a := newArrivals(&n.Scenarios[0], rand.New(rand.NewPCG(1, 2)))
	var out []float64
	for {
		ts, ok := a.next()
		if !ok {
			return out
		}
		out = append(out, float64(ts)/1e9)
	}
}

func TestArrivalsConstant(t *testing.T) {
	// constant-arrival-rate: iteration i at i·timeUnit/rate from 0 (k6's
	// ConstantArrivalRate.Run), while before the duration: 4/s for 2 s is 8.
	got := starts(t, Scenario{Name: "c", Executor: ConstantArrivalRate, Rate: 4, Duration: 2 * time.Second, PreAllocatedVUs: 1})
	want := []float64{0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75}
	if !slices.Equal(got, want) {
		t.Fatalf("starts = %v, want %v", got, want)
	}
}

func TestArrivalsRampingK6Example(t *testing.T) {
	// The example of k6's RampingArrivalRateConfig.cal comment: 2 it/s for
	// 5 s, then a 5-s ramp to 3 it/s. Event n of the hold is at n/2 s; in
	// the ramp, area 2x + x²/10 = n − 10 gives x = (−2 + √(4 + 0.4(n−10)))/0.2
	// (hand calculation); the ramp's area 12.5 holds events 11…22.
	got := starts(t, Scenario{Name: "r", Executor: RampingArrivalRate, StartRate: 2, PreAllocatedVUs: 1,
		Stages: []Stage{{5 * time.Second, 2}, {5 * time.Second, 3}}})
	if len(got) != 22 {
		t.Fatalf("%d starts, want 22: %v", len(got), got)
	}
	for n := 1; n <= 22; n++ {
		want := float64(n) / 2
		if n > 10 {
			want = 5 + (-2+math.Sqrt(4+0.4*float64(n-10)))/0.2
		}
		if d := math.Abs(got[n-1] - want); d > 2e-9 {
			t.Errorf("start %d at %.9f s, want %.9f s", n, got[n-1], want)
		}
	}
}

func TestArrivalsRampFromZeroCountsArea(t *testing.T) {
	// 0 → 100 it/s over 10 s: area 500, the last start at area 500 falls on
	// the end (excluded), so 499 starts; start n at √(n/5) s (area 5t²).
	got := starts(t, Scenario{Name: "r", Executor: RampingArrivalRate, PreAllocatedVUs: 1,
		Stages: []Stage{{10 * time.Second, 100}}})
	if len(got) != 499 {
		t.Fatalf("%d starts, want 499", len(got))
	}
	for _, n := range []int{1, 2, 100, 499} {
		if want := math.Sqrt(float64(n) / 5); math.Abs(got[n-1]-want) > 2e-9 {
			t.Errorf("start %d at %.9f s, want %.9f s", n, got[n-1], want)
		}
	}
}

func TestArrivalsPoissonCount(t *testing.T) {
	// A Poisson process of mean 2,000 starts: within 4σ = 4·√2000 ≈ 179.
	got := starts(t, Scenario{Name: "p", Executor: ConstantArrivalRate, Rate: 200, Duration: 10 * time.Second,
		PreAllocatedVUs: 1, Poisson: true})
	if math.Abs(float64(len(got))-2000) > 179 {
		t.Fatalf("%d Poisson starts, want 2000 ± 179", len(got))
	}
	if !slices.IsSorted(got) {
		t.Fatal("Poisson starts are not in time order")
	}
}

func TestVUStepsRampUpAndDown(t *testing.T) {
	// k6's getRawExecutionSteps: up 0 → 5 in 10 s starts VU u at 2u s; down
	// 5 → 0 in 10 s drops to u−1 at 10 + 2(5−u+1) s (hand calculation).
	s := Scenario{Executor: RampingVUs, Stages: []Stage{{10 * time.Second, 5}, {10 * time.Second, 0}}}
	got := vuSteps(&s)
	want := []vuStep{{0, 0}, {2e9, 1}, {4e9, 2}, {6e9, 3}, {8e9, 4}, {10e9, 5},
		{12e9, 4}, {14e9, 3}, {16e9, 2}, {18e9, 1}, {20e9, 0}}
	if !slices.Equal(got, want) {
		t.Fatalf("steps = %v, want %v", got, want)
	}
	if n := plannedVUsAt(got, 13e9); n != 4 {
		t.Errorf("VUs at 13 s = %d, want 4", n)
	}
}

func TestVUStepsZeroEnd(t *testing.T) {
	// A plan that ends above 0 gets a last step to 0 at the end of the
	// stages (zeroEnd).
	s := Scenario{Executor: RampingVUs, StartVUs: 2, Stages: []Stage{{4 * time.Second, 2}, {0, 6}}}
	want := []vuStep{{0, 2}, {4e9, 6}, {4e9, 0}}
	if got := vuSteps(&s); !slices.Equal(got, want) {
		t.Fatalf("steps = %v, want %v", got, want)
	}
}
