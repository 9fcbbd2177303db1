package prom

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/prometheus/common/model"
)

// Data is what a reader produced from one input: the series, the
// caveats that came with it and the records it had to skip.
type Data struct {
	// Format is "api", "grafana-csv", "victoriametrics", "text" or
	// "openmetrics".
	Format string
	// ResultType is the API's "matrix", "vector" or "scalar" (API JSON only).
	ResultType string
	// Series are normalised: one per label set, points in time order,
	// duplicate timestamps resolved (see Normalize).
	Series []Series
	// Warnings are the server's warnings and infos verbatim (API JSON) and
	// the reader's own caveats.
	Warnings []string
	// Skipped are the records that could not be read; the read went on.
	Skipped []*SyntaxError
}

// apiEnvelope is the envelope of every Prometheus HTTP API response
// (docs/querying/api.md).
type apiEnvelope struct {
	Status    string          `json:"status"`
	Data      json.RawMessage `json:"data"`
	ErrorType string          `json:"errorType"`
	Error     string          `json:"error"`
	Warnings  []string        `json:"warnings"`
	Infos     []string        `json:"infos"`
}

type apiData struct {
	ResultType string          `json:"resultType"`
	Result     json.RawMessage `json:"result"`
}

// maxMS is the largest millisecond timestamp whose nanoseconds fit an int64
// (year 2262).
const maxMS = math.MaxInt64 / 1_000_000

// ReadAPI reads a Prometheus HTTP API response (/api/v1/query or
// /api/v1/query_range) from r; file names r in errors. Matrix, vector and
// scalar results become series; a string result is an error. A response
// whose status is not "success" is an *APIError carrying the server's
// message and warnings verbatim. A series that cannot be decoded is
// recorded in Data.Skipped and the others are kept. The whole response is
// held in memory (the server caps it at 11,000 points per series).
func ReadAPI(r io.Reader, file string) (*Data, error) {
	buf, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return ParseAPI(buf, file)
}

// ParseAPI is ReadAPI on a byte slice.
func ParseAPI(buf []byte, file string) (*Data, error) {
	var env apiEnvelope
	if err := json.Unmarshal(buf, &env); err != nil {
		return nil, jsonError(buf, 0, file, err, `a Prometheus API response {"status":...,"data":{"resultType":...,"result":...}}`)
	}
	if env.Status != "success" {
		if env.Status == "" {
			return nil, &SyntaxError{File: file, Line: 1, Column: 1, Msg: `no "status" field: not a Prometheus API response`}
		}
		return nil, &APIError{File: file, Status: env.Status, ErrorType: env.ErrorType, Message: env.Error, Warnings: env.Warnings}
	}
	d := &Data{Format: "api"}
	d.Warnings = append(d.Warnings, env.Warnings...)
	d.Warnings = append(d.Warnings, env.Infos...)
	dataOff := offsetOf(buf, env.Data, 0)
	var data apiData
	if err := json.Unmarshal(env.Data, &data); err != nil {
		return nil, jsonError(buf, dataOff, file, err, `"data": {"resultType":...,"result":...}`)
	}
	d.ResultType = data.ResultType
	resOff := offsetOf(buf, data.Result, dataOff)
	switch data.ResultType {
	case "matrix", "vector":
		items, offs, err := splitArray(data.Result)
		if err != nil {
			return nil, jsonError(buf, resOff, file, err, `"result": an array of series`)
		}
		for i, raw := range items {
			s, err := decodeSeries(data.ResultType, raw)
			if err != nil {
				line, col := lineCol(buf, resOff+offs[i])
				d.Skipped = append(d.Skipped, &SyntaxError{File: file, Line: line, Column: col, Msg: fmt.Sprintf("result[%d]: %v", i, err)})
				continue
			}
			if s != nil {
				d.Series = append(d.Series, *s)
			}
		}
	case "scalar":
		var sc model.Scalar
		if err := json.Unmarshal(data.Result, &sc); err != nil {
			return nil, jsonError(buf, resOff, file, err, `"result": [<unix seconds>, "<value>"]`)
		}
		if int64(sc.Timestamp) > maxMS || int64(sc.Timestamp) < -maxMS {
			line, col := lineCol(buf, resOff)
			return nil, &SyntaxError{File: file, Line: line, Column: col, Msg: "scalar timestamp out of range"}
		}
		d.Series = []Series{{Labels: map[string]string{}, Points: []Point{{TimeNS: int64(sc.Timestamp) * 1e6, Value: float64(sc.Value)}}}}
	default:
		line, col := lineCol(buf, dataOff)
		return nil, &SyntaxError{File: file, Line: line, Column: col, Msg: fmt.Sprintf("resultType %q: want matrix, vector or scalar", data.ResultType)}
	}
	var dups int
	d.Series, dups = Normalize(d.Series)
	if dups > 0 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%s: %d duplicate timestamps: the last value of each was kept", file, dups))
	}
	return d, nil
}

