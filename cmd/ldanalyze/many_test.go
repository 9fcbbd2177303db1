package main

import (
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/internal/present"
	"github.com/ldanalyze/ldanalyze/pkg/compare"
	"github.com/ldanalyze/ldanalyze/pkg/over"
	"github.com/ldanalyze/ldanalyze/pkg/suite"
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

// withExtraFailures copies the k6 CSV src (gzip) to a temporary file in
// which every 100th request of the seconds [from, to) failed: each row
// of that request (http_reqs to http_req_failed, one group per request in
// k6's CSV) gets status 500 and expected_response false, its
// http_req_failed row the value 1. It returns the copy's path and the
// number of requests changed.
func withExtraFailures(t *testing.T, src string, from, to int64) (string, int) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(zr)
	r.FieldsPerRecord = -1
	path := filepath.Join(t.TempDir(), "failures.csv")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(out)
	header, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	w.Write(header)
	n, flipped, inGroup := 0, 0, false
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ts, _ := strconv.ParseInt(rec[col["timestamp"]], 10, 64)
		metric := rec[col["metric_name"]]
		if metric == "http_reqs" {
			inGroup = false
			if ts >= from && ts < to {
				n++
				if n%100 == 0 {
					inGroup = true
					flipped++
				}
			}
		}
		if inGroup && strings.HasPrefix(metric, "http_req") {
			rec[col["status"]], rec[col["expected_response"]] = "500", "false"
			if metric == "http_req_failed" {
				rec[col["metric_value"]] = "1.000000"
				inGroup = false
			}
		}
		w.Write(rec)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return path, flipped
}

// compareDoc runs compare --format json and decodes it.
func compareDoc(t *testing.T, args ...string) (present.CompareDoc, int, string) {
	t.Helper()
	out, errs, code := runCLI(t, "", append([]string{"compare", "--format", "json"}, args...)...)
	var d present.CompareDoc
	if code < 2 {
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
	}
	return d, code, errs
}

// TestCompareItselfReal: a real run against itself: nothing is
// significant, every interval of a change holds 0, and --fail-on regress
// passes.
func TestCompareItselfReal(t *testing.T) {
	d, code, errs := compareDoc(t, "--fail-on", "regress", td+"breakpoint.csv.gz", td+"breakpoint.csv.gz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if len(d.Rows) != 13*len(compare.Metrics) {
		t.Errorf("%d rows, want 13 holds × %d metrics", len(d.Rows), len(compare.Metrics))
	}
	for _, r := range d.Rows {
		if r.Significant || r.Delta != 0 || !(r.DeltaLow <= 0 && r.DeltaHigh >= 0) || !r.DeltaLow.Valid() {
			t.Errorf("%s at %v: significant %v, delta %v [%v, %v]", r.Metric, r.Offered, r.Significant, r.Delta, r.DeltaLow, r.DeltaHigh)
		}
	}
	if d.KneeOffered.Significant || d.CeilingRPS.Significant || float64(d.CeilingRPS.P) != 1 {
		t.Errorf("knee %+v ceiling %+v", d.KneeOffered, d.CeilingRPS)
	}
	// The one warning: the same file on both sides.
	if want := "ldanalyze: warning: before and after are the same file (" + td + "breakpoint.csv.gz and " + td + "breakpoint.csv.gz): the comparison can show no change\n"; errs != want {
		t.Errorf("stderr: %s\nwant %s", errs, want)
	}
}

