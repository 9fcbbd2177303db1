package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scaleRun runs the CLI with args and stdin and returns stdout, stderr and
// the exit code.
func scaleRun(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), append([]string{"ldanalyze"}, args...), strings.NewReader(stdin), &out, &errb)
	code := exitCode(err, &errb)
	return out.String(), errb.String(), code
}

func scaleJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	return m
}

func scaleNear(t *testing.T, what string, got any, want, tol float64) {
	t.Helper()
	v, ok := got.(float64)
	if !ok || math.Abs(v-want) > tol {
		t.Errorf("%s = %v, want %v ± %g", what, got, want, tol)
	}
}

// The acceptance case (shared/acceptance/run.sh, models): the published
// growth case of issue 7 gives b = 2.665, 95 % interval 1.90–3.43
// (methods.md §7), and 1000 players project to 16.25 GB (4.77–55.3 GB).
func TestScaleFitCommand(t *testing.T) {
	out, errs, code := scaleRun(t, "", "scale", "--fit", "--format", "json", "--at", "1000",
		"--point", "100=36MB", "--point", "250=382MB", "--point", "500=2645MB")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m := scaleJSON(t, out)
	scaleNear(t, "exponent", m["exponent"], 2.665, 1e-3)
	scaleNear(t, "exponent_low", m["exponent_low"], 1.9002, 1e-3)
	scaleNear(t, "exponent_high", m["exponent_high"], 3.4298, 1e-3)
	scaleNear(t, "n", m["n"], 3, 0)
	scaleNear(t, "r2", m["r2"], 0.9995, 1e-4)
	if l, ok := m["local_exponents"].([]any); !ok || len(l) != 2 {
		t.Errorf("local_exponents %v", m["local_exponents"])
	}
	p, ok := m["projection"].(map[string]any)
	if !ok {
		t.Fatalf("projection %v", m["projection"])
	}
	scaleNear(t, "projection.y (GB)", p["y"].(float64)/1e9, 16.2496, 1e-3)
	scaleNear(t, "projection.low (GB)", p["low"].(float64)/1e9, 4.7709, 1e-3)
	scaleNear(t, "projection.high (GB)", p["high"].(float64)/1e9, 55.346, 2e-3)
	if m["y_unit"] != "B" || m["x_unit"] != "" {
		t.Errorf("units %v %v", m["x_unit"], m["y_unit"])
	}
}

