package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/ldanalyze/ldanalyze/pkg/ledger"
)

// ReadLedger reads the ledger at path for `ledger add` and `ledger show`.
// A line that is not an entry makes it an error naming the file, line and
// column of the first five. With missingOK a missing file is an empty
// ledger (the first `ledger add`); without, an error saying how to start
// one.
func ReadLedger(path string, missingOK bool) (*ledger.Ledger, error) {
	l, err := ledger.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if missingOK {
				return &ledger.Ledger{}, nil
			}
			return nil, fmt.Errorf("%s: no ledger there yet; start one with the first run of the scenario: ldanalyze ledger add --ledger %s --label baseline RUN.csv (then add each later run the same way, with a label naming the change)", path, path)
		}
		return nil, err
	}
	if n := len(l.Errors); n > 0 {
		msgs := make([]string, 0, 5)
		for _, se := range l.Errors[:min(n, 5)] {
			msgs = append(msgs, se.Error())
		}
		more := ""
		if n > 5 {
			more = fmt.Sprintf("\n  (%d more)", n-5)
		}
		return nil, fmt.Errorf("%d line(s) of the ledger are not entries; fix them first:\n  %s%s", n, strings.Join(msgs, "\n  "), more)
	}
	return l, nil
}
