package sim

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// CSV time formats (k6's K6_CSV_TIME_FORMAT values).
const (
	TimeUnix        = "unix"         // whole seconds (k6's default)
	TimeUnixMilli   = "unix_milli"   // milliseconds
	TimeUnixMicro   = "unix_micro"   // microseconds
	TimeUnixNano    = "unix_nano"    // nanoseconds
	TimeRFC3339     = "rfc3339"      // time.RFC3339 (seconds), UTC
	TimeRFC3339Nano = "rfc3339_nano" // time.RFC3339Nano, trailing zeros trimmed, UTC
)

// CSVOptions are the settings of k6's CSV output.
type CSVOptions struct {
	// TimeFormat is one of the Time* constants (case-insensitive, as k6
	// reads it); "" means TimeUnix.
	TimeFormat string
	// Gzip compresses the output (k6 does when the file name ends in .gz).
	Gzip bool
}

// WriteCSV simulates c and writes it to w as `k6 run --out csv` does:
// the header metric_name,timestamp,metric_value, the tag columns (the
// enabled system tags, sorted), extra_tags, metadata; each row's value with
// %f (6 decimals); fields quoted by encoding/csv as k6's are; rows in k6's
// buffer order. It returns the run's truth.
func WriteCSV(w io.Writer, c Config, o CSVOptions) (Truth, error) {
	tf := strings.ToLower(o.TimeFormat)
	if tf == "" {
		tf = TimeUnix
	}
	switch tf {
	case TimeUnix, TimeUnixMilli, TimeUnixMicro, TimeUnixNano, TimeRFC3339, TimeRFC3339Nano:
	default:
		return Truth{}, fmt.Errorf("sim: unknown CSV time format %q (unix, unix_milli, unix_micro, unix_nano, rfc3339 or rfc3339_nano)", o.TimeFormat)
	}
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
	header := append(append([]string{"metric_name", "timestamp", "metric_value"}, s.e.cols.names...), "extra_tags", "metadata")
	cw := csv.NewWriter(bw)
	if err := cw.Write(header); err != nil {
		return Truth{}, err
	}
	cw.Flush()
	rng := rand.New(rand.NewPCG(s.e.cfg.Seed, 0xc5f))
	var line []byte
	for {
		r, ok := s.nextRow()
		if !ok {
			break
		}
		line = appendCSVRow(line[:0], r, tf, rng)
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

// appendCSVRow appends one k6 CSV row. Metric names and timestamps never
// need quoting; the tag fields were quoted once, when the tag set was built.
func appendCSVRow(b []byte, r row, tf string, rng *rand.Rand) []byte {
	b = append(b, metricDefs[r.m].name...)
	b = append(b, ',')
	b = appendCSVTime(b, r.t, tf)
	b = append(b, ',')
	b = strconv.AppendFloat(b, r.v, 'f', 6, 64)
	chunk := r.ts.csv[0]
	if n := len(r.ts.csv); n > 1 {
		chunk = r.ts.csv[rng.IntN(n)]
	}
	b = append(b, chunk...)
	return append(b, '\n')
}

// appendCSVTime appends t (ns since the epoch) as k6's SampleToRow does.
func appendCSVTime(b []byte, t int64, tf string) []byte {
	switch tf {
	case TimeUnixMilli:
		return strconv.AppendInt(b, t/1e6, 10)
	case TimeUnixMicro:
		return strconv.AppendInt(b, t/1e3, 10)
	case TimeUnixNano:
		return strconv.AppendInt(b, t, 10)
	case TimeRFC3339:
		return time.Unix(0, t).UTC().AppendFormat(b, time.RFC3339)
	case TimeRFC3339Nano:
		return time.Unix(0, t).UTC().AppendFormat(b, time.RFC3339Nano)
	}
	return strconv.AppendInt(b, t/1e9, 10)
}
