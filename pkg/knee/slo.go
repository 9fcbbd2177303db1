package knee

import (
	"math"
	"slices"
	"strings"

	"github.com/ldanalyze/ldanalyze/pkg/threshold"
)

// SLO is a latency objective on the analysed Trend in k6 threshold
// syntax (package threshold, ParseLatency): "p95<500ms", "p(99)<800",
// "p(99.9)<=1s", "avg<200", "med<300", "max<2000"; the limit in ms.
type SLO struct {
	// Source is the expression as given, trimmed.
	Source string
	threshold.Expr
}

// ParseSLO parses a latency objective (threshold.ParseLatency). Errors are
// *threshold.SyntaxError.
func ParseSLO(expr string) (*SLO, error) {
	e, err := threshold.ParseLatency(expr)
	if err != nil {
		return nil, err
	}
	return &SLO{Source: strings.TrimSpace(expr), Expr: e}, nil
}

// value returns the level's statistic the SLO bounds.
func (s *SLO) value(l *Level) float64 {
	switch s.Stat {
	case threshold.Avg:
		return float64(l.MeanMS)
	case threshold.Min:
		return float64(l.MinMS)
	case threshold.Max:
		return float64(l.MaxMS)
	}
	return l.lat.Quantile(s.Quantile())
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
	r := &SLOResult{Expr: s.Source, MaxOffered: F(math.NaN()), MaxCompletedRPS: F(math.NaN()), Levels: len(ls)}
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
		if !s.Holds(v) || shed {
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
					t = (s.Limit - lv) / (v - lv)
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
