package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// CSVReader streams the samples of one k6 CSV output file (`k6 run --out
// csv=FILE`), already decompressed.
//
// Columns are mapped by header name, so every header k6 has shipped works:
// v0.26's 15 columns, the scenario/service/expected_response additions, the
// metadata column of v0.41+, and headers restricted or extended with
// --system-tags. Every column other than metric_name, timestamp,
// metric_value, extra_tags and metadata is a tag column.
//
// The timestamp encoding is detected per row, so all six
// K6_CSV_TIME_FORMAT values work: unix (10 digits or fewer: seconds),
// unix_milli (11–13), unix_micro (14–16), unix_nano (17–19), rfc3339 and
// rfc3339_nano (any fraction length and zone offset).
//
// Memory is bounded by the longest record (at most maxRecord bytes) and the
// interned tag values; rows need not be in time order.
type CSVReader struct {
	name string
	r    io.Reader

	buf       []byte
	pos, end  int
	eof       bool
	readErr   error
	line      int64 // line number of the next record
	truncated bool

	fields  [][]byte
	offsets []int // byte offset of each field in its line, for columns
	scratch []byte

	idxMetric, idxTime, idxValue, idxExtra, idxMeta int
	tagIdx                                          []int
	width                                           int

	in *interner
	s  Sample

	lastTS   []byte
	lastTSNS int64
	lastRes  int64

	st  Stats
	err error
}

const (
	csvBufSize = 256 << 10
	maxRecord  = 16 << 20
)

var errUnterminated = errors.New("unterminated quoted field")

// NewCSVReader reads the header of a k6 CSV from r and returns a reader of
// its samples. name is used in errors and in Sample.Source. It returns an
// error when the header cannot be read or lacks one of metric_name,
// timestamp and metric_value.
func NewCSVReader(r io.Reader, name string) (*CSVReader, error) {
	c := &CSVReader{
		name: name, r: r, buf: make([]byte, csvBufSize), line: 1,
		idxExtra: -1, idxMeta: -1, in: newInterner(),
	}
	c.s.Source = name
	fields, ok, err := c.record()
	if err != nil {
		return nil, err
	}
	if !ok {
		if c.readErr != nil {
			return nil, fmt.Errorf("%s: %w", name, c.readErr)
		}
		return nil, fmt.Errorf("%s: empty file: want a k6 CSV header (metric_name,timestamp,metric_value,...)", name)
	}
	if len(fields) > 0 {
		fields[0] = bytes.TrimPrefix(fields[0], []byte("\xef\xbb\xbf"))
	}
	if err := c.header(fields); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *CSVReader) header(fields [][]byte) error {
	c.idxMetric, c.idxTime, c.idxValue = -1, -1, -1
	seen := map[string]bool{}
	for i, f := range fields {
		h := strings.TrimSpace(string(f))
		if seen[h] {
			return &SyntaxError{File: c.name, Line: 1, Column: c.offsets[i] + 1, Msg: fmt.Sprintf("duplicate column %q in the header", h)}
		}
		seen[h] = true
		switch h {
		case "metric_name":
			c.idxMetric = i
		case "timestamp":
			c.idxTime = i
		case "metric_value":
			c.idxValue = i
		case "extra_tags":
			c.idxExtra = i
		case "metadata":
			c.idxMeta = i
		default:
			c.tagIdx = append(c.tagIdx, i)
			c.s.Tags.Keys = append(c.s.Tags.Keys, h)
		}
	}
	var missing []string
	for _, m := range []struct {
		idx  int
		name string
	}{{c.idxMetric, "metric_name"}, {c.idxTime, "timestamp"}, {c.idxValue, "metric_value"}} {
		if m.idx < 0 {
			missing = append(missing, m.name)
		}
	}
	if len(missing) > 0 {
		first := ""
		if len(fields) > 0 {
			first = string(fields[0])
			if len(first) > 40 {
				first = first[:40] + "…"
			}
		}
		return &SyntaxError{File: c.name, Line: 1, Msg: fmt.Sprintf("not a k6 CSV header: no %s column (first field %q); want metric_name,timestamp,metric_value,<tags>,extra_tags[,metadata]", strings.Join(missing, ", "), first)}
	}
	c.width = len(fields)
	c.s.Tags.Values = make([]string, len(c.tagIdx))
	return nil
}

// Columns returns the header's tag columns, in file order.
func (c *CSVReader) Columns() []string { return c.s.Tags.Keys }

