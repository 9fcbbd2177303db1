// Package summary reads k6's end-of-test summaries into one normalised
// model. Three shapes exist (see shared/research/k6-formats.md §5):
//
//   - the --summary-export file in its default ("old") shape: each metric is
//     a flat object of statistics with no type, rates carry "value" and an
//     inverted pair "passes"/"fails", and a threshold true means FAILED;
//   - the handleSummary(data) argument: metrics with type, contains, values
//     and thresholds {"ok": bool};
//   - the machine-readable summary of k6 v1.5+ (--new-machine-readable-summary,
//     "version":"1.0.0"): an array of metrics, counters with only a count,
//     rates as matches/total, trends with p90/p95 and no thresholds.
//
// All three become a Summary whose statistics have one name and one meaning
// each.
package summary

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
)

// Shape is the k6 summary layout a file had.
type Shape string

// The summary shapes Read recognises.
const (
	// ShapeExport is --summary-export in k6's default (old) shape.
	ShapeExport Shape = "summary-export"
	// ShapeHandleSummary is the data object k6 passes to handleSummary().
	ShapeHandleSummary Shape = "handle-summary"
	// ShapeMachineReadable is the v1.5+ machine-readable summary.
	ShapeMachineReadable Shape = "machine-readable"
)

// Summary is a k6 end-of-test summary in normalised form.
type Summary struct {
	// Source is the file name given to Read.
	Source string `json:"source"`
	// Shape is the layout the file had.
	Shape Shape `json:"shape"`
	// K6Version is the k6 release series the file names (machine-readable
	// shape only, e.g. "2.2.0"), or "".
	K6Version string `json:"k6_version,omitempty"`
	// SchemaVersion is the machine-readable summary's "version", or "".
	SchemaVersion string `json:"schema_version,omitempty"`
	// DurationMS is the test run duration in milliseconds when the file
	// gives it (handleSummary state.testRunDurationMs, machine-readable
	// config.duration), else 0.
	DurationMS float64 `json:"duration_ms,omitempty"`
	// Metrics are sorted by name; submetrics such as
	// "http_req_duration{expected_response:true}" are metrics of their own.
	Metrics []Metric `json:"metrics"`
	// Checks are the check results, in file order (groups depth first).
	Checks []Check `json:"checks,omitempty"`
	// Warnings are caveats about the file, in plain words.
	Warnings []string `json:"warnings,omitempty"`
}

// Metric is one metric or submetric of a summary. Statistics the file does
// not give are nil. Units are the metric's own: milliseconds for
// Contains "time", bytes for "data".
type Metric struct {
	// Name is the full name, e.g. "http_req_duration{name:order}".
	Name string `json:"name"`
	// Type is "counter", "gauge", "rate" or "trend". The old export shape
	// does not say; it is inferred from the statistics' keys there.
	Type string `json:"type"`
	// Contains is "default", "time" or "data", or "" when the file does not
	// say (old export shape, for metrics that are not k6 built-ins).
	Contains string `json:"contains,omitempty"`

	// Count is the number of events: a counter's count (bytes for data
	// counters), a rate metric's number of samples, a trend's sample count
	// when summaryTrendStats includes "count".
	Count *float64 `json:"count,omitempty"`
	// Rate is a counter's count per second of the test run, or a rate
	// metric's fraction of non-zero samples (0–1, not a percent).
	Rate *float64 `json:"rate,omitempty"`
	// Matches is a rate metric's number of non-zero samples: for checks the
	// passed checks, for http_req_failed the FAILED requests (the old shapes
	// call it "passes", the machine-readable one "matches").
	Matches *float64 `json:"matches,omitempty"`

	// Value is a gauge's last value.
	Value *float64 `json:"value,omitempty"`
	// Min, Max are a gauge's or trend's extremes.
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
	// Avg and Med are a trend's mean and median.
	Avg *float64 `json:"avg,omitempty"`
	Med *float64 `json:"med,omitempty"`
	// Percentiles are a trend's percentiles keyed "p90", "p95", "p99",
	// "p99.9" (k6's "p(95)" and the machine-readable "p95" both become
	// "p95"). k6 computes them exactly, by linear interpolation at
	// p·(n−1) over the sorted samples.
	Percentiles map[string]float64 `json:"percentiles,omitempty"`

	// Thresholds are the thresholds on this metric with their outcome,
	// sorted by source. The machine-readable shape has none.
	Thresholds []Threshold `json:"thresholds,omitempty"`
}

