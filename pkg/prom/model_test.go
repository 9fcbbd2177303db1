package prom

import "testing"

// TestK6RunModelStoppedRamp: k6_vus climbing 0 → 60 in 5-VU steps and
// stopping there, below a k6_vus_max of 120, with nothing dropped, is a
// ramping-vus test stopped before its largest stage (closed); busy VUs
// that turn at every step are an arrival-rate executor with spare VUs
// (open).
func TestK6RunModelStoppedRamp(t *testing.T) {
	has := map[string]bool{"k6_vus": true}
	var ramp, busy K6Run
	for i := 0; i <= 12; i++ {
		ramp.Steps = append(ramp.Steps, K6Step{VUs: float64(5 * i), VUsMax: 120})
		busy.Steps = append(busy.Steps, K6Step{VUs: float64(3 + 2*(i%2)), VUsMax: 120})
	}
	ramp.detectModel(has)
	busy.detectModel(has)
	if ramp.Model != "closed" || busy.Model != "open" {
		t.Errorf("stopped ramp %s (%s), busy VUs %s (%s): want closed, open", ramp.Model, ramp.ModelEvidence, busy.Model, busy.ModelEvidence)
	}
}
