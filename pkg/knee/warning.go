package knee

import "encoding/json"

// Warning is a caveat of an analysis: a stable Code that programs match
// on, and a Message for people. Its JSON form is the message alone (the
// README's contract: "warnings" is a list of sentences).
type Warning struct {
	Code    string
	Message string
}

// The warning codes of a Result.
const (
	WarnShortRun        = "short-run"         // less than two seconds of data
	WarnSpans           = "spans"             // gaps split the data; the longest span gave the levels
	WarnSeparateRuns    = "separate-runs"     // input files that do not overlap in time
	WarnSameRunTwice    = "same-run-twice"    // two inputs hold the same samples
	WarnHugeValues      = "huge-values"       // samples of the metric above a day
	WarnNegativeValues  = "negative-values"   // negative samples of the metric
	WarnCoarseLatency   = "coarse-latency"    // latency kept per 2^k-second slots
	WarnOutcomeFromRate = "outcome-from-rate" // failures told by http_req_failed rows only
	WarnNoOutcome       = "no-outcome"        // nothing tells failures: all counted as successes
	WarnNoExpected      = "no-expected"       // no expected_response: success is status 1–399
	WarnFewRampSteps    = "few-ramp-steps"    // too few ramp steps to find a knee
	WarnNoVUs           = "no-vus"            // no vus gauge: model assumed closed
	WarnSummaryMismatch = "summary-mismatch"  // --summary is not of this run
	WarnCardinality     = "cardinality"       // more tag values than rows of their own (--by-limit)
	WarnUsersPerVU      = "users-per-vu"      // --users-per-vu on an open-model run
	WarnHandshakeOnly   = "handshake-only"    // a WebSocket run's default metric times only the handshake
)

func (w Warning) String() string { return w.Message }

// MarshalJSON writes the message as a JSON string.
func (w Warning) MarshalJSON() ([]byte, error) { return json.Marshal(w.Message) }

// UnmarshalJSON reads a message (the code is not in the JSON form).
func (w *Warning) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &w.Message) }

// Messages returns the warnings' messages, in order.
func Messages(ws []Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Message
	}
	return out
}

// Has reports whether ws holds a warning with code.
func Has(ws []Warning, code string) bool {
	for _, w := range ws {
		if w.Code == code {
			return true
		}
	}
	return false
}
