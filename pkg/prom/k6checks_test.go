package prom

import (
	"math"
	"slices"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// checkCounts recovers the cumulative passes and failures from k6's
// running ratio and the cumulative iterations; the expected counts are
// hand calculations (ratio × k × iterations).
func TestCheckCounts(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name       string
		ratio, n   []float64
		pass, fail []float64
		k          int
		ok         bool
	}{
		{
			// prom_rw_native's last steps: 26121/34506 and 27277/36541.
			name:  "one check per iteration",
			ratio: []float64{nan, 1, 0.756998782820379, 0.7464765605757916},
			n:     []float64{0, 203, 34506, 36541},
			pass:  []float64{0, 203, 26121, 27277}, fail: []float64{0, 0, 8385, 9264},
			k: 1, ok: true,
		},
		{
			// 3 iterations, 6 checks, 3 passed: ½ × 3 is no whole number.
			name:  "two checks per iteration",
			ratio: []float64{1, 0.5},
			n:     []float64{1, 3},
			pass:  []float64{2, 3}, fail: []float64{0, 3},
			k: 2, ok: true,
		},
		{
			// 1/7 × k × 10 is whole for no k of 1 … 4: one per iteration,
			// round(10/7) = 1 pass.
			name:  "no k fits",
			ratio: []float64{1.0 / 7},
			n:     []float64{10},
			pass:  []float64{1}, fail: []float64{9},
			k: 1, ok: false,
		},
		{
			// A gap (NaN) carries the counts over.
			name:  "gap",
			ratio: []float64{1, nan, 0.5},
			n:     []float64{2, 3, 4},
			pass:  []float64{2, 2, 2}, fail: []float64{0, 0, 2},
			k: 1, ok: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pass, fail, k, ok := checkCounts(tc.ratio, tc.n)
			if !slices.Equal(pass, tc.pass) || !slices.Equal(fail, tc.fail) || k != tc.k || ok != tc.ok {
				t.Errorf("checkCounts = %v, %v, k %d, %v; want %v, %v, k %d, %v", pass, fail, k, ok, tc.pass, tc.fail, tc.k, tc.ok)
			}
		})
	}
}

// Fill gives the timeline one checks sample per check, as a k6 file has:
// rampRun's steps with 50, 100 and 150 checks of "ok", 0, 10 and 30 of
// them failed: 300 checks, 260 passed (hand sums), the first failure in
// the second step (from +5 s) and no earlier.
func TestFillChecks(t *testing.T) {
	r := rampRun()
	for i, f := range []float64{0, 10, 30} {
		r.Steps[i].Checks = []CheckGroup{{Check: "ok", Scenario: "s", Pass: r.Steps[i].Iterations - f, Fail: f}}
	}
	acc := timeline.New(timeline.Options{Metric: "http_req_duration"})
	r.Fill(acc)
	tl := acc.Close(r.ResolutionNS())
	got := tl.Checks()
	if len(got) != 1 || got[0].Name != "ok" || got[0].Pass != 260 || got[0].Fail != 40 {
		t.Fatalf("Checks() = %+v, want ok: 260 passed, 40 failed", got)
	}
	if ff, lo := got[0].FirstFailNS, r.Steps[1].Start.UnixNano(); ff < lo || ff >= r.Steps[1].End.UnixNano() {
		t.Errorf("first failure at %d ns, want within the second step [%d, %d)", ff, lo, r.Steps[1].End.UnixNano())
	}
}