// Points from a CSV on stdin, with a header and a bad line: the bad line is
// skipped and named; two points give no interval (JSON null).
func TestScaleFitCSV(t *testing.T) {
	in := "players,bytes\n100,36MB\nbroken\n500,2645MB\n"
	out, errs, code := scaleRun(t, in, "scale", "--fit", "-f", "json", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m := scaleJSON(t, out)
	// ln(2645/36)/ln 5 = 2.669819 (hand calculation).
	scaleNear(t, "exponent", m["exponent"], 2.669819, 1e-5)
	if m["exponent_low"] != nil || m["exponent_high"] != nil {
		t.Errorf("2 points: interval %v–%v, want null", m["exponent_low"], m["exponent_high"])
	}
	w, _ := json.Marshal(m["warnings"])
	if !strings.Contains(string(w), "skipped -:3: want two fields, x and y") || !strings.Contains(string(w), "only 2 points") {
		t.Errorf("warnings %s", w)
	}
	if m["x_name"] != "players" || m["y_name"] != "bytes" {
		t.Errorf("names %v %v", m["x_name"], m["y_name"])
	}
}

func TestScaleFitTable(t *testing.T) {
	out, errOut, code := scaleRun(t, "", "scale", "--point", "100=3.4MB", "--point", "250=12MB", "--point", "500=36MB")
	if code != 0 {
		t.Fatal(code)
	}
	// After the fix: b ≈ 1.46 (issue 7); hand calculation 1.461493.
	for _, want := range []string{"y ∝ x^1.461 (95% CI 0.72–2.21, n=3, R²=0.9984)", "meaning: super-linear"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "ldanalyze: warning: only 3 points") {
		t.Errorf("stderr lacks the 3-point warning:\n%s", errOut)
	}
}

func TestScaleUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"scale", "--fit"}, "scale: no points: give --point X=Y flags, --run X=FILE k6 runs or a CSV file of x,y"},
		{[]string{"scale", "--run", "100"}, `--run "100": want X=FILE, e.g. 100=room100.csv`},
		{[]string{"scale", "--run", "many=a.csv"}, `--run "many=a.csv": x: "many": not a number`},
		{[]string{"scale", "--run", "100=../../testdata/scale/room100.csv", "--y", "data_received"}, `--y "data_received": want METRIC:STAT`},
		{[]string{"scale", "--usl", "--run", "1=../../testdata/scale/vus1.csv", "--y", "http_reqs:rate"}, "scale --usl: --y applies to --fit"},
		{[]string{"scale", "--run", "100=../../testdata/scale/room100.csv", "--y", "ws_msgs_sent:total"}, "--run 100=../../testdata/scale/room100.csv: no samples of the metric ws_msgs_sent"},
		{[]string{"scale", "--run", "100=../../testdata/scale/room100.csv", "--run", "200=../../testdata/scale/missing.csv"}, "--run 200=../../testdata/scale/missing.csv: "},
		{[]string{"scale", "--fit", "--usl", "--point", "1=2"}, "scale: give --fit or --usl, not both"},
		{[]string{"scale", "--point", "100=36MB", "--point", "200=80MB", "--at", "5s"}, `--at 5s: unit "s" differs from the points' x unit ""`},
		{[]string{"scale", "--point", "100=36MB", "--point", "200=8s"}, `--point: point "200=8s": y unit s does not match the earlier points' B`},
		{[]string{"scale", "--point", "100=36MB"}, "scale: a growth fit needs at least 2 points, got 1"},
		{[]string{"scale", "--usl", "--point", "1=1", "--point", "2=2", "--point", "3=3"}, "queueing: a USL fit needs at least 4 points, got 3"},
		// A bad point is named by its input, file:line or the flag, with
		// what was expected (before: "queueing: point 5 (N=16, X=-1): …").
		{[]string{"scale", "--usl", "--point", "1=100", "--point", "2=190", "--point", "4=350", "--point", "8=600", "--point", "16=-1"},
			"ldanalyze: scale --usl: point 16=-1: N=16, X=-1: concurrency must be finite and > 0, throughput finite and ≥ 0\n"},
		{[]string{"scale", "--usl", badSweep(t)}, "sweep.csv:6: N=16, X=-5: concurrency must be finite and > 0, throughput finite and ≥ 0\n"},
	} {
		_, errs, code := scaleRun(t, "", c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// SPEC SDM91 (codahale/usl cmd/usl/example.csv): the R usl package reports
// σ = 0.0277, κ = 0.000104, λ = 90.0, peak 1884 at N = 96.5 (methods.md §2);
// 0.5 % tolerance for the rounding of those figures.
func TestScaleUSLCommand(t *testing.T) {
	in := "N,X\n1,65\n18,996\n36,1652\n72,1853\n108,1829\n144,1775\n216,1702\n"
	for _, args := range [][]string{{"scale", "--usl", "-f", "json", "-"}, {"queue", "usl", "-f", "json", "-"}} {
		out, errs, code := scaleRun(t, in, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		m := scaleJSON(t, out)
		scaleNear(t, "sigma", m["sigma"], 0.0277, 0.0277*0.005)
		scaleNear(t, "kappa", m["kappa"], 0.000104, 0.000104*0.005)
		scaleNear(t, "lambda", m["lambda"], 90.0, 0.45)
		scaleNear(t, "n_star", m["n_star"], 96.5, 0.5)
		scaleNear(t, "x_max", m["x_max"], 1884, 9)
		if _, ok := m["r2"].(float64); !ok {
			t.Errorf("r2 %v", m["r2"])
		}
	}
}

// The published growth case as three k6 runs (testdata/scale/README.md:
// hand-summed data_received totals 36 MB, 382 MB and 2645 MB, the last a
// distributed run of two files) gives the same b = 2.665 as the points.
func TestScaleFitRuns(t *testing.T) {
	dir := "../../testdata/scale/"
	out, errs, code := scaleRun(t, "", "scale", "--fit", "-f", "json", "--at", "1000",
		"--run", "100="+dir+"room100.csv", "--run", "250="+dir+"room250.csv",
		"--run", "500="+dir+"room500a.csv", "--run", "500="+dir+"room500b.csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m := scaleJSON(t, out)
	scaleNear(t, "exponent", m["exponent"], 2.665, 1e-3)
	scaleNear(t, "n", m["n"], 3, 0)
	if m["y_name"] != "data_received:total" || m["y_unit"] != "B" {
		t.Errorf("y %v %v", m["y_name"], m["y_unit"])
	}
	runs, _ := m["runs"].([]any)
	if len(runs) != 3 {
		t.Fatalf("runs %v", m["runs"])
	}
	for i, want := range []float64{36e6, 382e6, 2645e6} {
		r := runs[i].(map[string]any)
		scaleNear(t, "run y", r["y"], want, 0)
		scaleNear(t, "run duration_s", r["duration_s"], 10, 0)
	}
	if f := runs[2].(map[string]any)["files"].([]any); len(f) != 2 {
		t.Errorf("x=500 files %v", f)
	}
	p := m["projection"].(map[string]any)
	scaleNear(t, "projection.y (GB)", p["y"].(float64)/1e9, 16.2496, 1e-3)

	// Rates over the 10 s runs and a tagged percentile, as text.
	out, _, code = scaleRun(t, "", "scale", "--run", "100="+dir+"room100.csv", "--run", "250="+dir+"room250.csv", "--y", "data_received:rate")
	if code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{"3.6 MB/s", "38.2 MB/s", "run x = 100: data_received:rate = 3.6 MB/s (../../testdata/scale/room100.csv; 3 samples over 10 s)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// join durations 10…50 ms: p95 = 48 ms by k6's definition (hand).
	out, _, code = scaleRun(t, "", "scale", "-f", "json", "--run", "1="+dir+"room100.csv", "--run", "2="+dir+"room100.csv", "--y", "http_req_duration{name:join}:p95")
	if code != 0 {
		t.Fatal(code)
	}
	r := scaleJSON(t, out)["runs"].([]any)[0].(map[string]any)
	scaleNear(t, "p95 (s)", r["y"], 0.048, 1e-12)
	if r["y_unit"] != "s" {
		t.Errorf("unit %v", r["y_unit"])
	}
}

// y from real k6 runs equals k6's own end-of-test summary
// (testdata/k6/*.summary.json): data_received 2,832,284 B (closed_ramp)
// and 5,256,040 B (open_ramp), exactly.
func TestScaleFitRunsK6(t *testing.T) {
	out, errs, code := scaleRun(t, "", "scale", "-f", "json", "--run", "1=../../testdata/k6/closed_ramp.csv.gz", "--run", "2=../../testdata/k6/open_ramp.csv.gz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m := scaleJSON(t, out)
	runs := m["runs"].([]any)
	scaleNear(t, "closed_ramp data_received", runs[0].(map[string]any)["y"], 2832284, 0)
	scaleNear(t, "open_ramp data_received", runs[1].(map[string]any)["y"], 5256040, 0)
	// Two points: b = ln(5256040/2832284)/ln 2 = 0.892994 (hand calculation).
	scaleNear(t, "exponent", m["exponent"], math.Log(5256040.0/2832284)/math.Log(2), 1e-9)
}

// A USL sweep of six constant-vus k6 runs generated from σ = 0.05,
// κ = 0.001, λ = 100/s (testdata/scale/README.md; X rounded to whole
// requests per second): the fit recovers each within 1 % (issue 7).
func TestScaleUSLRuns(t *testing.T) {
	args := []string{"scale", "--usl", "-f", "json"}
	for _, n := range []string{"1", "2", "4", "8", "16", "32"} {
		args = append(args, "--run", n+"=../../testdata/scale/vus"+n+".csv")
	}
	for _, a := range [][]string{args, append([]string{"queue", "usl"}, args[2:]...)} {
		out, errs, code := scaleRun(t, "", a...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", a, code, errs)
		}
		m := scaleJSON(t, out)
		scaleNear(t, "sigma", m["sigma"], 0.05, 0.05*0.01)
		scaleNear(t, "kappa", m["kappa"], 0.001, 0.001*0.01)
		scaleNear(t, "lambda", m["lambda"], 100, 1)
		runs := m["runs"].([]any)
		if len(runs) != 6 {
			t.Fatalf("runs %v", runs)
		}
		r := runs[5].(map[string]any)
		scaleNear(t, "X at N=32", r["y"], 903, 0)
		scaleNear(t, "hold seconds", r["seconds"], 40, 0)
		if r["span"] != "hold" || r["y_unit"] != "/s" {
			t.Errorf("run %v", r)
		}
	}
}

// badSweep writes a USL sweep whose fifth point, on line 6, has a negative
// throughput.
func badSweep(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sweep.csv")
	if err := os.WriteFile(path, []byte("concurrency,throughput\n1,100\n2,190\n4,350\n8,600\n16,-5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The USL over closed_ramp's levels peaks at the measured ≈ 167/s; its
// Amdahl fit (κ = 0, a worse R²) puts a ceiling λ/σ of 256.6/s far above
// every level, which the text marks as an extrapolation.
func TestScaleAmdahlExtrapolation(t *testing.T) {
	out, errOut, code := runCLI(t, "", "scale", "--usl", "--levels", td+"closed_ramp.csv.gz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"peak: X(N*) = 167.8/s at N* = 96.2", "ceiling λ/σ = 256.6/s (an extrapolation: the most measured is 167/s, and the USL fits better"} {
		if !strings.Contains(out, want) {
			t.Errorf("scale --usl --levels lacks %q:\n%s", want, out)
		}
	}
}
