package compare

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/knee"
)

// run builds a knee result with one 6 s hold per offered load, each with
// six 1 s windows whose p95 are p95s[level][window] (other metrics fixed).
func run(offered []float64, p95s [][]float64) *knee.Result {
	t0 := time.Unix(1796004000, 0).UTC()
	r := &knee.Result{OfferedUnit: "iterations/s", Levels: "holds", Start: t0, WindowS: 1}
	for i, o := range offered {
		start := t0.Add(time.Duration(10*i) * time.Second)
		r.Holds = append(r.Holds, knee.Level{Start: start, End: start.Add(6 * time.Second), Offered: knee.F(o)})
		for j, v := range p95s[i] {
			ws := start.Add(time.Duration(j) * time.Second)
			r.Windows = append(r.Windows, knee.Level{Start: ws, End: ws.Add(time.Second), P95MS: knee.F(v), P50MS: 5, P99MS: knee.F(v + 1),
				CompletedRPS: knee.F(o), ErrorRate: 0})
		}
	}
	return r
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
// two-sided p is 2/C(12,6) = 2/924 = 0.002165 (tolerance 1e-9). Medians
// 12.5 and 22.5 ms (hand): +80 %. At 200 it/s the values interleave
// (U = 15 of 36, hand count): p ≈ 0.70, "~". The 300 it/s level has no partner within 5 %
// (330 is 10 % off).
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
	if math.Abs(float64(r.P)-2.0/924) > 1e-9 || !r.Significant || r.Better {
		t.Errorf("p %v significant %v better %v; want 0.002165, true, false", r.P, r.Significant, r.Better)
	}
	if r.Before.Median != 12.5 || r.After.Median != 22.5 || math.Abs(float64(r.DeltaPct)-80) > 1e-9 {
		t.Errorf("medians %v → %v (%v%%), want 12.5 → 22.5 (+80%%)", r.Before.Median, r.After.Median, r.DeltaPct)
	}
	if r.Before.N != 6 || r.AfterOffered != 102 {
		t.Errorf("n %d after offered %v", r.Before.N, r.AfterOffered)
	}
	r = find(res, 200, "p95_ms")
	if r == nil || r.Significant || r.P < 0.5 {
		t.Errorf("200 it/s: %+v, want not significant", r)
	}
	if find(res, 300, "p95_ms") != nil || res.UnmatchedBefore != 1 || res.UnmatchedAfter != 1 {
		t.Errorf("300 it/s matched 330; unmatched %d/%d", res.UnmatchedBefore, res.UnmatchedAfter)
	}
	// Equal values on both sides: the U test cannot run; reported as p=1
	// with benchmath's warning, never as a change.
	r = find(res, 100, "error_rate")
	if r == nil || r.Significant || r.P != 1 || len(r.Warnings) == 0 {
		t.Errorf("error_rate at 100: %+v", r)
	}
}

// TestCompareRefusesMixedModels: open (it/s) and closed (VUs) runs offer
// load in different units and cannot be matched.
func TestCompareRefusesMixedModels(t *testing.T) {
	a := run([]float64{100}, [][]float64{{1}})
	b := run([]float64{100}, [][]float64{{1}})
	b.OfferedUnit = "VUs"
	if _, err := Compare(a, b, Options{}); err == nil || !strings.Contains(err.Error(), "different units") {
		t.Errorf("err %v", err)
	}
	b.OfferedUnit, b.Levels = a.OfferedUnit, "none"
	if _, err := Compare(a, b, Options{}); err == nil || !strings.Contains(err.Error(), "after: no load levels") {
		t.Errorf("err %v", err)
	}
}
