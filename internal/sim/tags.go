package sim

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"sort"
	"strings"
)

// metricDef is a k6 metric: its name, type and value type
// (metrics/builtin.go; custom metrics of the ws_fanout script).
type metricDef struct {
	name, typ, contains string
}

// Metric ids, in the order k6 emits a request's samples
// (httpext.Trail.SaveSamples: http_reqs, the 7 trends, http_req_failed).
const (
	mHTTPReqs uint8 = iota
	mHTTPDuration
	mHTTPBlocked
	mHTTPConnecting
	mHTTPTLS
	mHTTPSending
	mHTTPWaiting
	mHTTPReceiving
	mHTTPFailed
	mGRPCDuration
	mChecks
	mDataSent
	mDataReceived
	mIterDuration
	mIterations
	mDropped
	mVUs
	mVUsMax
	mWSSessions
	mWSConnecting
	mWSMsgsSent
	mWSMsgsReceived
	mWSSessionDuration
	mFanout
	mQuestionsAsked
	mQuestionsReceived
	numMetrics
)

var metricDefs = [numMetrics]metricDef{
	mHTTPReqs:          {"http_reqs", "counter", "default"},
	mHTTPDuration:      {"http_req_duration", "trend", "time"},
	mHTTPBlocked:       {"http_req_blocked", "trend", "time"},
	mHTTPConnecting:    {"http_req_connecting", "trend", "time"},
	mHTTPTLS:           {"http_req_tls_handshaking", "trend", "time"},
	mHTTPSending:       {"http_req_sending", "trend", "time"},
	mHTTPWaiting:       {"http_req_waiting", "trend", "time"},
	mHTTPReceiving:     {"http_req_receiving", "trend", "time"},
	mHTTPFailed:        {"http_req_failed", "rate", "default"},
	mGRPCDuration:      {"grpc_req_duration", "trend", "time"},
	mChecks:            {"checks", "rate", "default"},
	mDataSent:          {"data_sent", "counter", "data"},
	mDataReceived:      {"data_received", "counter", "data"},
	mIterDuration:      {"iteration_duration", "trend", "time"},
	mIterations:        {"iterations", "counter", "default"},
	mDropped:           {"dropped_iterations", "counter", "default"},
	mVUs:               {"vus", "gauge", "default"},
	mVUsMax:            {"vus_max", "gauge", "default"},
	mWSSessions:        {"ws_sessions", "counter", "default"},
	mWSConnecting:      {"ws_connecting", "trend", "time"},
	mWSMsgsSent:        {"ws_msgs_sent", "counter", "default"},
	mWSMsgsReceived:    {"ws_msgs_received", "counter", "default"},
	mWSSessionDuration: {"ws_session_duration", "trend", "time"},
	mFanout:            {"fanout_ms", "trend", "time"},
	mQuestionsAsked:    {"questions_asked", "counter", "default"},
	mQuestionsReceived: {"questions_received", "counter", "default"},
}

// kv is one tag.
type kv struct{ k, v string }

// columns is the tag layout of a run's output: the enabled system tags,
// sorted (the CSV's tag columns, k6's buildTagSets).
type columns struct {
	names   []string
	idx     map[string]int
	enabled map[string]bool // enabled system tags
}

func newColumns(systemTags []string) *columns {
	c := &columns{names: slices.Clone(systemTags), idx: map[string]int{}, enabled: map[string]bool{}}
	sort.Strings(c.names)
	for i, n := range c.names {
		c.idx[n] = i
		c.enabled[n] = true
	}
	return c
}

// knownSystemTag reports whether k is one of k6's system tag names.
func knownSystemTag(k string) bool {
	switch k {
	case "ip", "ocsp_status", "vu", "iter":
		return true
	}
	return slices.Contains(DefaultSystemTags, k)
}

// tagSet is the tags of a family of samples (say, every 429 of class search
// in scenario open), built once and shared by all of them, with its CSV and
// JSON encodings.
type tagSet struct {
	vals    []string // per column, "" when absent
	present []bool   // per column: the sample has the tag (perhaps empty)
	extra   []kv     // CSV extra_tags pairs, sorted by key
	all     []kv     // every tag (JSON), sorted by key

	extraStr string   // extra as k=v&k=v, sorted
	csv      [][]byte // ",col,…,extra_tags,metadata" per extra-tag rotation
	json     []byte   // the JSON tags object
}

// newTagSet builds the tag set of samples with system tags sys and user
// tags user (run tags first, then more specific ones; a later key wins).
// System tags that are not enabled are left out, as k6 does; a user tag
// whose key is a column fills the column; other user tags are extra tags,
// except (in the CSV only) those named like a disabled system tag.
func (c *columns) newTagSet(sys []kv, user ...map[string]string) *tagSet {
	ts := &tagSet{vals: make([]string, len(c.names)), present: make([]bool, len(c.names))}
	all := map[string]string{}
	for _, t := range sys {
		if i, ok := c.idx[t.k]; ok {
			ts.vals[i], ts.present[i] = t.v, true
			all[t.k] = t.v
		}
	}
	extra := map[string]string{}
	for _, m := range user {
		for k, v := range m {
			all[k] = v
			if i, ok := c.idx[k]; ok {
				ts.vals[i], ts.present[i] = v, true
				continue
			}
			if knownSystemTag(k) {
				continue
			}
			extra[k] = v
		}
	}
	ts.all = sortedPairs(all)
	ts.extra = sortedPairs(extra)
	ts.extraStr = joinPairs(ts.extra)
	ts.encode()
	return ts
}

func sortedPairs(m map[string]string) []kv {
	out := make([]kv, 0, len(m))
	for k, v := range m {
		out = append(out, kv{k, v})
	}
	slices.SortFunc(out, func(a, b kv) int { return strings.Compare(a.k, b.k) })
	return out
}

func joinPairs(p []kv) string {
	var b strings.Builder
	for i, t := range p {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(t.k)
		b.WriteByte('=')
		b.WriteString(t.v)
	}
	return b.String()
}

// maxRotations caps the extra-tag orders a tag set can be written in.
const maxRotations = 4

// encode precomputes the CSV tail of a row (tag columns, extra_tags,
// metadata) with encoding/csv, which quotes exactly as k6's CSV output
// does, and the JSON tags object as k6 marshals it (sorted keys, no HTML
// escaping). k6 writes extra_tags in Go map order, random from row to row;
// the CSV writer picks one of up to maxRotations rotations of the sorted
// pairs per row to imitate that.
func (ts *tagSet) encode() {
	n := 1
	if len(ts.extra) > 1 {
		n = min(len(ts.extra), maxRotations)
	}
	var buf bytes.Buffer
	for r := 0; r < n; r++ {
		rot := append(slices.Clone(ts.extra[r:]), ts.extra[:r]...)
		rec := append(slices.Clone(ts.vals), joinPairs(rot), "")
		buf.Reset()
		buf.WriteByte(',')
		w := csv.NewWriter(&buf)
		_ = w.Write(rec) // a bytes.Buffer does not fail
		w.Flush()
		b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		ts.csv = append(ts.csv, slices.Clone(b))
	}
	m := make(map[string]string, len(ts.all))
	for _, t := range ts.all {
		m[t.k] = t.v
	}
	buf.Reset()
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(m) // a map of strings always encodes
	ts.json = slices.Clone(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}
