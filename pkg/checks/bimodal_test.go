package checks

import (
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
	"strings"
	"testing"
)

func hist(groups ...[2]float64) *timeline.Hist {
	var h timeline.Hist
	for _, g := range groups {
		h[timeline.HistBin(g[1])] += uint32(g[0])
	}
	return &h
}

// TestCheckBimodalBins: bins are quarters of powers of two of ms. 10 ms =
// 1.25·2³ → bin (3+4)·4+1 = 29, [10, 12); 100 ms = 1.5625·2⁶ → bin
// (6+4)·4+2 = 42, [96, 112); 40 ms = 1.25·2⁵ → bin 37, [40, 48).
func TestCheckBimodalBins(t *testing.T) {
	for v, want := range map[float64]int{10: 29, 100: 42, 40: 37, 0: 0, -1: 0, 1e12: timeline.HistBins - 1} {
		if got := timeline.HistBin(v); got != want {
			t.Errorf("timeline.HistBin(%v) = %d, want %d", v, got, want)
		}
	}
	if timeline.BinLow(29) != 10 || timeline.BinLow(30) != 12 || timeline.BinLow(42) != 96 {
		t.Errorf("binLow: %v %v %v", timeline.BinLow(29), timeline.BinLow(30), timeline.BinLow(42))
	}
}

// TestCheckBimodalRule applies the rule to hand-made histograms.
func TestCheckBimodalRule(t *testing.T) {
	// 60 at 10 ms and 40 at 100 ms: shares 0.6 / 0.4 (both ≥ 0.1); the
	// bins between are empty, density 0 ≤ ½·min(60, 40) → a valley; every
	// empty split bin ties at density 0 and the same shares, so the first,
	// bin 31 = [14, 16) ms, is the split. Medians interpolated in their
	// bins: rank 29.5 of 60 in [10, 12) → 10 + (30/60)·2 = 11 ms; rank 19.5
	// of 40 in [96, 112) → 96 + (20/40)·16 = 104 ms; 104/11 = 9.45 ≥ 5 →
	// bimodal.
	m, ok := splitModes(hist([2]float64{60, 10}, [2]float64{40, 100}))
	if !ok {
		t.Fatal("10 ms + 100 ms: not bimodal")
	}
	if !near(m.fastShare, 0.6, 1e-12) || !near(m.slowShare, 0.4, 1e-12) || !near(m.fastP50, 11, 1e-9) ||
		!near(m.slowP50, 104, 1e-9) || m.splitMS != 14 || m.n != 100 {
		t.Errorf("modes %+v", m)
	}
	for _, tc := range []struct {
		why string
		h   *timeline.Hist
	}{
		// 95 + 5: the slow group is 5 % < 10 %, a tail.
		{"tail", hist([2]float64{95, 10}, [2]float64{5, 100})},
		// 20 + 20 = 40 samples < 50.
		{"few", hist([2]float64{20, 10}, [2]float64{20, 100})},
		// 50 at 10 ms, 50 at 40 ms: medians 11 and 44, ×4 < ×5.
		{"close", hist([2]float64{50, 10}, [2]float64{50, 40})},
	} {
		if m, ok := splitModes(tc.h); ok {
			t.Errorf("%s: bimodal %+v", tc.why, m)
		}
	}
	// Log-uniform from 1 ms to 1 s: 3 samples in each bin 16…55 (120).
	// Splits with ≥ 10 % each side and ×5 medians exist, but the density
	// is 9 everywhere inside: no valley ≤ 4.5 → not bimodal.
	var flat timeline.Hist
	for i := 16; i < 56; i++ {
		flat[i] = 3
	}
	if m, ok := splitModes(&flat); ok {
		t.Errorf("log-uniform: bimodal %+v", m)
	}
}

// levelRun is three 20 s holds at 20, 40 and 60 it/s, one "menu" request
// per iteration; slowAt(rate, i) says whether the i-th request of a second
// takes 100 ms instead of 10 ms.
func levelRun(slowAt func(rate, i int) bool) *run {
	r := &run{}
	for s := range 60 {
		rate := 20 * (s/20 + 1)
		r.gauges(s, 1, 5)
		for i := range rate {
			ms := 10.0
			if slowAt(rate, i) {
				ms = 100
			}
			r.req(s, "200", "menu", ms)
			r.iter(s, ms+5)
		}
	}
	return r
}

// TestCheckBimodalLevels: at 20 and 40 it/s every request takes 10 ms; at
// 60 it/s 24 of 60 a second take 100 ms. Only the 60 it/s hold is bimodal
// (its seconds all have the 36/24 split, whatever the hold's exact
// bounds): fast 0.6 at 11 ms, slow 0.4 at 104 ms (see
// TestCheckBimodalRule), split 14 ms; absent at the lowest load → warn,
// no 429. With the same 60/40 split at every load (a cache) → ok, named
// in the message.
func TestCheckBimodalLevels(t *testing.T) {
	rep := levelRun(func(rate, i int) bool { return rate == 60 && i < 24 }).evaluate(t, Options{})
	c := get(t, rep, IDRateLimited)
	if c.Status != Warn {
		t.Fatalf("status %s, want warn (%s)", c.Status, c.Message)
	}
	for name, want := range map[string]float64{"status_429": 0, "bimodal_levels": 1, "fast_share": 0.6, "slow_share": 0.4,
		"fast_p50_ms": 11, "slow_p50_ms": 104, "split_ms": 14} {
		if got := ev(t, c, name); !near(got, want, 1e-9) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if got := ev(t, c, "bimodal_offered"); !near(got, 60, 2) {
		t.Errorf("bimodal_offered = %v, want ≈ 60", got)
	}
	if !strings.Contains(c.Message, `"menu"`) {
		t.Errorf("message does not name the request: %s", c.Message)
	}

	rep = levelRun(func(rate, i int) bool { return i < rate*2/5 }).evaluate(t, Options{})
	c = get(t, rep, IDRateLimited)
	if c.Status != OK || ev(t, c, "bimodal_levels") != 0 || !strings.Contains(c.Message, "lowest load") {
		t.Errorf("cache-like: %s %v (%s)", c.Status, c.Evidence, c.Message)
	}

	// Unimodal everywhere → ok.
	rep = levelRun(func(int, int) bool { return false }).evaluate(t, Options{})
	if c := get(t, rep, IDRateLimited); c.Status != OK || ev(t, c, "bimodal_levels") != 0 {
		t.Errorf("unimodal: %s %v", c.Status, c.Evidence)
	}
}
