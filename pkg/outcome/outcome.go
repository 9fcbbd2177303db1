// Package outcome is ldanalyze's one rule for "did this request succeed?",
// for every protocol k6 measures: HTTP, gRPC, WebSocket and the browser
// module. Every analysis that counts successes and failures (the timeline,
// the per-tag windows, the report) asks this package, so they cannot
// disagree.
//
// A run's request stream is whatever the run has: http_reqs rows for HTTP,
// grpc_req_duration rows for gRPC unary calls, ws_sessions rows for
// WebSocket sessions, browser_http_req_duration rows for the browser's
// requests (k6's metric names, research/k6-formats.md §3). Stream names the
// protocol whose stream a metric is.
//
// The rule, per protocol (Classify):
//
//   - HTTP and browser: the expected_response tag when present (k6 ≥ v0.31,
//     set by the response callback, default status 200–399); else the
//     status tag: 1–399 success, 0 no response (a transport error, or a
//     timeout with error_code 1050), ≥ 400 an error. Without either tag
//     the outcome is Unknown (a run recorded with restricted
//     --system-tags); the timeline then takes the failures from the
//     http_req_failed rows of the same second.
//   - gRPC: status is the gRPC code (google.golang.org/grpc/codes): 0 OK
//     is a success, 4 DeadlineExceeded a timeout, any other code an error;
//     no status with an error tag is a transport error.
//   - WebSocket: status 101 Switching Protocols is a success, 0 or an
//     error tag without a status a transport error, any other status an
//     error.
//
// Error codes are k6's (docs "Error codes"): 1050 the HTTP request timed
// out, 1211 a TCP dial timeout.
package outcome

import (
	"strconv"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
)

// Protocol is the protocol of a request stream.
type Protocol uint8

// The protocols k6 measures. None is a metric of no protocol (iterations,
// a custom Trend).
const (
	None Protocol = iota
	HTTP
	GRPC
	WebSocket
	Browser
)

// Protocols lists every protocol with a request stream, in the order a run
// that has several picks its default one (HTTP first).
var Protocols = []Protocol{HTTP, GRPC, WebSocket, Browser}

// String is the protocol's name in lower case: "http", "grpc",
// "websocket", "browser" ("" for None).
func (p Protocol) String() string {
	switch p {
	case HTTP:
		return "http"
	case GRPC:
		return "grpc"
	case WebSocket:
		return "websocket"
	case Browser:
		return "browser"
	}
	return ""
}

// Noun is what one element of the protocol's request stream is called, in
// the plural: "requests", "calls", "sessions".
func (p Protocol) Noun() string {
	switch p {
	case GRPC:
		return "calls"
	case WebSocket:
		return "sessions"
	}
	return "requests"
}

// Unit is the unit of a rate of the protocol's request stream: "req/s",
// "calls/s", "sessions/s".
func (p Protocol) Unit() string {
	switch p {
	case GRPC:
		return "calls/s"
	case WebSocket:
		return "sessions/s"
	}
	return "req/s"
}

// StreamMetric is the k6 metric with one row per element of the protocol's
// request stream ("" for None).
func (p Protocol) StreamMetric() string {
	switch p {
	case HTTP:
		return "http_reqs"
	case GRPC:
		return "grpc_req_duration"
	case WebSocket:
		return "ws_sessions"
	case Browser:
		return "browser_http_req_duration"
	}
	return ""
}

// LatencyMetric is the protocol's request-duration Trend, the default
// latency metric of a run of that protocol: http_req_duration,
// grpc_req_duration, ws_connecting, browser_http_req_duration.
func (p Protocol) LatencyMetric() string {
	switch p {
	case HTTP:
		return "http_req_duration"
	case GRPC:
		return "grpc_req_duration"
	case WebSocket:
		return "ws_connecting"
	case Browser:
		return "browser_http_req_duration"
	}
	return ""
}

// FailedRateMetric is the k6 Rate whose rows say, one per request, whether
// it failed (1) or not (0): http_req_failed, browser_http_req_failed; ""
// where the protocol has none.
func (p Protocol) FailedRateMetric() string {
	switch p {
	case HTTP:
		return "http_req_failed"
	case Browser:
		return "browser_http_req_failed"
	}
	return ""
}

// Stream returns the protocol whose request stream metric is, or None.
func Stream(metric string) Protocol {
	switch metric {
	case "http_reqs":
		return HTTP
	case "grpc_req_duration":
		return GRPC
	case "ws_sessions":
		return WebSocket
	case "browser_http_req_duration":
		return Browser
	}
	return None
}

