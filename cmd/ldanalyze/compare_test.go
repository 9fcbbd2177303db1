package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCompareGolden: two runs of one server (the check) give
// matched-load rows; flags may follow the runs; labels name the columns.
func TestCompareGolden(t *testing.T) {
	out, errOut, code := runCLI(t, "", "compare", "ramp="+td+"open_ramp.csv.gz", "breakpoint="+td+"breakpoint.csv.gz", "--format", "markdown")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "compare_open_ramp_breakpoint.md", out)
}

// TestCompareJSON checks the names of the JSON document.
func TestCompareJSON(t *testing.T) {
	out, errOut, code := runCLI(t, "", "compare", "--format", "json", td+"open_ramp.csv.gz", td+"breakpoint.csv.gz")
	if code != 0 {
		t.Fatal(errOut)
	}
	var doc struct {
		Before, After string
		Rows          []map[string]any
		Knee          map[string]any `json:"knee_offered"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Before != "before" || doc.After != "after" || len(doc.Rows) == 0 || doc.Knee == nil {
		t.Fatalf("%+v", doc)
	}
	for _, k := range []string{"offered", "after_offered", "metric", "before", "after", "p", "significant", "delta_pct"} {
		if _, ok := doc.Rows[0][k]; !ok {
			t.Errorf("rows[0] has no %q", k)
		}
	}
}

func TestCompareErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", td + "open_ramp.csv.gz"}, "want two runs"},
		{[]string{"compare", td + "open_ramp.csv.gz", td + "closed_ramp.csv.gz"}, "different units"},
		{[]string{"compare", "--alpha", "2", "a", "b"}, "--alpha"},
	} {
		_, errOut, code := runCLI(t, "", c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}
