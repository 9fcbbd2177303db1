// Package present renders ldanalyze's results for people and programs:
// every table and sentence the commands and the report print, and the one
// number formatter they share, so that `knee`, `check` and `report` print
// the same numbers the same way. Renderers write to an io.Writer or return
// a render.Grid; nothing here reads files or computes an analysis.
package present

import (
	"math"
	"strconv"

	"github.com/ldanalyze/ldanalyze/pkg/scale"
)

// Num formats a number for a table cell or a sentence: "-" for NaN and
// ±Inf, otherwise with digits suited to its size (integers whole, ≥ 100
// one decimal, ≥ 1 two decimals, smaller three significant digits, from
// 1e9 four significant digits).
func Num(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "-"
	case math.Abs(v) >= 1e9:
		return strconv.FormatFloat(v, 'g', 4, 64)
	case v == math.Trunc(v):
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case math.Abs(v) >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// CSVNum formats a number for machine output: full precision, NaN and
// ±Inf as "".
func CSVNum(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// Pct formats a 0–1 ratio as a percentage with one decimal: 0.201 →
// "20.1%"; NaN → "-".
func Pct(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(100*v, 'f', 1, 64) + "%"
}

// Plural is "s" unless n is 1.
func Plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// BytesPerS formats a network rate in bytes per second with a decimal
// prefix: 12653 → "12.65 kB/s"; NaN → "-".
func BytesPerS(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return scale.BytesPerSecond.Format(v)
}
