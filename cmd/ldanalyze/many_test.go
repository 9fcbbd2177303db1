package main

import (
	"testing"
)

// TestScaleFitLevelBytes fits bytes per response over each run's longest
// hold. breakpoint.csv.gz's longest hold is 02:08:40–02:08:50 (Unix
// 1796004520–1796004529): 502,409 bytes of data_received over 2,386
// http_reqs (awk over the CSV), 210.565 bytes per response.
func TestScaleFitLevelBytes(t *testing.T) {
	out, errs, code := scaleRun(t, "", "scale", "--fit", "--format", "json", "--y", "bytes_per_request",
		"--run", "60=../../testdata/k6/breakpoint.csv.gz", "--run", "70=../../testdata/k6/open_ramp.csv.gz", "--run", "80=../../testdata/k6/closed_ramp.csv.gz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m := scaleJSON(t, out)
	runs, ok := m["runs"].([]any)
	if !ok || len(runs) != 3 {
		t.Fatalf("runs %v", m["runs"])
	}
	r0 := runs[0].(map[string]any)
	scaleNear(t, "runs[0].y", r0["y"], 502409.0/2386, 1e-9)
	if r0["y_unit"] != "B" || r0["span"] != "hold" {
		t.Errorf("runs[0] unit %v span %v, want B, hold", r0["y_unit"], r0["span"])
	}
}
