package prom

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/prometheus/common/model"
)

// MaxSeriesPoints caps the float plus histogram points one series of an
// API response may hold when read by an APIReader (Prometheus itself
// returns at most MaxPointsPerSeries per query_range series); a longer
// series is an error naming the cap, so a malformed or hostile file
// cannot take all memory.
const MaxSeriesPoints = 20_000_000

// APIReader streams the series of a Prometheus HTTP API response
// (/api/v1/query or /api/v1/query_range, docs/querying/api.md) with a
// json.Decoder token walk: memory holds one series at a time, never the
// document. Float samples ("values"/"value") and native-histogram samples
// ("histograms"/"histogram") are both read. A series with a bad sample is
// recorded in Skipped and the read goes on; a JSON syntax error or an I/O
// error stops it (Err), as does a response whose status is not "success"
// (an *APIError).
type APIReader struct {
	dec   *json.Decoder
	lc    *lineCounter
	file  string
	state int

	status, errorType, errMsg string
	resultType                string
	warnings                  []string
	index                     int
	cur                       Series
	err                       error
	skipped                   []*SyntaxError
	maxPoints                 int
	// pending is a key of the response object already read by a caller
	// that walked into the object (ReadResponses).
	pending string
	// strictPoints makes a series over maxPoints an error that stops the
	// read (a server answering beyond its own limit), not a skip.
	strictPoints bool
}

// errTooManyPoints is the error of a series over the cap with
// strictPoints.
var errTooManyPoints = errors.New("more points in one series than Prometheus ever sends (11,000 per query_range series)")

const (
	stStart = iota
	stTop
	stData
	stResult
	stEnd
)

// NewAPIReader reads an API response from r; file names r in errors.
func NewAPIReader(r io.Reader, file string) *APIReader {
	lc := newLineCounter(r)
	dec := json.NewDecoder(lc)
	dec.UseNumber()
	return &APIReader{dec: dec, lc: lc, file: file, maxPoints: MaxSeriesPoints}
}

// ResultType is the response's "matrix", "vector" or "scalar", once read
// (Prometheus writes it before the result).
func (r *APIReader) ResultType() string { return r.resultType }

// Warnings are the server's "warnings" and "infos", verbatim, read so far
// (all of them once Next has returned false).
func (r *APIReader) Warnings() []string { return r.warnings }

// Skipped are the series that could not be read.
func (r *APIReader) Skipped() []*SyntaxError { return r.skipped }

// Series is the current series, valid until the next call to Next.
func (r *APIReader) Series() *Series { return &r.cur }

// Err is the error that stopped the read, nil at a clean end.
func (r *APIReader) Err() error { return r.err }

func (r *APIReader) syntax(off int64, msg string) error {
	line, col := r.lc.pos(off)
	return &SyntaxError{File: r.file, Line: line, Column: col, Msg: msg}
}

// tokenErr turns a decoder error at the current position into a
// SyntaxError; want says what was expected there.
func (r *APIReader) tokenErr(err error, want string) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return r.syntax(r.dec.InputOffset(), "unexpected end of input: want "+want)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return r.syntax(se.Offset, fmt.Sprintf("%v: want %s", se, want))
	}
	return fmt.Errorf("%s: %w", r.file, err)
}

func (r *APIReader) fail(err error) bool {
	r.err, r.state = err, stEnd
	return false
}

// delim reads the next token and checks it is the delimiter d.
func (r *APIReader) delim(d json.Delim, want string) error {
	off := r.dec.InputOffset()
	tok, err := r.dec.Token()
	if err != nil {
		return r.tokenErr(err, want)
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return r.syntax(off+1, fmt.Sprintf("got %v, want %s", tokString(tok), want))
	}
	return nil
}

func tokString(t json.Token) string {
	switch v := t.(type) {
	case string:
		return fmt.Sprintf("%q", v)
	case nil:
		return "null"
	}
	return fmt.Sprint(t)
}

