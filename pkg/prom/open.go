package prom

import (
	"bufio"
	"bytes"
	"io"
	"os"
)

// Read detects the format of r from its first bytes and reads it: `{` with a
// "status" field → Prometheus API JSON; `{"metric"` lines →
// VictoriaMetrics export; `#` or a metric name → text/OpenMetrics; a CSV
// header (or an Excel "sep=" line) → Grafana CSV. file names r in errors.
func Read(r io.Reader, file string, opt GrafanaOptions) (*Data, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, _ := br.Peek(4096)
	switch sniff(head) {
	case "api":
		return ReadAPI(br, file)
	case "victoriametrics":
		return ReadVM(br, file)
	case "text":
		return ReadText(br, file)
	case "grafana-csv":
		return ReadGrafanaCSV(br, file, opt)
	case "k6-csv", "k6-json":
		return nil, &SyntaxError{File: file, Line: 1, Column: 1, Msg: k6OutputName[sniff(head)] + ", not a Prometheus export: analyse it with `ldanalyze knee " + file + "` (or check, report, convert); prom read lists the series of Prometheus exports"}
	}
	return nil, &SyntaxError{File: file, Line: 1, Column: 1, Msg: "unknown format: want Prometheus API JSON, VictoriaMetrics export JSON lines, Prometheus/OpenMetrics text or a Grafana CSV export"}
}

// ReadFile opens path and reads it with Read.
func ReadFile(path string, opt GrafanaOptions) (*Data, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, opt)
}

// k6OutputName says what a file sniff names "k6-csv" or "k6-json" is,
// for the errors that refuse it as a Prometheus export.
var k6OutputName = map[string]string{"k6-csv": "a k6 CSV output (its header is metric_name,timestamp,…)", "k6-json": "a k6 JSON output (Metric and Point lines)"}

// sniff names the format of a file from its first bytes.
func sniff(head []byte) string {
	h := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case len(h) == 0:
		return ""
	case h[0] == '{':
		first := h
		if i := bytes.IndexByte(h, '\n'); i >= 0 {
			first = h[:i]
		}
		if bytes.Contains(first, []byte(`"type":"Point"`)) || bytes.Contains(first, []byte(`"type":"Metric"`)) {
			return "k6-json"
		}
		if bytes.Contains(h, []byte(`"status"`)) {
			return "api"
		}
		if bytes.Contains(first, []byte(`"metric"`)) {
			return "victoriametrics"
		}
		// `{__name__="up"}` or `{job="x"} 1 123`: text with a braced name.
		return "text"
	case bytes.HasPrefix(h, []byte("metric_name,timestamp,")):
		return "k6-csv"
	case h[0] == '"' || bytes.HasPrefix(h, []byte("sep=")) || hasAnyPrefix(bytes.ToLower(h), "time,", "time;", "series,", "series;"):
		return "grafana-csv"
	case h[0] == '#' || h[0] == '_' || h[0] == ':' || (h[0] >= 'a' && h[0] <= 'z') || (h[0] >= 'A' && h[0] <= 'Z'):
		return "text"
	}
	return ""
}

func hasAnyPrefix(b []byte, prefixes ...string) bool {
	for _, p := range prefixes {
		if bytes.HasPrefix(b, []byte(p)) {
			return true
		}
	}
	return false
}
