package present

import (
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/checks"
)

// TestEvidenceValue: a …_unix evidence value is a UTC time (1796004502 is
// breakpoint.csv.gz's first dropped iteration, 73 s after its first
// sample 1796004429 = 2026-11-30T02:07:09Z), other values are numbers.
func TestEvidenceValue(t *testing.T) {
	for _, c := range []struct {
		v    checks.Value
		want string
	}{
		{checks.Value{Name: "first_dropped_unix", Value: 1796004502}, "2026-11-30T02:08:22Z"},
		{checks.Value{Name: "first_dropped_s", Value: 73}, "73"},
	} {
		if got := EvidenceValue(c.v); got != c.want {
			t.Errorf("%s: %q, want %q", c.v.Name, got, c.want)
		}
	}
}