// key reads an object key, or reports the end of the object.
func (r *APIReader) key(want string) (string, bool, error) {
	if !r.dec.More() {
		_, err := r.dec.Token() // '}'
		if err != nil {
			return "", false, r.tokenErr(err, want)
		}
		return "", false, nil
	}
	tok, err := r.dec.Token()
	if err != nil {
		return "", false, r.tokenErr(err, want)
	}
	k, _ := tok.(string)
	return k, true, nil
}

// str decodes a string value.
func (r *APIReader) str(what string) (string, error) {
	off := r.dec.InputOffset()
	var s string
	if err := r.dec.Decode(&s); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return "", r.syntax(off+1, fmt.Sprintf("%s: want a string", what))
		}
		return "", r.tokenErr(err, what+": a string")
	}
	return s, nil
}

// Next advances to the next series; it returns false at the end of the
// response or on an error (see Err).
func (r *APIReader) Next() bool {
	for {
		switch r.state {
		case stEnd:
			return false
		case stStart:
			if err := r.delim('{', `a Prometheus API response {"status":...,"data":{"resultType":...,"result":...}}`); err != nil {
				return r.fail(err)
			}
			r.state = stTop
		case stTop:
			k, ok, err := r.pending, true, error(nil)
			if k != "" {
				r.pending = ""
			} else {
				k, ok, err = r.key(`a key of the response object`)
			}
			if err != nil {
				return r.fail(err)
			}
			if !ok {
				return r.fail(r.finish())
			}
			switch k {
			case "status":
				if r.status, err = r.str(`"status"`); err != nil {
					return r.fail(err)
				}
			case "errorType":
				if r.errorType, err = r.str(`"errorType"`); err != nil {
					return r.fail(err)
				}
			case "error":
				if r.errMsg, err = r.str(`"error"`); err != nil {
					return r.fail(err)
				}
			case "warnings", "infos":
				var ws []string
				if err := r.dec.Decode(&ws); err != nil {
					return r.fail(r.tokenErr(err, `"`+k+`": an array of strings`))
				}
				r.warnings = append(r.warnings, ws...)
			case "data":
				if r.status != "" && r.status != "success" {
					if err := r.skipValue(); err != nil {
						return r.fail(err)
					}
					continue
				}
				if err := r.delim('{', `"data": {"resultType":...,"result":...}`); err != nil {
					if r.status == "" {
						return r.fail(r.finish())
					}
					return r.fail(err)
				}
				r.state = stData
			default:
				if err := r.skipValue(); err != nil {
					return r.fail(err)
				}
			}
		case stData:
			k, ok, err := r.key(`a key of "data"`)
			if err != nil {
				return r.fail(err)
			}
			if !ok {
				r.state = stTop
				continue
			}
			switch k {
			case "resultType":
				off := r.dec.InputOffset()
				if r.resultType, err = r.str(`"resultType"`); err != nil {
					return r.fail(err)
				}
				switch r.resultType {
				case "matrix", "vector", "scalar":
				default:
					return r.fail(r.syntax(off+1, fmt.Sprintf("resultType %q: want matrix, vector or scalar", r.resultType)))
				}
			case "result":
				if r.resultType == "scalar" {
					off := r.dec.InputOffset()
					var sp model.SamplePair
					if err := r.dec.Decode(&sp); err != nil {
						return r.fail(r.valueErr(off, err, `"result": [<unix seconds>, "<value>"]`))
					}
					if err := checkTime(sp.Timestamp); err != nil {
						return r.fail(r.syntax(off+1, "scalar "+err.Error()))
					}
					r.cur = Series{Labels: map[string]string{}, Points: []Point{{TimeNS: int64(sp.Timestamp) * 1e6, Value: float64(sp.Value)}}}
					return true
				}
				if err := r.delim('[', `"result": an array of series`); err != nil {
					return r.fail(err)
				}
				r.state = stResult
			default:
				if err := r.skipValue(); err != nil {
					return r.fail(err)
				}
			}
		case stResult:
			if !r.dec.More() {
				if _, err := r.dec.Token(); err != nil {
					return r.fail(r.tokenErr(err, `"]"`))
				}
				r.state = stData
				continue
			}
			r.lc.forget(r.dec.InputOffset())
			ok, err := r.series()
			if err != nil {
				return r.fail(err)
			}
			r.index++
			if ok {
				return true
			}
		}
	}
}

