package compare

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/sketch"
)

// run builds a knee result with one 6 s hold per offered load, each with
// six 1 s windows whose p95 are p95s[level][window] and whose latency
// sketch holds that one value (so a window's p50, p95 and p99 are it);
// goodput is the offered load, 1 request per iteration, no failure.
func run(offered []float64, p95s [][]float64) Run {
	t0 := time.Unix(1796004000, 0).UTC()
	r := &knee.Result{OfferedUnit: "iterations/s", Levels: "holds", Start: t0, WindowS: 1}
	lat := map[int64]float64{}
	for i, o := range offered {
		start := t0.Add(time.Duration(10*i) * time.Second)
		var all sketch.Sketch
		for j, v := range p95s[i] {
			ws := start.Add(time.Duration(j) * time.Second)
			r.Windows = append(r.Windows, knee.Level{Start: ws, End: ws.Add(time.Second), Seconds: 1, P95MS: knee.F(v), P50MS: knee.F(v), P99MS: knee.F(v),
				CompletedRPS: knee.F(o), RequestsRPS: knee.F(o), ErrorRate: 0})
			lat[ws.Unix()] = v
			all.Add(v)
		}
		r.Holds = append(r.Holds, knee.Level{Start: start, End: start.Add(time.Duration(len(p95s[i])) * time.Second), Seconds: float64(len(p95s[i])),
			Offered: knee.F(o), CompletedRPS: knee.F(o), RequestsRPS: knee.F(o), ErrorRate: 0,
			P50MS: knee.F(all.Quantile(0.5)), P95MS: knee.F(all.Quantile(0.95)), P99MS: knee.F(all.Quantile(0.99))})
	}
	return Run{Knee: r, Latency: func(from, to int64) *sketch.Sketch {
		s := &sketch.Sketch{}
		for t := from; t < to; t++ {
			if v, ok := lat[t]; ok {
				s.Add(v)
			}
		}
		return s
	}}
}

func find(r *Result, offered float64, metric string) *Row {
	for i := range r.Rows {
		if float64(r.Rows[i].Offered) == offered && r.Rows[i].Metric == metric {
			return &r.Rows[i]
		}
	}
	return nil
}

