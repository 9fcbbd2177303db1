package ingest

import (
	"bytes"
	"math"
	"testing"
)

// checkScanValue fails t when scanValue, on rec from 0, disagrees with
// parseValue on the field up to rec's first comma: it must find that
// field's end and parseValue's value, bit for bit, or decline.
func checkScanValue(t *testing.T, rec []byte) {
	t.Helper()
	v, end, ok := scanValue(rec, 0)
	if !ok {
		return
	}
	want := len(rec)
	if i := bytes.IndexByte(rec, ','); i >= 0 {
		want = i
	}
	if end != want {
		t.Fatalf("scanValue(%q): end %d, want %d", rec, end, want)
	}
	pv, err := parseValue(rec[:end])
	if err != nil || math.Float64bits(pv) != math.Float64bits(v) {
		t.Fatalf("scanValue(%q) = %v; parseValue = %v, %v", rec, v, pv, err)
	}
}

// TestScanValue: the reader's in-place value parser agrees with parseValue
// (hand-picked shapes: k6's %f, other decimals, what must be declined).
func TestScanValue(t *testing.T) {
	for _, s := range []string{
		"0.021554", "2509.000000", "-0.000000", "123456789.123456", "1234567890.123456",
		"1", "1.", ".5", "-.5", "5.1234567", "12.34", "", "-", ".", "1e3", "+1", "1_0",
		"0.000001", "999999999.999999", "1.00000a", "1.000000x", "NaN",
		".123456", "-.123456", "7.12345/", "7.1234:6", "7.99999\x80", "42.000009",
	} {
		for _, rec := range []string{s, s + ",", s + ",tail,more", s + ",0123456789abcdef"} {
			checkScanValue(t, []byte(rec))
		}
	}
	if v, end, ok := scanValue([]byte("x,0.5,y"), 2); !ok || v != 0.5 || end != 5 {
		t.Errorf("scanValue from 2 = %v, %d, %v; want 0.5, 5, true", v, end, ok)
	}
	// The six decimals read as one word, with the byte before the
	// integer digits (here none) inside that word.
	if v, end, ok := scanValue([]byte("x,.123456,y"), 2); !ok || v != 0.123456 || end != 9 {
		t.Errorf("scanValue of .123456 from 2 = %v, %d, %v; want 0.123456, 9, true", v, end, ok)
	}
	// The word path (a field of sixteen bytes or more after the value's
	// start): every integer length around its limit of seven digits, and
	// bytes next to the digits that are not digits.
	for _, s := range []string{"7", "12", "123", "1234", "12345", "123456", "1234567", "12345678", "123456789", "0", "00", "-0", "-9876543", ""} {
		for _, f := range []string{".000000", ".999999", ".123456", ".12345/", ".1234:6", ".12345", ".1234567", "/123456", ":123456"} {
			checkScanValue(t, []byte(s+f+",,,,,,,,,,,,,,,,,,"))
			checkScanValue(t, []byte(s+f+"\n,,,,,,,,,,,,,,,,,"))
		}
	}
	if v, end, ok := scanValue([]byte("http_reqs,1,2509.000000,,,,,,,,,,"), 12); !ok || v != 2509 || end != 23 {
		t.Errorf("scanValue of 2509.000000 from 12 = %v, %d, %v; want 2509, 23, true", v, end, ok)
	}
	if _, _, ok := scanValue([]byte("1.5e3,"), 0); ok {
		t.Error("scanValue took an exponent; parseValue decides those")
	}
}

// FuzzScanValue: scanValue agrees with parseValue whatever the bytes.
func FuzzScanValue(f *testing.F) {
	for _, s := range []string{"0.021554,", "2509.000000", "-1.5,x", "1.0000000,", "12345678901234567,", "6.712662,,,,true,,GET,/menu", "-1234567.123456,,,,,,,,,,"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, rec []byte) { checkScanValue(t, rec) })
}