// finish checks the status once the response object has been read.
func (r *APIReader) finish() error {
	switch r.status {
	case "success":
		return nil
	case "":
		return &SyntaxError{File: r.file, Line: 1, Column: 1, Msg: `no "status" field: not a Prometheus API response`}
	}
	return &APIError{File: r.file, Status: r.status, ErrorType: r.errorType, Message: r.errMsg, Warnings: r.warnings}
}

// valueErr reports a failed Decode of a value that started at off.
func (r *APIReader) valueErr(off int64, err error, want string) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return r.syntax(off+1+te.Offset, fmt.Sprintf("%v: want %s", err, want))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return r.syntax(off+se.Offset, fmt.Sprintf("%v: want %s", err, want))
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return r.syntax(r.dec.InputOffset(), "unexpected end of input: want "+want)
	}
	return r.syntax(off+1, fmt.Sprintf("%v: want %s", err, want))
}

// skipValue consumes one JSON value of any shape.
func (r *APIReader) skipValue() error {
	var raw json.RawMessage
	if err := r.dec.Decode(&raw); err != nil {
		return r.tokenErr(err, "a JSON value")
	}
	return nil
}

// series reads one element of the result array. ok is false when the
// element was skipped (recorded in r.skipped); err stops the read.
func (r *APIReader) series() (ok bool, err error) {
	if err := r.delim('{', `a series {"metric":{...},"values":[...]}`); err != nil {
		return false, err
	}
	elem := r.dec.InputOffset() - 1 // the '{'
	s := Series{}
	var bad string
	note := func(_ int64, msg string) {
		if bad == "" {
			bad = msg
		}
	}
	seen := false
	for {
		k, more, err := r.key("a key of the series object")
		if err != nil {
			return false, err
		}
		if !more {
			break
		}
		switch k {
		case "metric":
			off := r.dec.InputOffset()
			var m map[string]string
			if err := r.dec.Decode(&m); err != nil {
				if isSyntax(err) {
					return false, r.valueErr(off, err, `"metric": {"<label>":"<value>",...}`)
				}
				note(off, fmt.Sprintf(`"metric": %v`, err))
				continue
			}
			s.Labels = m
		case "values", "value":
			seen = true
			if err := r.points(&s, k == "value", note); err != nil {
				return false, err
			}
		case "histograms", "histogram":
			seen = true
			if err := r.histograms(&s, k == "histogram", note); err != nil {
				return false, err
			}
		default:
			if err := r.skipValue(); err != nil {
				return false, err
			}
		}
	}
	if bad == "" && !seen {
		note(elem, `no "values" or "histograms": want {"metric":{...},"values":[[<unix seconds>,"<value>"],...]}`)
	}
	if bad == "" && len(s.Points)+len(s.Histograms) > r.maxPoints {
		note(elem, fmt.Sprintf("more than %d points in one series (the cap MaxSeriesPoints)", r.maxPoints))
	}
	if bad != "" {
		line, col := r.lc.pos(elem)
		r.skipped = append(r.skipped, &SyntaxError{File: r.file, Line: line, Column: col, Msg: fmt.Sprintf("result[%d]: %s", r.index, bad)})
		return false, nil
	}
	if s.Labels == nil {
		s.Labels = map[string]string{}
	}
	r.cur = s
	return true, nil
}

