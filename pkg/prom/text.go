package prom

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// noTimestamp marks a sample that carried no timestamp.
const noTimestamp = model.Time(math.MinInt64)

// maxTextTime is the latest plausible sample time; an OpenMetrics timestamp
// written in milliseconds instead of seconds lands thousands of years later.
var maxTextTime = time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)

// ReadText reads the Prometheus text exposition format (0.0.4, as served by
// /metrics and /federate: timestamps in milliseconds) or OpenMetrics 1.0
// text (recognised by its "# EOF" line: timestamps in seconds), through
// github.com/prometheus/common/expfmt. Counters, gauges and untyped samples
// are kept; summaries and histograms become their _sum, _count, quantile
// and _bucket series. Samples without a timestamp are dropped with a
// warning (they have no place on the run's clock). The parser stops at the
// first syntax error, which is returned with the file and line. An
// OpenMetrics timestamp later than year 3000 is an error: it was written in
// milliseconds, not seconds.
func ReadText(r io.Reader, file string) (*Data, error) {
	buf, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	format, name := expfmt.FmtText, "text"
	if isOpenMetrics(buf) {
		format, name = expfmt.FmtOpenMetrics_1_0_0, "openmetrics"
	}
	dec := expfmt.NewDecoder(bytes.NewReader(buf), format)
	d := &Data{Format: name}
	var in []Series
	untimed := 0
	for {
		var mf dto.MetricFamily
		err := dec.Decode(&mf)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe expfmt.ParseError
			if errors.As(err, &pe) {
				return nil, &SyntaxError{File: file, Line: pe.Line, Msg: pe.Msg}
			}
			return nil, &SyntaxError{File: file, Msg: err.Error()}
		}
		// Check the timestamps before extraction, which multiplies them
		// into nanoseconds and would overflow.
		for _, m := range mf.Metric {
			if m.TimestampMs == nil {
				continue
			}
			ms := m.GetTimestampMs()
			if name == "openmetrics" && ms > maxTextTime.UnixMilli() {
				return nil, &SyntaxError{File: file, Msg: fmt.Sprintf("%s: timestamp %d ms is after the year 3000: OpenMetrics timestamps are seconds, these look like milliseconds", mf.GetName(), ms)}
			}
			if ms > maxMS || ms < -maxMS {
				return nil, &SyntaxError{File: file, Msg: fmt.Sprintf("%s: timestamp %d ms out of range", mf.GetName(), ms)}
			}
		}
		vec, err := expfmt.ExtractSamples(&expfmt.DecodeOptions{Timestamp: noTimestamp}, &mf)
		if err != nil {
			d.Warnings = append(d.Warnings, fmt.Sprintf("%s: %s: %v", file, mf.GetName(), err))
		}
		for _, smp := range vec {
			if smp.Timestamp == noTimestamp {
				untimed++
				continue
			}
			in = append(in, Series{Labels: metricLabels(smp.Metric), Points: []Point{{TimeNS: int64(smp.Timestamp) * 1e6, Value: float64(smp.Value)}}})
		}
	}
	if untimed > 0 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%s: %d samples without a timestamp were left out: they cannot be placed on the run's clock", file, untimed))
	}
	var dups int
	d.Series, dups = Normalize(in)
	if dups > 0 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%s: %d duplicate timestamps: the last value of each was kept", file, dups))
	}
	return d, nil
}

// isOpenMetrics reports whether buf has a "# EOF" line.
func isOpenMetrics(buf []byte) bool {
	for len(buf) > 0 {
		line := buf
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			line, buf = buf[:i], buf[i+1:]
		} else {
			buf = nil
		}
		if string(bytes.TrimRight(line, "\r")) == "# EOF" {
			return true
		}
	}
	return false
}
