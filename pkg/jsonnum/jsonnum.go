// Package jsonnum has a float64 that is safe to encode as JSON: encoding/json
// refuses NaN and ±Inf, which an analysis legitimately produces (the p95 of a
// window with no successful response, a rate over a zero-length run). Float
// writes them as null, so one missing number does not fail a whole report.
package jsonnum

import (
	"math"
	"strconv"
)

// Float is a float64 whose JSON form is a number, or null for NaN and ±Inf.
type Float float64

// MarshalJSON writes the shortest decimal that round-trips, or null.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

// UnmarshalJSON reads a number, or null as NaN.
func (f *Float) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = Float(math.NaN())
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return err
	}
	*f = Float(v)
	return nil
}

// Valid reports whether f is a finite number.
func (f Float) Valid() bool { return !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) }