func isSyntax(err error) bool {
	var se *json.SyntaxError
	return errors.As(err, &se) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

func checkTime(t model.Time) error {
	if int64(t) > maxMS || int64(t) < -maxMS {
		return fmt.Errorf("timestamp %v out of range", t)
	}
	return nil
}

// points reads "values" (an array of [t, "v"]) or "value" (one pair).
func (r *APIReader) points(s *Series, one bool, note func(int64, string)) error {
	decode := func() error {
		off := r.dec.InputOffset()
		var sp model.SamplePair
		if err := r.dec.Decode(&sp); err != nil {
			if isSyntax(err) {
				return r.valueErr(off, err, `[<unix seconds>, "<value>"]`)
			}
			note(off, err.Error())
			return nil
		}
		if err := checkTime(sp.Timestamp); err != nil {
			note(off, err.Error())
			return nil
		}
		if len(s.Points) >= r.maxPoints {
			if r.strictPoints {
				return errTooManyPoints
			}
			note(off, fmt.Sprintf("more than %d points in one series (the cap MaxSeriesPoints)", r.maxPoints))
			return nil
		}
		s.Points = append(s.Points, Point{TimeNS: int64(sp.Timestamp) * 1e6, Value: float64(sp.Value)})
		return nil
	}
	if one {
		return decode()
	}
	if !r.strictPoints {
		// Files: the array at once, parsed without reflection (memory: the
		// series' bytes, once).
		off := r.dec.InputOffset()
		var raw json.RawMessage
		if err := r.dec.Decode(&raw); err != nil {
			return r.valueErr(off, err, `"values": an array of [<unix seconds>, "<value>"]`)
		}
		pts, ok := parsePairs(raw, s.Points)
		if !ok {
			var sps []model.SamplePair
			if err := json.Unmarshal(raw, &sps); err != nil {
				note(off, err.Error())
				return nil
			}
			pts = s.Points
			for _, sp := range sps {
				if err := checkTime(sp.Timestamp); err != nil {
					note(off, err.Error())
					return nil
				}
				pts = append(pts, Point{TimeNS: int64(sp.Timestamp) * 1e6, Value: float64(sp.Value)})
			}
		}
		if len(pts) > r.maxPoints {
			note(off, fmt.Sprintf("more than %d points in one series (the cap MaxSeriesPoints)", r.maxPoints))
			return nil
		}
		s.Points = pts
		return nil
	}
	// A server's answer: point by point, so that an endless series stops
	// at the cap without being held.
	if err := r.delim('[', `"values": an array of [<unix seconds>, "<value>"]`); err != nil {
		return err
	}
	for r.dec.More() {
		if err := decode(); err != nil {
			return err
		}
	}
	_, err := r.dec.Token()
	if err != nil {
		return r.tokenErr(err, `"]"`)
	}
	return nil
}

// histograms reads "histograms" or "histogram": [t, {"count","sum","buckets"}].
func (r *APIReader) histograms(s *Series, one bool, note func(int64, string)) error {
	decode := func() error {
		off := r.dec.InputOffset()
		var hp model.SampleHistogramPair
		if err := r.dec.Decode(&hp); err != nil {
			if isSyntax(err) {
				return r.valueErr(off, err, `[<unix seconds>, {"count":...,"sum":...,"buckets":[...]}]`)
			}
			note(off, err.Error())
			return nil
		}
		if err := checkTime(hp.Timestamp); err != nil {
			note(off, err.Error())
			return nil
		}
		if hp.Histogram == nil {
			note(off, `histogram sample without a histogram: want [<unix seconds>, {"count":...,"sum":...,"buckets":[...]}]`)
			return nil
		}
		if len(s.Histograms) >= r.maxPoints {
			if r.strictPoints {
				return errTooManyPoints
			}
			note(off, fmt.Sprintf("more than %d points in one series (the cap MaxSeriesPoints)", r.maxPoints))
			return nil
		}
		h := HistogramPoint{TimeNS: int64(hp.Timestamp) * 1e6, Count: float64(hp.Histogram.Count), Sum: float64(hp.Histogram.Sum)}
		h.Buckets = make([]Bucket, 0, len(hp.Histogram.Buckets))
		for _, b := range hp.Histogram.Buckets {
			if b == nil {
				continue
			}
			h.Buckets = append(h.Buckets, Bucket{Boundaries: b.Boundaries, Lower: float64(b.Lower), Upper: float64(b.Upper), Count: float64(b.Count)})
		}
		sortBuckets(h.Buckets)
		s.Histograms = append(s.Histograms, h)
		return nil
	}
	if one {
		return decode()
	}
	if err := r.delim('[', `"histograms": an array of [<unix seconds>, {...}]`); err != nil {
		return err
	}
	for r.dec.More() {
		if err := decode(); err != nil {
			return err
		}
	}
	if _, err := r.dec.Token(); err != nil {
		return r.tokenErr(err, `"]"`)
	}
	return nil
}