// Percentile returns the percentile named like "p95" or "p(95)".
func (m *Metric) Percentile(name string) (float64, bool) {
	v, ok := m.Percentiles[normPercentile(name)]
	return v, ok
}

// Threshold is one threshold and whether it passed.
type Threshold struct {
	// Source is the threshold expression, e.g. "p(95)<500".
	Source string `json:"source"`
	// OK is true when the threshold passed.
	OK bool `json:"ok"`
}

// Check is the outcome of one k6 check.
type Check struct {
	// Name is the check name; Path its group path, e.g.
	// "::browse::menu status 200" ("" in the machine-readable shape).
	Name string `json:"name"`
	Path string `json:"path,omitempty"`
	// Passes and Fails count the check's evaluations.
	Passes int64 `json:"passes"`
	Fails  int64 `json:"fails"`
}

// Metric returns the metric with the given full name.
func (s *Summary) Metric(name string) (*Metric, bool) {
	i := sort.Search(len(s.Metrics), func(i int) bool { return s.Metrics[i].Name >= name })
	if i < len(s.Metrics) && s.Metrics[i].Name == name {
		return &s.Metrics[i], true
	}
	return nil, false
}

// Error is a summary file that cannot be read. Line and Column are 1-based
// and 0 when unknown.
type Error struct {
	File   string
	Line   int
	Column int
	Msg    string
}

// Error formats the error as "file:line:column: message", leaving out the
// parts that are unknown.
func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// maxSummaryBytes bounds what Read loads: k6 summaries are kilobytes (the
// machine-readable one embeds the script).
const maxSummaryBytes = 64 << 20

// inflate returns data decompressed when it is gzip or zstd (told by its
// magic bytes, by ingest.Decompress as the run readers tell them:
// summary.json.gz), bounded by maxSummaryBytes; data itself otherwise. A
// damaged or cut stream, or one inflating past the bound, is an *Error
// naming the file.
func inflate(data []byte, name string) ([]byte, error) {
	r, closer, err := ingest.Decompress(bytes.NewReader(data), name)
	if err != nil {
		return nil, &Error{File: name, Msg: err.Error()}
	}
	if closer == nil {
		return data, nil
	}
	defer closer.Close()
	out, err := io.ReadAll(io.LimitReader(r, maxSummaryBytes+1))
	if err != nil {
		var te *ingest.TruncatedError
		if errors.As(err, &te) {
			err = te.Err // te names the file; the Error does too
		}
		return nil, &Error{File: name, Msg: fmt.Sprintf("compressed summary cut or damaged: %v", err)}
	}
	if len(out) > maxSummaryBytes {
		return nil, &Error{File: name, Msg: fmt.Sprintf("inflates past %d MiB: not a k6 summary", maxSummaryBytes>>20)}
	}
	return out, nil
}

// ReadFile reads the k6 summary at path; see Read.
func ReadFile(path string) (*Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Read reads a k6 summary in any of the three shapes, telling the shape from
// the content. name is used in errors and Summary.Source. It returns an
// *Error naming file, line and column for JSON that does not parse, and an
// *Error naming the keys found for JSON that is no k6 summary. Statistics of
// an unexpected type are skipped with a warning, not an error.
func Read(r io.Reader, name string) (*Summary, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxSummaryBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxSummaryBytes {
		return nil, &Error{File: name, Msg: fmt.Sprintf("larger than %d MiB: not a k6 summary", maxSummaryBytes>>20)}
	}
	if data, err = inflate(data, name); err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &Error{File: name, Msg: "empty file: want a k6 summary (JSON)"}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, jsonError(name, data, err, 0)
	}
	s := &Summary{Source: name}
	p := &parser{name: name, data: data, s: s}
	switch {
	case top["results"] != nil && top["version"] != nil:
		s.Shape = ShapeMachineReadable
		err = p.machineReadable(top)
	case top["metrics"] != nil:
		var metrics map[string]json.RawMessage
		if err := json.Unmarshal(top["metrics"], &metrics); err != nil {
			return nil, p.typeError("metrics", err, "an object keyed by metric name")
		}
		if isHandleSummary(metrics) {
			s.Shape = ShapeHandleSummary
			err = p.handleSummary(top, metrics)
		} else {
			s.Shape = ShapeExport
			err = p.export(top, metrics)
		}
	default:
		keys := make([]string, 0, len(top))
		for k := range top {
			keys = append(keys, strconv.Quote(k))
		}
		sort.Strings(keys)
		return nil, &Error{File: name, Line: 1, Msg: fmt.Sprintf("not a k6 summary: want a \"metrics\" object (--summary-export, handleSummary data) or \"version\" and \"results\" (machine-readable summary); found keys %s", strings.Join(keys, ", "))}
	}
	if err != nil {
		return nil, err
	}
	sort.Slice(s.Metrics, func(i, j int) bool { return s.Metrics[i].Name < s.Metrics[j].Name })
	return s, nil
}

