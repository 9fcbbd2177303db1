package ledger

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/checks"
	"github.com/ldanalyze/ldanalyze/pkg/jsonnum"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/saturation"
)

// breakpointResult is the part of `ldanalyze knee --format json
// testdata/k6/breakpoint.csv.gz` an entry is made from (numbers copied from
// that output; the README expects the knee at the 180 it/s step and a
// ceiling near 188 req/s).
func breakpointResult() *knee.Result {
	return &knee.Result{
		Model: "open", OfferedUnit: "iterations/s",
		Start:   time.Date(2026, 11, 30, 2, 7, 9, 0, time.UTC),
		Knee:    &knee.Knee{Offered: 180.77777777777777, CompletedRPS: 181.22222222222223, P95MS: 67.875, Reached: true},
		Ceiling: &knee.Ceiling{CompletedRPS: 183.875, Low: 178.59700473410706, High: 187.98632859922625, Reached: true},
		Overall: knee.Overall{Requests: 23232, ErrorRate: 0.14195936639118456},
	}
}

// breakpointChecks are its validity verdicts (same output).
var breakpointChecks = []checks.Check{
	{ID: "model", Status: checks.OK}, {ID: "dropped-iterations", Status: checks.Warn},
	{ID: "checks", Status: checks.Fail}, {ID: "errors", Status: checks.Fail},
	{ID: "rate-limited", Status: checks.Fail}, {ID: "summary-vs-knee", Status: checks.Warn},
	{ID: "generator", Status: checks.NA},
}

