package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"
	"unsafe"
)

// MetricInfo is what a k6 JSON "Metric" line declares about a metric.
type MetricInfo struct {
	// Type is the k6 metric type: "counter", "gauge", "trend" or "rate".
	Type string
	// Contains is the value type: "default" (a count or ratio), "time"
	// (milliseconds) or "data" (bytes).
	Contains string
	// Thresholds are the threshold sources set on the metric itself, e.g.
	// "count<1" (k6 does not list thresholds of submetrics here).
	Thresholds []string
	// Submetrics are the names of the metric's submetrics, e.g.
	// "http_req_duration{expected_response:true}".
	Submetrics []string
	// Line is the 1-based line that declared the metric.
	Line int64
}

// K6JSONReader streams the samples of one k6 JSON lines file (`k6 run --out
// json=FILE`), already decompressed.
//
// Both envelopes k6 has written are read: the old one (k6 up to v0.39,
// "tainted" and "sub" in Metric lines, key order type,data,metric,
// "tags":null on gauges) and the current one (Point lines in the order
// metric,type,data); the key order is free in any case. Timestamps are RFC
// 3339 with any zone offset and 0–9 fraction digits. "Metric" lines are
// remembered (see Metrics) and are not samples.
//
// Tags: a JSON point carries all its tags, system and user, in one object.
// They are returned as tag columns (Tags.Key/Value). The columns of a file
// start with k6's default system tags in the order of the default CSV header
// (check … url) and grow, at the end, with each new key the file uses; an
// index into Keys therefore stays valid for the whole file. A tag a point
// lacks has an empty value, as in the CSV. Past maxJSONTagColumns distinct
// keys, further keys go to the extra tags as "k=v&k=v". The point's metadata
// object (k6 v0.41+: vu, iter, …) goes to the metadata as "k=v&k=v".
//
// The hot path is a hand-written scanner for the Point shape that neither
// allocates nor reflects; a line it does not recognise (escapes in strings,
// other keys, odd numbers) is decoded with encoding/json, which also words
// the error of a malformed line. A malformed line is recorded as a
// SyntaxError with its line and column and skipped; a truncated gzip ends the
// input with a warning. Memory is bounded by the longest line (at most
// 16 MiB) and the interned tag values.
type K6JSONReader struct {
	name string
	r    io.Reader

	buf       []byte
	pos, end  int
	eof       bool
	readErr   error
	truncated bool
	line      int64 // line number of the next line

	in     *interner
	s      Sample
	keyIdx map[string]int
	keys   []string
	vals   []string
	extra  []byte
	meta   []byte

	// scratch of the fast scanner
	pf             pointFields
	tk, tv, mk, mv [][]byte

	metrics    map[string]MetricInfo
	undeclared map[string]bool

	lastTS     []byte
	lastTSNS   int64
	lastDigits int
	maxDigits  int // most fraction digits seen; -1 before the first sample

	st  Stats
	err error
}

// jsonBufSize is the initial read buffer; it grows to hold the longest
// line, up to jsonMaxLine bytes.
const (
	jsonBufSize = 256 << 10
	jsonMaxLine = 16 << 20
)

// maxJSONTagColumns caps the tag columns of one JSON file; keys past it go
// to Tags.Extra so that a file with unbounded tag keys keeps bounded memory.
const maxJSONTagColumns = 256

// k6DefaultTagColumns are the tag columns of k6's default CSV header, in its
// order; JSON files start with these columns so that samples of both formats
// look alike.
var k6DefaultTagColumns = []string{"check", "error", "error_code", "expected_response", "group", "method", "name", "proto", "scenario", "service", "status", "subproto", "tls_version", "url"}

// NewK6JSONReader returns a reader of the k6 JSON lines in r. name is used in
// errors and in Sample.Source. Nothing is read until the first Next.
func NewK6JSONReader(r io.Reader, name string) *K6JSONReader {
	j := &K6JSONReader{
		name: name, r: r, buf: make([]byte, jsonBufSize), line: 1,
		in: newInterner(), keyIdx: map[string]int{},
		metrics: map[string]MetricInfo{}, undeclared: map[string]bool{},
		maxDigits: -1,
	}
	for _, k := range k6DefaultTagColumns {
		j.keyIdx[k] = len(j.keys)
		j.keys = append(j.keys, k)
	}
	j.vals = make([]string, len(j.keys))
	j.s.Source = name
	return j
}