// isHandleSummary tells the handleSummary shape: every metric has "type"
// and "values".
func isHandleSummary(metrics map[string]json.RawMessage) bool {
	if len(metrics) == 0 {
		return false
	}
	for _, raw := range metrics {
		var m struct {
			Type   *string         `json:"type"`
			Values json.RawMessage `json:"values"`
		}
		if json.Unmarshal(raw, &m) != nil || m.Type == nil || m.Values == nil {
			return false
		}
	}
	return true
}

type parser struct {
	name string
	data []byte
	s    *Summary
}

func (p *parser) warn(format string, a ...any) {
	p.s.Warnings = append(p.s.Warnings, fmt.Sprintf("%s: ", p.name)+fmt.Sprintf(format, a...))
}

// typeError words a JSON value of the wrong type, locating the key in the
// file when it can.
func (p *parser) typeError(key string, err error, want string) error {
	line, col := p.locate(key)
	return &Error{File: p.name, Line: line, Column: col, Msg: fmt.Sprintf("%q: want %s (%v)", key, want, err)}
}

// locate returns the line and column of the first `"key"` in the file.
func (p *parser) locate(key string) (int, int) {
	i := bytes.Index(p.data, []byte(strconv.Quote(key)))
	if i < 0 {
		return 0, 0
	}
	return lineCol(p.data, i)
}

func lineCol(data []byte, off int) (int, int) {
	off = max(0, min(off, len(data)))
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

func jsonError(name string, data []byte, err error, base int) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := lineCol(data, base+int(se.Offset)-1)
		if int(se.Offset) >= len(data) {
			return &Error{File: name, Line: line, Column: col, Msg: "the JSON ends early: want a complete k6 summary object"}
		}
		return &Error{File: name, Line: line, Column: col, Msg: "invalid JSON: " + se.Error()}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		line, col := lineCol(data, base+int(te.Offset)-1)
		return &Error{File: name, Line: line, Column: col, Msg: fmt.Sprintf("a JSON %s where a k6 summary wants an object", te.Value)}
	}
	return &Error{File: name, Msg: err.Error()}
}

// ---- the old --summary-export shape ----

func (p *parser) export(top map[string]json.RawMessage, metrics map[string]json.RawMessage) error {
	for name, raw := range metrics {
		if name == "" {
			p.warn("a metric without a name; ignored")
			continue
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return p.typeError(name, err, "an object of statistics")
		}
		m := Metric{Name: name}
		vals := map[string]float64{}
		for k, v := range fields {
			if k == "thresholds" {
				var th map[string]bool // true = FAILED in this shape
				if err := json.Unmarshal(v, &th); err != nil {
					p.warn("metric %q: thresholds are not an object of booleans; ignored", name)
					continue
				}
				for src, failed := range th {
					m.Thresholds = append(m.Thresholds, Threshold{Source: src, OK: !failed})
				}
				continue
			}
			f, ok := p.number(name, k, v)
			if ok {
				vals[k] = f
			}
		}
		_, hasCount := vals["count"]
		_, hasRate := vals["rate"]
		_, hasValue := vals["value"]
		_, hasPasses := vals["passes"]
		_, hasFails := vals["fails"]
		_, hasMin := vals["min"]
		switch {
		case hasCount && hasRate:
			m.Type = "counter"
			m.Count, m.Rate = ptr(vals["count"]), ptr(vals["rate"])
		case hasPasses && hasFails:
			m.Type = "rate"
			m.Matches = ptr(vals["passes"])
			m.Count = ptr(vals["passes"] + vals["fails"])
			if hasValue {
				m.Rate = ptr(vals["value"])
			}
		case hasValue && hasMin:
			m.Type = "gauge"
			m.Value, m.Min, m.Max = opt(vals, "value"), opt(vals, "min"), opt(vals, "max")
		default:
			m.Type = "trend"
			p.trendValues(&m, vals)
		}
		m.Contains = builtinContains(name, m.Type)
		sortThresholds(m.Thresholds)
		p.s.Metrics = append(p.s.Metrics, m)
	}
	if rg := top["root_group"]; rg != nil {
		p.group(rg)
	}
	return nil
}

