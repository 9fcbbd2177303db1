package vugauge

// Turns counts the points of a vus series whose value differs from the
// one before (changes) and those where its direction reverses (turns: up
// after down or down after up). NaN points (no sample) are skipped.
func Turns(vus []float64) (changes, turns int) {
	dir := 0.0
	prev, have := 0.0, false
	for _, v := range vus {
		if v != v {
			continue
		}
		if !have {
			prev, have = v, true
			continue
		}
		d := v - prev
		prev = v
		if d == 0 {
			continue
		}
		changes++
		if dir != 0 && (d > 0) != (dir > 0) {
			turns++
		}
		dir = d
	}
	return changes, turns
}

// MinScheduleChanges is the fewest changes of the vus gauge from which
// FollowsSchedule can tell a VU executor's schedule from an arrival-rate
// executor's busy VUs: below it, a gauge that barely moves (one busy VU of
// a light open test) would read as a schedule.
const MinScheduleChanges = 10

// FollowsSchedule reports whether a vus series with that many changes
// and turns (Turns) follows a schedule, as the VUs of k6's VU executors
// (constant-vus, ramping-vus, per-vu-iterations) do, turning only between
// stages: at most 2 + 20 % of its changes reverse direction. The busy VUs
// an arrival-rate executor reports turn with every second's noise.
func FollowsSchedule(changes, turns int) bool {
	return float64(turns) <= 2+0.2*float64(changes)
}
