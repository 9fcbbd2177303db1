package knee

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// SLO is a latency objective in k6 threshold syntax on the analysed Trend:
// "p95<500ms", "p(99)<800", "p(99.9)<=1s", "avg<200", "med<300",
// "max<2000". A bare number is in ms.
type SLO struct {
	// Expr is the expression as given.
	Expr string
	// Stat is "avg", "min", "max", "med" or "p" (with Percentile).
	Stat       string
	Percentile float64
	// Op is "<", "<=", ">" or ">=".
	Op string
	// LimitMS is the threshold in ms.
	LimitMS float64
}

var sloRe = regexp.MustCompile(`^\s*(avg|min|max|med|p\(\s*([0-9.]+)\s*\)|p([0-9.]+))\s*(<=|<|>=|>|==)\s*([0-9.]+)\s*(ms|s|us|µs)?\s*$`)

// ParseSLO parses a k6-style threshold on a Trend. It returns an error that
// shows the accepted forms.
func ParseSLO(expr string) (*SLO, error) {
	m := sloRe.FindStringSubmatch(expr)
	if m == nil {
		return nil, fmt.Errorf("SLO %q: want STAT OP VALUE as in k6 thresholds, e.g. 'p95<500ms', 'p(99)<800', 'avg<200' (STAT avg|min|max|med|pNN|p(NN), value in ms unless suffixed ms|s|us)", expr)
	}
	s := &SLO{Expr: strings.TrimSpace(expr), Op: m[4]}
	if m[4] == "==" {
		return nil, fmt.Errorf("SLO %q: == cannot bound a latency; use < or <=", expr)
	}
	switch {
	case m[2] != "" || m[3] != "":
		pct := m[2] + m[3]
		v, err := strconv.ParseFloat(pct, 64)
		if err != nil || v <= 0 || v > 100 {
			return nil, fmt.Errorf("SLO %q: percentile %q: want a number in (0, 100]", expr, pct)
		}
		s.Stat, s.Percentile = "p", v
	default:
		s.Stat = m[1]
	}
	v, err := strconv.ParseFloat(m[5], 64)
	if err != nil {
		return nil, fmt.Errorf("SLO %q: limit %q: want a number", expr, m[5])
	}
	switch m[6] {
	case "s":
		v *= 1000
	case "us", "µs":
		v /= 1000
	}
	if math.IsInf(v, 0) {
		return nil, fmt.Errorf("SLO %q: limit %s%s: too large to hold in ms", expr, m[5], m[6])
	}
	s.LimitMS = v
	return s, nil
}

// value returns the level's statistic the SLO bounds.
func (s *SLO) value(l *Level) float64 {
	switch s.Stat {
	case "avg":
		return float64(l.MeanMS)
	case "min":
		return float64(l.MinMS)
	case "max":
		return float64(l.MaxMS)
	case "med":
		return l.lat.Quantile(0.5)
	}
	return l.lat.Quantile(s.Percentile / 100)
}

func (s *SLO) holds(v float64) bool {
	switch s.Op {
	case "<":
		return v < s.LimitMS
	case "<=":
		return v <= s.LimitMS
	case ">":
		return v > s.LimitMS
	}
	return v >= s.LimitMS
}

// SLOResult is the highest load that met the SLO.
type SLOResult struct {
	Expr string `json:"expr"`
	// MaxOffered is the offered load (Result.OfferedUnit) at which the SLO
	// statistic crosses its limit, interpolated linearly between the last
	// level that met it and the first that did not; NaN when the lowest
	// level already failed.
	MaxOffered F `json:"max_offered"`
	// MaxCompletedRPS is the goodput at MaxOffered.
	MaxCompletedRPS F `json:"max_completed_rps"`
	// Met is true when every level met the SLO: MaxOffered is then the
	// highest level tested, a lower bound.
	Met bool `json:"met_at_every_level"`
	// Levels is the number of levels the SLO was evaluated on.
	Levels int `json:"levels"`
	// ErrorLimited is set when a level was refused because it shed more
	// than the error limit (5 %) of its requests: the SLO bounds latency of
	// successful responses, so a level must also keep its errors low.
	ErrorLimited bool `json:"error_limited"`
}

// slo walks the levels by increasing offered load.
func (a *analysis) slo(levels []Level, s *SLO) *SLOResult {
	ls := slices.Clone(levels)
	slices.SortStableFunc(ls, func(p, q Level) int { return cmpF(p.Offered, q.Offered) })
	r := &SLOResult{Expr: s.Expr, MaxOffered: F(math.NaN()), MaxCompletedRPS: F(math.NaN()), Levels: len(ls)}
	last := -1
	for i := range ls {
		v := s.value(&ls[i])
		if math.IsNaN(v) {
			continue
		}
		// Latency is of successful responses: a level that sheds more than
		// the error limit does not meet an SLO however fast its survivors.
		shed := ls[i].ErrorRate.Valid() && float64(ls[i].ErrorRate) > a.opt.ErrorLimit
		if shed {
			r.ErrorLimited = true
		}
		if !s.holds(v) || shed {
			if shed {
				// Stop at the last good level: no interpolation into a
				// level that failed on errors.
				if last >= 0 {
					r.MaxOffered, r.MaxCompletedRPS = ls[last].Offered, ls[last].CompletedRPS
				}
				return r
			}
			if last >= 0 {
				lv := s.value(&ls[last])
				t := 0.0
				if v != lv {
					t = (s.LimitMS - lv) / (v - lv)
				}
				t = math.Min(1, math.Max(0, t))
				r.MaxOffered = F(lerp(float64(ls[last].Offered), float64(ls[i].Offered), t))
				r.MaxCompletedRPS = F(lerp(float64(ls[last].CompletedRPS), float64(ls[i].CompletedRPS), t))
			}
			return r
		}
		last = i
	}
	if last >= 0 {
		r.Met = true
		r.MaxOffered, r.MaxCompletedRPS = ls[last].Offered, ls[last].CompletedRPS
	}
	return r
}