// Of returns the protocol a k6 metric belongs to, by k6's metric names
// (http_req_* and http_reqs: HTTP; grpc_*: gRPC; ws_*: WebSocket;
// browser_*: browser), or None for iteration metrics and custom ones.
func Of(metric string) Protocol {
	switch {
	case metric == "http_reqs" || hasPrefix(metric, "http_req_"):
		return HTTP
	case hasPrefix(metric, "grpc_"):
		return GRPC
	case hasPrefix(metric, "ws_"):
		return WebSocket
	case hasPrefix(metric, "browser_"):
		return Browser
	}
	return None
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// Outcome is how one request ended.
type Outcome uint8

// The outcomes of a request.
const (
	// Unknown: the sample carries no tag that tells (restricted system
	// tags); see the package doc for how the timeline resolves it.
	Unknown Outcome = iota
	// Success: a response the script expected.
	Success
	// Error: a response that was not expected (HTTP ≥ 400 or
	// expected_response=false, a gRPC code other than OK, a WebSocket
	// handshake other than 101).
	Error
	// Transport: no response (connection refused or reset, DNS, TLS):
	// status 0.
	Transport
	// Timeout: no response in time (k6 error_code 1050 or 1211, gRPC
	// DeadlineExceeded).
	Timeout
)

// String names the outcome: "unknown", "success", "error", "transport",
// "timeout".
func (o Outcome) String() string {
	switch o {
	case Success:
		return "success"
	case Error:
		return "error"
	case Transport:
		return "transport"
	case Timeout:
		return "timeout"
	}
	return "unknown"
}

// Failed reports whether the outcome is a failure (Error, Transport or
// Timeout). Unknown is not.
func (o Outcome) Failed() bool { return o >= Error }

// Classify returns the outcome of a request sample of protocol p from its
// tags (see the package doc for the rule). Samples of None are Unknown.
func Classify(p Protocol, t *ingest.Tags) Outcome {
	switch p {
	case HTTP, Browser:
		return classifyHTTP(t)
	case GRPC:
		return classifyGRPC(t)
	case WebSocket:
		return classifyWS(t)
	}
	return Unknown
}

// noResponse is the outcome of a request without a response: a timeout
// when its k6 error_code says so, else a transport error.
func noResponse(t *ingest.Tags) Outcome {
	if code, ok := t.Get("error_code"); ok && IsTimeoutCode(code) {
		return Timeout
	}
	return Transport
}

// IsTimeoutCode reports whether a k6 error_code is a timeout: 1050 (the
// HTTP request timed out) or 1211 (TCP dial timeout).
func IsTimeoutCode(code string) bool { return code == "1050" || code == "1211" }

func classifyHTTP(t *ingest.Tags) Outcome {
	st, hasStatus := t.Get("status")
	if v, ok := t.Get("expected_response"); ok {
		if v == "true" {
			return Success
		}
		if !hasStatus || st == "0" {
			return noResponse(t)
		}
		return Error
	}
	if hasStatus {
		n, err := strconv.Atoi(st)
		switch {
		case err != nil:
			return Error
		case n == 0:
			return noResponse(t)
		case n > 0 && n < 400:
			return Success
		}
		return Error
	}
	if code, ok := t.Get("error_code"); ok {
		// k6 writes 1000+status for HTTP errors (14xx, 15xx), its own
		// codes below for requests without a response.
		if n, err := strconv.Atoi(code); err == nil && n >= 1400 && n < 1600 {
			return Error
		}
		return noResponse(t)
	}
	return Unknown
}

func classifyGRPC(t *ingest.Tags) Outcome {
	st, ok := t.Get("status")
	if !ok {
		if _, bad := t.Get("error"); bad {
			return Transport
		}
		if _, bad := t.Get("error_code"); bad {
			return Transport
		}
		return Unknown
	}
	switch st {
	case "0":
		return Success
	case "4":
		return Timeout
	}
	return Error
}

func classifyWS(t *ingest.Tags) Outcome {
	st, ok := t.Get("status")
	switch {
	case ok && st == "101":
		return Success
	case ok && st == "0":
		return noResponse(t)
	case ok:
		return Error
	}
	if _, bad := t.Get("error"); bad {
		return Transport
	}
	return Unknown
}

// grpcCodes are the names of the gRPC status codes
// (google.golang.org/grpc/codes, codes.go).
var grpcCodes = [...]string{
	"OK", "Canceled", "Unknown", "InvalidArgument", "DeadlineExceeded", "NotFound", "AlreadyExists",
	"PermissionDenied", "ResourceExhausted", "FailedPrecondition", "Aborted", "OutOfRange",
	"Unimplemented", "Internal", "Unavailable", "DataLoss", "Unauthenticated",
}

// StatusName names a status tag value of protocol p for people: the gRPC
// code's name ("5" → "NotFound"), "no response" for status 0 of HTTP and
// WebSocket, else the status itself ("503").
func StatusName(p Protocol, status string) string {
	if p == GRPC {
		if n, err := strconv.Atoi(status); err == nil && n >= 0 && n < len(grpcCodes) {
			return grpcCodes[n]
		}
		return status
	}
	if status == "0" || status == "" {
		return "no response"
	}
	return status
}

// Overload reports whether a failure with this status is the kind a
// saturated system sends (it depends on load): HTTP 429, 502, 503, 504 and
// status 0 (no response); gRPC ResourceExhausted, Unavailable,
// DeadlineExceeded, Aborted. Other failures (404, NotFound,
// InvalidArgument, …) are the script's or the data's, present at every
// load.
func Overload(p Protocol, status string) bool {
	if p == GRPC {
		switch status {
		case "4", "8", "10", "14":
			return true
		}
		return false
	}
	switch status {
	case "", "0", "429", "502", "503", "504":
		return true
	}
	return false
}