// Metrics returns the metrics declared by the Metric lines read so far,
// keyed by metric name. The map is a copy.
func (j *K6JSONReader) Metrics() map[string]MetricInfo {
	m := make(map[string]MetricInfo, len(j.metrics))
	for k, v := range j.metrics {
		m[k] = v
	}
	return m
}

// Sample returns the current sample; it is valid until the next call to Next.
func (j *K6JSONReader) Sample() *Sample { return &j.s }

// Err returns the I/O error that stopped the read, or nil.
func (j *K6JSONReader) Err() error { return j.err }

// Stats returns the counts so far. ResolutionNS is 10^(9−d) ns where d is
// the largest number of fraction digits seen: k6 (Go) trims trailing zeros
// from JSON timestamps, so the finest timestamp shows the clock's resolution
// (1 ns on Linux, 100 ns on Windows, 1 µs in old k6 files).
func (j *K6JSONReader) Stats() Stats {
	st := j.st
	if j.maxDigits >= 0 {
		st.ResolutionNS = 1
		for d := j.maxDigits; d < 9; d++ {
			st.ResolutionNS *= 10
		}
	}
	return st
}

// Close does nothing: the caller owns r.
func (j *K6JSONReader) Close() error { return nil }

// Next reads the next Point line. Metric lines are remembered, malformed
// lines recorded in Stats and skipped.
func (j *K6JSONReader) Next() bool {
	if j.err != nil {
		return false
	}
	for {
		lineNo := j.line
		line, ok, lerr := j.nextLine()
		if lerr != nil {
			j.st.record(&SyntaxError{File: j.name, Line: lineNo, Msg: lerr.Error()})
			continue
		}
		if !ok {
			if j.readErr != nil {
				j.err = fmt.Errorf("%s: line %d: %w", j.name, j.line, j.readErr)
			}
			return false
		}
		line = bytes.TrimRight(line, " \t\r")
		if len(bytes.TrimLeft(line, " \t")) == 0 {
			continue
		}
		if j.scanPoint(line) {
			if serr := j.fastSample(line, lineNo); serr != nil {
				j.st.record(serr)
				continue
			}
			j.point(lineNo)
			return true
		}
		isPoint, serr := j.slowLine(line, lineNo)
		if serr != nil {
			j.st.record(serr)
			continue
		}
		if isPoint {
			j.point(lineNo)
			return true
		}
	}
}

// point finishes a sample: counts it and notes an undeclared metric.
func (j *K6JSONReader) point(lineNo int64) {
	j.st.Rows++
	if _, ok := j.metrics[j.s.Metric]; !ok && !j.undeclared[j.s.Metric] {
		j.undeclared[j.s.Metric] = true
		if len(j.undeclared) <= MaxRecordedErrors {
			j.st.Warnings = append(j.st.Warnings, fmt.Sprintf("%s:%d: a Point of metric %q comes before any Metric line declaring it; its type is unknown (the sample is kept)", j.name, lineNo, j.s.Metric))
		}
	}
}

// fastSample turns the fields found by scanPoint into the current sample.
func (j *K6JSONReader) fastSample(line []byte, lineNo int64) *SyntaxError {
	if err := j.setTime(j.pf.time); err != nil {
		return &SyntaxError{File: j.name, Line: lineNo, Column: j.pf.timeCol + 1, Msg: err.Error()}
	}
	j.s.Metric = j.in.intern(j.pf.metric)
	j.s.Value = j.pf.value
	j.resetTags()
	for i := range j.tk {
		j.setTag(j.tk[i], j.tv[i])
	}
	for i := range j.mk {
		j.addMeta(j.mk[i], j.mv[i])
	}
	j.finishTags()
	return nil
}

func (j *K6JSONReader) resetTags() {
	for i := range j.vals {
		j.vals[i] = ""
	}
	j.extra = j.extra[:0]
	j.meta = j.meta[:0]
}

