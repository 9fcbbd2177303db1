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
	// Met is true when no level missed the SLO but those passed over
	// (Passed): MaxOffered is then the highest level tested, a lower
	// bound.
	Met bool `json:"met_at_every_level"`
	// Levels is the number of levels the SLO was evaluated on.
	Levels int `json:"levels"`
	// ErrorLimited is set when the walk stopped at a level that shed: its
	// errors were more than the error limit (5 %) over the low-load rate.
	// The SLO bounds the latency of successful responses, so a level must
	// also keep its errors low.
	ErrorLimited bool `json:"error_limited"`
	// Passed counts the levels below MaxOffered's that missed the SLO (or
	// shed) while the next two above them met it: a stall (the generator's
	// machine, one slow batch), not the capacity, as the knee judges a
	// bad level followed by a good one (firstLacking).
	Passed int `json:"passed_over"`
}

// slo walks the levels by increasing offered load, up to the first level
// that misses the SLO or sheds (its errors more than ErrorLimit over the
// low-load rate: the knee's rule, sheds), unless the levels above it meet
// the SLO: the next two (the next one, when only one is above) all meet
// it, and the level is passed over (SLOResult.Passed) as a stall, as the
// knee passes over a bad level followed by one with headroom. The SLO
// asks more of the levels above than the knee does (all of them), so that
// a real limit followed by one lucky level stays the limit.
func (a *analysis) slo(levels []Level, s *SLO) *SLOResult {
	ls := slices.Clone(levels)
	slices.SortStableFunc(ls, func(p, q Level) int { return cmpF(p.Offered, q.Offered) })
	r := &SLOResult{Expr: s.Source, MaxOffered: F(math.NaN()), MaxCompletedRPS: F(math.NaN()), Levels: len(ls)}
	// Latency is of successful responses: a level that sheds does not
	// meet an SLO however fast its survivors.
	misses := func(l *Level) (miss, shed bool, v float64) {
		v = s.value(l)
		if math.IsNaN(v) {
			return false, false, v
		}
		shed = a.sheds(l)
		return shed || !s.Holds(v), shed, v
	}
	last, passed := -1, 0
	for i := range ls {
		miss, shed, v := misses(&ls[i])
		if math.IsNaN(v) {
			continue
		}
		if !miss {
			last, r.Passed = i, passed
			continue
		}
		// Passed over only when the levels above meet the SLO: a real
		// limit followed by one lucky level stays the limit.
		recovers, seen := true, 0
		for j := i + 1; j < len(ls) && seen < 2; j++ {
			if m, _, vj := misses(&ls[j]); !math.IsNaN(vj) {
				recovers, seen = recovers && !m, seen+1
			}
		}
		if recovers && seen > 0 {
			passed++
			continue
		}
		if shed {
			// Stop at the last good level: no interpolation into a
			// level that failed on errors.
			r.ErrorLimited = true
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
	if last >= 0 {
		r.Met = true
		r.MaxOffered, r.MaxCompletedRPS = ls[last].Offered, ls[last].CompletedRPS
	}
	return r
}