// Next reads the next valid row. Malformed rows are recorded in Stats and
// skipped.
func (c *CSVReader) Next() bool {
	if c.err != nil {
		return false
	}
	for {
		line := c.line
		fields, ok, err := c.record()
		if err != nil {
			se := &SyntaxError{File: c.name, Line: line, Msg: err.Error()}
			var ce *colError
			if errors.As(err, &ce) {
				se.Column, se.Msg = ce.col, ce.msg
			}
			c.st.record(se)
			continue
		}
		if !ok {
			if c.readErr != nil {
				c.err = fmt.Errorf("%s: line %d: %w", c.name, c.line, c.readErr)
			}
			return false
		}
		if len(fields) == 1 && len(fields[0]) == 0 {
			continue // blank line
		}
		if serr := c.parse(fields, line); serr != nil {
			c.st.record(serr)
			continue
		}
		c.st.Rows++
		return true
	}
}

func (c *CSVReader) parse(fields [][]byte, line int64) *SyntaxError {
	if len(fields) != c.width {
		return &SyntaxError{File: c.name, Line: line, Msg: fmt.Sprintf("want %d fields as in the header, got %d", c.width, len(fields))}
	}
	col := func(i int) int { return c.offsets[i] + 1 }
	m := fields[c.idxMetric]
	if len(m) == 0 {
		return &SyntaxError{File: c.name, Line: line, Column: col(c.idxMetric), Msg: "empty metric_name"}
	}
	ts := fields[c.idxTime]
	if !bytes.Equal(ts, c.lastTS) || len(c.lastTS) == 0 {
		ns, res, err := parseTimestamp(ts)
		if err != nil {
			return &SyntaxError{File: c.name, Line: line, Column: col(c.idxTime), Msg: fmt.Sprintf("timestamp %q: %v", trunc(ts), err)}
		}
		c.lastTS = append(c.lastTS[:0], ts...)
		c.lastTSNS, c.lastRes = ns, res
	}
	v, err := parseValue(fields[c.idxValue])
	if err != nil {
		return &SyntaxError{File: c.name, Line: line, Column: col(c.idxValue), Msg: fmt.Sprintf("metric_value %q: %v", trunc(fields[c.idxValue]), err)}
	}
	c.s.Metric = c.in.intern(m)
	c.s.TimeNS = c.lastTSNS
	if c.lastRes > c.st.ResolutionNS {
		c.st.ResolutionNS = c.lastRes
	}
	c.s.Value = v
	for j, i := range c.tagIdx {
		c.s.Tags.Values[j] = c.in.intern(fields[i])
	}
	c.s.Tags.Extra = ""
	if c.idxExtra >= 0 {
		c.s.Tags.Extra = c.in.intern(fields[c.idxExtra])
	}
	c.s.Tags.Metadata = ""
	if c.idxMeta >= 0 && len(fields[c.idxMeta]) > 0 {
		c.s.Tags.Metadata = string(fields[c.idxMeta])
	}
	return nil
}

