// Package checks answers "did the load test measure the system, or itself?":
// a list of validity verdicts on a k6 run, each with a stable id, a status,
// its evidence as named numbers and one sentence on what it means and what
// to do.
//
// Evaluate reads the run's timeline.Timeline (what was counted, by the one
// outcome rule) and its knee.Result, which supplies the workload model and
// the load levels (holds or ramp steps) the per-level checks work on. The
// load generator's check takes its pods' CPU series as plain data
// (GeneratorData; pkg/pipeline builds it from a Prometheus export).
//
// Methods and thresholds: research/methods.md §4 (coordinated omission),
// research/user-pain.md BL-11 (a whole-run summary hides the knee), BL-12
// and BL-13 (errors skew percentiles), BL-14 (closed models), and k6's own
// docs on dropped iterations, error codes (1000+status, 1050 request
// timeout, 1211 dial timeout) and cardinality.
package checks

import (
	"bytes"
	"encoding/json"

	"github.com/ldanalyze/ldanalyze/pkg/jsonnum"
)

// Status is the outcome of one check.
type Status string

// The statuses a check can have.
const (
	// OK means the check found nothing wrong.
	OK Status = "ok"
	// Warn means a caveat: the numbers are usable with care.
	Warn Status = "warn"
	// Fail means the run measured something else than the system's
	// capacity, or broke an objective; `ldanalyze check` exits 1.
	Fail Status = "fail"
	// NA means the input lacks what the check needs.
	NA Status = "n/a"
)

// ID names a check. Its text is the check's stable code, the same across
// versions: scripts, CI (JUnit test cases, `ledger` entries) and the JSON
// output match on it.
type ID string

// The checks, in the order Evaluate reports them (IDs).
const (
	IDModel               ID = "model"
	IDDuration            ID = "duration"
	IDResolution          ID = "resolution"
	IDCoordinatedOmission ID = "coordinated-omission"
	IDDroppedIterations   ID = "dropped-iterations"
	IDChecks              ID = "checks"
	IDErrors              ID = "errors"
	IDRateLimited         ID = "rate-limited"
	IDSummaryVsKnee       ID = "summary-vs-knee"
	IDGenerator           ID = "generator"
	IDCardinality         ID = "cardinality"
)

// IDs lists every check in report order. The caller may not modify it.
var IDs = []ID{IDModel, IDDuration, IDResolution, IDCoordinatedOmission, IDDroppedIterations, IDChecks,
	IDErrors, IDRateLimited, IDSummaryVsKnee, IDGenerator, IDCardinality, IDBacklog, IDThresholds, IDInput}

// Value is one named number of a check's evidence. Units are in the name
// (…_ms milliseconds, …_s seconds, …_per_s per second, …_rate or …_share a
// ratio 0–1, a plain name a count); NaN means "not known".
type Value struct {
	Name  string
	Value float64
}

// Evidence is the ordered list of a check's numbers. Its JSON form is an
// object {name: number} in list order, with NaN as null.
type Evidence []Value

// MarshalJSON writes the evidence as one JSON object, keeping the order.
func (e Evidence) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, v := range e {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(v.Name)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		n, _ := jsonnum.Float(v.Value).MarshalJSON()
		b.Write(n)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Get returns the value named name and whether the evidence has it.
func (e Evidence) Get(name string) (float64, bool) {
	for _, v := range e {
		if v.Name == name {
			return v.Value, true
		}
	}
	return 0, false
}

func (e *Evidence) add(name string, v float64) { *e = append(*e, Value{name, v}) }

// Check is one validity verdict.
type Check struct {
	// ID is one of the ID… constants.
	ID ID `json:"id"`
	// Status is ok, warn, fail or n/a.
	Status Status `json:"status"`
	// Evidence holds the numbers the status was decided on.
	Evidence Evidence `json:"evidence"`
	// Message says in one sentence what the status means and what to do.
	Message string `json:"message"`
}

// Report is the list of checks of one run, in a fixed order (model first).
type Report struct {
	Checks []Check `json:"checks"`
}

// Failed reports whether any check has status Fail.
func (r *Report) Failed() bool {
	for _, c := range r.Checks {
		if c.Status == Fail {
			return true
		}
	}
	return false
}

// Find returns the check with the given id, or nil.
func (r *Report) Find(id ID) *Check {
	for i := range r.Checks {
		if r.Checks[i].ID == id {
			return &r.Checks[i]
		}
	}
	return nil
}