// number decodes one statistic; anything but a finite number is skipped
// with a warning.
func (p *parser) number(metric, key string, raw json.RawMessage) (float64, bool) {
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		p.warn("metric %q: %q is %s, not a number; ignored", metric, key, truncRaw(raw))
		return 0, false
	}
	return f, true
}

func truncRaw(raw json.RawMessage) string {
	s := string(raw)
	if len(s) > 30 {
		s = s[:30] + "…"
	}
	return s
}

// trendValues fills a trend's statistics from k6's keys.
func (p *parser) trendValues(m *Metric, vals map[string]float64) {
	for k, v := range vals {
		switch k {
		case "avg":
			m.Avg = ptr(v)
		case "min":
			m.Min = ptr(v)
		case "max":
			m.Max = ptr(v)
		case "med":
			m.Med = ptr(v)
		case "count":
			m.Count = ptr(v)
		default:
			if strings.HasPrefix(k, "p") {
				if m.Percentiles == nil {
					m.Percentiles = map[string]float64{}
				}
				m.Percentiles[normPercentile(k)] = v
				continue
			}
			p.warn("metric %q: unknown trend statistic %q ignored", m.Name, k)
		}
	}
}

// normPercentile turns "p(95)" and "p95" into "p95".
func normPercentile(k string) string {
	if strings.HasPrefix(k, "p(") && strings.HasSuffix(k, ")") {
		return "p" + k[2:len(k)-1]
	}
	return k
}

// group walks a root_group: groups and checks are objects keyed by name in
// the export shape and arrays in the handleSummary shape.
func (p *parser) group(raw json.RawMessage) {
	var g struct {
		Groups json.RawMessage `json:"groups"`
		Checks json.RawMessage `json:"checks"`
	}
	if json.Unmarshal(raw, &g) != nil {
		p.warn("root_group is not an object; checks ignored")
		return
	}
	for _, c := range listOrMap(g.Checks) {
		var ck Check
		if err := json.Unmarshal(c, &ck); err != nil {
			p.warn("a check is not {name, path, passes, fails}; ignored")
			continue
		}
		p.s.Checks = append(p.s.Checks, ck)
	}
	for _, sub := range listOrMap(g.Groups) {
		p.group(sub)
	}
}

// listOrMap returns the elements of a JSON array, or the values of a JSON
// object in key order.
func listOrMap(raw json.RawMessage) []json.RawMessage {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		return list
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		list = append(list, m[k])
	}
	return list
}

// ---- the handleSummary data shape ----

func (p *parser) handleSummary(top map[string]json.RawMessage, metrics map[string]json.RawMessage) error {
	if st := top["state"]; st != nil {
		var state struct {
			TestRunDurationMs float64 `json:"testRunDurationMs"`
		}
		if json.Unmarshal(st, &state) == nil {
			p.s.DurationMS = state.TestRunDurationMs
		}
	}
	for name, raw := range metrics {
		if name == "" {
			p.warn("a metric without a name; ignored")
			continue
		}
		var hm struct {
			Type       string                     `json:"type"`
			Contains   string                     `json:"contains"`
			Values     map[string]json.RawMessage `json:"values"`
			Thresholds map[string]struct {
				OK bool `json:"ok"`
			} `json:"thresholds"`
		}
		if err := json.Unmarshal(raw, &hm); err != nil {
			return p.typeError(name, err, `{"type", "contains", "values", "thresholds"}`)
		}
		m := Metric{Name: name, Type: hm.Type, Contains: hm.Contains}
		vals := map[string]float64{}
		for k, v := range hm.Values {
			if f, ok := p.number(name, k, v); ok {
				vals[k] = f
			}
		}
		switch hm.Type {
		case "counter":
			m.Count, m.Rate = opt(vals, "count"), opt(vals, "rate")
		case "gauge":
			m.Value, m.Min, m.Max = opt(vals, "value"), opt(vals, "min"), opt(vals, "max")
		case "rate":
			m.Rate, m.Matches = opt(vals, "rate"), opt(vals, "passes")
			if _, ok := vals["fails"]; ok && m.Matches != nil {
				m.Count = ptr(vals["passes"] + vals["fails"])
			}
		case "trend":
			p.trendValues(&m, vals)
		default:
			p.warn("metric %q: unknown type %q; statistics kept as a trend's", name, hm.Type)
			m.Type = "trend"
			p.trendValues(&m, vals)
		}
		for src, t := range hm.Thresholds {
			m.Thresholds = append(m.Thresholds, Threshold{Source: src, OK: t.OK})
		}
		sortThresholds(m.Thresholds)
		p.s.Metrics = append(p.s.Metrics, m)
	}
	if rg := top["root_group"]; rg != nil {
		p.group(rg)
	}
	return nil
}