// TestCompareExtraFailures: the same run with 1 % of the requests of one
// hold failed (the 120 it/s hold, 02:07:40–02:07:49, Unix 1796004460 to
// 1796004468: 1,077 requests, none failed; 10 changed). The error rate of
// that level is significantly higher: 0/1077 → 10/1077, Fisher's exact
// p = 2·C(1077,10)/C(2154,10) ≈ 0.0019126 (two-sided, a symmetric table);
// its interval lies above 0. No other level's error rate changes, and
// --fail-on regress exits 1 naming it.
func TestCompareExtraFailures(t *testing.T) {
	copyPath, flipped := withExtraFailures(t, td+"breakpoint.csv.gz", 1796004460, 1796004469)
	if flipped != 10 {
		t.Fatalf("%d requests changed, want 10", flipped)
	}
	d, code, errs := compareDoc(t, "--fail-on", "regress", td+"breakpoint.csv.gz", copyPath)
	if code != 1 || !strings.Contains(errs, "error_rate at 119.7") {
		t.Fatalf("exit %d, want 1 naming error_rate at 119.7: %s", code, errs)
	}
	if strings.Contains(errs, "same run given twice") {
		t.Errorf("a run with 10 more failures taken for the same run: %s", errs)
	}
	var hit int
	for _, r := range d.Rows {
		if r.Metric != "error_rate" {
			continue
		}
		if math.Abs(float64(r.Offered)-119.7) > 0.1 {
			if r.Significant {
				t.Errorf("error_rate at %v significant: %+v", r.Offered, r)
			}
			continue
		}
		hit++
		want := 2 * math.Exp(lchoose(1077, 10)-lchoose(2154, 10))
		if !r.Significant || r.Better || math.Abs(float64(r.P)-want) > 1e-9 || *r.Before.Failed != 0 || *r.After.Failed != 10 || r.After.N != 1077 {
			t.Errorf("error_rate at 119.7: %+v (p want %v)", r, want)
		}
		if !(r.DeltaLow > 0 && r.DeltaHigh > r.Delta) || math.Abs(float64(r.Delta)-10.0/1077) > 1e-12 {
			t.Errorf("delta %v [%v, %v], want 10/1077 with an interval above 0", r.Delta, r.DeltaLow, r.DeltaHigh)
		}
	}
	if hit != 1 {
		t.Errorf("%d error_rate rows at 119.7", hit)
	}
}

func lchoose(n, k float64) float64 {
	a, _ := math.Lgamma(n + 1)
	b, _ := math.Lgamma(k + 1)
	c, _ := math.Lgamma(n - k + 1)
	return a - b - c
}

// TestSuiteTestdata: `suite` over testdata/k6 gives one row per run with
// its checks verdict. Hand-checked against the files: breakpoint's k6
// checks pass 19,934 of 23,232 (3,298 failed, as `check` reports), its
// summary is the machine-readable shape (no threshold results: null);
// open_ramp's --summary-export beside it has 2 of 3 thresholds failed and
// closed_ramp's 1 of 2; the 5 s rfc3339 run is valid (only a duration
// warning), the three ramps past capacity are not (checks, errors and
// rate-limited fail).
func TestSuiteTestdata(t *testing.T) {
	out, errs, code := runCLI(t, "", "suite", "--format", "json", td)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc present.SuiteDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	byName := map[string]suite.Row{}
	for _, r := range doc.Runs {
		byName[filepath.Base(r.File)] = r
	}
	if len(doc.Runs) != 4 || len(byName) != 4 {
		t.Fatalf("%d rows: %v", len(doc.Runs), byName)
	}
	bp := byName["breakpoint.csv.gz"]
	// Its errors, 429s and failed checks all come past the knee (the
	// levels with headroom are clean): warnings, and the run is valid.
	if math.Abs(float64(bp.ChecksPassRate)-19934.0/23232) > 1e-12 || !bp.Valid || bp.Thresholds != nil || bp.Requests != 23232 {
		t.Errorf("breakpoint: %+v", bp)
	}
	if len(bp.InvalidBecause) != 0 || math.Abs(float64(bp.Knee)-180.78) > 0.01 || !bp.KneeReached {
		t.Errorf("breakpoint: invalid because %v, knee %v", bp.InvalidBecause, bp.Knee)
	}
	if th := byName["open_ramp.csv.gz"].Thresholds; th == nil || th.Failed != 2 || th.Passed != 1 {
		t.Errorf("open_ramp thresholds %+v", th)
	}
	if th := byName["closed_ramp.csv.gz"].Thresholds; th == nil || th.Failed != 1 || th.Passed != 1 {
		t.Errorf("closed_ramp thresholds %+v", th)
	}
	if r := byName["timefmt_rfc3339_nano.csv"]; !r.Valid || r.ChecksPassRate != 1 || r.Requests != 101 {
		t.Errorf("rfc3339: %+v", r)
	}
	if len(doc.Skipped) != 1 || filepath.Base(doc.Skipped[0].Path) != "README.md" {
		t.Errorf("skipped %+v", doc.Skipped)
	}
}

