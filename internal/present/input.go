package present

import (
	"fmt"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
)

// InputNotes are the lines that tell a user what was not analysed: the
// count of malformed lines skipped with the first five errors (file, line,
// column), and the readers' warnings (a truncated gzip, a run given twice),
// each line starting "ldanalyze: ", for standard error.
func InputNotes(st ingest.Stats) []string {
	var out []string
	if st.Skipped > 0 {
		s := fmt.Sprintf("ldanalyze: skipped %d malformed line(s) of %d read", st.Skipped, st.Rows+st.Skipped)
		if len(st.Errors) > 0 {
			s += fmt.Sprintf("; first: %v", st.Errors[0])
		}
		out = append(out, s)
		for _, e := range st.Errors[1:min(len(st.Errors), 5)] {
			out = append(out, fmt.Sprintf("  %v", e))
		}
	}
	for _, w := range st.Warnings {
		out = append(out, fmt.Sprintf("ldanalyze: warning: %s", w))
	}
	return out
}