// TestCompareHandChecked: at 100 it/s every after window is slower than
// every before window. Mann–Whitney U = 0 with n = 6+6; the exact
// two-sided p is 2/C(12,6) = 2/924 = 0.002165 (tolerance 1e-9). The
// levels' p95 by k6's definition (rank 0.95·5 = 4.75): 14.75 and 24.75
// ms, a +10 ms change; every bootstrap resample of the after side lies
// in [20, 25] and of the before side in [10, 15], so the difference's
// interval is within [5, 15]. At 200 it/s the values interleave (U = 15
// of 36, hand count): p ≈ 0.70, "~". The 300 it/s level has no partner
// within 5 % (330 is 10 % off).
func TestCompareHandChecked(t *testing.T) {
	before := run([]float64{100, 200, 300}, [][]float64{
		{10, 11, 12, 13, 14, 15}, {30, 32, 34, 36, 38, 40}, {50, 50, 50, 50, 50, 50}})
	after := run([]float64{102, 198, 330}, [][]float64{
		{20, 21, 22, 23, 24, 25}, {31, 33, 35, 37, 39, 29}, {50, 50, 50, 50, 50, 50}})
	res, err := Compare(before, after, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := find(res, 100, "p95_ms")
	if r == nil {
		t.Fatal("no p95 row at 100")
	}
	if math.Abs(float64(r.P)-2.0/924) > 1e-9 || !r.Significant || r.Better || r.Test != TestMannWhitney {
		t.Errorf("p %v significant %v better %v test %s; want 0.002165, true, false, %s", r.P, r.Significant, r.Better, r.Test, TestMannWhitney)
	}
	if r.Before.Value != 14.75 || r.After.Value != 24.75 || r.Delta != 10 || math.Abs(float64(r.DeltaPct)-100*10/14.75) > 1e-9 {
		t.Errorf("p95 %v → %v (%v, %v%%), want 14.75 → 24.75 (+10 ms)", r.Before.Value, r.After.Value, r.Delta, r.DeltaPct)
	}
	if !(r.DeltaLow >= 5 && r.DeltaHigh <= 15 && r.DeltaLow <= 10 && r.DeltaHigh >= 10) || !(r.Before.Low >= 10 && r.Before.High <= 15) {
		t.Errorf("intervals: delta [%v, %v], before [%v, %v]", r.DeltaLow, r.DeltaHigh, r.Before.Low, r.Before.High)
	}
	if r.Before.N != 6 || r.AfterOffered != 102 || r.Note != "" {
		t.Errorf("n %d after offered %v note %q", r.Before.N, r.AfterOffered, r.Note)
	}
	r = find(res, 200, "p95_ms")
	if r == nil || r.Significant || r.P < 0.5 {
		t.Errorf("200 it/s: %+v, want not significant", r)
	}
	if find(res, 300, "p95_ms") != nil || res.UnmatchedBefore != 1 || res.UnmatchedAfter != 1 {
		t.Errorf("300 it/s matched 330; unmatched %d/%d", res.UnmatchedBefore, res.UnmatchedAfter)
	}
	// No failure on either side: Fisher's test has one possible table
	// (p = 1), and each side's Wilson interval is [0, z²/(n+z²)] =
	// [0, 3.8415/(600+3.8415)] = [0, 0.006362] for 600 requests.
	r = find(res, 100, "error_rate")
	if r == nil || r.Significant || r.P != 1 || r.Test != TestFisher || r.Before.N != 600 || *r.Before.Failed != 0 {
		t.Fatalf("error_rate at 100: %+v", r)
	}
	if r.Before.Low != 0 || math.Abs(float64(r.Before.High)-0.006362) > 1e-5 || !(r.DeltaLow < 0 && r.DeltaHigh > 0) {
		t.Errorf("error_rate intervals: before [%v, %v], delta [%v, %v]", r.Before.Low, r.Before.High, r.DeltaLow, r.DeltaHigh)
	}
	// The after run's 198 it/s level completes 198 req/s in every window
	// against 200: a real, if small, loss of goodput (U = 0, p = 2/924).
	if got := res.Regressions(); len(got) != 4 || !strings.HasPrefix(got[0], "p50_ms at 100") || !strings.HasPrefix(got[3], "completed_rps at 200") {
		t.Errorf("regressions %v, want p50, p95 and p99 at 100 and completed_rps at 200", got)
	}
}

// TestCompareItself: a run against itself has no significant row, every
// interval of a difference holds 0, and nothing regressed.
func TestCompareItself(t *testing.T) {
	a := run([]float64{100, 200}, [][]float64{{10, 11, 12, 13, 14, 15}, {30, 32, 34, 36, 38, 40}})
	res, err := Compare(a, a, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows {
		if r.Significant || !(r.DeltaLow <= 0 && r.DeltaHigh >= 0) || r.Delta != 0 {
			t.Errorf("%s at %v: %+v", r.Metric, r.Offered, r)
		}
	}
	if g := res.Regressions(); len(g) != 0 {
		t.Errorf("regressions %v", g)
	}
}

// TestCompareErrorCounts: 1 failure in 1000 requests before, 12 in 1000
// after, pooled over the level. Fisher's exact two-sided p = 0.0033235
// (exact hypergeometric sum, Python math.comb; R's fisher.test agrees);
// the difference 0.011 has Newcombe's interval within (0, 0.03).
func TestCompareErrorCounts(t *testing.T) {
	b := run([]float64{100}, [][]float64{{10, 10, 10, 10, 10, 10, 10, 10, 10, 10}})
	a := run([]float64{100}, [][]float64{{10, 10, 10, 10, 10, 10, 10, 10, 10, 10}})
	b.Knee.Holds[0].ErrorRate = 0.001
	a.Knee.Holds[0].ErrorRate = 0.012
	res, err := Compare(b, a, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := find(res, 100, "error_rate")
	if math.Abs(float64(r.P)-0.0033234917887931398) > 1e-9 || !r.Significant || r.Better {
		t.Errorf("p %v significant %v better %v", r.P, r.Significant, r.Better)
	}
	if *r.Before.Failed != 1 || *r.After.Failed != 12 || r.After.N != 1000 || math.Abs(float64(r.Delta)-0.011) > 1e-12 {
		t.Errorf("counts %d/%d → %d/%d, delta %v", *r.Before.Failed, r.Before.N, *r.After.Failed, r.After.N, r.Delta)
	}
	if !(r.DeltaLow > 0 && r.DeltaLow < 0.011 && r.DeltaHigh > 0.011 && r.DeltaHigh < 0.03) {
		t.Errorf("delta interval [%v, %v]", r.DeltaLow, r.DeltaHigh)
	}
	// Equal latency in every window: the U test has nothing to test, and
	// says so.
	if r := find(res, 100, "p95_ms"); r.P != 1 || r.Significant || !strings.Contains(r.Note, "same value") {
		t.Errorf("p95 row %+v", r)
	}
}

// TestCompareFewWindows: with 3 windows a side neither the U test (it
// needs 4 a side at alpha 0.05) nor the bootstrap (5) can work; the row
// says so instead of printing an interval of "?".
func TestCompareFewWindows(t *testing.T) {
	b := run([]float64{100}, [][]float64{{10, 11, 12}})
	a := run([]float64{100}, [][]float64{{20, 21, 22}})
	res, err := Compare(b, a, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := find(res, 100, "p95_ms")
	if r.Significant || r.DeltaLow.Valid() || !strings.Contains(r.Note, "the U test needs 4") || !strings.Contains(r.Note, "an interval needs 5") {
		t.Errorf("%+v", r)
	}
}

// TestCompareRefusesMixedModels: open (it/s) and closed (VUs) runs offer
// load in different units and cannot be matched.
func TestCompareRefusesMixedModels(t *testing.T) {
	a := run([]float64{100}, [][]float64{{1}})
	b := run([]float64{100}, [][]float64{{1}})
	b.Knee.OfferedUnit = "VUs"
	if _, err := Compare(a, b, Options{}); err == nil || !strings.Contains(err.Error(), "different units") {
		t.Errorf("err %v", err)
	}
	b.Knee.OfferedUnit, b.Knee.Levels = a.Knee.OfferedUnit, "none"
	if _, err := Compare(a, b, Options{}); err == nil || !strings.Contains(err.Error(), "after: no load levels") {
		t.Errorf("err %v", err)
	}
}

// TestCeilingPoint: ceilings 180 (170–190) and 150 (145–155) req/s. Each
// interval read as normal has se = half-width ÷ 1.95996: 5.102 and
// 2.551; z = 30 ÷ √(5.102² + 2.551²) = 5.258, p = 1.46e-7 (normal tail).
// A ceiling not reached is a lower bound: no change measured.
func TestCeilingPoint(t *testing.T) {
	b := &knee.Ceiling{CompletedRPS: 180, Low: 170, High: 190, Reached: true}
	a := &knee.Ceiling{CompletedRPS: 150, Low: 145, High: 155, Reached: true}
	p := ceilingPoint(b, a, Options{Alpha: 0.05})
	if math.Abs(float64(p.P)-1.457e-7) > 0.01e-7 || !p.Significant || p.Better {
		t.Errorf("%+v", p)
	}
	a.Reached = false
	if p := ceilingPoint(b, a, Options{Alpha: 0.05}); p.Significant || p.P.Valid() || p.Note == "" {
		t.Errorf("%+v", p)
	}
}

// TestFisherExact against exact hypergeometric sums (Python math.comb;
// R's fisher.test gives the same): Fisher's tea-tasting table 3/4 vs 1/4,
// p = 0.4857 (Agresti §3.5.2); 0 vs 9 failures in 900 requests each, p =
// 0.0038285.
func TestFisherExact(t *testing.T) {
	for _, c := range []struct {
		x1, n1, x2, n2 int64
		want           float64
	}{
		{3, 4, 1, 4, 0.4857142857142857},
		{0, 900, 9, 900, 0.0038285374690030026},
		{10, 100, 20, 120, 0.17119203514833256},
		{0, 10, 0, 20, 1},
	} {
		if got := FisherExact(c.x1, c.n1, c.x2, c.n2); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("FisherExact(%d/%d, %d/%d) = %v, want %v", c.x1, c.n1, c.x2, c.n2, got, c.want)
		}
	}
}

// TestScoreIntervals against Newcombe (Stat Med 17:857 and 873, 1998):
// Wilson's interval of 0/10 is 0–0.2775 and of 5/10 0.2366–0.7634
// (Table I); the hybrid score interval of 56/70 − 48/80 is
// 0.0524–0.3339, and of 0/10 − 0/20 −0.1611–0.2775 (Table II, method 10).
func TestScoreIntervals(t *testing.T) {
	near := func(what string, got, want float64) {
		if math.Abs(got-want) > 5e-5 {
			t.Errorf("%s = %.4f, want %.4f", what, got, want)
		}
	}
	lo, hi := Wilson(0, 10, 0.95)
	near("Wilson 0/10 low", lo, 0)
	near("Wilson 0/10 high", hi, 0.2775)
	lo, hi = Wilson(5, 10, 0.95)
	near("Wilson 5/10 low", lo, 0.2366)
	near("Wilson 5/10 high", hi, 0.7634)
	lo, hi = Newcombe(48, 80, 56, 70, 0.95)
	near("Newcombe 56/70−48/80 low", lo, 0.0524)
	near("Newcombe 56/70−48/80 high", hi, 0.3339)
	lo, hi = Newcombe(0, 20, 0, 10, 0.95)
	near("Newcombe 0/10−0/20 low", lo, -0.1611)
	near("Newcombe 0/10−0/20 high", hi, 0.2775)
}
