package ledger

import (
	"math"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/jsonnum"
)

func sat(res ...Resource) *Saturation {
	return &Saturation{Saturated: []Resource{}, ThresholdRatio: 0.9, Resources: res}
}

// TestRowsBoundsAndShifts: a ceiling not reached is a lower bound, so the
// change from 260 req/s (reached) to ≥ 100 (not reached) is "≥ −61.5 %"
// ((100 − 260) ÷ 260 = −0.61538), not a change; back from ≥ 100 to 180
// (reached) the change is "≤ +80 %"; between two bounds nothing. The
// database's utilisation at the ceiling, 65 % then 28 %, is a shift of
// 37 points; the API's 50 % → 55 % (5 points) is not.
func TestRowsBoundsAndShifts(t *testing.T) {
	f := func(v float64) jsonnum.Float { return jsonnum.Float(v) }
	entries := []Entry{
		{CeilingRPS: 260, CeilingReached: true, Saturation: sat(Resource{"db CPU", f(0.65)}, Resource{"api CPU", f(0.50)})},
		{CeilingRPS: 100, CeilingReached: false, Saturation: sat(Resource{"api CPU", f(0.55)}, Resource{"db CPU", f(0.28)})},
		{CeilingRPS: 180, CeilingReached: true},
		{CeilingRPS: 90, CeilingReached: false},
		{CeilingRPS: 95, CeilingReached: false},
		{CeilingRPS: 99, CeilingReached: true},
	}
	rows := Rows(entries)
	if b := rows[1].CeilingChangeBound; b == nil || b.Op != "≥" || math.Abs(float64(b.Ratio)+160.0/260) > 1e-12 || rows[1].CeilingChangeRatio.Valid() {
		t.Errorf("row 2: ratio %v bound %+v", rows[1].CeilingChangeRatio, b)
	}
	if b := rows[2].CeilingChangeBound; b == nil || b.Op != "≤" || math.Abs(float64(b.Ratio)-0.8) > 1e-12 {
		t.Errorf("row 3: bound %+v", b)
	}
	if rows[4].CeilingChangeBound != nil || rows[4].CeilingChangeRatio.Valid() {
		t.Errorf("row 5 (two bounds): %+v %v", rows[4].CeilingChangeBound, rows[4].CeilingChangeRatio)
	}
	if rows[0].CeilingChangeRatio.Valid() || rows[0].CeilingChangeBound != nil {
		t.Errorf("row 1: %v", rows[0].CeilingChangeRatio)
	}
	if sh := rows[1].Shifts; len(sh) != 1 || sh[0].Name != "db CPU" || sh[0].Before != 0.65 || sh[0].After != 0.28 {
		t.Errorf("shifts %+v", sh)
	}
	if len(rows[2].Shifts) != 0 {
		t.Errorf("row 3 shifts %+v (no Prometheus data)", rows[2].Shifts)
	}
}
