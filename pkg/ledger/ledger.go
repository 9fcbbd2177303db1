// Package ledger keeps the table of "one scenario after every change": one
// entry per run of the same load test, each with the knee, the ceiling,
// what saturated and the validity verdicts, so that the effect of each
// change on capacity is read down one column ("the query rewrite made
// queries 8× faster and moved the ceiling 0 %").
//
// A ledger is a JSON Lines file (one JSON object per line, oldest first)
// that the user keeps in a repository: appending a run adds one line, so
// diffs stay one line per run. Read records a line that is not a valid
// entry as a SyntaxError naming the file, line and column, and goes on.
package ledger

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/outfile"
	"github.com/ldanalyze/ldanalyze/internal/readcap"
	"github.com/ldanalyze/ldanalyze/pkg/checks"
	"github.com/ldanalyze/ldanalyze/pkg/jsonnum"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/saturation"
)

// Entry is one run in the ledger. Numbers the run did not yield (no knee,
// no ceiling) are NaN, written as null.
type Entry struct {
	// Date is when the run started (the first sample), UTC.
	Date time.Time `json:"date"`
	// Label names the change the run measures, e.g. "+ CONN_MAX_AGE=60".
	Label string `json:"label"`
	// Files are the k6 outputs of the run, as given.
	Files []string `json:"files"`
	// Model is the workload model, "open" or "closed".
	Model string `json:"model"`
	// OfferedUnit is the unit of Knee and SLOCapacity: "iterations/s"
	// (open model) or "VUs" (closed).
	OfferedUnit string `json:"offered_unit"`
	// Knee is the offered load at the knee, in OfferedUnit; KneeNotReached
	// marks it a lower bound (every level had headroom). Absent in
	// entries written before it was kept: reached.
	Knee           jsonnum.Float `json:"knee"`
	KneeNotReached bool          `json:"knee_not_reached,omitempty"`
	// KneeP95MS is the p95 latency at the knee, ms.
	KneeP95MS jsonnum.Float `json:"knee_p95_ms"`
	// CeilingRPS is the highest sustained goodput, successful responses
	// per second; CeilingLowRPS and CeilingHighRPS bound it (95 %
	// interval).
	CeilingRPS     jsonnum.Float `json:"ceiling_rps"`
	CeilingLowRPS  jsonnum.Float `json:"ceiling_low_rps"`
	CeilingHighRPS jsonnum.Float `json:"ceiling_high_rps"`
	// CeilingReached is false when completed load still followed offered
	// load at the highest level: CeilingRPS is then a lower bound.
	CeilingReached bool `json:"ceiling_reached"`
	// CompletedUnit is the unit of the ceiling: "req/s" (also when empty,
	// as in entries written before it was kept), "calls/s" for gRPC,
	// "msgs/s" for WebSocket messages. Ceilings of different units are
	// not compared.
	CompletedUnit string `json:"completed_unit,omitempty"`
	// SLO is the objective the run was judged on ("" when none), and
	// SLOCapacity the offered load (OfferedUnit) up to which it was met.
	SLO         string        `json:"slo,omitempty"`
	SLOCapacity jsonnum.Float `json:"slo_capacity,omitempty"`
	// Requests is the number of HTTP requests of the run.
	Requests uint64 `json:"requests"`
	// ErrorRate is failed ÷ all requests over the whole run, a 0–1 ratio.
	ErrorRate jsonnum.Float `json:"error_rate"`
	// Saturation is what Prometheus said saturated at the ceiling; nil when
	// the run was added without Prometheus data.
	Saturation *Saturation `json:"saturation"`
	// FailedChecks and WarnedChecks are the ids of the validity checks
	// (`ldanalyze check`) that failed or warned, in the checks' order.
	FailedChecks []string `json:"failed_checks"`
	WarnedChecks []string `json:"warned_checks"`
}

// Saturation is what saturated at the ceiling level.
type Saturation struct {
	// Saturated are the resources at or above ThresholdRatio, highest
	// first; empty when nothing was.
	Saturated []Resource `json:"saturated"`
	// ThresholdRatio is the utilisation counted as saturated, 0–1 ratio.
	ThresholdRatio float64 `json:"threshold"`
	// Busiest is the most utilised resource whether saturated or not (nil
	// when none was measured).
	Busiest *Resource `json:"busiest"`
	// Resources are every resource measured at the ceiling level, highest
	// utilisation first, so that a resource's shift between runs shows
	// (db 65 % → 28 %) whether or not it saturated; absent from entries
	// added before ldanalyze kept them.
	Resources []Resource `json:"resources,omitempty"`
}