func (j *K6JSONReader) setTag(k, v []byte) {
	if i, ok := j.keyIdx[string(k)]; ok {
		j.vals[i] = j.in.intern(v)
		return
	}
	if len(j.keys) < maxJSONTagColumns {
		key := string(k)
		j.keyIdx[key] = len(j.keys)
		j.keys = append(j.keys, key)
		j.vals = append(j.vals, j.in.intern(v))
		return
	}
	j.extra = appendPair(j.extra, k, v)
}

func (j *K6JSONReader) addMeta(k, v []byte) { j.meta = appendPair(j.meta, k, v) }

func appendPair(dst, k, v []byte) []byte {
	if len(dst) > 0 {
		dst = append(dst, '&')
	}
	dst = append(dst, k...)
	dst = append(dst, '=')
	return append(dst, v...)
}

func (j *K6JSONReader) finishTags() {
	var extra, meta string
	if len(j.extra) > 0 {
		extra = string(j.extra)
	}
	if len(j.meta) > 0 {
		meta = string(j.meta)
	}
	j.s.Tags = NewTags(j.keys, j.vals, extra, meta)
}

// truncBytes quotes at most 40 bytes of b for a message.
func truncBytes(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// setTime parses a Point's time (cached: the points of one request share
// it) into the current sample.
func (j *K6JSONReader) setTime(ts []byte) error {
	if len(j.lastTS) == 0 || !bytes.Equal(ts, j.lastTS) {
		ns, digits, err := parseJSONTime(ts)
		if err != nil {
			return err
		}
		j.lastTS = append(j.lastTS[:0], ts...)
		j.lastTSNS, j.lastDigits = ns, digits
	}
	j.s.TimeNS = j.lastTSNS
	if j.lastDigits > j.maxDigits {
		j.maxDigits = j.lastDigits
	}
	return nil
}

// nextLine returns the next line without its newline (valid until the next
// call). ok is false at the end of input; err is a line-level problem, the
// line has been consumed.
func (j *K6JSONReader) nextLine() (line []byte, ok bool, err error) {
	for {
		rest := j.buf[j.pos:j.end]
		if nl := bytes.IndexByte(rest, '\n'); nl >= 0 {
			j.pos += nl + 1
			j.line++
			return rest[:nl], true, nil
		}
		if j.eof {
			if len(rest) == 0 {
				return nil, false, nil
			}
			j.pos = j.end
			j.line++
			if j.truncated {
				return nil, false, fmt.Errorf("last line cut short by the truncated stream (%d bytes dropped)", len(rest))
			}
			return rest, true, nil
		}
		if len(rest) >= jsonMaxLine {
			j.pos = j.end
			j.skipToNewline()
			j.line++
			return nil, false, fmt.Errorf("line longer than %d bytes", jsonMaxLine)
		}
		j.fill()
	}
}

func (j *K6JSONReader) skipToNewline() {
	for !j.eof {
		j.fill()
		if i := bytes.IndexByte(j.buf[j.pos:j.end], '\n'); i >= 0 {
			j.pos += i + 1
			return
		}
		j.pos = j.end
	}
}

// fill reads more input after compacting the unread bytes to the front.
func (j *K6JSONReader) fill() {
	if j.pos > 0 {
		n := copy(j.buf, j.buf[j.pos:j.end])
		j.pos, j.end = 0, n
	}
	if j.end == len(j.buf) {
		if len(j.buf) >= jsonMaxLine {
			return
		}
		nb := make([]byte, 2*len(j.buf))
		copy(nb, j.buf[:j.end])
		j.buf = nb
	}
	n, err := j.r.Read(j.buf[j.end:])
	j.end += n
	j.st.Bytes += int64(n)
	if err != nil {
		j.eof = true
		var te *TruncatedError
		switch {
		case errors.As(err, &te):
			j.truncated = true
			j.st.Truncated = true
			j.st.Warnings = append(j.st.Warnings, te.Error()+"; the lines before the cut are analysed")
		case err != io.EOF:
			j.readErr = err
		}
	}
}

// ---- the fast scanner ----

// pointFields are the parts of a Point line found by scanPoint; byte slices
// point into the line.
type pointFields struct {
	metric, typ, time []byte
	timeCol           int
	value             float64
}

// scanPoint scans a line of the exact shape k6 writes for a Point (keys in
// any order: metric, type, data{time, value, tags, metadata}; strings without
// escapes). It reports false for anything else, including Metric lines and
// malformed lines; those go to slowLine.
func (j *K6JSONReader) scanPoint(b []byte) bool {
	j.pf = pointFields{}
	j.tk, j.tv, j.mk, j.mv = j.tk[:0], j.tv[:0], j.mk[:0], j.mv[:0]
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipWS(b, i+1)
	var seenMetric, seenType, seenData bool
	for {
		k, n, ok := scanString(b, i)
		if !ok {
			return false
		}
		i = skipWS(b, n)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipWS(b, i+1)
		switch string(k) {
		case "metric":
			if seenMetric {
				return false
			}
			seenMetric = true
			if j.pf.metric, i, ok = scanString(b, i); !ok {
				return false
			}
		case "type":
			if seenType {
				return false
			}
			seenType = true
			if j.pf.typ, i, ok = scanString(b, i); !ok || string(j.pf.typ) != "Point" {
				return false
			}
		case "data":
			if seenData {
				return false
			}
			seenData = true
			if i, ok = j.scanData(b, i); !ok {
				return false
			}
		default:
			return false
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			break
		}
		if b[i] != ',' {
			return false
		}
		i = skipWS(b, i+1)
	}
	if skipWS(b, i+1) != len(b) {
		return false
	}
	return seenMetric && seenType && seenData && len(j.pf.metric) > 0 && j.pf.time != nil
}

func (j *K6JSONReader) scanData(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '{' {
		return i, false
	}
	i = skipWS(b, i+1)
	var seenTime, seenValue, seenTags, seenMeta bool
	if i < len(b) && b[i] == '}' {
		return i, false
	}
	for {
		k, n, ok := scanString(b, i)
		if !ok {
			return i, false
		}
		i = skipWS(b, n)
		if i >= len(b) || b[i] != ':' {
			return i, false
		}
		i = skipWS(b, i+1)
		switch string(k) {
		case "time":
			if seenTime {
				return i, false
			}
			seenTime = true
			j.pf.timeCol = i
			if j.pf.time, i, ok = scanString(b, i); !ok {
				return i, false
			}
		case "value":
			if seenValue {
				return i, false
			}
			seenValue = true
			if j.pf.value, i, ok = scanNumber(b, i); !ok {
				return i, false
			}
		case "tags":
			if seenTags {
				return i, false
			}
			seenTags = true
			if j.tk, j.tv, i, ok = scanStringMap(b, i, j.tk, j.tv); !ok {
				return i, false
			}
		case "metadata":
			if seenMeta {
				return i, false
			}
			seenMeta = true
			if j.mk, j.mv, i, ok = scanStringMap(b, i, j.mk, j.mv); !ok {
				return i, false
			}
		default:
			return i, false
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return i, false
		}
		if b[i] == '}' {
			return i + 1, seenTime && seenValue
		}
		if b[i] != ',' {
			return i, false
		}
		i = skipWS(b, i+1)
	}
}

// scanStringMap scans null or an object of string values.
func scanStringMap(b []byte, i int, ks, vs [][]byte) ([][]byte, [][]byte, int, bool) {
	if bytes.HasPrefix(b[i:], []byte("null")) {
		return ks, vs, i + 4, true
	}
	if i >= len(b) || b[i] != '{' {
		return ks, vs, i, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return ks, vs, i + 1, true
	}
	for {
		k, n, ok := scanString(b, i)
		if !ok {
			return ks, vs, i, false
		}
		i = skipWS(b, n)
		if i >= len(b) || b[i] != ':' {
			return ks, vs, i, false
		}
		i = skipWS(b, i+1)
		v, n, ok := scanString(b, i)
		if !ok {
			return ks, vs, i, false
		}
		ks, vs = append(ks, k), append(vs, v)
		i = skipWS(b, n)
		if i >= len(b) {
			return ks, vs, i, false
		}
		if b[i] == '}' {
			return ks, vs, i + 1, true
		}
		if b[i] != ',' {
			return ks, vs, i, false
		}
		i = skipWS(b, i+1)
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// scanString scans a JSON string with no escapes and returns its contents
// and the index after the closing quote. It fails on escapes, control
// characters and invalid UTF-8 (encoding/json then decides).
func scanString(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, i, false
	}
	start := i + 1
	ascii := true
	for k := start; k < len(b); k++ {
		ch := b[k]
		switch {
		case ch == '"':
			s := b[start:k]
			if !ascii && !utf8.Valid(s) {
				return nil, i, false
			}
			return s, k + 1, true
		case ch == '\\' || ch < 0x20:
			return nil, i, false
		case ch >= 0x80:
			ascii = false
		}
	}
	return nil, i, false
}

// scanNumber scans a JSON number (RFC 8259 grammar) and returns its value
// as strconv.ParseFloat (and so encoding/json) rounds it.
func scanNumber(b []byte, i int) (float64, int, bool) {
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return 0, i, false
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return 0, i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return 0, i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return 0, i, false
		}
	}
	num := b[start:i]
	v, err := strconv.ParseFloat(unsafe.String(&num[0], len(num)), 64)
	if err != nil {
		return 0, i, false
	}
	return v, i, true
}