func TestNewEntry(t *testing.T) {
	// testdata/prom/database_95 (gen_fixtures.py) puts db-1's node CPU at
	// 0.95 over the ceiling hold.
	attr := &saturation.Attribution{
		Saturated:      []saturation.Saturation{{Resource: "db-1:9100 node CPU", Utilisation: 0.95}},
		SaturatedRatio: 0.9, Busiest: "db-1:9100 node CPU", BusiestUtilisation: 0.95,
	}
	got := NewEntry("+ pool", []string{"run.csv.gz"}, breakpointResult(), breakpointChecks, attr)
	want := Entry{
		Date: time.Date(2026, 11, 30, 2, 7, 9, 0, time.UTC), Label: "+ pool", Files: []string{"run.csv.gz"},
		Model: "open", OfferedUnit: "iterations/s",
		Knee: 180.77777777777777, KneeP95MS: 67.875,
		CeilingRPS: 183.875, CeilingLowRPS: 178.59700473410706, CeilingHighRPS: 187.98632859922625, CeilingReached: true,
		Requests: 23232, ErrorRate: 0.14195936639118456,
		Saturation: &Saturation{
			Saturated:      []Resource{{Name: "db-1:9100 node CPU", Utilisation: 0.95}},
			ThresholdRatio: 0.9, Busiest: &Resource{Name: "db-1:9100 node CPU", Utilisation: 0.95},
		},
		FailedChecks: []string{"checks", "errors", "rate-limited"},
		WarnedChecks: []string{"dropped-iterations", "summary-vs-knee"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}

	// No knee, no ceiling, no Prometheus: NaN numbers, nil saturation.
	res := breakpointResult()
	res.Knee, res.Ceiling = nil, nil
	e := NewEntry("x", nil, res, nil, nil)
	if e.Knee.Valid() || e.CeilingRPS.Valid() || e.Saturation != nil || e.Files == nil || e.FailedChecks == nil {
		t.Errorf("entry without knee/ceiling/prom: %+v", e)
	}
}

// TestRows: the change in ceiling (both reached) is relative to the entry before. Hand
// calculation: (183.875 − 187.4) ÷ 187.4 = −0.0188100320170758 (exact to
// float rounding, 1e-15).
func TestRows(t *testing.T) {
	nan := jsonnum.Float(math.NaN())
	rows := Rows([]Entry{{CeilingRPS: 187.4, CeilingReached: true}, {CeilingRPS: 183.875, CeilingReached: true}, {CeilingRPS: nan}, {CeilingRPS: 100, CeilingReached: true}, {CeilingRPS: 100, CeilingReached: true}})
	want := []float64{math.NaN(), -0.0188100320170758, math.NaN(), math.NaN(), 0}
	for i, r := range rows {
		got := float64(r.CeilingChangeRatio)
		if r.N != i+1 || math.IsNaN(want[i]) != math.IsNaN(got) || math.Abs(got-want[i]) > 1e-15 {
			t.Errorf("row %d: n=%d change %v, want n=%d change %v", i, r.N, got, i+1, want[i])
		}
	}
}

// TestRead: bad lines are recorded with file, line and column and the
// read goes on; blank lines are skipped.
func TestRead(t *testing.T) {
	good := `{"date":"2026-11-30T02:07:09Z","label":"a","ceiling_rps":183.875,"knee":null}`
	in := strings.Join([]string{
		good,
		"",
		"<<<<<<< HEAD",
		`{"date":"2026-11-30T02:07:09Z","label":"b","ceiling_rps":"fast"}`,
		`{"label":"no date"}`,
		`{"date":"2026-11-30T02:07:09Z", "label":`,
		"null",
		`[1,2]`,
		good,
	}, "\n")
	l, err := Read(strings.NewReader(in), "ledger.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Entries) != 2 || !reflect.DeepEqual(l.Lines, []int{1, 9}) {
		t.Fatalf("entries %d at lines %v, want 2 at [1 9]", len(l.Entries), l.Lines)
	}
	if e := l.Entries[0]; e.Label != "a" || e.CeilingRPS != 183.875 || e.Knee.Valid() {
		t.Errorf("entry 1 = %+v", e)
	}
	var got []string
	for _, e := range l.Errors {
		got = append(got, e.Error())
	}
	want := []string{
		"ledger.json:3:1: invalid JSON: invalid character '<' looking for beginning of value",
		`ledger.json:4: not a ledger entry: field "ceiling_rps": strconv.ParseFloat: parsing "\"fast\"": invalid syntax`,
		"ledger.json:5: entry has no date",
		"ledger.json:6:40: invalid JSON: unexpected end of JSON input",
		"ledger.json:7: entry has no date",
		"ledger.json:8:1: not a ledger entry: json: cannot unmarshal array into Go value of type ledger.Entry",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestAppendRoundTrip: entries appended to a file read back equal, row for
// row; a last line without its newline is ended first.
func TestAppendRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	a := NewEntry(`label with "quotes" & <angle>`, []string{"a.csv", "b.csv"}, breakpointResult(), breakpointChecks, nil)
	if err := AppendFile(path, a); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"label":"label with \"quotes\" & <angle>"`)) || bytes.Count(b, []byte("\n")) != 1 {
		t.Errorf("line = %s", b)
	}
	// A hand edit that dropped the final newline.
	if err := os.WriteFile(path, bytes.TrimRight(b, "\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := breakpointResult()
	res.Ceiling = nil
	c := NewEntry("no ceiling", []string{"c.csv"}, res, nil, &saturation.Attribution{SaturatedRatio: 0.9, Saturated: []saturation.Saturation{}})
	if err := AppendFile(path, c); err != nil {
		t.Fatal(err)
	}
	l, err := ReadFile(path)
	if err != nil || len(l.Errors) > 0 {
		t.Fatalf("%v %v", err, l.Errors)
	}
	if len(l.Entries) != 2 || !reflect.DeepEqual(l.Lines, []int{1, 2}) {
		t.Fatalf("read %d entries at lines %v, want 2 at [1 2]", len(l.Entries), l.Lines)
	}
	for i, want := range []Entry{a, c} {
		wb, _ := Marshal(want)
		gb, _ := Marshal(l.Entries[i])
		if !bytes.Equal(wb, gb) {
			t.Errorf("entry %d:\n got %s\nwant %s", i+1, gb, wb)
		}
	}
	if l.Entries[1].CeilingRPS.Valid() || l.Entries[1].Saturation == nil || l.Entries[1].Saturation.Busiest != nil {
		t.Errorf("entry 2 = %+v", l.Entries[1])
	}
}

func TestReadFileMissing(t *testing.T) {
	_, err := ReadFile(filepath.Join(t.TempDir(), "none.json"))
	if !os.IsNotExist(err) {
		t.Errorf("err = %v, want not-exist", err)
	}
}

// FuzzRead: any input reads without panicking; every non-blank line is an
// entry or an error, and each error names a line that exists.
func FuzzRead(f *testing.F) {
	f.Add(`{"date":"2026-11-30T02:07:09Z","label":"a","ceiling_rps":183.875}` + "\n")
	f.Add("<<<<<<< HEAD\n{}\nnull\n")
	f.Add(`{"date":"x"}`)
	f.Fuzz(func(t *testing.T, s string) {
		l, err := Read(strings.NewReader(s), "f")
		if err != nil {
			return
		}
		lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
		nonBlank := 0
		for _, x := range lines {
			if len(bytes.TrimSpace([]byte(x))) > 0 {
				nonBlank++
			}
		}
		if len(l.Entries)+len(l.Errors) != nonBlank {
			t.Fatalf("%d entries + %d errors for %d non-blank lines", len(l.Entries), len(l.Errors), nonBlank)
		}
		for _, e := range l.Errors {
			if e.Line < 1 || e.Line > len(lines) {
				t.Fatalf("error on line %d of %d", e.Line, len(lines))
			}
		}
	})
}