// Resource is one resource's utilisation at the ceiling level.
type Resource struct {
	// Name is the resource, e.g. "db-1:9100 node CPU".
	Name string `json:"name"`
	// Utilisation is used ÷ capacity, a 0–1 ratio (above 1 for a pod
	// bursting over a request-based limit).
	Utilisation jsonnum.Float `json:"utilisation"`
}

// NewEntry makes the entry of one run from its knee analysis, its validity
// checks and (nil without Prometheus data) its attribution.
func NewEntry(label string, files []string, res *knee.Result, cs []checks.Check, attr *saturation.Attribution) Entry {
	nan := jsonnum.Float(math.NaN())
	e := Entry{
		Date: res.Start.UTC(), Label: label, Files: slices.Clone(files),
		Model: string(res.Model), OfferedUnit: res.OfferedUnit,
		Knee: nan, KneeP95MS: nan, CeilingRPS: nan, CeilingLowRPS: nan, CeilingHighRPS: nan,
		Requests: res.Overall.Requests, ErrorRate: res.Overall.ErrorRate,
		FailedChecks: []string{}, WarnedChecks: []string{},
	}
	if e.Files == nil {
		e.Files = []string{}
	}
	if k := res.Knee; k != nil {
		e.Knee, e.KneeP95MS, e.KneeNotReached = k.Offered, k.P95MS, !k.Reached
	}
	if res.CompletedUnit != "req/s" {
		e.CompletedUnit = res.CompletedUnit
	}
	if c := res.Ceiling; c != nil {
		e.CeilingRPS, e.CeilingLowRPS, e.CeilingHighRPS, e.CeilingReached = c.CompletedRPS, c.Low, c.High, c.Reached
	}
	if s := res.SLO; s != nil {
		e.SLO, e.SLOCapacity = s.Expr, s.MaxOffered
	}
	for _, c := range cs {
		switch c.Status {
		case checks.Fail:
			e.FailedChecks = append(e.FailedChecks, string(c.ID))
		case checks.Warn:
			e.WarnedChecks = append(e.WarnedChecks, string(c.ID))
		}
	}
	if attr != nil {
		s := &Saturation{Saturated: []Resource{}, ThresholdRatio: attr.SaturatedRatio}
		for _, r := range attr.Saturated {
			s.Saturated = append(s.Saturated, Resource{Name: r.Resource, Utilisation: r.Utilisation})
		}
		if attr.Busiest != "" {
			s.Busiest = &Resource{Name: attr.Busiest, Utilisation: attr.BusiestUtilisation}
		}
		for _, lu := range attr.Utilisation {
			if !lu.Start.Equal(attr.CeilingLevelStart) {
				continue
			}
			for name, u := range lu.Resources {
				if u.Valid() {
					s.Resources = append(s.Resources, Resource{Name: name, Utilisation: u})
				}
			}
		}
		slices.SortFunc(s.Resources, func(a, b Resource) int {
			return cmp.Or(cmp.Compare(b.Utilisation, a.Utilisation), cmp.Compare(a.Name, b.Name))
		})
		e.Saturation = s
	}
	return e
}

// Row is an entry as `ledger show` lists it: with its position, the
// change in ceiling from the entry before it and the resources whose
// utilisation at the ceiling shifted.
type Row struct {
	// N is the entry's position in the ledger, from 1.
	N int `json:"n"`
	Entry
	// CeilingChangeRatio is (CeilingRPS − previous CeilingRPS) ÷ previous
	// CeilingRPS, a ratio (0.25 is +25 %); NaN for the first entry, when
	// either ceiling is missing, or when either was not reached (a lower
	// bound: then CeilingChangeBound may say which way the change is
	// bounded).
	CeilingChangeRatio jsonnum.Float `json:"ceiling_change_ratio"`
	// CeilingChangeBound bounds the change when one of the two ceilings
	// is a lower bound: this run's not reached gives "≥" (the change is
	// at least Ratio), the previous one's not reached "≤"; nil otherwise.
	CeilingChangeBound *Bound `json:"ceiling_change_bound"`
	// Shifts are the resources measured at both ceilings whose
	// utilisation moved by ShiftMin or more, largest move first.
	Shifts []Shift `json:"utilisation_shifts"`
}