// ---- the encoding/json path ----

type jsonEnvelope struct {
	Type   *string         `json:"type"`
	Metric string          `json:"metric"`
	Data   json.RawMessage `json:"data"`
}

type jsonPointData struct {
	Time     *string           `json:"time"`
	Value    *float64          `json:"value"`
	Tags     map[string]string `json:"tags"`
	Metadata map[string]string `json:"metadata"`
}

type jsonMetricData struct {
	Name       string            `json:"name"`
	Type       string            `json:"type"`
	Contains   string            `json:"contains"`
	Thresholds []json.RawMessage `json:"thresholds"`
	Submetrics []struct {
		Name string `json:"name"`
	} `json:"submetrics"`
}

// slowLine decodes a line with encoding/json: a Point becomes the current
// sample (isPoint true), a Metric is remembered, anything else is an error.
func (j *K6JSONReader) slowLine(line []byte, lineNo int64) (isPoint bool, serr *SyntaxError) {
	bad := func(col int, format string, a ...any) (bool, *SyntaxError) {
		return false, &SyntaxError{File: j.name, Line: lineNo, Column: col, Msg: fmt.Sprintf(format, a...)}
	}
	var env jsonEnvelope
	if err := json.Unmarshal(line, &env); err != nil {
		col, msg := jsonErrorColumn(err, line, 0)
		return bad(col, "invalid JSON (%s): want one k6 JSON output object per line", msg)
	}
	if env.Type == nil {
		return bad(0, `no "type": want a k6 JSON output line with "type":"Point" or "type":"Metric"`)
	}
	switch *env.Type {
	case "Metric":
		var d jsonMetricData
		if len(env.Data) == 0 || string(env.Data) == "null" {
			return bad(keyColumn(line, "type"), `Metric line without "data"`)
		}
		if err := json.Unmarshal(env.Data, &d); err != nil {
			col, msg := jsonErrorColumn(err, line, max(valueColumn(line, "data")-1, 0))
			return bad(col, "Metric data: %s", msg)
		}
		name := env.Metric
		if name == "" {
			name = d.Name
		}
		if name == "" {
			return bad(keyColumn(line, "data"), "Metric line without a metric name")
		}
		mi := MetricInfo{Type: d.Type, Contains: d.Contains, Line: lineNo}
		for _, t := range d.Thresholds {
			var s string
			if json.Unmarshal(t, &s) == nil {
				mi.Thresholds = append(mi.Thresholds, s)
				continue
			}
			var o struct {
				Threshold string `json:"threshold"`
			}
			if json.Unmarshal(t, &o) == nil && o.Threshold != "" {
				mi.Thresholds = append(mi.Thresholds, o.Threshold)
			}
		}
		for _, s := range d.Submetrics {
			mi.Submetrics = append(mi.Submetrics, s.Name)
		}
		j.metrics[j.in.intern([]byte(name))] = mi
		return false, nil
	case "Point":
	default:
		return bad(keyColumn(line, "type"), "unknown line type %q: want \"Point\" or \"Metric\"", *env.Type)
	}
	if env.Metric == "" {
		return bad(0, `Point without a "metric" name`)
	}
	if len(env.Data) == 0 || string(env.Data) == "null" {
		return bad(0, `Point without "data": want {"time":…,"value":…,"tags":{…}}`)
	}
	var d jsonPointData
	if err := json.Unmarshal(env.Data, &d); err != nil {
		col, msg := jsonErrorColumn(err, line, max(valueColumn(line, "data")-1, 0))
		return bad(col, "Point data: %s", msg)
	}
	if d.Time == nil {
		return bad(keyColumn(line, "data"), `Point without data.time: want an RFC 3339 time`)
	}
	if d.Value == nil {
		return bad(keyColumn(line, "data"), `Point without data.value: want a number`)
	}
	if err := j.setTime([]byte(*d.Time)); err != nil {
		return bad(valueColumn(line, "time"), "%v", err)
	}
	j.s.Metric = j.in.intern([]byte(env.Metric))
	j.s.Value = *d.Value
	j.resetTags()
	for _, k := range sortedKeys(d.Tags) {
		j.setTag([]byte(k), []byte(d.Tags[k]))
	}
	for _, k := range sortedKeys(d.Metadata) {
		j.addMeta([]byte(k), []byte(d.Metadata[k]))
	}
	j.finishTags()
	return true, nil
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// jsonErrorColumn returns the 1-based column of an encoding/json error in
// line, for a value that starts after base bytes of the line, and a message
// without Go type names where possible.
func jsonErrorColumn(err error, line []byte, base int) (int, string) {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		col := base + int(se.Offset)
		if col > len(line) {
			col = len(line)
		}
		if col < 1 {
			col = 1
		}
		if base+int(se.Offset) >= len(line) {
			return col, "line ends inside a JSON value"
		}
		return col, se.Error()
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		col := base + int(te.Offset)
		if col < 1 || col > len(line) {
			col = 0
		}
		kind := te.Type.Kind().String()
		if (te.Field == "tags" || te.Field == "metadata") && kind == "string" {
			return col, fmt.Sprintf("%s holds a JSON %s, want string values", te.Field, te.Value)
		}
		return col, fmt.Sprintf("%s is a JSON %s, want %s", fieldName(te.Field), te.Value, jsonKind(kind))
	}
	return 0, err.Error()
}

