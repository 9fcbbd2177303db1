package knee

import (
	"math"
	"math/rand/v2"
	"testing"
)

// k6counts builds the per-second offered load of a k6 arrival-rate
// executor: iteration i starts when the integral of the rate reaches i
// (lib/executor/ramping_arrival_rate.go), so a second counts the whole
// starts in it; each count then moves ±1 to a neighbour at random (the
// iterations counter is written at the iteration's end).
func k6counts(seed uint64, start float64, stages ...[2]float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 2))
	var x []float64
	prev, cum := start, 0.0
	for _, st := range stages {
		d := int(st[0])
		for i := range d {
			m := prev + (st[1]-prev)*(float64(i)+0.5)/float64(d)
			n := math.Floor(cum+m) - math.Floor(cum)
			cum += m
			x = append(x, n)
		}
		prev = st[1]
	}
	for i := 1; i < len(x); i++ {
		if x[i] > 0 && r.IntN(3) == 0 {
			x[i]--
			x[i-1]++
		}
	}
	return x
}

// jitter moves up to a share frac of each second's count to its neighbour
// (iterations that ended a second later than they started).
func jitter(x []float64, seed uint64, frac float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 3))
	for i := 1; i < len(x); i++ {
		k := math.Round(frac * x[i] * r.Float64())
		x[i] -= k
		x[i-1] += k
	}
	return x
}

type shape struct {
	ramp   bool
	i0, i1 int
}

func shapes(ps []piece) []shape {
	var out []shape
	for _, p := range ps {
		out = append(out, shape{isRamp(p), p.i0, p.i1})
	}
	return out
}

// near reports whether every change point of got lies within tol seconds
// of want's, with the same kinds.
func sameShape(got, want []shape, tol int) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i].ramp != want[i].ramp || abs(got[i].i0-want[i].i0) > tol || abs(got[i].i1-want[i].i1) > tol {
			return false
		}
	}
	return true
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// TestSegmentsShapes: the schedules users write come back as the
// plateaus and ramps they were written with, change points within a few
// seconds (Poisson noise of the offered counts).
func TestSegmentsShapes(t *testing.T) {
	for _, c := range []struct {
		name string
		x    []float64
		want []shape
		tol  int
	}{
		{"one straight ramp 50→500 over 180 s (the tutorial's)", k6counts(1, 50, [2]float64{180, 500}),
			[]shape{{true, 0, 180}}, 0},
		{"30 s ramp", k6counts(2, 10, [2]float64{30, 400}), []shape{{true, 0, 30}}, 0},
		{"30-minute ramp 10→2500", k6counts(2, 10, [2]float64{1800, 2500}), []shape{{true, 0, 1800}}, 0},
		{"warm-up 300 s at 20, then a ramp to 500 over 180 s", k6counts(3, 20, [2]float64{300, 20}, [2]float64{180, 500}),
			[]shape{{false, 0, 300}, {true, 300, 480}}, 3},
		{"staircase 100/200/300 with 30 s holds and 1 s steps", k6counts(4, 100, [2]float64{30, 100}, [2]float64{1, 200}, [2]float64{29, 200}, [2]float64{1, 300}, [2]float64{29, 300}),
			[]shape{{false, 0, 30}, {false, 30, 60}, {false, 60, 90}}, 2},
		{"short holds with long ramps between", k6counts(5, 50, [2]float64{20, 50}, [2]float64{40, 150}, [2]float64{20, 150}, [2]float64{40, 250}, [2]float64{20, 250}),
			[]shape{{false, 0, 20}, {true, 20, 60}, {false, 60, 80}, {true, 80, 120}, {false, 120, 140}}, 3},
		{"low rate: 5 and 6 it/s holds of 60 s", k6counts(6, 5, [2]float64{60, 5}, [2]float64{1, 6}, [2]float64{59, 6}),
			[]shape{{false, 0, 60}, {false, 60, 120}}, 3},
		{"spike: 100, ramp to 2000 in 10 s, hold 30 s, back", k6counts(7, 100, [2]float64{60, 100}, [2]float64{10, 2000}, [2]float64{30, 2000}, [2]float64{10, 100}, [2]float64{60, 100}),
			[]shape{{false, 0, 60}, {true, 60, 70}, {false, 70, 100}, {true, 100, 110}, {false, 110, 170}}, 2},
		// At high load iterations end in bursts: counts shift by up to ±5
		// seconds' worth between neighbours.
		{"bursty counts: short holds with long ramps between", jitter(k6counts(5, 500, [2]float64{20, 500}, [2]float64{40, 1500}, [2]float64{20, 1500}, [2]float64{40, 2500}, [2]float64{20, 2500}), 11, 0.05),
			[]shape{{false, 0, 20}, {true, 20, 60}, {false, 60, 80}, {true, 80, 120}, {false, 120, 140}}, 3},
	} {
		got := shapes(stages(segments(c.x, nil, 3, true), c.x, 5))
		if !sameShape(got, c.want, c.tol) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSegmentsLongRun: a 24-hour soak (86,400 s) is searched on bins and
// still finds its one change, to the second.
func TestSegmentsLongRun(t *testing.T) {
	x := k6counts(8, 200, [2]float64{40000, 200}, [2]float64{1, 400}, [2]float64{46399, 400})
	got := shapes(stages(segments(x, nil, 3, true), x, 5))
	if !sameShape(got, []shape{{false, 0, 40000}, {false, 40000, 86400}}, 1) {
		t.Errorf("got %v", got)
	}
}

// TestNoiseSigma: second differences of a line plus unit noise give σ ≈ 1
// (the MAD estimate's error on 2,000 points is a few %).
func TestNoiseSigma(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	x := make([]float64, 2000)
	for i := range x {
		x[i] = 5 + 0.3*float64(i) + r.NormFloat64()
	}
	if s := noiseSigma(x); math.Abs(s-1) > 0.08 {
		t.Errorf("σ = %v, want 1 ± 0.08", s)
	}
}

// vusGauge is a closed model's offered load: the vus gauge of a
// ramping-vus executor, sampled once a second (k6 starts and stops VUs on
// the schedule, so the gauge is the rounded target).
func vusGauge(start float64, stages ...[2]float64) []float64 {
	var x []float64
	prev := start
	for _, st := range stages {
		d := int(st[0])
		for i := range d {
			x = append(x, math.Round(prev+(st[1]-prev)*float64(i+1)/float64(d)))
		}
		prev = st[1]
	}
	return x
}

// TestSegmentsClosed: the vus gauge of closed-model schedules is fitted as
// a level (a constant on a plateau, a line on a ramp).
func TestSegmentsClosed(t *testing.T) {
	for _, c := range []struct {
		name string
		x    []float64
		want []shape
		tol  int
	}{
		{"ramp 0→200 VUs over 60 s", vusGauge(0, [2]float64{60, 200}), []shape{{true, 0, 60}}, 1},
		{"steps of 10 VUs held 30 s", vusGauge(10, [2]float64{30, 10}, [2]float64{1, 20}, [2]float64{29, 20}, [2]float64{1, 30}, [2]float64{29, 30}),
			[]shape{{false, 0, 30}, {false, 30, 60}, {false, 60, 90}}, 2},
		{"warm-up 5 min at 5 VUs then a 2-minute ramp to 100", vusGauge(5, [2]float64{300, 5}, [2]float64{120, 100}),
			[]shape{{false, 0, 300}, {true, 300, 420}}, 2},
	} {
		got := shapes(stages(segments(c.x, nil, 3, false), c.x, 5))
		if !sameShape(got, c.want, c.tol) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}
