package pipeline

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
)

// PullRange is the time range of a k6 run for `prom pull --run`: from its
// first sample to the end of its last one (the last sample's time plus the
// input's time resolution), widened outwards to whole multiples of step
// (when step > 0) so that a series scraped at that interval comes back
// sample for sample. It reads the files as Span does and returns what was
// read; a run without samples is an error naming the files.
func PullRange(paths []string, stdin io.Reader, step time.Duration) (start, end time.Time, st ingest.Stats, err error) {
	first, last, seen, st, err := Span(paths, stdin)
	if err != nil {
		return start, end, st, err
	}
	if !seen {
		return start, end, st, fmt.Errorf("%s: no samples", strings.Join(paths, ", "))
	}
	start, end = time.Unix(0, first).UTC(), time.Unix(0, last+max(st.ResolutionNS, 0)).UTC()
	if step > 0 {
		start = start.Truncate(step)
		if t := end.Truncate(step); t.Before(end) {
			end = t.Add(step)
		}
	}
	return start, end, st, nil
}
