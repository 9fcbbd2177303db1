package scale

import (
	"math"
	"strings"
	"testing"
)

// Expected values are the unit definitions: decimal prefixes 10³ⁿ (SI),
// binary 2¹⁰ⁿ (IEC 80000-13), durations as Go's time.ParseDuration.
func TestParseQuantity(t *testing.T) {
	for _, c := range []struct {
		in   string
		v    float64
		unit Unit
	}{
		{"36MB", 36e6, Bytes},
		{"2.6 GB", 2.6e9, Bytes},
		{"2645 mb", 2645e6, Bytes},
		{"1KiB", 1024, Bytes},
		{"1.5 GiB", 1.5 * (1 << 30), Bytes},
		{"12 bytes", 12, Bytes},
		{"500ms", 0.5, Seconds},
		{"2.8s", 2.8, Seconds},
		{"250us", 250e-6, Seconds},
		{"250µs", 250e-6, Seconds},
		{"2m", 120, Seconds},
		{"1h", 3600, Seconds},
		{"1.5k", 1500, Count},
		{"2M", 2e6, Count},
		{"100", 100, Count},
		{" -3.5 ", -3.5, Count},
		{"1e3", 1000, Count},
		{"1.2e-3s", 1.2e-3, Seconds},
		{"600/s", 600, PerSecond},
		{"1.5k/s", 1500, PerSecond},
		{"600 rps", 600, PerSecond},
		{"20MB/s", 20e6, BytesPerSecond},
	} {
		q, err := ParseQuantity(c.in)
		if err != nil {
			t.Errorf("ParseQuantity(%q): %v", c.in, err)
			continue
		}
		if math.Abs(q.Value-c.v) > 1e-12*math.Abs(c.v) || q.Unit != c.unit {
			t.Errorf("ParseQuantity(%q) = %v %q, want %v %q", c.in, q.Value, q.Unit, c.v, c.unit)
		}
	}
}

func TestParseQuantityErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", `"": not a number`},
		{"MB", `"MB": not a number`},
		{"1e999", `"1e999": not a finite number`},
		{"36XB", `"36XB": unknown unit "XB" (want a size such as MB or GiB, a duration such as ms or s, a count multiplier k, M or G, optionally followed by /s)`},
		{"5ms/s", `"5ms/s": unknown unit "ms" (want a size such as MB or GiB, a duration such as ms or s, a count multiplier k, M or G, optionally followed by /s)`},
	} {
		_, err := ParseQuantity(c.in)
		if err == nil || err.Error() != c.want {
			t.Errorf("ParseQuantity(%q) error %v, want %q", c.in, err, c.want)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		v    float64
		u    Unit
		want string
	}{
		{36e6, Bytes, "36 MB"},
		{2645e6, Bytes, "2.645 GB"},
		{16249.6e6, Bytes, "16.25 GB"},
		{999.99, Bytes, "1 kB"},
		{0.5, Seconds, "500 ms"},
		{2.8, Seconds, "2.8 s"},
		{90, Seconds, "1.5 min"},
		{1500, Count, "1500"},
		{1680, Count, "1680"},
		{25000, Count, "25k"},
		{1.5e6, PerSecond, "1.5M/s"},
		{2.665, Count, "2.665"},
		{600, PerSecond, "600/s"},
		{20e6, BytesPerSecond, "20 MB/s"},
	} {
		if got := c.u.Format(c.v); got != c.want {
			t.Errorf("%q.Format(%v) = %q, want %q", c.u, c.v, got, c.want)
		}
	}
}

// Round trip: what Format writes, ParseQuantity reads back within the four
// significant digits Format keeps.
func TestFormatRoundTrip(t *testing.T) {
	for _, u := range []Unit{Count, Bytes, Seconds, PerSecond, BytesPerSecond} {
		for _, v := range []float64{1.234, 36e6, 2.645e9, 0.0005, 1680} {
			q, err := ParseQuantity(u.Format(v))
			if err != nil || q.Unit != u || math.Abs(q.Value-v) > 5e-4*v {
				t.Errorf("%q: %v → %q → %v %q (%v)", u, v, u.Format(v), q.Value, q.Unit, err)
			}
		}
	}
}

