package prom

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// GrafanaOptions configure ReadGrafanaCSV.
type GrafanaOptions struct {
	// Location is the time zone of formatted (non-epoch) times, the
	// dashboard's time zone at export; nil means UTC.
	Location *time.Location
}

// grafanaTimeLayouts are the formatted time layouts accepted in a Grafana
// CSV's time column ("Formatted data" on); epoch milliseconds are tried
// first.
var grafanaTimeLayouts = []string{
	"2006-01-02 15:04:05",
	"2006-01-02 15:04:05.000",
	"2006-01-02 15:04",
	time.RFC3339Nano,
	"2006-01-02T15:04:05",
	"2006-01-02T15:04:05.000",
	"01/02/2006 15:04:05",
	"02.01.2006 15:04:05",
}

// ReadGrafanaCSV reads a Grafana panel export (Inspect → Data → Download
// CSV) in either layout: "Series joined by time" (one Time column, one
// column per series, empty cells where a series has no point) or one frame
// per series (each frame with its own header, frames separated by blank
// lines), and the older "Series","Time","Value" row layout. The delimiter
// is ',' or ';' (detected from the header, or given by an Excel "sep=" first
// line); lines may end in CRLF. Times are epoch milliseconds or formatted
// dates in opt.Location. A column header `name{k="v",...}` or `{k="v"}`
// becomes those labels; any other header (a legend) becomes the label
// "legend". A cell that is not a number (a formatted value with a unit,
// "12.3 MiB") is recorded in Data.Skipped and the read goes on.
func ReadGrafanaCSV(r io.Reader, file string, opt GrafanaOptions) (*Data, error) {
	loc := opt.Location
	if loc == nil {
		loc = time.UTC
	}
	br := bufio.NewReader(r)
	first, err := br.Peek(4096)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	first = bytes.TrimPrefix(first, []byte("\xef\xbb\xbf"))
	delim := ','
	lineOffset := 0
	if bytes.HasPrefix(bytes.TrimLeft(first, "\ufeff"), []byte("sep=")) {
		line, _ := br.ReadString('\n')
		line = strings.TrimPrefix(strings.TrimRight(line, "\r\n"), "\xef\xbb\xbf")
		if s := strings.TrimPrefix(line, "sep="); len(s) == 1 {
			delim = rune(s[0])
		}
		lineOffset = 1
	} else {
		head := first
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			head = head[:i]
		}
		if bytes.Count(head, []byte(";")) > bytes.Count(head, []byte(",")) {
			delim = ';'
		}
	}
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.Comma = delim
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = false
	d := &Data{Format: "grafana-csv"}
	var (
		header []string
		cols   []*Series
		rowFmt bool // "Series","Time","Value" rows
		byName = map[string]*Series{}
		all    []*Series
	)
	skip := func(line, col int, msg string) {
		d.Skipped = append(d.Skipped, &SyntaxError{File: file, Line: line + lineOffset, Column: col, Msg: msg})
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				skip(pe.Line, pe.Column, pe.Err.Error())
				if errors.Is(pe.Err, csv.ErrQuote) || errors.Is(pe.Err, csv.ErrBareQuote) {
					continue
				}
				continue
			}
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		// A row whose first cell is not a time starts a new frame.
		if header == nil || (!rowFmt && !isTimeCell(rec[0], loc)) || (rowFmt && isHeaderRow(rec)) {
			if isTimeCell(rec[0], loc) {
				skip(line, 1, fmt.Sprintf("data row before any header: want a header line such as \"Time%c<series>\"", delim))
				continue
			}
			header, rowFmt = rec, false
			cols = make([]*Series, len(rec))
			if len(rec) == 3 && strings.EqualFold(rec[0], "Series") && strings.EqualFold(rec[1], "Time") {
				rowFmt = true
				continue
			}
			if !strings.EqualFold(strings.TrimSpace(rec[0]), "Time") {
				skip(line, 1, fmt.Sprintf("header %q: want the time column first (\"Time\")", rec[0]))
			}
			for i := 1; i < len(rec); i++ {
				name := rec[i]
				s, ok := byName[name]
				if !ok {
					s = &Series{Labels: parseSeriesName(name)}
					byName[name] = s
					all = append(all, s)
				}
				cols[i] = s
			}
			continue
		}
		if rowFmt {
			if len(rec) != 3 {
				skip(line, 1, fmt.Sprintf("%d fields: want 3 (Series, Time, Value)", len(rec)))
				continue
			}
			t, ok := parseGrafanaTime(rec[1], loc)
			if !ok {
				_, col := cr.FieldPos(1)
				skip(line, col, fmt.Sprintf("time %q: want epoch milliseconds or a date such as 2006-01-02 15:04:05", rec[1]))
				continue
			}
			v, ok, msg := parseGrafanaValue(rec[2])
			if !ok {
				if msg != "" {
					_, col := cr.FieldPos(2)
					skip(line, col, msg)
				}
				continue
			}
			s, found := byName[rec[0]]
			if !found {
				s = &Series{Labels: parseSeriesName(rec[0])}
				byName[rec[0]] = s
				all = append(all, s)
			}
			s.Points = append(s.Points, Point{TimeNS: t, Value: v})
			continue
		}
		t, ok := parseGrafanaTime(rec[0], loc)
		if !ok {
			skip(line, 1, fmt.Sprintf("time %q: want epoch milliseconds or a date such as 2006-01-02 15:04:05", rec[0]))
			continue
		}
		if len(rec) > len(cols) {
			_, col := cr.FieldPos(len(cols))
			skip(line, col, fmt.Sprintf("%d fields: the header has %d", len(rec), len(cols)))
		}
		for i := 1; i < len(rec) && i < len(cols); i++ {
			v, ok, msg := parseGrafanaValue(rec[i])
			if !ok {
				if msg != "" {
					_, col := cr.FieldPos(i)
					skip(line, col, msg)
				}
				continue
			}
			cols[i].Points = append(cols[i].Points, Point{TimeNS: t, Value: v})
		}
	}
	in := make([]Series, 0, len(all))
	for _, s := range all {
		in = append(in, *s)
	}
	var dups int
	d.Series, dups = Normalize(in)
	if dups > 0 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%s: %d duplicate timestamps: the last value of each was kept", file, dups))
	}
	if header == nil {
		return nil, &SyntaxError{File: file, Line: 1, Msg: "no header line: want \"Time\",\"<series>\",..."}
	}
	return d, nil
}