func fieldName(f string) string {
	if f == "" {
		return "the value"
	}
	return f
}

func jsonKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "float64":
		return "a number"
	case "map", "struct":
		return "an object"
	case "slice":
		return "an array"
	}
	return k
}

// keyColumn returns the 1-based column of the first `"key"` in line, or 0.
func keyColumn(line []byte, key string) int {
	if key == "" {
		return 0
	}
	if i := bytes.Index(line, []byte(`"`+key+`"`)); i >= 0 {
		return i + 1
	}
	return 0
}

// valueColumn returns the 1-based column of the value after the first
// `"key":` in line, or 0.
func valueColumn(line []byte, key string) int {
	c := keyColumn(line, key)
	if c == 0 {
		return 0
	}
	i := skipWS(line, c-1+len(key)+2)
	if i >= len(line) || line[i] != ':' {
		return c
	}
	return skipWS(line, i+1) + 1
}

// ---- time ----

// parseJSONTime parses a k6 JSON time (Go's time.Time JSON form: RFC 3339
// with 0–9 fraction digits and a zone offset) into nanoseconds since the
// epoch, and returns the number of fraction digits. The common shape is
// parsed by hand; anything else goes to time.Parse.
func parseJSONTime(b []byte) (ns int64, digits int, err error) {
	if ns, digits, ok := fastRFC3339(b); ok {
		return ns, digits, nil
	}
	if len(b) == 0 {
		return 0, 0, errors.New(`empty time: want RFC 3339, e.g. "2006-01-02T15:04:05.999999999Z07:00"`)
	}
	t, perr := time.Parse(time.RFC3339Nano, string(b))
	if perr != nil {
		return 0, 0, fmt.Errorf("time %q: want RFC 3339, e.g. \"2006-01-02T15:04:05.999999999Z07:00\"", truncBytes(b))
	}
	if y := t.Year(); y < 1678 || y > 2261 {
		return 0, 0, fmt.Errorf("time %q: year out of the range 1678–2261 that nanoseconds since 1970 can hold", truncBytes(b))
	}
	if dot := bytes.IndexAny(b, ".,"); dot >= 0 {
		k := dot + 1
		for k < len(b) && b[k] >= '0' && b[k] <= '9' {
			k++
		}
		digits = min(k-dot-1, 9)
	}
	return t.UnixNano(), digits, nil
}

