package jsonnum

import (
	"encoding/json"
	"math"
	"testing"
)

func TestFloat(t *testing.T) {
	b, err := json.Marshal([]Float{1.5, Float(math.NaN()), Float(math.Inf(1)), 0.1})
	if err != nil || string(b) != "[1.5,null,null,0.1]" {
		t.Fatalf("%s %v", b, err)
	}
	var back []Float
	if err := json.Unmarshal(b, &back); err != nil || back[0] != 1.5 || back[1].Valid() || back[3] != 0.1 {
		t.Fatalf("%v %v", back, err)
	}
}
