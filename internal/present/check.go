package present

import (
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
