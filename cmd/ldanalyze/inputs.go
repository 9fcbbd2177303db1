package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
)

// readAll streams every sample of the inputs to each consumer and returns
// the read statistics. A read error (I/O, an unreadable header) stops it;
// malformed lines are counted in the stats.
func readAll(paths []string, stdin io.Reader, consumers ...func(*ingest.Sample)) (ingest.Stats, error) {
	r, err := ingest.OpenAll(paths, stdin)
	if err != nil {
		return ingest.Stats{}, err
	}
	defer r.Close()
	for r.Next() {
		s := r.Sample()
		for _, c := range consumers {
			c(s)
		}
	}
	st := r.Stats()
	if err := r.Err(); err != nil {
		return st, err
	}
	return st, nil
}

// reportStats writes what was skipped or damaged to w (stderr), so that a
// user sees counts of everything not analysed.
func reportStats(w io.Writer, st ingest.Stats) {
	if st.Skipped > 0 {
		fmt.Fprintf(w, "ldanalyze: skipped %d malformed line(s) of %d read", st.Skipped, st.Rows+st.Skipped)
		if len(st.Errors) > 0 {
			fmt.Fprintf(w, "; first: %v", st.Errors[0])
		}
		fmt.Fprintln(w)
		for _, e := range st.Errors[1:min(len(st.Errors), 5)] {
			fmt.Fprintf(w, "  %v\n", e)
		}
	}
	for _, wn := range st.Warnings {
		fmt.Fprintln(w, "ldanalyze: warning:", wn)
	}
}

// inputSummary is the JSON form of ingest.Stats.
type inputSummary struct {
	Files     []string `json:"files"`
	Rows      int64    `json:"rows"`
	Skipped   int64    `json:"skipped"`
	Errors    []string `json:"errors"`
	Truncated bool     `json:"truncated"`
}

func summarizeInput(paths []string, st ingest.Stats) inputSummary {
	s := inputSummary{Files: paths, Rows: st.Rows, Skipped: st.Skipped, Truncated: st.Truncated, Errors: []string{}}
	for _, e := range st.Errors {
		s.Errors = append(s.Errors, e.Error())
	}
	return s
}

// splitList splits repeated and comma-separated flag values.
func splitList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}
