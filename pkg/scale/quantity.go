package scale

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Unit is the base unit a Quantity was converted to at parse time.
type Unit string

// The base units. Every parsed value is stored in one of them.
const (
	// Count is a dimensionless number (players, requests, VUs).
	Count Unit = ""
	// Bytes is a size in bytes.
	Bytes Unit = "B"
	// Seconds is a duration in seconds.
	Seconds Unit = "s"
	// PerSecond is a count per second (requests/s).
	PerSecond Unit = "/s"
	// BytesPerSecond is a transfer rate in bytes per second.
	BytesPerSecond Unit = "B/s"
)

// Quantity is a number converted to its base unit.
type Quantity struct {
	// Value is in Unit: bytes, seconds, a count, or a rate per second.
	Value float64
	Unit  Unit
}

// Multipliers to base units. Durations and counts are case-sensitive
// ("m" is minutes, "M" is mega, "ms" milliseconds, following Go's
// time.ParseDuration); byte units are matched case-insensitively and are
// always bytes: bits are not supported ("mb" means megabytes).
var (
	durationUnits = map[string]float64{"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600}
	countUnits    = map[string]float64{"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
	byteUnits     = map[string]float64{"b": 1, "byte": 1, "bytes": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "pb": 1e15,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}
)

// ParseQuantity parses a number with an optional unit and converts it to its
// base unit: sizes to bytes (decimal kB, MB, GB, TB, PB = 10³ⁿ; binary KiB,
// MiB, GiB, TiB = 2¹⁰ⁿ), durations to seconds (ns, us, µs, ms, s, m, min, h),
// counts with a k, M, G, T or P multiplier to plain numbers, and a trailing
// "/s" (or "rps" for counts) to a rate per second. Space between number and
// unit is allowed: "36MB" → 36e6 B, "2.6 GB" → 2.6e9 B, "500ms" → 0.5 s,
// "1.5k" → 1500, "600/s" → 600 /s, "20MB/s" → 2e7 B/s.
//
// It returns an error naming the input for an empty string, a malformed
// number, an unknown unit, or a value that is NaN or infinite.
func ParseQuantity(s string) (Quantity, error) {
	t := strings.TrimSpace(s)
	i := numberEnd(t)
	if i == 0 {
		return Quantity{}, fmt.Errorf("%q: not a number", s)
	}
	v, err := strconv.ParseFloat(t[:i], 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Quantity{}, fmt.Errorf("%q: not a finite number", s)
	}
	suffix := strings.TrimSpace(t[i:])
	rate := false
	for _, r := range []string{"/s", "/sec"} {
		if strings.HasSuffix(suffix, r) {
			rate, suffix = true, strings.TrimSpace(strings.TrimSuffix(suffix, r))
			break
		}
	}
	if suffix == "rps" {
		rate, suffix = true, ""
	}
	if m, ok := durationUnits[suffix]; ok && !rate {
		return Quantity{v * m, Seconds}, nil
	}
	if m, ok := countUnits[suffix]; ok {
		if rate {
			return Quantity{v * m, PerSecond}, nil
		}
		return Quantity{v * m, Count}, nil
	}
	if m, ok := byteUnits[strings.ToLower(suffix)]; ok {
		if rate {
			return Quantity{v * m, BytesPerSecond}, nil
		}
		return Quantity{v * m, Bytes}, nil
	}
	return Quantity{}, fmt.Errorf("%q: unknown unit %q (want a size such as MB or GiB, a duration such as ms or s, a count multiplier k, M or G, optionally followed by /s)", s, suffix)
}

// numberEnd returns the length of the leading decimal number in s: an
// optional sign, digits with at most one '.', and an exponent only when e/E
// is followed by digits (so "1e3" is a number but "1EB" is not).
func numberEnd(s string) int {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits, dot := 0, false
	for ; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			digits++
			continue
		}
		if c == '.' && !dot {
			dot = true
			continue
		}
		break
	}
	if digits == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j {
			i = k
		}
	}
	return i
}

// Format writes v (in base unit u) for people: sizes with decimal prefixes
// ("2.645 GB"), durations in the largest unit that keeps the number ≥ 1
// ("500 ms", "2.8 s"), counts plain below 10⁴ ("1680") and with k, M, G
// above ("25k"), rates with "/s". At most
// four significant digits are kept; NaN and infinities are written as Go's
// strconv does.
func (u Unit) Format(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	switch u {
	case Bytes:
		return si(v, " ") + "B"
	case BytesPerSecond:
		return si(v, " ") + "B/s"
	case Seconds:
		return duration(v)
	case PerSecond:
		return si(v, "") + "/s"
	}
	return si(v, "")
}

// si writes v with a decimal prefix (k, M, G, T, P) and four significant
// digits; sep goes between the number and a prefix or a following unit.
func si(v float64, sep string) string {
	prefixes := []string{"", "k", "M", "G", "T", "P"}
	a := math.Abs(v)
	p := 0
	if sep == "" && a < 9999.5 {
		// Counts stay plain below 10k: "1680 players", not "1.68k".
		return sig4orInt(v)
	}
	for p < len(prefixes)-1 && a >= 999.95 {
		a /= 1000
		p++
	}
	s := sig4(a)
	if v < 0 {
		s = "-" + s
	}
	if sep == "" {
		return s + prefixes[p]
	}
	return s + sep + prefixes[p]
}

func duration(v float64) string {
	a := math.Abs(v)
	if a < 5e-10 {
		return "0 s"
	}
	units := []struct {
		name string
		size float64
	}{{"h", 3600}, {"min", 60}, {"s", 1}, {"ms", 1e-3}, {"µs", 1e-6}, {"ns", 1e-9}}
	for _, un := range units {
		if a >= un.size || un.name == "ns" {
			s := sig4(a / un.size)
			if v < 0 {
				s = "-" + s
			}
			return s + " " + un.name
		}
	}
	return ""
}

// sig4orInt writes v with four significant digits, or as an integer when
// it has more digits before the point (|v| < 10⁴ here).
func sig4orInt(v float64) string {
	s := sig4(math.Abs(v))
	if math.Abs(v) >= 999.95 {
		s = strconv.FormatFloat(math.Abs(math.Round(v)), 'f', 0, 64)
	}
	if v < 0 {
		s = "-" + s
	}
	return s
}

// sig4 writes a ≥ 0 with four significant digits, trailing zeros removed.
func sig4(a float64) string {
	if a == 0 {
		return "0"
	}
	// The decimal exponent as strconv rounds to four digits (math.Log10
	// is off by four decades on subnormals: 1e-312 gave -307.95, and
	// "0"); 9.9995 rounds up to 1.000e+01, one decimal fewer.
	e := strconv.FormatFloat(a, 'e', 3, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	dec := 3 - exp
	if dec < 0 {
		dec = 0
	}
	s := strconv.FormatFloat(a, 'f', dec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