func trunc(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// Sample returns the current sample; it is valid until the next call to Next.
func (c *CSVReader) Sample() *Sample { return &c.s }

// Err returns the I/O error that stopped the read, or nil.
func (c *CSVReader) Err() error { return c.err }

// Stats returns the counts so far.
func (c *CSVReader) Stats() Stats { return c.st }

// Close does nothing: the caller owns r.
func (c *CSVReader) Close() error { return nil }

// fill reads more input after compacting the unread bytes to the front.
func (c *CSVReader) fill() {
	if c.pos > 0 {
		n := copy(c.buf, c.buf[c.pos:c.end])
		c.pos, c.end = 0, n
	}
	if c.end == len(c.buf) {
		if len(c.buf) >= maxRecord {
			return
		}
		nb := make([]byte, 2*len(c.buf))
		copy(nb, c.buf[:c.end])
		c.buf = nb
	}
	n, err := c.r.Read(c.buf[c.end:])
	c.end += n
	c.st.Bytes += int64(n)
	if err != nil {
		c.eof = true
		var te *TruncatedError
		switch {
		case errors.As(err, &te):
			c.truncated = true
			c.st.Truncated = true
			c.st.Warnings = append(c.st.Warnings, te.Error()+"; the rows before the cut are analysed")
		case err != io.EOF:
			c.readErr = err
		}
	}
}

// record returns the fields of the next record (slices valid until the
// next call). ok is false at the end of input. err is a record-level syntax
// problem; the record has been consumed.
func (c *CSVReader) record() (fields [][]byte, ok bool, err error) {
	for {
		rest := c.buf[c.pos:c.end]
		nl := bytes.IndexByte(rest, '\n')
		var line []byte
		switch {
		case nl >= 0:
			line = rest[:nl]
		case c.eof:
			if len(rest) == 0 {
				return nil, false, nil
			}
			if c.truncated {
				// The last line was cut by the truncation: its last field
				// may be a prefix of a number. Drop it.
				c.pos = c.end
				c.line++
				return nil, false, fmt.Errorf("last line cut short by the truncated stream (%d bytes dropped)", len(rest))
			}
			line = rest
		default:
			if len(rest) >= maxRecord {
				c.pos = c.end
				c.skipToNewline()
				c.line++
				return nil, false, fmt.Errorf("record longer than %d bytes", maxRecord)
			}
			c.fill()
			continue
		}
		if bytes.IndexByte(line, '"') < 0 {
			c.pos += len(line)
			if nl >= 0 {
				c.pos++
			}
			c.line++
			return c.split(bytes.TrimSuffix(line, []byte{'\r'})), true, nil
		}
		// Quoted fields may span lines: parse from rest.
		fields, n, lines, qerr := c.splitQuoted(rest, c.eof)
		if qerr == errNeedMore {
			if len(rest) >= maxRecord {
				c.pos = c.end
				c.line++
				return nil, false, fmt.Errorf("record longer than %d bytes", maxRecord)
			}
			c.fill()
			continue
		}
		c.pos += n
		c.line += int64(lines)
		if qerr != nil {
			return nil, true, qerr
		}
		return fields, true, nil
	}
}

func (c *CSVReader) skipToNewline() {
	for !c.eof {
		c.fill()
		if i := bytes.IndexByte(c.buf[c.pos:c.end], '\n'); i >= 0 {
			c.pos += i + 1
			return
		}
		c.pos = c.end
	}
}

func (c *CSVReader) split(line []byte) [][]byte {
	c.fields = c.fields[:0]
	c.offsets = c.offsets[:0]
	off := 0
	for {
		i := bytes.IndexByte(line[off:], ',')
		if i < 0 {
			c.fields = append(c.fields, line[off:])
			c.offsets = append(c.offsets, off)
			return c.fields
		}
		c.fields = append(c.fields, line[off:off+i])
		c.offsets = append(c.offsets, off)
		off += i + 1
	}
}

var errNeedMore = errors.New("need more input")

// colError is a record-level syntax error at a known column.
type colError struct {
	col int
	msg string
}

func (e *colError) Error() string { return fmt.Sprintf("column %d: %s", e.col, e.msg) }

// splitQuoted parses one RFC 4180 record from b (as Go's encoding/csv
// writes it: a field is quoted when it holds a comma, a quote, a CR or LF,
// or starts with a space; quotes inside are doubled). It returns the bytes
// consumed, including the final newline, and the number of newlines.
func (c *CSVReader) splitQuoted(b []byte, atEOF bool) (fields [][]byte, n, lines int, err error) {
	c.fields = c.fields[:0]
	c.offsets = c.offsets[:0]
	c.scratch = c.scratch[:0]
	i := 0
	lineStart := 0
	for {
		c.offsets = append(c.offsets, i-lineStart)
		if i < len(b) && b[i] == '"' {
			start := len(c.scratch)
			j := i + 1
			for {
				if j >= len(b) {
					if atEOF {
						return nil, len(b), lines + 1, errUnterminated
					}
					return nil, 0, 0, errNeedMore
				}
				ch := b[j]
				if ch == '"' {
					if j+1 < len(b) && b[j+1] == '"' {
						c.scratch = append(c.scratch, '"')
						j += 2
						continue
					}
					if j+1 >= len(b) && !atEOF {
						return nil, 0, 0, errNeedMore
					}
					j++
					break
				}
				if ch == '\n' {
					lines++
					lineStart = j + 1
				}
				c.scratch = append(c.scratch, ch)
				j++
			}
			c.fields = append(c.fields, c.scratch[start:len(c.scratch):len(c.scratch)])
			i = j
			if i < len(b) && b[i] == '\r' {
				i++
			}
			if i >= len(b) {
				if !atEOF {
					return nil, 0, 0, errNeedMore
				}
				return c.fields, i, lines + 1, nil
			}
			switch b[i] {
			case ',':
				i++
				continue
			case '\n':
				return c.fields, i + 1, lines + 1, nil
			default:
				end := bytes.IndexByte(b[i:], '\n')
				if end < 0 {
					if !atEOF {
						return nil, 0, 0, errNeedMore
					}
					return nil, len(b), lines + 1, &colError{i - lineStart + 1, fmt.Sprintf("extraneous character %q after a quoted field", b[i])}
				}
				return nil, i + end + 1, lines + 1, &colError{i - lineStart + 1, fmt.Sprintf("extraneous character %q after a quoted field", b[i])}
			}
		}
		// Unquoted field.
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '\n' {
			if b[j] == '"' {
				end := bytes.IndexByte(b[j:], '\n')
				if end < 0 {
					if !atEOF {
						return nil, 0, 0, errNeedMore
					}
					return nil, len(b), lines + 1, &colError{j - lineStart + 1, "bare quote in an unquoted field"}
				}
				return nil, j + end + 1, lines + 1, &colError{j - lineStart + 1, "bare quote in an unquoted field"}
			}
			j++
		}
		if j >= len(b) && !atEOF {
			return nil, 0, 0, errNeedMore
		}
		c.fields = append(c.fields, bytes.TrimSuffix(b[i:j], []byte{'\r'}))
		if j >= len(b) {
			return c.fields, j, lines + 1, nil
		}
		if b[j] == '\n' {
			return c.fields, j + 1, lines + 1, nil
		}
		i = j + 1
	}
}

// parseTimestamp decodes a k6 CSV timestamp and returns nanoseconds since
// the epoch and the encoding's resolution in nanoseconds.
func parseTimestamp(b []byte) (ns, res int64, err error) {
	if len(b) == 0 {
		return 0, 0, errors.New("empty: want unix seconds/ms/µs/ns or RFC 3339")
	}
	allDigits := true
	for _, ch := range b {
		if ch < '0' || ch > '9' {
			allDigits = false
			break
		}
	}
	if allDigits {
		if len(b) > 19 {
			return 0, 0, errors.New("more than 19 digits: want unix seconds (10), ms (13), µs (16) or ns (19)")
		}
		var v int64
		for _, ch := range b {
			v = v*10 + int64(ch-'0')
		}
		if v < 0 {
			return 0, 0, errors.New("out of range")
		}
		switch {
		case len(b) <= 10:
			return v * 1e9, 1e9, nil
		case len(b) <= 13:
			return v * 1e6, 1e6, nil
		case len(b) <= 16:
			return v * 1e3, 1e3, nil
		default:
			return v, 1, nil
		}
	}
	t, perr := time.Parse(time.RFC3339Nano, unsafe.String(&b[0], len(b)))
	if perr != nil {
		return 0, 0, errors.New("want unix seconds/ms/µs/ns digits or RFC 3339 (2006-01-02T15:04:05.999999999Z07:00)")
	}
	res = int64(1e9)
	if dot := bytes.IndexByte(b, '.'); dot >= 0 {
		k := dot + 1
		for k < len(b) && b[k] >= '0' && b[k] <= '9' {
			k++
		}
		digits := k - dot - 1
		res = 1
		for d := digits; d < 9; d++ {
			res *= 10
		}
	}
	return t.UnixNano(), res, nil
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// parseValue decodes a metric value. k6 writes "%f" (six decimals, no
// exponent); that shape is parsed directly and exactly (an integer of at
// most 15 digits divided by a power of ten is correctly rounded in IEEE
// arithmetic, as strconv would round it). Anything else goes to strconv.
// NaN and ±Inf are refused: they would poison every sum and percentile.
func parseValue(b []byte) (float64, error) {
	i := 0
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg, i = true, 1
	}
	var mant uint64
	digits, frac := 0, -1
	for ; i < len(b); i++ {
		ch := b[i]
		if ch >= '0' && ch <= '9' {
			mant = mant*10 + uint64(ch-'0')
			digits++
			if frac >= 0 {
				frac++
			}
			continue
		}
		if ch == '.' && frac < 0 {
			frac = 0
			continue
		}
		digits = 99 // not the simple shape
		break
	}
	if digits > 0 && digits <= 15 {
		v := float64(mant)
		if frac > 0 {
			v /= pow10[frac]
		}
		if neg {
			v = -v
		}
		return v, nil
	}
	if len(b) == 0 {
		return 0, errors.New("empty: want a number")
	}
	v, err := strconv.ParseFloat(unsafe.String(&b[0], len(b)), 64)
	if err != nil {
		return 0, errors.New("want a number")
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errors.New("want a finite number")
	}
	return v, nil
}
