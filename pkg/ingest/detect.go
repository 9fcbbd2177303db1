package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
)

// FormatSummary is a k6 end-of-test summary (--summary-export,
// handleSummary data or the machine-readable summary): not a sample
// stream, read by package summary. Detect names it; Open refuses it.
const FormatSummary Format = "k6-summary"

// ErrNotK6 is Detect's error for a file that is neither a k6 output nor a
// k6 summary.
var ErrNotK6 = errors.New("not a k6 output (CSV with a metric_name header, JSON lines, Parquet, Arrow) or summary")

// Detect tells what a file is from its first bytes (after gzip or zstd),
// for commands that take a directory of files (`suite`): a k6 CSV (a
// header naming metric_name), k6 JSON lines (a first line with "type"
// and "metric"), Parquet or Arrow IPC, or a JSON object that looks like a
// k6 summary (FormatSummary; package summary decides). It returns an
// error naming the file when it cannot be read or is none of these (a
// README, a server's stats, a log). Unlike Open it does not fall back to
// CSV for text it cannot place.
func Detect(path string) (Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	r, cl, err := decompress(f, path)
	if err != nil {
		return "", err
	}
	if cl != nil {
		defer cl.Close()
	}
	br := bufio.NewReaderSize(r, 8<<10)
	head, _ := br.Peek(4096)
	t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	line := firstLine(t)
	switch {
	case bytes.HasPrefix(head, []byte("PAR1")):
		return FormatParquet, nil
	case bytes.HasPrefix(head, []byte("ARROW1")):
		return FormatArrow, nil
	case len(t) > 0 && t[0] == '{' && isSummaryHead(line):
		return FormatSummary, nil
	case len(t) > 0 && t[0] == '{' && bytes.Contains(line, []byte(`"type"`)) && bytes.Contains(line, []byte(`"metric"`)):
		return FormatK6JSON, nil
	case bytes.Contains(line, []byte("metric_name")) && bytes.Contains(line, []byte(",")):
		return FormatK6CSV, nil
	}
	return "", fmt.Errorf("%s: %w", path, ErrNotK6)
}
