package scale

import "strings"

// growthClasses are the bands of Interpret, each from its lower bound up to
// the next one's. The mechanisms are hypotheses to check against the
// protocol, not conclusions (methods.md §7, "Interpretation guide").
var growthClasses = []struct {
	from    float64
	meaning string
}{
	{-0.15, "constant: y does not grow with x"},
	{0.15, "sub-linear: sharing, caching or batching"},
	{0.85, "linear: a constant cost per member"},
	{1.15, "super-linear, nearer linear than quadratic: a per-member cost that grows slowly with N"},
	{1.5, "nearly quadratic: most members get something that grows with N"},
	{1.85, "quadratic: every member gets something of size N (all-to-all broadcast)"},
	{2.15, "super-quadratic: a broadcast whose message size also grows with N"},
	{2.5, "nearly cubic: close to something of size N sent to N members N times"},
	{2.85, "cubic: something of size N sent to N members N times"},
	{3.15, "super-cubic: faster than cubic; check the measurements"},
}

// Interpret names the growth class of exponent b (dimensionless) in plain
// words, as "class: mechanism". The bands are ±0.15 around 0, 1, 2 and 3
// ("constant", "linear", "quadratic", "cubic"), with "nearly …" and
// "super-…" between them; below −0.15 y decreases with x. The mechanisms
// follow methods.md §7 and issue 7: b ≈ 1 a constant cost per member, b ≈ 2
// every member gets something of size N, b ≈ 3 something of size N sent to
// N members N times. Interpret(2.665) is "nearly cubic: …".
func Interpret(b float64) string {
	if b < growthClasses[0].from {
		return "decreasing: y falls as x grows"
	}
	m := growthClasses[0].meaning
	for _, c := range growthClasses {
		if b >= c.from {
			m = c.meaning
		}
	}
	return m
}

// className is the part of an Interpret result before the colon.
func className(s string) string {
	c, _, _ := strings.Cut(s, ":")
	return c
}
