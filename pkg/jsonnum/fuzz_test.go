package jsonnum

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// FuzzFloat: a Float survives its JSON form (non-finite values as null,
// read back as NaN), and a JSON document reads into a Float as
// encoding/json reads it into a float64 (null as NaN), errors alike.
func FuzzFloat(f *testing.F) {
	for _, s := range []string{"1.5", "null", "-0", "1e308", "1e400", `"1"`, "NaN", "[1]", "0.1e-320"} {
		f.Add(s, 0.1)
	}
	f.Add("", math.Inf(-1))
	f.Fuzz(func(t *testing.T, doc string, v float64) {
		b, err := json.Marshal(Float(v))
		if err != nil {
			t.Fatalf("marshal %v: %v", v, err)
		}
		var back Float
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%v → %s: %v", v, b, err)
		}
		if Float(v).Valid() && (float64(back) != v || math.Signbit(float64(back)) != math.Signbit(v)) || !Float(v).Valid() && !math.IsNaN(float64(back)) {
			t.Fatalf("%v → %s → %v", v, b, back)
		}

		var got Float
		var want float64
		gerr := json.Unmarshal([]byte(doc), &got)
		werr := json.Unmarshal([]byte(doc), &want)
		if bytes.Equal(bytes.Trim([]byte(doc), " \t\r\n"), []byte("null")) { // JSON's whitespace only
			if gerr != nil || !math.IsNaN(float64(got)) {
				t.Fatalf("null → %v, %v", got, gerr)
			}
			return
		}
		if (gerr == nil) != (werr == nil) || gerr == nil && float64(got) != want {
			t.Fatalf("%q: Float %v, %v; float64 %v, %v", doc, got, gerr, want, werr)
		}
	})
}