// fastRFC3339 parses exactly YYYY-MM-DDTHH:MM:SS[.F{1,9}](Z|±HH:MM) with
// valid ranges and a year in 1678–2261; ok is false for anything else.
func fastRFC3339(b []byte) (ns int64, digits int, ok bool) {
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return 0, 0, false
	}
	num := func(s []byte) (int64, bool) {
		var v int64
		for _, ch := range s {
			if ch < '0' || ch > '9' {
				return 0, false
			}
			v = v*10 + int64(ch-'0')
		}
		return v, true
	}
	year, ok1 := num(b[0:4])
	month, ok2 := num(b[5:7])
	day, ok3 := num(b[8:10])
	hour, ok4 := num(b[11:13])
	minute, ok5 := num(b[14:16])
	sec, ok6 := num(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return 0, 0, false
	}
	if year < 1678 || year > 2261 || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || sec > 59 {
		return 0, 0, false
	}
	i := 19
	var frac int64
	if b[i] == '.' {
		i++
		s := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			frac = frac*10 + int64(b[i]-'0')
			i++
		}
		digits = i - s
		if digits == 0 || digits > 9 {
			return 0, 0, false
		}
		for d := digits; d < 9; d++ {
			frac *= 10
		}
	}
	if i >= len(b) {
		return 0, 0, false
	}
	var off int64
	switch b[i] {
	case 'Z':
		i++
	case '+', '-':
		if len(b)-i != 6 || b[i+3] != ':' {
			return 0, 0, false
		}
		oh, okh := num(b[i+1 : i+3])
		om, okm := num(b[i+4 : i+6])
		if !okh || !okm || oh > 23 || om > 59 {
			return 0, 0, false
		}
		off = oh*3600 + om*60
		if b[i] == '-' {
			off = -off
		}
		i += 6
	default:
		return 0, 0, false
	}
	if i != len(b) {
		return 0, 0, false
	}
	secs := daysFromCivil(year, month, day)*86400 + hour*3600 + minute*60 + sec - off
	return secs*1e9 + frac, digits, true
}

