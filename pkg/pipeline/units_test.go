package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeclaredMetricUnit: a k6 JSON output declares its custom Trends
// (Metric lines: "contains": "data" for bytes, "default" for a plain
// number); the knee prints them in that unit, where a CSV, which declares
// nothing, takes a custom Trend as time.
func TestDeclaredMetricUnit(t *testing.T) {
	for _, c := range []struct{ contains, want string }{{"data", "bytes"}, {"default", ""}, {"time", "ms"}} {
		var b strings.Builder
		fmt.Fprintf(&b, `{"type":"Metric","data":{"name":"payload","type":"trend","contains":%q,"thresholds":[],"submetrics":null},"metric":"payload"}`+"\n", c.contains)
		for s := 0; s < 30; s++ {
			for i := 0; i < 5; i++ {
				fmt.Fprintf(&b, `{"metric":"payload","type":"Point","data":{"time":"2026-12-01T10:00:%02d.%03d+00:00","value":%d,"tags":{"scenario":"default"}}}`+"\n", s, 100*i, 1000+i)
				fmt.Fprintf(&b, `{"metric":"iterations","type":"Point","data":{"time":"2026-12-01T10:00:%02d.%03d+00:00","value":1,"tags":{"scenario":"default"}}}`+"\n", s, 100*i)
			}
			fmt.Fprintf(&b, `{"metric":"vus","type":"Point","data":{"time":"2026-12-01T10:00:%02d+00:00","value":2,"tags":{}}}`+"\n", s)
		}
		path := filepath.Join(t.TempDir(), "run.json")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		an, err := Run([]string{path}, Options{Metric: "payload"})
		if err != nil {
			t.Fatal(err)
		}
		if got := an.Knee.MetricUnit; got != c.want {
			t.Errorf("contains %q: unit %q, want %q", c.contains, got, c.want)
		}
	}
}
