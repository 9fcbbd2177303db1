package prom

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// TrendStats are the gauges k6's remote-write output writes for each Trend
// when K6_PROMETHEUS_RW_TREND_STATS is set (k6_<trend>_p95, _p99, _avg,
// _count, _min, _max, _med, _sum), and what can be recovered from them.
//
// k6 computes them from one TrendSink per series that is never reset
// (internal/output/prometheusrw/remotewrite/trend.go, extendedTrendSink),
// so every value is cumulative since the start of the test, not per
// interval: a p95 keeps creeping to the end. And k6 applies its ms → s
// conversion (adaptUnit) to every stat of a time trend, count included,
// so a time trend's _count is the number of observations ÷ 1000.
//
// Recoverable per window: the mean, Δ(avg·count) ÷ Δcount per series
// (sum = avg·count is cumulative); the number of observations, Δcount (×
// 1000 for a time trend). Not recoverable: percentiles, min or max of a
// window; those need native histograms
// (K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true, or K6_FEATURES with
// native-histograms in k6 2.x).
type TrendStats struct {
	// Trends are keyed by the trend's k6 name (http_req_duration).
	Trends map[string]*TrendStat
}

// TrendStat is one trend's stat gauges.
type TrendStat struct {
	// Name is the trend's k6 name, e.g. "http_req_duration".
	Name string
	// Stats are the stat suffixes found: "p95", "p99", "avg", "count", ….
	Stats map[string]bool
	// Time is true for k6's built-in time trends (durations), whose
	// _count is ÷ 1000; false for other trends, whose unit k6 does not
	// say (a custom Trend added with isTime is a time trend too: then
	// its _count is also ÷ 1000).
	Time bool
}

// trendStatName is a k6 trend-stat gauge: k6_<trend>_<stat>.
var trendStatName = regexp.MustCompile(`^k6_(.+)_(p[0-9]+(?:_[0-9]+)?|avg|count|min|max|med|sum)$`)

// k6TimeTrends are k6's built-in Trends of type Time (metrics/builtin.go).
var k6TimeTrends = map[string]bool{
	"http_req_duration": true, "http_req_blocked": true, "http_req_connecting": true, "http_req_tls_handshaking": true,
	"http_req_sending": true, "http_req_waiting": true, "http_req_receiving": true, "iteration_duration": true,
	"group_duration": true, "grpc_req_duration": true, "ws_connecting": true, "ws_session_duration": true, "ws_ping": true,
	"browser_web_vital_lcp": true, "browser_web_vital_fcp": true, "browser_web_vital_inp": true, "browser_web_vital_ttfb": true,
	"browser_web_vital_fid": true, "browser_http_req_duration": true,
}

// DetectTrendStats finds k6 trend-stat gauges among metric names; nil
// when there are none. A name counts only when at least one other stat of
// the same trend exists or the trend is one of k6's built-in ones, so
// that a counter such as k6_orders_count is not mistaken for a stat.
func DetectTrendStats(names []string) *TrendStats {
	by := map[string]*TrendStat{}
	n := map[string]int{}
	for _, name := range names {
		m := trendStatName.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		tr := by[m[1]]
		if tr == nil {
			tr = &TrendStat{Name: m[1], Stats: map[string]bool{}, Time: k6TimeTrends[m[1]]}
			by[m[1]] = tr
		}
		tr.Stats[m[2]] = true
		n[m[1]]++
	}
	out := &TrendStats{Trends: map[string]*TrendStat{}}
	for k, tr := range by {
		if n[k] >= 2 || k6TimeTrends[k] {
			out.Trends[k] = tr
		}
	}
	if len(out.Trends) == 0 {
		return nil
	}
	return out
}

// Caveats say, in sentences, what the trend stats are and are not.
func (ts *TrendStats) Caveats() []string {
	var names []string
	for k := range ts.Trends {
		names = append(names, k)
	}
	sort.Strings(names)
	var stats []string
	seen := map[string]bool{}
	for _, k := range names {
		for s := range ts.Trends[k].Stats {
			if !seen[s] {
				seen[s] = true
				stats = append(stats, "_"+s)
			}
		}
	}
	sort.Strings(stats)
	out := []string{
		fmt.Sprintf("k6 trend stats (%s of %s) are cumulative since the start of the test, not per window: k6 keeps one never-reset TrendSink per series", strings.Join(stats, ", "), strings.Join(names, ", ")),
		"per-window means are recovered as Δ(avg·count) ÷ Δcount; per-window percentiles need native histograms (K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true)",
	}
	var used, unused []string
	for _, k := range names {
		if tr := ts.Trends[k]; tr.Time && tr.Stats["count"] {
			if CountedTrends[k] && tr.Stats["avg"] {
				used = append(used, k)
			} else {
				unused = append(unused, k)
			}
		}
	}
	if len(used)+len(unused) > 0 {
		msg := fmt.Sprintf("the _count of a time trend (%s) is the number of observations ÷ 1000 (k6 converts every stat of a time trend from ms to s)", strings.Join(append(append([]string(nil), used...), unused...), ", "))
		if len(used) > 0 {
			msg += fmt.Sprintf(": ldanalyze multiplies the _count of %s by 1000 to count their observations", strings.Join(used, ", "))
		}
		if len(unused) > 0 {
			sep := ": "
			if len(used) > 0 {
				sep = "; "
			}
			msg += fmt.Sprintf("%sit does not use the _count of %s", sep, strings.Join(unused, ", "))
		}
		out = append(out, msg)
	}
	return out
}

// CountedTrends are the time trends whose _avg and _count ReadK6Run reads
// (the per-step mean and number of observations; the _count × 1000); the
// _count of any other trend is not used.
var CountedTrends = map[string]bool{"http_req_duration": true, "iteration_duration": true}
