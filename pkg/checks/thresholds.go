package checks

import (
	"fmt"
	"strings"
)

// IDThresholds is the check of k6 thresholds over the whole run.
const IDThresholds ID = "thresholds"

// thresholds judges the k6 thresholds given (check --threshold, and those
// of --summary) over the whole run, as k6 does at the end of a test (exit
// code 99 when one fails): fail when one does not hold, and fail when one
// matches no sample — k6 refuses a threshold on a metric the script does
// not have, and a misspelt metric or a tag filter that matches nothing
// would otherwise pass every gate. The per-level view is summary-vs-knee's.
func (e *eval) thresholds() Check {
	ch := Check{ID: IDThresholds}
	thr := e.tl.Thresholds()
	if len(thr) == 0 {
		ch.Status, ch.Message = NA, "no thresholds given: --threshold EXPR (k6 syntax, repeatable) or --summary FILE re-evaluates k6 thresholds on the run."
		return ch
	}
	var failed, empty, held []string
	for i, t := range thr {
		v, ok := e.tl.ThresholdValue(i, e.s0, e.s1)
		ch.Evidence.add(fmt.Sprintf("threshold_%d", i+1), v)
		switch {
		case !ok:
			empty = append(empty, t.Source)
		case !t.Holds(v):
			failed = append(failed, fmt.Sprintf("%s (%s)", t.Source, fmtNum(v)))
		default:
			held = append(held, t.Source)
		}
	}
	ch.Evidence.add("thresholds", float64(len(thr)))
	ch.Evidence.add("failed", float64(len(failed)))
	ch.Evidence.add("without_samples", float64(len(empty)))
	var parts []string
	if len(failed) > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d thresholds fail over the whole run: %s (k6 would exit 99)", len(failed), len(thr), strings.Join(failed, ", ")))
	}
	if len(empty) > 0 {
		parts = append(parts, fmt.Sprintf("%s matches no sample of the run: a misspelt metric or a tag filter that matches nothing (k6 refuses a threshold on a metric the script lacks)", strings.Join(empty, ", ")))
	}
	if len(parts) > 0 {
		ch.Status = Fail
		ch.Message = strings.Join(parts, "; ") + "."
		return ch
	}
	ch.Status = OK
	ch.Message = fmt.Sprintf("every threshold holds over the whole run: %s (summary-vs-knee judges them per load level).", strings.Join(held, ", "))
	return ch
}
