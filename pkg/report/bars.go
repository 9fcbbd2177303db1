package report

import (
	"math"
	"strings"
)

// barWidth is the width of the inline bar charts, in characters.
const barWidth = 12

// eighths are the partial blocks U+258F…U+2589, one to seven eighths wide.
var eighths = []string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"}

// Bar draws v against top as a unicode bar of at most width characters,
// in eighths of a character: Bar(5, 10, 4) is "██". NaN, v ≤ 0 or top ≤ 0
// give an empty bar; v above top is drawn at full width.
func Bar(v, top float64, width int) string {
	if !(v > 0) || !(top > 0) || width <= 0 || math.IsInf(top, 0) {
		return ""
	}
	n := int(math.Round(math.Min(v/top, 1) * float64(width) * 8))
	if n == 0 {
		n = 1 // a positive value is never invisible
	}
	return strings.Repeat("█", n/8) + eighths[n%8]
}
