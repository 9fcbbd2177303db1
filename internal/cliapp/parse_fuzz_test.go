package cliapp

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzParsePercentiles: every parsed percentile is in (0, 100], one per
// non-empty field, and "p(N)" of each parses back to the same list.
func FuzzParsePercentiles(f *testing.F) {
	for _, s := range []string{"50,90,95,99", "p95, p(99.9)", "", "0", "NaN", "101", "p(50", ",,50,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := Percentiles(s)
		if err != nil {
			return
		}
		if len(ps) != len(List([]string{s})) {
			t.Fatalf("%q → %v: not one per field", s, ps)
		}
		var again []string
		for _, p := range ps {
			if !(p > 0 && p <= 100) {
				t.Fatalf("%q → %v", s, ps)
			}
			again = append(again, "p("+strconv.FormatFloat(p, 'g', -1, 64)+")")
		}
		if ps2, err := Percentiles(strings.Join(again, ",")); err != nil || !slices.Equal(ps2, ps) {
			t.Fatalf("%q → %v → %v, %v", s, ps, ps2, err)
		}
	})
}

// FuzzParseTime: a time given as Unix seconds is that many seconds from
// the epoch (to 1 µs), and every parsed time parses back from its RFC 3339
// form to the same instant.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2026-11-30T02:07:09Z", "1796004420", "1796004420.25", "-1", "1e300", "NaN", "2026-11-30T02:07:09.5+02:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tm, err := ParseTime("start", s)
		if err != nil {
			return
		}
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			if got := float64(tm.Unix()) + float64(tm.Nanosecond())/1e9; math.Abs(got-v) > 1e-6*math.Max(1, math.Abs(v)) {
				t.Fatalf("%q → %v (%v s)", s, tm, got)
			}
		}
		again, err := ParseTime("start", tm.Format(time.RFC3339Nano))
		if err != nil || !again.Equal(tm) {
			t.Fatalf("%q → %v → %v, %v", s, tm, again, err)
		}
	})
}
