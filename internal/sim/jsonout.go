package sim

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/klauspost/compress/gzip"
)

// JSONOptions are the settings of k6's JSON output.
type JSONOptions struct {
	// Gzip compresses the output (k6 does when the file name ends in .gz).
	Gzip bool
}

// WriteJSON simulates c and writes it to w as `k6 run --out json` does
// (internal/output/json): one line per sample,
//
//	{"metric":"…","type":"Point","data":{"time":"…","value":…,"tags":{…}}}
//
// with the time in RFC 3339 with nanoseconds (UTC), the value in Go's
// shortest float form, the tags sorted by key; before a metric's first
// Point a line {"type":"Metric","data":{"name":…,"type":…,"contains":…,
// "thresholds":[],"submetrics":null},"metric":…} (see appendMetricLine).
// It returns the run's truth.
func WriteJSON(w io.Writer, c Config, o JSONOptions) (Truth, error) {
	s, err := NewStream(c)
	if err != nil {
		return Truth{}, err
	}
	var gz *gzip.Writer
	if o.Gzip {
		gz = gzip.NewWriter(w)
		w = gz
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	var seen [numMetrics]bool
	expected := s.e.cols.enabled["expected_response"]
	var line []byte
	for {
		r, ok := s.nextRow()
		if !ok {
			break
		}
		line = line[:0]
		if !seen[r.m] {
			seen[r.m] = true
			line = appendMetricLine(line, r.m, expected)
		}
		line = appendPointLine(line, r)
		if _, err := bw.Write(line); err != nil {
			return Truth{}, err
		}
	}
	if err := bw.Flush(); err != nil {
		return Truth{}, err
	}
	if gz != nil {
		if err := gz.Close(); err != nil {
			return Truth{}, err
		}
	}
	return s.Truth(), nil
}

// expectedSubmetric is the submetric k6 (v0.31 on) registers on
// http_req_duration for its end-of-test summary when the expected_response
// tag is enabled, as the Metric lines of shared/corpus/public's k6 JSON
// files show.
const expectedSubmetric = `[{"name":"http_req_duration{expected_response:true}","suffix":"expected_response:true","tags":{"expected_response":"true"}}]`

// appendMetricLine appends k6's "Metric" line for metric m: no thresholds
// (the simulator has none), no submetrics but http_req_duration's
// expected_response one when that tag is enabled.
func appendMetricLine(b []byte, m uint8, expected bool) []byte {
	d := metricDefs[m]
	b = append(b, `{"type":"Metric","data":{"name":"`...)
	b = append(b, d.name...)
	b = append(b, `","type":"`...)
	b = append(b, d.typ...)
	b = append(b, `","contains":"`...)
	b = append(b, d.contains...)
	b = append(b, `","thresholds":[],"submetrics":`...)
	if m == mHTTPDuration && expected {
		b = append(b, expectedSubmetric...)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `},"metric":"`...)
	b = append(b, d.name...)
	return append(b, "\"}\n"...)
}

// appendPointLine appends one "Point" line.
func appendPointLine(b []byte, r row) []byte {
	b = append(b, `{"metric":"`...)
	b = append(b, metricDefs[r.m].name...)
	b = append(b, `","type":"Point","data":{"time":"`...)
	b = time.Unix(0, r.t).UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","value":`...)
	b = appendJSONFloat(b, r.v)
	b = append(b, `,"tags":`...)
	b = append(b, r.ts.json...)
	return append(b, "}}\n"...)
}

// appendJSONFloat appends v as encoding/json encodes a float64: the
// shortest decimal that round-trips, in exponent form below 1e-6 or from
// 1e21 on, with a one-digit negative exponent written without padding.
func appendJSONFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...) // k6 would fail to encode; cannot happen here
	}
	f := byte('f')
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		f = 'e'
	}
	b = strconv.AppendFloat(b, v, f, -1, 64)
	if f == 'e' {
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
