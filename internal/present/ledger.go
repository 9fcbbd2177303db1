package present

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/jsonnum"
	"github.com/ldanalyze/ldanalyze/pkg/ledger"
)

// LedgerAdded is the line `ledger add` prints for the entry it appended
// (the last of rows, the ledger at path with it): its number, label and
// ceiling, and the change from the entry before.
func LedgerAdded(path string, rows []ledger.Row) string {
	r := rows[len(rows)-1]
	msg := fmt.Sprintf("%s: entry %d, %q: ceiling %s %s", path, r.N, r.Label, LedgerCeiling(r.Entry), r.Unit())
	if r.N > 1 {
		msg += " (" + LedgerRowChange(r) + " from the entry before)"
	}
	for _, sh := range r.Shifts {
		msg += "; " + shiftText(sh)
	}
	return msg
}

// LedgerGrid is the ledger table: one row per run. machine gives the CSV
// form, full-precision numbers with units in the column names.
func LedgerGrid(rows []ledger.Row, machine bool) *render.Grid {
	if machine {
		g := &render.Grid{Header: []string{"n", "date", "label", "files", "model", "offered_unit", "knee", "knee_p95_ms",
			"ceiling_rps", "ceiling_low_rps", "ceiling_high_rps", "ceiling_reached", "ceiling_change_ratio", "ceiling_change_bound", "slo", "slo_capacity",
			"requests", "error_rate", "saturated", "busiest", "resources", "utilisation_shifts", "failed_checks", "warned_checks"}}
		for _, r := range rows {
			var sat, busiest, res, shifts []string
			if s := r.Saturation; s != nil {
				for _, x := range s.Saturated {
					sat = append(sat, x.Name+"="+CSVNum(float64(x.Utilisation)))
				}
				if s.Busiest != nil {
					busiest = append(busiest, s.Busiest.Name+"="+CSVNum(float64(s.Busiest.Utilisation)))
				}
				for _, x := range s.Resources {
					res = append(res, x.Name+"="+CSVNum(float64(x.Utilisation)))
				}
			}
			for _, x := range r.Shifts {
				shifts = append(shifts, x.Name+"="+CSVNum(float64(x.Before))+">"+CSVNum(float64(x.After)))
			}
			bound := ""
			if b := r.CeilingChangeBound; b != nil {
				bound = b.Op + CSVNum(float64(b.Ratio))
			}
			slo := ""
			if r.SLO != "" {
				slo = CSVNum(float64(r.SLOCapacity))
			}
			g.Rows = append(g.Rows, []string{strconv.Itoa(r.N), r.Date.Format(time.RFC3339), r.Label, strings.Join(r.Files, ";"),
				r.Model, r.OfferedUnit, CSVNum(float64(r.Knee)), CSVNum(float64(r.KneeP95MS)),
				CSVNum(float64(r.CeilingRPS)), CSVNum(float64(r.CeilingLowRPS)), CSVNum(float64(r.CeilingHighRPS)),
				strconv.FormatBool(r.CeilingReached), CSVNum(float64(r.CeilingChangeRatio)), bound, r.SLO, slo,
				strconv.FormatUint(r.Requests, 10), CSVNum(float64(r.ErrorRate)), strings.Join(sat, ";"), strings.Join(busiest, ";"),
				strings.Join(res, ";"), strings.Join(shifts, ";"), strings.Join(r.FailedChecks, ";"), strings.Join(r.WarnedChecks, ";")})
		}
		return g
	}
	withSLO, withShifts := false, false
	units := map[string]bool{}
	for _, r := range rows {
		withSLO = withSLO || r.SLO != ""
		withShifts = withShifts || len(r.Shifts) > 0
		units[r.Unit()] = true
	}
	// One unit in the header; runs of different protocols name theirs in
	// each cell (and are not compared).
	ceilHead, ceilCell := "ceiling req/s", func(ledger.Row) string { return "" }
	if len(units) > 1 {
		ceilHead, ceilCell = "ceiling", func(r ledger.Row) string { return " " + r.Unit() }
	} else {
		for u := range units {
			ceilHead = "ceiling " + u
		}
	}
	g := &render.Grid{Header: []string{"#", "date (UTC)", "label", "knee", "p95 at knee ms", ceilHead, "vs previous"}, Drop: ledgerDrop}
	if withSLO {
		g.Header = append(g.Header, "SLO capacity")
	}
	g.Header = append(g.Header, "errors", "what saturated")
	if withShifts {
		g.Header = append(g.Header, "utilisation shifts")
	}
	g.Header = append(g.Header, "validity")
	for _, r := range rows {
		knee := offeredText(r.Knee, r.OfferedUnit)
		if r.KneeNotReached && r.Knee.Valid() {
			knee = "≥ " + knee
		}
		row := []string{strconv.Itoa(r.N), r.Date.Format("2006-01-02 15:04"), r.Label, knee,
			Num(float64(r.KneeP95MS)), LedgerCeiling(r.Entry) + ceilCell(r), LedgerRowChange(r)}
		if r.N == 1 {
			row[6] = ""
		}
		if withSLO {
			s := ""
			if r.SLO != "" {
				s = r.SLO + ": " + offeredText(r.SLOCapacity, r.OfferedUnit)
			}
			row = append(row, s)
		}
		row = append(row, Pct(float64(r.ErrorRate)), saturationText(r.Saturation))
		if withShifts {
			var sh []string
			for _, x := range r.Shifts {
				sh = append(sh, shiftText(x))
			}
			row = append(row, strings.Join(sh, "; "))
		}
		row = append(row, validityText(r.Entry))
		g.Rows = append(g.Rows, row)
	}
	return g
}

