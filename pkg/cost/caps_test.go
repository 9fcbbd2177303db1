package cost

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repeat is an endless stream of one byte, as /dev/zero is of zeros.
type repeat byte

func (b repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// TestUsageFileCap: /dev/zero as the usage file fails on the cap, naming
// it and the file (issue 21: `cost --usage /dev/zero` read 5.7 GB). The
// endless stream is read through the same bounded reader, not timed.
func TestUsageFileCap(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err := ReadUsageFile("/dev/zero")
		if want := "/dev/zero: larger than 4 MiB: not a usage file (YAML)"; err == nil || err.Error() != want {
			t.Errorf("error %v, want %s", err, want)
		}
	}
	p := filepath.Join(t.TempDir(), "fit.json")
	if err := os.WriteFile(p, make([]byte, MaxExponentFileBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	u, err := ParseUsage([]byte("region: us-west-2\nitems:\n  - {name: a, kind: nlb-lcu, nlcu: 1, exponent_from: "+p+"}\n"), "u.yaml")
	if err != nil {
		t.Fatal(err)
	}
	err = u.ResolveExponents(".")
	if want := `u.yaml:3: item "a": exponent_from ` + p + `: larger than 16 MiB: not the JSON of "ldanalyze scale --fit"`; err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
}

// TestOfferCaps: an endless offer file fails on the file cap, one endless
// JSON value on the value cap, and zeros at the first byte; each error
// names the file.
func TestOfferCaps(t *testing.T) {
	for _, tc := range []struct {
		in   io.Reader
		want string
	}{
		{repeat(0), `zero.json: invalid character '\x00' looking for beginning of value`},
		{io.MultiReader(strings.NewReader(`{"products": {"A": {"sku": "`), repeat('a')), "long.json: a JSON value at byte 17 is larger than 1 MiB: not an AWS Price List offer file"},
		{io.MultiReader(strings.NewReader(`{"terms": {"Reserved": [`), repeat(' ')), "long.json: a JSON value at byte 24 is larger than 1 MiB: not an AWS Price List offer file"},
		{io.MultiReader(strings.NewReader(`{"x": [`), strings.NewReader(strings.Repeat("1,", 2<<20))), "long.json: larger than 2 MiB: not an AWS Price List offer file for one region"},
	} {
		name := "long.json"
		if tc.want[0] == 'z' {
			name = "zero.json"
		}
		_, err := readOffer(tc.in, name, "us-west-2", 2<<20, 1<<20)
		if err == nil || err.Error() != tc.want {
			t.Errorf("got %v\nwant %s", err, tc.want)
		}
	}
	if _, err := ReadOffer(repeat(0), "zero.json", "us-west-2"); err == nil || !strings.HasPrefix(err.Error(), "zero.json: invalid character") {
		t.Errorf("ReadOffer(zeros): %v", err)
	}
}