func TestPointsAddString(t *testing.T) {
	var p Points
	for _, s := range []string{"100=36MB", "250 = 382 MB", "500=2.645GB"} {
		if err := p.AddString(s); err != nil {
			t.Fatal(err)
		}
	}
	if p.XUnit != Count || p.YUnit != Bytes || len(p.X) != 3 || p.Y[2] != 2.645e9 {
		t.Errorf("points %+v", p)
	}
	for _, c := range []struct{ in, want string }{
		{"100", `point "100": want x=y, e.g. 100=36MB`},
		{"100=5s", `point "100=5s": y unit s does not match the earlier points' B`},
		{"1k=5ZB", `point "1k=5ZB": y: "5ZB": unknown unit "ZB" (want a size such as MB or GiB, a duration such as ms or s, a count multiplier k, M or G, optionally followed by /s)`},
		{"x=5MB", `point "x=5MB": x: "x": not a number`},
	} {
		if err := p.AddString(c.in); err == nil || err.Error() != c.want {
			t.Errorf("AddString(%q) error %v, want %q", c.in, err, c.want)
		}
	}
	if len(p.X) != 3 {
		t.Errorf("a refused point was added: %v", p.X)
	}
}

func TestReadCSV(t *testing.T) {
	in := `players,bytes_sent
# the published case
100,36MB
250, 382 MB
oops
500,2645
500,2645MB,extra
bad,1MB
`
	var p Points
	if err := p.ReadCSV(strings.NewReader(in), "points.csv"); err != nil {
		t.Fatal(err)
	}
	if p.XName != "players" || p.YName != "bytes_sent" {
		t.Errorf("names %q %q", p.XName, p.YName)
	}
	wantX, wantY := []float64{100, 250, 500}, []float64{36e6, 382e6, 2645e6}
	if len(p.X) != 3 {
		t.Fatalf("X %v Y %v", p.X, p.Y)
	}
	for i := range wantX {
		if p.X[i] != wantX[i] || p.Y[i] != wantY[i] {
			t.Errorf("point %d = (%v, %v), want (%v, %v)", i, p.X[i], p.Y[i], wantX[i], wantY[i])
		}
	}
	var got []string
	for _, e := range p.Errors {
		got = append(got, e.Error())
	}
	want := []string{
		"points.csv:5: want two fields, x and y",
		`points.csv:6: y unit (a plain number) does not match the earlier points' B`,
		`points.csv:8:1: x: "bad": not a number`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// FuzzParseQuantity: a parsed quantity is finite, and its Format (four
// significant digits) parses back to the same unit and the same value
// within half a unit of the fourth digit (5 × 10⁻⁴ relative; durations
// under 0.5 ns are written "0 s").
func FuzzParseQuantity(f *testing.F) {
	for _, s := range []string{"36MB", "2.6 GB", "500ms", "1.5k", "600/s", "1e3", "-1", "1EB", "µs", "5e15", "3e-12 s", "2 TiB/s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuantity(s)
		if err != nil {
			return
		}
		if math.IsNaN(q.Value) || math.IsInf(q.Value, 0) {
			t.Fatalf("ParseQuantity(%q) = %v", s, q.Value)
		}
		out := q.Unit.Format(q.Value)
		again, err := ParseQuantity(out)
		if err != nil {
			t.Fatalf("%q → %v → Format %q does not parse: %v", s, q, out, err)
		}
		tol := 5.0001e-4 * math.Abs(q.Value)
		if q.Unit == Seconds {
			tol += 5e-10
		}
		if again.Unit != q.Unit || math.Abs(again.Value-q.Value) > tol {
			t.Fatalf("%q → %v → %q → %v", s, q, out, again)
		}
	})
}

func FuzzReadCSV(f *testing.F) {
	f.Add("x,y\n100,36MB\n250,382MB\n")
	f.Add("\"1,2\n\"\n1,2,3\n,\n")
	f.Fuzz(func(t *testing.T, s string) {
		var p Points
		if err := p.ReadCSV(strings.NewReader(s), "fuzz.csv"); err != nil {
			t.Fatal(err)
		}
		if len(p.X) != len(p.Y) {
			t.Fatalf("%d x but %d y", len(p.X), len(p.Y))
		}
		// Whatever was read, a fit either fails cleanly or is finite.
		f, err := Fit(p.X, p.Y, 0.95)
		if err != nil {
			return
		}
		for _, v := range append([]float64{f.Exponent, f.ExponentLow, f.ExponentHigh, f.Coefficient, f.R2, f.StdErr}, f.Residuals...) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("non-finite fit %+v of %v, %v", f, p.X, p.Y)
			}
		}
	})
}
