package prom

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
)

// Response is one Prometheus API response found in a file: Section and
// Name say where (both "" for a file that is one response), Data what it
// held.
type Response struct {
	// Section is the key of the object of responses the response sat in
	// (e.g. "query_range" or "raw_samples" in the k6-v2 corpus export), ""
	// when it was at the top level or directly under Name.
	Section string
	// Name is the key the response sat under (a metric or query name), or
	// the file's base name without extensions for a file that is one
	// response.
	Name string
	Data *Data
}

// ReadResponses reads every Prometheus API response in r, streaming: a
// file that is one response ({"status":...}), or an object whose values
// are responses, or objects of responses one level down — the shape of
// `{"query_range": {name: response}, "raw_samples": {name: response}}`
// written by the k6-v2 corpus export (tools/promexport.py) and by
// scripts that save one response per query. Other keys (strings, numbers,
// notes) are skipped. file names r in errors.
func ReadResponses(r io.Reader, file string) ([]Response, error) {
	return walkResponses(r, file, nil)
}

// WalkResponses reads the responses of r as ReadResponses does but hands
// each series to each (valid until each returns) instead of keeping it, so
// a file of any size is read in the memory of its largest series. The
// Responses returned hold no series, only the rest of each Data.
func WalkResponses(r io.Reader, file string, each func(section, name string, s *Series)) ([]Response, error) {
	return walkResponses(r, file, each)
}

func walkResponses(r io.Reader, file string, each func(section, name string, s *Series)) ([]Response, error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(512)
	if what, ok := k6OutputName[sniff(head)]; ok {
		return nil, &SyntaxError{File: file, Line: 1, Column: 1, Msg: what + ", not a Prometheus export: give it as a run, without --from-prom (`ldanalyze knee " + file + "`)"}
	}
	lc := newLineCounter(br)
	dec := json.NewDecoder(lc)
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		ar := &APIReader{dec: dec, lc: lc, file: file}
		return nil, ar.tokenErr(err, "a JSON object")
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, &SyntaxError{File: file, Line: 1, Column: 1, Msg: "want a JSON object: a Prometheus API response or an object of responses"}
	}
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".json"), ".prom_query_range")
	var out []Response
	// The first key decides: "status" (or "data") at the top means the
	// file is one response.
	w := &bundleWalker{dec: dec, lc: lc, file: file, each: each}
	first := true
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, w.err(err)
		}
		k, _ := tok.(string)
		if first && (k == "status" || k == "data" || k == "errorType" || k == "error" || k == "warnings") {
			ar := &APIReader{dec: dec, lc: lc, file: file, maxPoints: MaxSeriesPoints, state: stTop}
			d, err := ar.collect(k, eachOf(each, "", base))
			if err != nil {
				return nil, err
			}
			return []Response{{Name: base, Data: d}}, nil
		}
		first = false
		rs, err := w.value("", k, 0)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	// The closing '}': a file cut after its last response is not whole.
	if _, err := dec.Token(); err != nil {
		return nil, w.tokenErr(err, "'}' closing the object of responses")
	}
	if len(out) == 0 {
		return nil, &SyntaxError{File: file, Line: 1, Column: 1, Msg: "no Prometheus API response in the file: want {\"status\":...} or an object of such responses"}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Section != out[j].Section {
			return out[i].Section < out[j].Section
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

type bundleWalker struct {
	dec  *json.Decoder
	lc   *lineCounter
	file string
	each func(section, name string, s *Series)
}

func eachOf(each func(section, name string, s *Series), section, name string) func(*Series) {
	if each == nil {
		return nil
	}
	return func(s *Series) { each(section, name, s) }
}

func (w *bundleWalker) err(err error) error { return w.tokenErr(err, "a JSON value") }

// tokenErr is APIReader.tokenErr at w's place in the file: err read where
// want was expected.
func (w *bundleWalker) tokenErr(err error, want string) error {
	ar := &APIReader{dec: w.dec, lc: w.lc, file: w.file}
	return ar.tokenErr(err, want)
}

// value reads the value under key k: a response, an object of responses
// (depth 0 only) or anything else (skipped).
func (w *bundleWalker) value(section, k string, depth int) ([]Response, error) {
	tok, err := w.dec.Token()
	if err != nil {
		return nil, w.err(err)
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil, nil // a scalar: skipped
	}
	if d == '[' {
		return nil, w.skipRest(1)
	}
	// An object: peek at its first key.
	if !w.dec.More() {
		_, err := w.dec.Token()
		return nil, err
	}
	tok, err = w.dec.Token()
	if err != nil {
		return nil, w.err(err)
	}
	first, _ := tok.(string)
	switch first {
	case "status", "data", "errorType", "error", "warnings":
		ar := &APIReader{dec: w.dec, lc: w.lc, file: w.file, maxPoints: MaxSeriesPoints, state: stTop}
		data, err := ar.collect(first, eachOf(w.each, section, k))
		if err != nil {
			return nil, fmt.Errorf("%s (%s): %w", k, section, err)
		}
		return []Response{{Section: section, Name: k, Data: data}}, nil
	}
	if depth > 0 {
		// Not a response, one level down: skip the rest of the object.
		if err := w.skipOne(); err != nil {
			return nil, err
		}
		return nil, w.skipRest(1)
	}
	var out []Response
	name := first
	for {
		rs, err := w.value(k, name, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
		if !w.dec.More() {
			break
		}
		tok, err := w.dec.Token()
		if err != nil {
			return nil, w.err(err)
		}
		name, _ = tok.(string)
	}
	_, err = w.dec.Token() // '}'
	return out, err
}

func (w *bundleWalker) skipOne() error {
	var raw json.RawMessage
	if err := w.dec.Decode(&raw); err != nil {
		return w.err(err)
	}
	return nil
}

// skipRest consumes tokens until depth open delimiters are closed.
func (w *bundleWalker) skipRest(depth int) error {
	for depth > 0 {
		tok, err := w.dec.Token()
		if err != nil {
			return w.err(err)
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			default:
				depth--
			}
		}
	}
	return nil
}

// collect reads the rest of a response object whose first key, k, has
// just been read, into a Data.
func (r *APIReader) collect(k string, each func(*Series)) (*Data, error) {
	r.pending = k
	d := &Data{Format: "api"}
	for r.Next() {
		if each != nil {
			each(r.Series())
			continue
		}
		d.Series = append(d.Series, *r.Series())
	}
	if r.err != nil {
		return nil, r.err
	}
	d.ResultType = r.resultType
	d.Warnings = append(d.Warnings, r.warnings...)
	d.Skipped = r.skipped
	var dups int
	d.Series, dups = Normalize(d.Series)
	if dups > 0 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%s: %d duplicate timestamps: the last value of each was kept", r.file, dups))
	}
	return d, nil
}