// TestSuiteCorpus: over the shared corpus of real k6 outputs, one row per
// file, each with a verdict (skipped when the corpus is not beside the
// repository).
func TestSuiteCorpus(t *testing.T) {
	dir := "../../../shared/corpus/k6"
	if _, err := os.Stat(dir); err != nil {
		t.Skip("no shared corpus:", err)
	}
	out, errs, code := runCLI(t, "", "suite", "--format", "json", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc present.SuiteDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{}
	for _, r := range doc.Runs {
		if r.Error != "" || r.Kind != suite.KindRun {
			t.Errorf("%s: kind %s error %q", r.File, r.Kind, r.Error)
		}
		files[filepath.Base(r.File)] = r.Valid
	}
	for _, f := range []string{"breakpoint.csv.gz", "closed_ramp.csv", "custom_metrics_unix_milli.csv", "open_ramp.csv.gz", "open_ramp.json.gz", "timefmt_rfc3339_nano.csv"} {
		if _, ok := files[f]; !ok {
			t.Errorf("no row for %s", f)
		}
	}
	// Every corpus run is valid: the step and ramp tests fail only past
	// their knees.
	for f, valid := range files {
		if !valid {
			t.Errorf("%s: not valid", f)
		}
	}
	if len(files) != 6 {
		t.Errorf("rows %v", files)
	}
}

// TestCompareDirectories: two suites (directories) before and after,
// paired by name stem (breakpoint.csv.gz before, breakpoint.csv after,
// the copy with 1 % more failures in one hold; open_ramp only before):
// one comparison per pair, the unpaired run warned about, exit 1 with
// --fail-on regress.
func TestCompareDirectories(t *testing.T) {
	copyPath, _ := withExtraFailures(t, td+"breakpoint.csv.gz", 1796004460, 1796004469)
	before, after := t.TempDir(), t.TempDir()
	for _, f := range []string{"breakpoint.csv.gz", "open_ramp.csv.gz"} {
		b, err := os.ReadFile(td + f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(before, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(copyPath, filepath.Join(after, "breakpoint.csv")); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, "", "compare", "--format", "json", "--fail-on", "regress", before, after)
	if code != 1 || !strings.Contains(errs, "only in "+before+": not compared") || !strings.Contains(errs, "breakpoint.csv.gz: error_rate at 119.7") {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	var doc present.CompareSuiteDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Runs) != 1 || doc.Runs[0].Run != "breakpoint.csv.gz" || len(doc.Runs[0].Rows) == 0 {
		t.Fatalf("runs %+v", doc.Runs)
	}
	out, _, code = runCLI(t, "", "compare", before, after)
	if code != 0 || !strings.Contains(out, "breakpoint.csv.gz: ceiling:") {
		t.Errorf("table: exit %d\n%s", code, out)
	}
	if _, errs, code := runCLI(t, "", "compare", before, td+"breakpoint.csv.gz"); code != 2 || !strings.Contains(errs, "not one of each") {
		t.Errorf("a directory and a file: exit %d %s", code, errs)
	}
}

// TestUSLSweepLabels: the six constant-vus runs of testdata/scale (X =
// 100, 190, 344, 569, 804, 903/s) get one label each: headroom while a
// step adds at least half of linear scaling (90, 77 and 56 % up to N = 8),
// saturation after (29 and 6 %); the p95 of each run's hold is its
// iteration_duration, 1000·N/X ms (every row of a run has that value).
func TestUSLSweepLabels(t *testing.T) {
	args := []string{"scale", "--usl", "--format", "json"}
	ns := []string{"1", "2", "4", "8", "16", "32"}
	for _, n := range ns {
		args = append(args, "--run", n+"=../../testdata/scale/vus"+n+".csv")
	}
	out, errs, code := scaleRun(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m := scaleJSON(t, out)
	pts := m["points"].([]any)
	want := []string{"headroom", "headroom", "headroom", "headroom", "saturation", "saturation"}
	xs := []float64{100, 190, 344, 569, 804, 903}
	for i, p := range pts {
		pm := p.(map[string]any)
		if pm["label"] != want[i] {
			t.Errorf("N=%s: label %v, want %s (%v)", ns[i], pm["label"], want[i], pm["label_reason"])
		}
		n, _ := strconv.ParseFloat(ns[i], 64)
		scaleNear(t, "p95_ms at N="+ns[i], pm["p95_ms"], 1000*n/xs[i], 5e-4) // the file has 3 decimals
		scaleNear(t, "measured_efficiency at N="+ns[i], pm["measured_efficiency"], xs[i]/(n*100), 1e-12)
	}
}

// TestUSLLevels: the levels of one closed ramp as a sweep (`--levels`).
// closed_ramp.csv.gz ramps 0 → 120 VUs against a server that saturates
// near 168 req/s at 58–60 VUs (testdata/k6/README.md): every level up to
// 44 VUs is headroom, every level from 76 VUs on is not, and none is
// retrograde (the plateau wanders by less than 5 %).
func TestUSLLevels(t *testing.T) {
	out, errs, code := scaleRun(t, "", "scale", "--usl", "--format", "json", "--levels", td+"closed_ramp.csv.gz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	pts := scaleJSON(t, out)["points"].([]any)
	if len(pts) < 8 {
		t.Fatalf("%d points", len(pts))
	}
	for _, p := range pts {
		pm := p.(map[string]any)
		n, label := pm["n"].(float64), pm["label"]
		if (n <= 44 && label != "headroom") || (n >= 76 && label == "headroom") || label == "contention" {
			t.Errorf("N=%.1f: %v (%v)", n, label, pm["label_reason"])
		}
	}
}

// TestKneeOver: samples of http_req_duration above 250 ms in
// breakpoint.csv.gz, by name, counted by awk over the CSV: 2,638 of
// 23,232; menu 1,179 of 11,573, search 591, order 500, slow 368 (of
// 1,145; its worst 364.128021 ms is the run's max).
func TestKneeOver(t *testing.T) {
	out, errs, code := runCLI(t, "", "knee", "--format", "json", "--over", "250ms", "--by", "name", td+"breakpoint.csv.gz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct{ Over over.Result }
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	o := doc.Over
	if o.LimitMS != 250 || o.Count != 2638 || o.Total != 23232 || len(o.By) != 4 {
		t.Fatalf("%+v", o)
	}
	want := map[string]uint64{"menu": 1179, "search": 591, "order": 500, "slow": 368}
	for _, k := range o.By {
		if k.Count != want[k.Key] {
			t.Errorf("%s: %d above, want %d", k.Key, k.Count, want[k.Key])
		}
	}
	if s := o.By[3]; s.Key != "slow" || s.Total != 1145 || s.WorstMS != 364.128021 {
		t.Errorf("slow: %+v", s)
	}
	if _, errs, code := runCLI(t, "", "knee", "--over", "soon", td+"breakpoint.csv.gz"); code != 2 || !strings.Contains(errs, `--over "soon": want a duration`) {
		t.Errorf("bad --over: exit %d %s", code, errs)
	}
}