// ---- the machine-readable shape ----

func (p *parser) machineReadable(top map[string]json.RawMessage) error {
	var doc struct {
		Version  string `json:"version"`
		Metadata struct {
			K6Version string `json:"k6_version"`
		} `json:"metadata"`
		Config struct {
			Duration float64 `json:"duration"` // seconds
		} `json:"config"`
		Results struct {
			Checks struct {
				Results []Check `json:"results"`
			} `json:"checks"`
			Metrics []struct {
				Name     string                     `json:"name"`
				Type     string                     `json:"type"`
				Contains string                     `json:"contains"`
				Values   map[string]json.RawMessage `json:"values"`
			} `json:"metrics"`
		} `json:"results"`
	}
	if err := json.Unmarshal(p.data, &doc); err != nil {
		return jsonError(p.name, p.data, err, 0)
	}
	p.s.SchemaVersion = doc.Version
	if !strings.HasPrefix(doc.Version, "1.") {
		p.warn("machine-readable summary version %q is not the 1.x this reader knows; read as 1.0.0", doc.Version)
	}
	p.s.K6Version = doc.Metadata.K6Version
	// Seconds with ns digits; rounding at 1 ns keeps 130.235406902 s as
	// 130235.406902 ms rather than 130235.40690199999.
	p.s.DurationMS = math.Round(doc.Config.Duration*1e9) / 1e6
	p.s.Checks = doc.Results.Checks.Results
	for _, mm := range doc.Results.Metrics {
		if mm.Name == "" {
			p.warn("a metric without a name; ignored")
			continue
		}
		m := Metric{Name: mm.Name, Type: mm.Type, Contains: mm.Contains}
		vals := map[string]float64{}
		for k, v := range mm.Values {
			if f, ok := p.number(mm.Name, k, v); ok {
				vals[k] = f
			}
		}
		switch mm.Type {
		case "counter":
			m.Count = opt(vals, "count")
			if m.Count != nil && p.s.DurationMS > 0 {
				m.Rate = ptr(*m.Count / (p.s.DurationMS / 1000))
			}
		case "gauge":
			m.Value, m.Min, m.Max = opt(vals, "value"), opt(vals, "min"), opt(vals, "max")
		case "rate":
			m.Rate, m.Matches, m.Count = opt(vals, "rate"), opt(vals, "matches"), opt(vals, "total")
		case "trend":
			p.trendValues(&m, vals)
		default:
			p.warn("metric %q: unknown type %q; statistics kept as a trend's", mm.Name, mm.Type)
			m.Type = "trend"
			p.trendValues(&m, vals)
		}
		p.s.Metrics = append(p.s.Metrics, m)
	}
	if len(p.s.Metrics) == 0 {
		line, col := p.locate("results")
		return &Error{File: p.name, Line: line, Column: col, Msg: `machine-readable summary without results.metrics: want an array of {"name","type","contains","values"}`}
	}
	return nil
}

// ---- helpers ----

func ptr(f float64) *float64 { return &f }

func opt(vals map[string]float64, k string) *float64 {
	if v, ok := vals[k]; ok {
		return ptr(v)
	}
	return nil
}

func sortThresholds(t []Threshold) {
	sort.Slice(t, func(i, j int) bool { return t[i].Source < t[j].Source })
}

// builtinContains is the value type of k6's built-in metrics
// (metrics/builtin.go), used where the old export shape does not say.
func builtinContains(name, typ string) string {
	base := name
	if i := strings.IndexByte(base, '{'); i >= 0 {
		base = base[:i]
	}
	switch base {
	case "data_sent", "data_received":
		return "data"
	case "http_req_duration", "http_req_blocked", "http_req_connecting", "http_req_tls_handshaking",
		"http_req_sending", "http_req_waiting", "http_req_receiving", "iteration_duration",
		"group_duration", "ws_ping", "ws_session_duration", "ws_connecting", "grpc_req_duration":
		return "time"
	case "vus", "vus_max", "iterations", "dropped_iterations", "checks", "http_reqs", "http_req_failed",
		"ws_sessions", "ws_msgs_sent", "ws_msgs_received", "grpc_streams", "grpc_streams_msgs_sent", "grpc_streams_msgs_received":
		return "default"
	}
	return ""
}
