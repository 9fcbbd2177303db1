package ingest

import (
	"fmt"
	"math"
	"time"
)

// The instants a sample may carry: from 1970-01-01T00:00:00Z to the end of
// the year 2200 (UTC), in nanoseconds since the Unix epoch. A load test
// that ran outside these years is a clock or encoding error (a unix_milli
// value read as seconds, a year 9999 placeholder), and a time outside them
// would quietly wrap or stretch every per-second array, so readers reject
// it as a SyntaxError.
const (
	MinTimeNS int64 = 0
	MaxTimeNS int64 = 7289654400e9 - 1 // 2201-01-01T00:00:00Z − 1 ns
)

// timeRange is the range in words, for messages.
const timeRange = "1970–2200"

// checkYear returns "" when t (in UTC) falls inside the accepted years,
// else the reason.
func checkYear(t time.Time) string {
	if y := t.UTC().Year(); y < 1970 || y > 2200 {
		return fmt.Sprintf("year %d is outside %s", y, timeRange)
	}
	return ""
}

// builtinTimeMetrics are k6's built-in metrics whose values are durations
// in milliseconds (research/k6-formats.md §3, k6's metrics/builtin.go and
// the browser module's k6ext/metrics.go). None can be negative: a negative
// value is a corrupt line, not a fast request. Custom Trends (a clock skew
// between two hosts, a delta) may be negative and are not listed.
var builtinTimeMetrics = map[string]bool{
	"http_req_duration": true, "http_req_blocked": true, "http_req_connecting": true,
	"http_req_tls_handshaking": true, "http_req_sending": true, "http_req_waiting": true,
	"http_req_receiving": true, "iteration_duration": true, "group_duration": true,
	"grpc_req_duration": true, "ws_connecting": true, "ws_session_duration": true, "ws_ping": true,
	"browser_http_req_duration": true, "browser_web_vital_fcp": true, "browser_web_vital_lcp": true,
	"browser_web_vital_inp": true, "browser_web_vital_fid": true, "browser_web_vital_ttfb": true,
}

// checkValue returns "" when v is a value metric may carry, else the
// reason: values are finite, and k6's built-in durations are not negative.
// It is cheap for the common case (a finite, non-negative value).
func checkValue(metric string, v float64) string {
	if v >= 0 && v <= math.MaxFloat64 {
		return ""
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "want a finite number"
	}
	if builtinTimeMetrics[metric] {
		return metric + " is a k6 duration (ms) and cannot be negative"
	}
	return ""
}
