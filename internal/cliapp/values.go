package cliapp

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/scale"
	"github.com/urfave/cli/v2"
)

// List splits repeated and comma-separated flag values ("--by name,status
// --by scenario"), dropping empty ones.
func List(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// Thresholds splits repeated --threshold values. Commas separate
// thresholds only outside braces, so "m{a:1,b:2}:p(95)<5" stays whole.
func Thresholds(vals []string) []string {
	var out []string
	for _, v := range vals {
		depth, start := 0, 0
		for i, r := range v {
			switch r {
			case '{':
				depth++
			case '}':
				depth--
			case ',':
				if depth == 0 {
					if s := strings.TrimSpace(v[start:i]); s != "" {
						out = append(out, s)
					}
					start = i + 1
				}
			}
		}
		if s := strings.TrimSpace(v[start:]); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Percentiles reads --percentiles "50,90,95,99" (also "p95", "p(99.9)"):
// distinct percentiles in (0, 100], at least one. The error names the
// flag and the bad value.
func Percentiles(s string) ([]float64, error) {
	var out []float64
	for _, f := range List([]string{s}) {
		f = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(f, "p"), "("), ")")
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v > 0 && v <= 100) { // NaN is no percentile
			return nil, fmt.Errorf("--percentiles: %q is not a percentile in (0, 100]", f)
		}
		if slices.Contains(out, v) {
			return nil, fmt.Errorf("--percentiles %s: %v is given twice", s, v)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--percentiles %q: want one or more percentiles in (0, 100], comma-separated, e.g. 50,90,95,99", s)
	}
	return out, nil
}

// Label reads a run given as "label=a.csv,b.csv" (benchstat's label
// syntax; without a label, or when what precedes '=' looks like a path,
// the label is def) into the label and the files of the run.
func Label(arg, def string) (label string, files []string) {
	label, rest := def, arg
	if i := strings.IndexByte(arg, '='); i > 0 && !strings.ContainsAny(arg[:i], "/\\.") {
		label, rest = arg[:i], arg[i+1:]
	}
	return label, List([]string{rest})
}

// Defines reports whether the command of c defines the flag name.
func Defines(c *cli.Context, name string) bool { return hasFlag(c.Command.Flags, name) }

// Quantity reads the value s of the flag --flag (named in errors) as a
// number in the unit want (scale.PerSecond: a rate such as 600/s or 1.5k;
// scale.Seconds: a duration such as 2.8s or 350ms; scale.Count: a plain
// number) and returns it in that base unit (per second, seconds). A bare
// number is taken in the base unit; a value in another unit is an error.
func Quantity(flag, s string, want scale.Unit) (float64, error) {
	q, err := scale.ParseQuantity(s)
	if err != nil {
		return 0, fmt.Errorf("--%s: %w", flag, err)
	}
	ok := q.Unit == want || q.Unit == scale.Count
	if want == scale.Count {
		ok = q.Unit == scale.Count
	}
	if !ok {
		return 0, fmt.Errorf("--%s %s: want %s, got a value in %q", flag, s, map[scale.Unit]string{scale.PerSecond: "a rate per second", scale.Seconds: "a duration", scale.Count: "a number"}[want], q.Unit)
	}
	return q.Value, nil
}

// Limit reads a limit on a Trend's values (knee --over): a duration with
// its unit ("1s", "200ms", "1m30s") in ms, k6's unit of time trends, or a
// plain number in the Trend's own unit ("500"). The error names the flag.
func Limit(flag, s string) (float64, error) {
	s = strings.TrimSpace(s)
	if d, err := time.ParseDuration(s); err == nil {
		if d <= 0 {
			return 0, fmt.Errorf("--%s %s: want a limit above 0", flag, s)
		}
		return float64(d) / float64(time.Millisecond), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("--%s %q: want a duration such as 1s or 200ms, or a number in the metric's unit", flag, s)
	}
	if v <= 0 {
		return 0, fmt.Errorf("--%s %s: want a limit above 0", flag, s)
	}
	return v, nil
}
