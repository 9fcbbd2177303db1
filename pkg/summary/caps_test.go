package summary

import "testing"

// zeros is an endless stream of zero bytes, as /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestReadCap: an endless stream stops at the 64 MiB cap with the cap and
// the file named (issue 21 checked the summary reader's bound).
func TestReadCap(t *testing.T) {
	_, err := Read(zeros{}, "/dev/zero")
	if want := "/dev/zero: larger than 64 MiB: not a k6 summary"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}
