package prom

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// VMReader streams a VictoriaMetrics /api/v1/export file: JSON lines of
// {"metric":{...},"values":[...],"timestamps":[<unix ms>,...]}. A series may
// span several lines; Normalize (or ReadVM) merges them. A line that cannot
// be read is recorded in Skipped and the read goes on; only an I/O error
// stops it.
type VMReader struct {
	br      *bufio.Reader
	file    string
	line    int
	cur     Series
	err     error
	skipped []*SyntaxError
}

// NewVMReader reads VictoriaMetrics export JSON lines from r; file names r
// in errors.
func NewVMReader(r io.Reader, file string) *VMReader {
	return &VMReader{br: bufio.NewReaderSize(r, 1<<16), file: file}
}

type vmLine struct {
	Metric     map[string]string `json:"metric"`
	Values     []json.RawMessage `json:"values"`
	Timestamps []int64           `json:"timestamps"`
}

// Next advances to the next series line; it returns false at the end of
// the input or on an I/O error (see Err).
func (r *VMReader) Next() bool {
	for r.err == nil {
		line, err := r.br.ReadBytes('\n')
		if len(line) > 0 {
			r.line++
			if s, ok := r.parse(line); ok {
				r.cur = s
				if err != nil && !errors.Is(err, io.EOF) {
					r.err = fmt.Errorf("%s:%d: %w", r.file, r.line, err)
				} else if errors.Is(err, io.EOF) {
					r.err = io.EOF
				}
				return true
			}
		}
		if errors.Is(err, io.EOF) {
			r.err = io.EOF
			return false
		}
		if err != nil {
			r.err = fmt.Errorf("%s:%d: %w", r.file, r.line+1, err)
			return false
		}
	}
	return false
}

func (r *VMReader) parse(line []byte) (Series, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return Series{}, false
	}
	var l vmLine
	if err := json.Unmarshal(line, &l); err != nil {
		col := 0
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			col = int(se.Offset)
		case errors.As(err, &te):
			col = int(te.Offset)
		}
		r.skip(col, fmt.Sprintf("%v: want {\"metric\":{...},\"values\":[...],\"timestamps\":[<unix ms>,...]}", err))
		return Series{}, false
	}
	if l.Metric == nil {
		r.skip(1, `no "metric": want {"metric":{...},"values":[...],"timestamps":[...]}`)
		return Series{}, false
	}
	if len(l.Values) != len(l.Timestamps) {
		r.skip(1, fmt.Sprintf("%d values but %d timestamps: want one timestamp per value", len(l.Values), len(l.Timestamps)))
		return Series{}, false
	}
	s := Series{Labels: l.Metric, Points: make([]Point, 0, len(l.Values))}
	for i, raw := range l.Values {
		v, err := parseVMValue(raw)
		if err != nil {
			r.skip(1, fmt.Sprintf("values[%d]: %v", i, err))
			return Series{}, false
		}
		ts := l.Timestamps[i]
		if ts > maxMS || ts < -maxMS {
			r.skip(1, fmt.Sprintf("timestamps[%d] = %d: want Unix milliseconds", i, ts))
			return Series{}, false
		}
		s.Points = append(s.Points, Point{TimeNS: ts * 1e6, Value: v})
	}
	return s, true
}

// parseVMValue reads a JSON number, or a string such as "NaN" or "+Inf".
func parseVMValue(raw json.RawMessage) (float64, error) {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, err
		}
		return strconv.ParseFloat(s, 64)
	}
	if string(raw) == "null" {
		return math.NaN(), nil
	}
	return strconv.ParseFloat(string(raw), 64)
}

func (r *VMReader) skip(col int, msg string) {
	r.skipped = append(r.skipped, &SyntaxError{File: r.file, Line: r.line, Column: col, Msg: msg})
}

// Series is the current series line. Its value is valid until the next
// call to Next.
func (r *VMReader) Series() *Series { return &r.cur }

// Err is the I/O error that stopped the read, or nil at a clean end.
func (r *VMReader) Err() error {
	if errors.Is(r.err, io.EOF) {
		return nil
	}
	return r.err
}

// Skipped lists the lines that could not be read.
func (r *VMReader) Skipped() []*SyntaxError { return r.skipped }

// ReadVM reads a whole VictoriaMetrics export and merges the lines of each
// series.
func ReadVM(rd io.Reader, file string) (*Data, error) {
	r := NewVMReader(rd, file)
	var in []Series
	for r.Next() {
		in = append(in, *r.Series())
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	d := &Data{Format: "victoriametrics", Skipped: r.Skipped()}
	var dups int
	d.Series, dups = Normalize(in)
	if dups > 0 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%s: %d duplicate timestamps: the last value of each was kept", file, dups))
	}
	return d, nil
}
