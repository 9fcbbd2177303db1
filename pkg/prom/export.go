package prom

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/common/model"
)

// ManifestFile is the name of the manifest inside an export directory.
const ManifestFile = "manifest.json"

// Manifest describes an export directory written by `prom pull`: where the
// data came from, the range asked for and one entry per query file.
type Manifest struct {
	// Version is the manifest format, 1.
	Version int `json:"version"`
	// URL is the Prometheus server the data was pulled from.
	URL   string    `json:"url,omitempty"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// StepS is the query_range resolution, seconds.
	StepS float64 `json:"step_s"`
	// RateWindow is the range of rate() in the queries, a PromQL duration.
	RateWindow string  `json:"rate_window,omitempty"`
	Queries    []Entry `json:"queries"`
}

// Entry is one query of an export: the query as sent (Expr with $window
// replaced), its file (query_range JSON, relative to the directory) and
// what came back.
type Entry struct {
	Query
	File   string `json:"file"`
	Series int    `json:"series"`
	Points int    `json:"points"`
	// Warnings are the server's warnings for this query, verbatim.
	Warnings []string `json:"warnings,omitempty"`
}

// Export is an export directory in memory: the manifest and, per entry,
// the data of its file (Data[i] belongs to Manifest.Queries[i]).
type Export struct {
	Manifest Manifest
	Data     []*Data
}

// MaxManifestBytes caps manifest.json, 16 MiB (a manifest lists queries;
// real ones are a few KB).
const MaxManifestBytes = 16 << 20

// readCapped reads a whole file of at most limit bytes; a larger one is a
// SyntaxError naming the cap.
func readCapped(path string, limit int64, capName string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(buf)) > limit {
		return nil, &SyntaxError{File: path, Msg: fmt.Sprintf("larger than %d bytes (the cap %s)", limit, capName)}
	}
	return buf, nil
}

// ReadDir reads an export directory: its manifest.json and every query
// file it names, each as Prometheus API JSON.
func ReadDir(dir string) (*Export, error) {
	mpath := filepath.Join(dir, ManifestFile)
	buf, err := readCapped(mpath, MaxManifestBytes, "MaxManifestBytes")
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: no %s: give a directory written by `ldanalyze prom pull`", dir, ManifestFile)
	}
	if err != nil {
		return nil, err
	}
	e := &Export{}
	dec := json.NewDecoder(bytes.NewReader(buf))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e.Manifest); err != nil {
		return nil, jsonError(buf, 0, mpath, err, "an ldanalyze export manifest")
	}
	if e.Manifest.Version != 1 {
		return nil, &SyntaxError{File: mpath, Msg: fmt.Sprintf("version %d: want 1", e.Manifest.Version)}
	}
	for i, q := range e.Manifest.Queries {
		if q.File == "" || filepath.IsAbs(q.File) || filepath.Base(q.File) != q.File {
			return nil, &SyntaxError{File: mpath, Msg: fmt.Sprintf("queries[%d].file %q: want a file name inside the directory", i, q.File)}
		}
		if !knownRoles[q.Role] {
			return nil, &SyntaxError{File: mpath, Msg: fmt.Sprintf("queries[%d] (%s): unknown role %q", i, q.Name, q.Role)}
		}
		d, err := readAPIFile(filepath.Join(dir, q.File))
		if err != nil {
			return nil, err
		}
		if d.ResultType != "matrix" {
			return nil, &SyntaxError{File: filepath.Join(dir, q.File), Msg: fmt.Sprintf("resultType %q: want matrix (a query_range result)", d.ResultType)}
		}
		e.Data = append(e.Data, d)
	}
	return e, nil
}

func readAPIFile(path string) (*Data, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAPI(f, path)
}

// WriteDir writes e as an export directory: one query_range JSON file per
// entry (as the Prometheus API returns it) and manifest.json. The
// directory is created if needed; existing files of the same names are
// replaced.
func WriteDir(dir string, e *Export) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := range e.Manifest.Queries {
		q := &e.Manifest.Queries[i]
		if q.File == "" {
			q.File = q.Name + ".json"
		}
		d := e.Data[i]
		points := 0
		for _, s := range d.Series {
			points += len(s.Points) + len(s.Histograms)
		}
		q.Series, q.Points = len(d.Series), points
		b, err := MarshalMatrix(d.Series, q.Warnings)
		if err != nil {
			return fmt.Errorf("%s: %w", q.File, err)
		}
		if err := os.WriteFile(filepath.Join(dir, q.File), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	e.Manifest.Version = 1
	return writeJSON(filepath.Join(dir, ManifestFile), e.Manifest)
}

// MarshalMatrix writes series as a query_range answer of the Prometheus
// HTTP API ({"status":"success","data":{"resultType":"matrix",...}}), float
// points as "values" and native histograms as "histograms", times in
// Unix seconds with millisecond precision (the API's), values as strings.
func MarshalMatrix(series []Series, warnings []string) ([]byte, error) {
	m := make(model.Matrix, 0, len(series))
	for _, s := range series {
		ss := &model.SampleStream{Metric: model.Metric{}}
		for k, v := range s.Labels {
			ss.Metric[model.LabelName(k)] = model.LabelValue(v)
		}
		if len(s.Points) > 0 || len(s.Histograms) == 0 {
			ss.Values = make([]model.SamplePair, len(s.Points))
		}
		for j, p := range s.Points {
			ss.Values[j] = model.SamplePair{Timestamp: model.TimeFromUnixNano(p.TimeNS), Value: model.SampleValue(p.Value)}
		}
		for _, h := range s.Histograms {
			sh := &model.SampleHistogram{Count: model.FloatString(h.Count), Sum: model.FloatString(h.Sum)}
			for _, b := range h.Buckets {
				sh.Buckets = append(sh.Buckets, &model.HistogramBucket{Boundaries: b.Boundaries, Lower: model.FloatString(b.Lower), Upper: model.FloatString(b.Upper), Count: model.FloatString(b.Count)})
			}
			ss.Histograms = append(ss.Histograms, model.SampleHistogramPair{Timestamp: model.TimeFromUnixNano(h.TimeNS), Histogram: sh})
		}
		m = append(m, ss)
	}
	env := struct {
		Status   string   `json:"status"`
		Data     any      `json:"data"`
		Warnings []string `json:"warnings,omitempty"`
	}{"success", struct {
		ResultType string       `json:"resultType"`
		Result     model.Matrix `json:"result"`
	}{"matrix", m}, warnings}
	return json.MarshalIndent(env, "", " ")
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Span is the time range of the points of all queries, or of the
// manifest's range when there are none.
func (e *Export) Span() (start, end time.Time) {
	var all []Series
	for _, d := range e.Data {
		all = append(all, d.Series...)
	}
	if f, l, ok := Span(all); ok {
		return time.Unix(0, f).UTC(), time.Unix(0, l).UTC()
	}
	return e.Manifest.Start, e.Manifest.End
}
