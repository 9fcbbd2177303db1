package vugauge

import (
	"math"
	"testing"
)

// TestTurns counts by hand: a ramp up and down (1 turn in 6 changes)
// follows a schedule; busy VUs going 3 4 2 5 3 4 2 5 3 4 2 (10 changes,
// 9 turns) do not; NaN points are skipped.
func TestTurns(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		vus            []float64
		changes, turns int
		schedule       bool
	}{
		{[]float64{0, 10, 20, 20, nan, 30, 40, 20, 0}, 6, 1, true},
		{[]float64{3, 4, 2, 5, 3, 4, 2, 5, 3, 4, 2}, 10, 9, false},
		{[]float64{5, 5, 5}, 0, 0, true},
	} {
		ch, tu := Turns(c.vus)
		if ch != c.changes || tu != c.turns || FollowsSchedule(ch, tu) != c.schedule {
			t.Errorf("Turns(%v) = %d, %d (schedule %v), want %d, %d (%v)", c.vus, ch, tu, FollowsSchedule(ch, tu), c.changes, c.turns, c.schedule)
		}
	}
}
