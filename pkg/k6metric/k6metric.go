// Package k6metric is what k6 declares about its built-in metrics: their
// type (counter, gauge, rate, trend), what a Trend's values are (time in
// ms, data in bytes, or a plain number), and for the browser's web vitals
// the thresholds Google publishes for a good and a poor page.
//
// Sources: k6 metrics/builtin.go and the k6 browser module's
// web-vital metrics (research/k6-formats.md §3); web vitals thresholds
// from web.dev ("Web Vitals", the "good" and "poor" boundaries at the 75th
// percentile of page loads).
package k6metric

import "strings"

// Type is a k6 metric type.
type Type string

// The k6 metric types.
const (
	Counter Type = "counter"
	Gauge   Type = "gauge"
	Rate    Type = "rate"
	Trend   Type = "trend"
)

// Contains is what a metric's values are, as k6's JSON output declares it.
type Contains string

// The value types.
const (
	Time    Contains = "time"    // milliseconds
	Data    Contains = "data"    // bytes
	Default Contains = "default" // a count, a ratio or a plain number
)

// Info is what k6 declares about one metric.
type Info struct {
	Type     Type
	Contains Contains
}

var builtin = map[string]Info{
	"http_reqs": {Counter, Default}, "iterations": {Counter, Default}, "dropped_iterations": {Counter, Default},
	"data_sent": {Counter, Data}, "data_received": {Counter, Data},
	"ws_sessions": {Counter, Default}, "ws_msgs_sent": {Counter, Default}, "ws_msgs_received": {Counter, Default},
	"grpc_streams": {Counter, Default}, "grpc_streams_msgs_sent": {Counter, Default}, "grpc_streams_msgs_received": {Counter, Default},
	"http_req_failed": {Rate, Default}, "checks": {Rate, Default}, "browser_http_req_failed": {Rate, Default},
	"vus": {Gauge, Default}, "vus_max": {Gauge, Default},
	"http_req_duration": {Trend, Time}, "http_req_blocked": {Trend, Time}, "http_req_connecting": {Trend, Time},
	"http_req_tls_handshaking": {Trend, Time}, "http_req_sending": {Trend, Time}, "http_req_waiting": {Trend, Time},
	"http_req_receiving": {Trend, Time}, "iteration_duration": {Trend, Time}, "group_duration": {Trend, Time},
	"grpc_req_duration": {Trend, Time}, "grpc_stream_duration": {Trend, Time},
	"ws_connecting": {Trend, Time}, "ws_session_duration": {Trend, Time}, "ws_ping": {Trend, Time},
	"browser_http_req_duration": {Trend, Time}, "browser_data_sent": {Counter, Data}, "browser_data_received": {Counter, Data},
	"browser_web_vital_lcp": {Trend, Time}, "browser_web_vital_fcp": {Trend, Time}, "browser_web_vital_inp": {Trend, Time},
	"browser_web_vital_fid": {Trend, Time}, "browser_web_vital_ttfb": {Trend, Time}, "browser_web_vital_cls": {Trend, Default},
}

// Builtin returns what k6 declares about a built-in metric, false for a
// custom metric (whose type only a k6 JSON output's Metric line says).
func Builtin(name string) (Info, bool) {
	i, ok := builtin[name]
	return i, ok
}

// Unit is the unit a Trend's values are printed with: "ms" for time,
// "bytes" for data, "" for a plain number. contains is the declared value
// type when known (a k6 JSON Metric line), else "": a built-in metric's
// own declaration is used, and a custom Trend is taken as time (k6's
// Trend default for durations, and what scripts record most).
func Unit(name string, contains Contains) string {
	if contains == "" {
		if i, ok := builtin[name]; ok {
			contains = i.Contains
		} else {
			contains = Time
		}
	}
	switch contains {
	case Time:
		return "ms"
	case Data:
		return "bytes"
	}
	return ""
}

// WebVital is a Core Web Vital and Google's thresholds for it, judged at
// the 75th percentile of page loads: good up to Good, poor above Poor,
// "needs improvement" between.
type WebVital struct {
	// Name is the short name: LCP, FCP, INP, FID, CLS, TTFB.
	Name string `json:"name"`
	// Good and Poor are in the metric's unit (ms, CLS a plain score).
	Good float64 `json:"good"`
	Poor float64 `json:"poor"`
}

var vitals = map[string]WebVital{
	"lcp": {"LCP", 2500, 4000}, "fcp": {"FCP", 1800, 3000}, "inp": {"INP", 200, 500},
	"fid": {"FID", 100, 300}, "cls": {"CLS", 0.1, 0.25}, "ttfb": {"TTFB", 800, 1800},
}

// WebVitalOf returns the web vital a metric measures
// (browser_web_vital_lcp …), false for any other metric.
func WebVitalOf(metric string) (WebVital, bool) {
	short, ok := strings.CutPrefix(metric, "browser_web_vital_")
	if !ok {
		return WebVital{}, false
	}
	v, ok := vitals[short]
	return v, ok
}
