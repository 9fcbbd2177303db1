package prom

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"
)

// MaxTextBytes caps the size of a text or OpenMetrics file ReadText holds
// (the parsers work on the whole document), 512 MiB; a larger file is an
// error naming the cap.
const MaxTextBytes = 512 << 20

// MaxLabelsPerSeries caps the labels of one series in the text formats
// (Prometheus' own default label_limit is 0, unlimited; real series carry
// tens); a series with more is an error naming the cap.
const MaxLabelsPerSeries = 1000

// maxTextTime is the latest plausible sample time; an OpenMetrics timestamp
// written in milliseconds instead of seconds lands thousands of years later.
var maxTextTime = time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)

// ReadText reads the Prometheus text exposition format (0.0.4, as served by
// /metrics and /federate: timestamps in milliseconds) or OpenMetrics 1.0
// text (recognised by its "# EOF" line: timestamps in seconds) with
// Prometheus' own parsers (model/textparse: PromParser,
// OpenMetricsParser), which are linear in the input. Every sample line is
// kept (counters, gauges, untyped; summaries and histograms as their
// _sum, _count, quantile and _bucket series). Samples without a timestamp
// are dropped with a warning (they have no place on the run's clock). The
// parse stops at the first syntax error, returned with the file and line.
// An OpenMetrics timestamp later than year 3000 is an error: it was
// written in milliseconds, not seconds. The file may hold at most
// MaxTextBytes, a series at most MaxLabelsPerSeries labels.
func ReadText(r io.Reader, file string) (*Data, error) {
	buf, err := io.ReadAll(io.LimitReader(r, MaxTextBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(buf) > MaxTextBytes {
		return nil, &SyntaxError{File: file, Msg: fmt.Sprintf("larger than %d bytes (the cap MaxTextBytes of the text formats)", MaxTextBytes)}
	}
	om := isOpenMetrics(buf)
	name := "text"
	if om {
		name = "openmetrics"
	}
	d := &Data{Format: name}
	idx := map[string]int{}
	untimed := 0
	var lset labels.Labels
	st := labels.NewSymbolTable()
	p := newTextParser(buf, om, st)
	for {
		et, err := p.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &SyntaxError{File: file, Line: errorLine(buf, om), Msg: err.Error()}
		}
		if et != textparse.EntrySeries {
			continue
		}
		_, ts, v := p.Series()
		p.Labels(&lset)
		if n := lset.Len(); n > MaxLabelsPerSeries {
			return nil, &SyntaxError{File: file, Line: errorLine(buf, om), Msg: fmt.Sprintf("%s: %d labels, more than %d (the cap MaxLabelsPerSeries)", lset.Get("__name__"), n, MaxLabelsPerSeries)}
		}
		if ts == nil {
			untimed++
			continue
		}
		ms := *ts
		if om && ms > maxTextTime.UnixMilli() {
			return nil, &SyntaxError{File: file, Msg: fmt.Sprintf("%s: timestamp %d ms is after the year 3000: OpenMetrics timestamps are seconds, these look like milliseconds", lset.Get("__name__"), ms)}
		}
		if ms > maxMS || ms < -maxMS {
			return nil, &SyntaxError{File: file, Msg: fmt.Sprintf("%s: timestamp %d ms out of range", lset.Get("__name__"), ms)}
		}
		key := lset.String()
		i, ok := idx[key]
		if !ok {
			i = len(d.Series)
			idx[key] = i
			d.Series = append(d.Series, Series{Labels: lset.Map()})
		}
		d.Series[i].Points = append(d.Series[i].Points, Point{TimeNS: ms * 1e6, Value: v})
	}
	if untimed > 0 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%s: %d samples without a timestamp were left out: they cannot be placed on the run's clock", file, untimed))
	}
	var dups int
	d.Series, dups = Normalize(d.Series)
	if dups > 0 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%s: %d duplicate timestamps: the last value of each was kept", file, dups))
	}
	return d, nil
}

func newTextParser(b []byte, om bool, st *labels.SymbolTable) textparse.Parser {
	if om {
		return textparse.NewOpenMetricsParser(b, st)
	}
	return textparse.NewPromParser(b, st, false)
}

// errorLine finds the 1-based line of the first parse error in buf: the
// parsers do not say, so the smallest prefix of whole lines that fails is
// found by bisection (O(n log n) on an error path only). An OpenMetrics
// prefix gets a "# EOF" appended, which it needs to parse.
func errorLine(buf []byte, om bool) int {
	var starts []int
	starts = append(starts, 0)
	for i, c := range buf {
		if c == '\n' && i+1 < len(buf) {
			starts = append(starts, i+1)
		}
	}
	fails := func(k int) bool { // the first k lines
		end := len(buf)
		if k < len(starts) {
			end = starts[k]
		}
		prefix := buf[:end]
		if om && !bytes.HasSuffix(bytes.TrimRight(prefix, "\n"), []byte("# EOF")) {
			prefix = append(append([]byte(nil), prefix...), []byte("# EOF\n")...)
		}
		p := newTextParser(prefix, om, labels.NewSymbolTable())
		var ls labels.Labels
		for {
			et, err := p.Next()
			if errors.Is(err, io.EOF) {
				return false
			}
			if err != nil {
				return true
			}
			if et == textparse.EntrySeries {
				p.Labels(&ls)
				if ls.Len() > MaxLabelsPerSeries {
					return true
				}
			}
		}
	}
	lo, hi := 1, len(starts)
	if !fails(hi) {
		return 0
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
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
