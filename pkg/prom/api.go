package prom

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
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

// maxMS is the largest millisecond timestamp whose nanoseconds fit an int64
// (year 2262).
const maxMS = math.MaxInt64 / 1_000_000

// ReadAPI reads a Prometheus HTTP API response (/api/v1/query or
// /api/v1/query_range) from r; file names r in errors. Matrix, vector and
// scalar results become series, float samples and native histograms
// alike; a string result is an error. A response whose status is not
// "success" is an *APIError carrying the server's message and warnings
// verbatim. A series that cannot be decoded is recorded in Data.Skipped
// and the others are kept. The document is streamed (APIReader): memory
// holds the series read, not the JSON text.
func ReadAPI(r io.Reader, file string) (*Data, error) {
	ar := NewAPIReader(r, file)
	d := &Data{Format: "api"}
	for ar.Next() {
		s := *ar.Series()
		d.Series = append(d.Series, s)
	}
	if err := ar.Err(); err != nil {
		return nil, err
	}
	d.ResultType = ar.ResultType()
	d.Warnings = append(d.Warnings, ar.Warnings()...)
	d.Skipped = ar.Skipped()
	var dups int
	d.Series, dups = Normalize(d.Series)
	if dups > 0 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%s: %d duplicate timestamps: the last value of each was kept", file, dups))
	}
	return d, nil
}

// ParseAPI is ReadAPI on a byte slice.
func ParseAPI(buf []byte, file string) (*Data, error) {
	return ReadAPI(bytes.NewReader(buf), file)
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
