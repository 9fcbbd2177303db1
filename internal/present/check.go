package present

import (
	"io"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/checks"
)

// CheckDoc is the JSON document of `check`: the checks plus the input
// counts.
type CheckDoc struct {
	*checks.Report
	Input Input `json:"input"`
}

// FailedChecks are the ids of the checks of rep that failed, in order.
func FailedChecks(rep *checks.Report) []string {
	var ids []string
	for _, ch := range rep.Checks {
		if ch.Status == checks.Fail {
			ids = append(ids, string(ch.ID))
		}
	}
	return ids
}

// Write renders the document of `check` in format f: JSON (the document),
// JUnit XML (one test case per check), GitHub job-summary markdown, or the
// checks table (CSV with machine-readable evidence).
func (d *CheckDoc) Write(w io.Writer, f render.Format) error {
	switch f {
	case render.JSON:
		return render.WriteJSON(w, d)
	case render.JUnit:
		return NewJUnit(d).Write(w)
	case render.GitHub:
		return CheckGitHub(w, d)
	}
	return CheckGrid(d.Report, f == render.CSV).Write(w, f)
}
