package scale

import (
	"io"
	"strings"
	"testing"
)

// zeros is an endless stream of zero bytes, as /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestReadCSVCap: /dev/zero as a points file, or an endless stream of
// valid lines, fails on the cap with the cap and the file named (issue
// 21: `scale --fit /dev/zero` read 5.1 GB); the points read before stay.
// The stream goes through ReadCSV's own bound, not a timer.
func TestReadCSVCap(t *testing.T) {
	lines := io.MultiReader(strings.NewReader("x,y\n"), strings.NewReader(strings.Repeat("100,36MB\n", MaxPointsBytes/9+1)))
	for i, r := range []io.Reader{zeros{}, lines} {
		var p Points
		err := p.ReadCSV(r, "/dev/zero")
		if want := "/dev/zero: larger than 16 MiB: not a points file (CSV of x,y)"; err == nil || err.Error() != want {
			t.Errorf("error %v, want %s", err, want)
		}
		// The lines within the cap were read: (16 MiB − 4) / 9 bytes each.
		if want := []int{0, (MaxPointsBytes - 4) / 9}[i]; len(p.X) != want {
			t.Errorf("%d points read before the cap, want %d", len(p.X), want)
		}
	}
}