// offeredText is an offered load with its unit, "-" when missing.
func offeredText(v jsonnum.Float, unit string) string {
	if !v.Valid() {
		return "-"
	}
	return Num(float64(v)) + " " + unit
}

// LedgerCeiling is the ceiling, "≥ x" when it was not reached.
func LedgerCeiling(e ledger.Entry) string {
	s := Num(float64(e.CeilingRPS))
	if !e.CeilingReached && e.CeilingRPS.Valid() {
		s = "≥ " + s
	}
	return s
}

// LedgerRowChange is a row's change in ceiling from the entry before: a
// signed percentage, "≥ -61.5%" or "≤ +12.0%" when one of the ceilings was
// not reached (a bound, not a change), "-" when neither was or one is
// missing.
func LedgerRowChange(r ledger.Row) string {
	if b := r.CeilingChangeBound; b != nil {
		return b.Op + " " + LedgerChange(b.Ratio)
	}
	return LedgerChange(r.CeilingChangeRatio)
}

// shiftText is a resource's shift, "db-1 CPU 65.0% → 28.0%".
func shiftText(s ledger.Shift) string {
	return s.Name + " " + Pct(float64(s.Before)) + " → " + Pct(float64(s.After))
}

// LedgerChange is a signed percentage, "-" when unknown.
func LedgerChange(r jsonnum.Float) string {
	if !r.Valid() {
		return "-"
	}
	v := 100 * float64(r)
	if math.Abs(v) < 0.05 {
		return "0.0%"
	}
	return fmt.Sprintf("%+.1f%%", v)
}

// saturationText names the saturated resources, or the busiest one when
// nothing reached the threshold; "-" without Prometheus data.
func saturationText(s *ledger.Saturation) string {
	if s == nil {
		return "-"
	}
	var parts []string
	for _, r := range s.Saturated {
		parts = append(parts, r.Name+" "+Pct(float64(r.Utilisation)))
	}
	if len(parts) > 0 {
		return strings.Join(parts, "; ")
	}
	out := "nothing ≥ " + strconv.FormatFloat(100*s.ThresholdRatio, 'f', -1, 64) + "%"
	if s.Busiest != nil {
		out += " (busiest: " + s.Busiest.Name + " " + Pct(float64(s.Busiest.Utilisation)) + ")"
	}
	return out
}

// validityText lists the failed and warned checks, "ok" when none.
func validityText(e ledger.Entry) string {
	var parts []string
	if len(e.FailedChecks) > 0 {
		parts = append(parts, "fail: "+strings.Join(e.FailedChecks, ", "))
	}
	if len(e.WarnedChecks) > 0 {
		parts = append(parts, "warn: "+strings.Join(e.WarnedChecks, ", "))
	}
	if len(parts) == 0 {
		return "ok"
	}
	return strings.Join(parts, "; ")
}