// Bound is a one-sided change: Op "≥" or "≤" and the Ratio it bounds.
type Bound struct {
	Op    string        `json:"op"`
	Ratio jsonnum.Float `json:"ratio"`
}

// Shift is a resource's utilisation at the previous entry's ceiling and
// at this one's, 0–1 ratios.
type Shift struct {
	Name   string        `json:"name"`
	Before jsonnum.Float `json:"before"`
	After  jsonnum.Float `json:"after"`
}

// ShiftMin is the smallest move of a resource's utilisation, a 0–1
// difference, that Rows lists as a shift (10 percentage points).
const ShiftMin = 0.10

// Rows lists the entries with the change in ceiling from each previous
// entry and the shifts of utilisation. A change against or of a ceiling
// that was not reached is not a change but a bound (CeilingChangeBound);
// neither reached: no change at all.
func Rows(entries []Entry) []Row {
	out := make([]Row, len(entries))
	for i, e := range entries {
		out[i] = Row{N: i + 1, Entry: e, CeilingChangeRatio: jsonnum.Float(math.NaN()), Shifts: []Shift{}}
		if i == 0 {
			continue
		}
		p := entries[i-1]
		prev, cur := float64(p.CeilingRPS), float64(e.CeilingRPS)
		if p.Unit() == e.Unit() && prev > 0 && !math.IsInf(prev, 0) && !math.IsNaN(cur) && !math.IsInf(cur, 0) {
			ratio := jsonnum.Float((cur - prev) / prev)
			switch {
			case p.CeilingReached && e.CeilingReached:
				out[i].CeilingChangeRatio = ratio
			case p.CeilingReached:
				out[i].CeilingChangeBound = &Bound{Op: "≥", Ratio: ratio}
			case e.CeilingReached:
				out[i].CeilingChangeBound = &Bound{Op: "≤", Ratio: ratio}
			}
		}
		out[i].Shifts = shifts(p.Saturation, e.Saturation)
	}
	return out
}

// shifts are the resources of both saturations that moved by ShiftMin or
// more, largest move first.
func shifts(before, after *Saturation) []Shift {
	out := []Shift{}
	if before == nil || after == nil {
		return out
	}
	was := map[string]jsonnum.Float{}
	for _, r := range before.Resources {
		was[r.Name] = r.Utilisation
	}
	for _, r := range after.Resources {
		if b, ok := was[r.Name]; ok && math.Abs(float64(r.Utilisation-b)) >= ShiftMin-1e-12 {
			out = append(out, Shift{Name: r.Name, Before: b, After: r.Utilisation})
		}
	}
	slices.SortStableFunc(out, func(x, y Shift) int {
		return cmp.Compare(math.Abs(float64(y.After-y.Before)), math.Abs(float64(x.After-x.Before)))
	})
	return out
}

// SyntaxError is a ledger line that is not a valid entry.
type SyntaxError struct {
	// File is the ledger's name as given to Read.
	File string
	// Line counts from 1; Column is the byte in the line where the JSON
	// decoder stopped, from 1 (0 when unknown).
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	if e.Column > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Ledger is a ledger as read: its valid entries in file order, the line
// each came from, and the lines that were not valid entries.
type Ledger struct {
	Entries []Entry
	// Lines[i] is the line (from 1) of Entries[i].
	Lines []int
	// Errors are the lines that were not valid entries; the read went on
	// past them.
	Errors []*SyntaxError
}

// maxLine bounds one ledger line, bytes.
const maxLine = 1 << 20

// MaxLedgerBytes bounds a ledger, bytes: an entry is about 1 KB, so this
// is tens of thousands of runs; a bigger file is not a ledger.
const MaxLedgerBytes = 64 << 20

// what names a ledger in the error of a file over the cap.
const what = "a ledger (JSON Lines, one run per line)"

// Read reads a ledger from r; file names it in errors. Blank lines are
// skipped. It returns an error only when r fails or holds more than
// MaxLedgerBytes (a *readcap.TooLargeError naming the cap and the file).
func Read(r io.Reader, file string) (*Ledger, error) {
	l := &Ledger{}
	sc := bufio.NewScanner(readcap.NewReader(r, MaxLedgerBytes, file, what))
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(b, &e); err != nil {
			l.Errors = append(l.Errors, syntaxError(file, line, b, err))
			continue
		}
		if e.Date.IsZero() {
			l.Errors = append(l.Errors, &SyntaxError{File: file, Line: line, Msg: "entry has no date"})
			continue
		}
		l.Entries = append(l.Entries, e)
		l.Lines = append(l.Lines, line)
	}
	if err := sc.Err(); err != nil {
		if tl := (*readcap.TooLargeError)(nil); errors.As(err, &tl) {
			return l, tl
		}
		if errors.Is(err, bufio.ErrTooLong) {
			return l, fmt.Errorf("%s:%d: line longer than %d bytes: not a ledger", file, line+1, maxLine)
		}
		return l, fmt.Errorf("reading %s: %w", file, err)
	}
	return l, nil
}

