package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKneeByLimit: past --by-limit the busiest names keep their rows and
// the rest are summed in (other) rows, said on stderr (CSV) and marked in
// the JSON.
func TestKneeByLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString("metric_name,timestamp,metric_value,expected_response,name,status\n")
	for s := range 20 {
		for i := range 10 {
			name := "hot"
			if i >= 7 {
				name = fmt.Sprintf("/item/%d", s*10+i)
			}
			fmt.Fprintf(&b, "http_reqs,%d,1,true,%s,200\nhttp_req_duration,%d,5,true,%s,200\n", 1796004000+s, name, 1796004000+s, name)
		}
	}
	in := filepath.Join(t.TempDir(), "run.csv")
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "", "knee", "--by", "name", "--by-limit", "1", "--window", "20s", "--format", "csv", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	// 20 s in one window: hot 140 samples, 60 names of one sample each.
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "1796004000,hot,140,") || !strings.HasPrefix(lines[2], "1796004000,(other),60,") {
		t.Errorf("csv:\n%s", out)
	}
	// How many values were folded (exactly 60: 61 names are within
	// window.DefaultExactGroups, so every name is counted exactly) and the
	// flag that raises the cap.
	want := `warning: name: more than the cap of 1 distinct values: rows are kept for the 1 with the most http_req_duration samples; 60 other values (60 samples) are folded into "(other)" rows; --by-limit N raises the cap`
	if !strings.Contains(errOut, want) || !strings.HasSuffix(errOut, "; --by-limit N raises the cap\n") {
		t.Errorf("stderr %q\nwant it to hold %q and end naming --by-limit", errOut, want)
	}
	if !strings.Contains(errOut, want) {
		t.Errorf("stderr %q\nwant it to hold %q", errOut, want)
	}
	js, _, _ := runCLI(t, "", "knee", "--by", "name", "--by-limit", "1", "--window", "20s", "--format", "json", in)
	if !strings.Contains(js, `"tags": {
        "name": "(other)"
      },
      "other": true,`) {
		t.Errorf("json groups lack the other row:\n%.2000s", js[strings.Index(js, `"groups"`):])
	}
	if _, errOut, code := runCLI(t, "", "knee", "--by", "name", "--by-limit", "0", in); code != 2 || !strings.Contains(errOut, "--by-limit 0: want at least 1") {
		t.Errorf("--by-limit 0: exit %d, %s", code, errOut)
	}
}