func isHeaderRow(rec []string) bool {
	return len(rec) == 3 && strings.EqualFold(rec[0], "Series") && strings.EqualFold(rec[1], "Time")
}

func isTimeCell(s string, loc *time.Location) bool {
	_, ok := parseGrafanaTime(s, loc)
	return ok
}

// parseGrafanaTime reads epoch milliseconds or a formatted date, returning
// Unix nanoseconds.
func parseGrafanaTime(s string, loc *time.Location) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	if ms, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(ms) || math.Abs(ms) > maxMS {
			return 0, false
		}
		return int64(math.Round(ms * 1e6)), true
	}
	for _, l := range grafanaTimeLayouts {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t.UnixNano(), true
		}
	}
	return 0, false
}

// parseGrafanaValue reads a cell: ok false with msg "" for an empty
// (null) cell, ok false with a message for a cell that is not a number.
func parseGrafanaValue(s string) (v float64, ok bool, msg string) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "", "null", "undefined", "-":
		return 0, false, ""
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false, fmt.Sprintf("value %q is not a number: export with \"Formatted data\" off so values carry no units", s)
	}
	return v, true, ""
}

// parseSeriesName turns a Grafana display name into labels: a PromQL-style
// `name{k="v", ...}` or `{k="v"}` gives those labels (and __name__), any
// other name is a legend, stored as the label "legend".
func parseSeriesName(name string) map[string]string {
	if ls, ok := parseLabelSet(name); ok {
		return ls
	}
	return map[string]string{"legend": name}
}

// parseLabelSet parses `name{k="v", k2="v2"}` with Go/PromQL escapes in
// the values.
func parseLabelSet(s string) (map[string]string, bool) {
	s = strings.TrimSpace(s)
	i := strings.IndexByte(s, '{')
	if i < 0 || !strings.HasSuffix(s, "}") {
		return nil, false
	}
	out := map[string]string{}
	if name := strings.TrimSpace(s[:i]); name != "" {
		if !validName(name, true) {
			return nil, false
		}
		out["__name__"] = name
	}
	rest := s[i+1 : len(s)-1]
	for {
		rest = strings.TrimLeft(rest, " ,")
		if rest == "" {
			return out, true
		}
		eq := strings.IndexByte(rest, '=')
		if eq <= 0 {
			return nil, false
		}
		k := strings.TrimSpace(rest[:eq])
		if !validName(k, false) {
			return nil, false
		}
		rest = strings.TrimLeft(rest[eq+1:], " ")
		if rest == "" || rest[0] != '"' {
			return nil, false
		}
		end := 1
		for end < len(rest) && rest[end] != '"' {
			if rest[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(rest) {
			return nil, false
		}
		v, err := strconv.Unquote(rest[:end+1])
		if err != nil {
			return nil, false
		}
		out[k] = v
		rest = rest[end+1:]
	}
}

func validName(s string, colon bool) bool {
	for i, c := range s {
		ok := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9') || (colon && c == ':')
		if !ok {
			return false
		}
	}
	return s != ""
}