// syntaxError turns a json error on line b into a SyntaxError with the
// column the decoder reached.
func syntaxError(file string, line int, b []byte, err error) *SyntaxError {
	se := &SyntaxError{File: file, Line: line, Msg: err.Error()}
	var js *json.SyntaxError
	var jt *json.UnmarshalTypeError
	switch {
	case errors.As(err, &js):
		se.Column = int(js.Offset)
		se.Msg = "invalid JSON: " + js.Error()
	case errors.As(err, &jt):
		se.Column = int(jt.Offset)
		se.Msg = "not a ledger entry: " + jt.Error()
	default:
		se.Msg = "not a ledger entry: " + badField(b, err)
	}
	if se.Column > len(b) {
		se.Column = len(b)
	}
	return se
}

// badField names the field of the JSON object b that fails to decode into
// an Entry (errors from a field's own UnmarshalJSON do not name it).
func badField(b []byte, err error) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return err.Error()
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		one, _ := json.Marshal(map[string]json.RawMessage{k: m[k]})
		var e Entry
		if ferr := json.Unmarshal(one, &e); ferr != nil {
			return fmt.Sprintf("field %q: %v", k, ferr)
		}
	}
	return err.Error()
}

// ReadFile reads the ledger at path (see Read).
func ReadFile(path string) (*Ledger, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Marshal returns e as one ledger line: compact JSON (with '<', '>' and
// '&' as they are, for reading in a diff) and a newline.
func Marshal(e Entry) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// AppendFile appends the entries to the ledger at path, one line each,
// creating the file (and its directory) if needed. A last line without its
// newline is ended first, so the new entry starts a line of its own.
//
// The ledger is never changed in place: its content and the new lines are
// written to a temporary file beside it, synced to disk and renamed over it
// (internal/outfile), so a crash, a kill or a full disk leaves the old
// ledger or the new one, never a torn line. When another process changed
// the ledger meanwhile (two adds at once), the append starts again from
// the new content, up to 5 times. A ledger that is a symbolic link to a
// file is refused (give the file itself).
func AppendFile(path string, entries ...Entry) error {
	var add []byte
	for _, e := range entries {
		b, err := Marshal(e)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		add = append(add, b...)
	}
	return appendFile(path, add, func() {})
}

// appendFile is AppendFile of the lines add; changed runs before each
// check that the ledger did not change (a test's other writer).
func appendFile(path string, add []byte, changed func()) error {
	for attempt := 1; ; attempt++ {
		old, err := readRaw(path)
		if err != nil {
			return err
		}
		f, err := outfile.Create(path, outfile.Options{})
		if err != nil {
			return err
		}
		f.Write(old)
		if n := len(old); n > 0 && old[n-1] != '\n' {
			f.Write([]byte{'\n'})
		}
		f.Write(add)
		if err := f.Close(); err != nil {
			f.Abort()
			return err
		}
		changed()
		now, err := readRaw(path)
		if err != nil {
			f.Abort()
			return err
		}
		if !bytes.Equal(now, old) {
			f.Abort()
			if attempt < 5 {
				continue
			}
			return fmt.Errorf("%s changed while the entry was added, %d times: not added; add it again", path, attempt)
		}
		return f.Commit()
	}
}

// readRaw returns the ledger's bytes, nil when it does not exist yet.
func readRaw(path string) ([]byte, error) {
	b, err := readcap.ReadFile(path, MaxLedgerBytes, what)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// Unit is the unit of e's ceiling: CompletedUnit, "req/s" when empty.
func (e Entry) Unit() string {
	if e.CompletedUnit == "" {
		return "req/s"
	}
	return e.CompletedUnit
}
