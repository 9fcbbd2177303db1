package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
)

func TestRunYAMLToCSV(t *testing.T) {
	// A hand-written YAML config (k6's option names, durations as strings)
	// becomes a gzip CSV that ingest reads, and the truth goes to stderr:
	// 1 slot of 20 ms is 50 req/s, reached at 10 + 40·(50−10)/90 ≈ 27.8 s.
	dir := t.TempDir()
	cfg := filepath.Join(dir, "run.yaml")
	yml := `seed: 3
server:
  servers: 1
  classes:
    - name: api
      share: 1
      serviceTime: {kind: deterministic, mean: 20}
      maxWait: 300ms
scenarios:
  - name: ramp
    executor: ramping-arrival-rate
    startRate: 10
    preAllocatedVUs: 10
    maxVUs: 100
    stages:
      - {duration: 10s, target: 10}
      - {duration: 40s, target: 100}
tags: {testid: yaml}
`
	if err := os.WriteFile(cfg, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run.csv.gz")
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-config", cfg, "-out", out}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	for _, want := range []string{
		"C = 50.00 successful responses/s",
		"ρ = 1           at 27.778 s, offered 50.00 req/s",
		"first limit     server at 27.778 s",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	r, err := ingest.Open(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	reqs := 0
	for r.Next() {
		if s := r.Sample(); s.Metric == "http_reqs" {
			reqs++
			if v, _ := s.Tags.Get("testid"); v != "yaml" {
				t.Fatalf("testid tag %q", v)
			}
		}
	}
	// area 10·10 + (10+100)/2·40 = 2300 starts; k6's closed form puts the
	// last one a float rounding before the end, so it runs
	if reqs != 2300 {
		t.Errorf("%d requests, want 2300", reqs)
	}
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("scenarios:\n  - name: x\n    executor: constant-vus\n    vu: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "give -config FILE or -preset NAME (-list shows the presets)"},
		{[]string{"-preset", "nope"}, `sim: unknown preset "nope"`},
		{[]string{"-config", bad}, "field vu not found in type sim.Scenario"},
		{[]string{"-preset", "spike", "-format", "xml"}, `unknown format "xml" (csv or json)`},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tc.args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.args, err, tc.want)
		}
	}
}

func TestPrintConfigRoundTrip(t *testing.T) {
	// -print-config writes YAML that -config reads back to the same run.
	dir := t.TempDir()
	var yml, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-preset", "grpc-ramp", "-print-config"}, &yml, &stderr); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "grpc.yaml")
	if err := os.WriteFile(p, yml.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := run(context.Background(), []string{"-preset", "grpc-ramp", "-format", "json"}, &a, &stderr); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), []string{"-config", p, "-format", "json"}, &b, &stderr); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("the printed config does not give the preset's run")
	}
}