func daysIn(month, year int64) int64 {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian
// date (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := m - 3
	if m <= 2 {
		mp = m + 9
	}
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// isSummaryHead tells, from the first line of a JSON file, a k6 summary
// from k6 JSON output lines: a summary is pretty-printed (the line is a bare
// "{") or, compact, starts with a key no output line has ("root_group",
// "metrics", "version", ...); output lines start with "type" or "metric".
func isSummaryHead(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 1 {
		return true
	}
	k, _, ok := scanString(line, skipWS(line, 1))
	if !ok {
		return false
	}
	switch string(k) {
	case "root_group", "metrics", "options", "state", "setup_data", "version", "metadata", "config", "results":
		return true
	}
	return false
}

// DeclaredMetrics returns the metrics declared by the k6 JSON "Metric"
// lines that r has read so far, keyed by metric name, for a reader from
// Open or OpenAll or a *K6JSONReader; with several JSON files the first
// declaration of a name wins. ok is false when r reads no k6 JSON input (a
// CSV carries no metric types).
func DeclaredMetrics(r Reader) (m map[string]MetricInfo, ok bool) {
	m = map[string]MetricInfo{}
	var walk func(Reader)
	walk = func(r Reader) {
		switch v := r.(type) {
		case *K6JSONReader:
			ok = true
			for k, mi := range v.metrics {
				if _, dup := m[k]; !dup {
					m[k] = mi
				}
			}
		case *closingReader:
			walk(v.Reader)
		case *MultiReader:
			for _, sub := range v.rs {
				walk(sub)
			}
		}
	}
	walk(r)
	return m, ok
}
