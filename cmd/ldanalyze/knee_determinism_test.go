package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/textdiff"
)

// TestKneeByDeterministic: with more than 2 × --by-limit distinct names
// (600 against the default 100, so 200 kept apart before the exact regime
// was widened) the --by table is the same byte for byte for the CSV, the
// JSON-lines and the Parquet form of one run, and for any number of read
// workers (GOMAXPROCS 1, 2, 3, 7: the CSV and JSON readers hand 256 KiB
// chunks to whichever worker is free, so which names each worker sees
// varies run to run). The run: 600 names, name i with 4 × (1 + i%9) requests,
// so counts tie in groups and the kept names turn on the tie-break; about
// 12,000 requests, a row pair each (≈ 1.4 MB of CSV, several chunks).
func TestKneeByDeterministic(t *testing.T) {
	dir := t.TempDir()
	var csv, jsonl strings.Builder
	csv.WriteString("metric_name,timestamp,metric_value,expected_response,name,status\n")
	jsonl.WriteString(`{"type":"Metric","data":{"name":"http_req_failed","type":"rate","contains":"default","thresholds":[],"submetrics":null},"metric":"http_req_failed"}` + "\n")
	jsonl.WriteString(`{"type":"Metric","data":{"name":"http_req_duration","type":"trend","contains":"time","thresholds":[],"submetrics":null},"metric":"http_req_duration"}` + "\n")
	const t0 = 1796004000
	// The rows in time order, as k6 writes them (a file whose time steps
	// back is warned of as two runs in one).
	type row struct {
		sec        int64
		csv, jsonl string
	}
	var rows []row
	for i := range 600 {
		name := fmt.Sprintf("/item/%04d?id=%d", i, i*7919%10007)
		for j := range 4 * (1 + i%9) {
			sec := int64(t0 + (i*13+j*29)%120)
			v := float64(i*31%997)/8 + float64(j)
			failed, status := 0, "200"
			if (i+j)%6 == 0 {
				failed, status = 1, "500"
			}
			ts := time.Unix(sec, 0).UTC().Format(time.RFC3339)
			for _, m := range []struct {
				metric string
				v      float64
			}{{"http_req_failed", float64(failed)}, {"http_req_duration", v}} {
				rows = append(rows, row{sec,
					fmt.Sprintf("%s,%d,%g,true,%s,%s\n", m.metric, sec, m.v, name, status),
					fmt.Sprintf(`{"type":"Point","metric":%q,"data":{"time":%q,"value":%g,"tags":{"expected_response":"true","name":%q,"status":%q}}}`+"\n", m.metric, ts, m.v, name, status)})
			}
		}
	}
	slices.SortStableFunc(rows, func(a, b row) int { return cmp.Compare(a.sec, b.sec) })
	for _, r := range rows {
		csv.WriteString(r.csv)
		jsonl.WriteString(r.jsonl)
	}
	csvPath, jsonPath, pqPath := filepath.Join(dir, "run.csv"), filepath.Join(dir, "run.json"), filepath.Join(dir, "run.parquet")
	if err := os.WriteFile(csvPath, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(jsonPath, []byte(jsonl.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runCLI(t, "", "convert", csvPath, "-o", pqPath); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, errOut)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var want, wantErr, from string
	for _, in := range []string{csvPath, jsonPath, pqPath} {
		for _, procs := range []int{1, 2, 3, 7} {
			runtime.GOMAXPROCS(procs)
			out, errOut, code := runCLI(t, "", "knee", "--by", "name", "--window", "30s", "--format", "csv", in)
			if code != 0 {
				t.Fatalf("%s, GOMAXPROCS %d: exit %d: %s", in, procs, code, errOut)
			}
			at := fmt.Sprintf("%s at GOMAXPROCS %d", filepath.Base(in), procs)
			if want == "" {
				want, wantErr, from = out, errOut, at
				// 100 names × 4 windows at most, and the other rows.
				if !strings.Contains(out, ",(other),") || !strings.Contains(errOut, "500 other values") {
					t.Fatalf("%s: want 500 names folded into (other) rows; stderr %q", at, errOut)
				}
				continue
			}
			if out != want {
				t.Errorf("%s: table differs from %s's:\n%s", at, from, textdiff.First(out, want))
			}
			if errOut != wantErr {
				t.Errorf("%s: stderr %q, %s's %q", at, errOut, from, wantErr)
			}
		}
	}
}