// decodeSeries decodes one element of a matrix or vector result. It
// returns nil, nil for a native-histogram-only series (no float samples).
func decodeSeries(resultType string, raw []byte) (*Series, error) {
	var s Series
	if resultType == "matrix" {
		var ss model.SampleStream
		if err := json.Unmarshal(raw, &ss); err != nil {
			return nil, err
		}
		if ss.Values == nil && ss.Histograms == nil {
			return nil, errors.New(`no "values": want {"metric":{...},"values":[[<unix seconds>,"<value>"],...]}`)
		}
		s.Labels = metricLabels(ss.Metric)
		s.Points = make([]Point, 0, len(ss.Values))
		for _, v := range ss.Values {
			if int64(v.Timestamp) > maxMS || int64(v.Timestamp) < -maxMS {
				return nil, fmt.Errorf("timestamp %v out of range", v.Timestamp)
			}
			s.Points = append(s.Points, Point{TimeNS: int64(v.Timestamp) * 1e6, Value: float64(v.Value)})
		}
		if len(ss.Values) == 0 && len(ss.Histograms) > 0 {
			return nil, errors.New("native histogram samples are not supported: query a float expression such as histogram_quantile(...)")
		}
		return &s, nil
	}
	var smp model.Sample
	if err := json.Unmarshal(raw, &smp); err != nil {
		return nil, err
	}
	if smp.Histogram != nil {
		return nil, errors.New("native histogram samples are not supported: query a float expression such as histogram_quantile(...)")
	}
	if int64(smp.Timestamp) > maxMS || int64(smp.Timestamp) < -maxMS {
		return nil, fmt.Errorf("timestamp %v out of range", smp.Timestamp)
	}
	s.Labels = metricLabels(smp.Metric)
	s.Points = []Point{{TimeNS: int64(smp.Timestamp) * 1e6, Value: float64(smp.Value)}}
	return &s, nil
}

func metricLabels(m model.Metric) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[string(k)] = string(v)
	}
	return out
}

// splitArray splits a JSON array into its raw elements and their byte
// offsets within raw.
func splitArray(raw []byte) ([]json.RawMessage, []int64, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, nil, fmt.Errorf("got %v, want an array", tok)
	}
	var items []json.RawMessage
	var offs []int64
	for dec.More() {
		off := dec.InputOffset()
		for off < int64(len(raw)) && (raw[off] == ',' || raw[off] == ' ' || raw[off] == '\n' || raw[off] == '\r' || raw[off] == '\t') {
			off++
		}
		var item json.RawMessage
		if err := dec.Decode(&item); err != nil {
			return nil, nil, err
		}
		items = append(items, item)
		offs = append(offs, off)
	}
	return items, offs, nil
}

// offsetOf finds sub (a RawMessage copied out of buf) in buf at or after
// from; it returns from when it is not found.
func offsetOf(buf, sub []byte, from int64) int64 {
	if len(sub) == 0 || from > int64(len(buf)) {
		return from
	}
	if i := bytes.Index(buf[from:], sub); i >= 0 {
		return from + int64(i)
	}
	return from
}

// jsonError turns an encoding/json error into a SyntaxError at its line
// and column; base is the offset of the decoded part within buf.
func jsonError(buf []byte, base int64, file string, err error, want string) error {
	off := base
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off += se.Offset
	case errors.As(err, &te):
		off += te.Offset
	}
	line, col := lineCol(buf, off)
	return &SyntaxError{File: file, Line: line, Column: col, Msg: fmt.Sprintf("%v: want %s", err, want)}
}
