package main

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// agreed is what one command says of a run's requests: how many, how
// many failed, and the failures per status.
type agreed struct {
	requests, failed uint64
	errorRate        float64
	byStatus         map[string]uint64
}

// errorsCheck is the evidence of the errors check of a knee or check
// JSON document.
func errorsCheck(t *testing.T, doc string) map[string]float64 {
	t.Helper()
	var d struct {
		Checks []struct {
			ID       string             `json:"id"`
			Evidence map[string]float64 `json:"evidence"`
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatal(err)
	}
	for _, c := range d.Checks {
		if c.ID == "errors" {
			return c.Evidence
		}
	}
	t.Fatal("no errors check")
	return nil
}

// errorsEvidence reads the errors check of a knee or check JSON document.
func errorsEvidence(t *testing.T, doc string) agreed {
	t.Helper()
	ev := errorsCheck(t, doc)
	a := agreed{requests: uint64(ev["requests"]), failed: uint64(ev["failed"]), errorRate: ev["error_rate"], byStatus: map[string]uint64{}}
	for k, v := range ev {
		if s, ok := strings.CutPrefix(k, "status_"); ok && !strings.Contains(s, "{") {
			a.byStatus[s] = uint64(v)
		}
	}
	return a
}

// reportEvidence reads the errors row of the report's checks table: its
// evidence as name=value pairs.
func reportEvidence(t *testing.T, md string) agreed {
	t.Helper()
	for _, l := range strings.Split(md, "\n") {
		if !strings.HasPrefix(l, "| errors | ") {
			continue
		}
		a := agreed{byStatus: map[string]uint64{}}
		for _, kv := range strings.Split(strings.Split(l, " | ")[2], ", ") {
			k, v, _ := strings.Cut(kv, "=")
			f, _ := strconv.ParseFloat(v, 64)
			switch {
			case k == "requests":
				a.requests = uint64(f)
			case k == "failed":
				a.failed = uint64(f)
			case k == "error_rate":
				a.errorRate = f
			case strings.HasPrefix(k, "status_") && !strings.Contains(k, "{"):
				a.byStatus[strings.TrimPrefix(k, "status_")] = uint64(f)
			}
		}
		return a
	}
	t.Fatalf("no errors row in the report:\n%s", md)
	return agreed{}
}

// kneeOverall reads knee's whole-run counts.
func kneeOverall(t *testing.T, doc string) (metric string, requests, okCount, failed uint64, errorRate float64) {
	t.Helper()
	var d struct {
		Metric  string `json:"metric"`
		Overall struct {
			Requests  uint64  `json:"requests"`
			OKCount   uint64  `json:"ok_count"`
			Failed    uint64  `json:"failed"`
			ErrorRate float64 `json:"error_rate"`
		} `json:"overall"`
	}
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatal(err)
	}
	return d.Metric, d.Overall.Requests, d.Overall.OKCount, d.Overall.Failed, d.Overall.ErrorRate
}

// TestCommandsAgreeGRPC: on the gRPC ramp (testdata/k6-v2/README.md:
// 18,709 OK calls, status 0, and 13,216 failures, 1,640 × 5 NotFound and
// 11,576 × 8 ResourceExhausted, of 31,925 calls) knee with no --metric
// (the run's own protocol: grpc_req_duration), its --by name windows,
// check and report count the same calls the same way.
func TestCommandsAgreeGRPC(t *testing.T) {
	const run = "../../testdata/k6-v2/grpc_ramp.csv.gz"
	want := agreed{requests: 31925, failed: 13216, byStatus: map[string]uint64{"5": 1640, "8": 11576}}
	same := func(what string, got agreed) {
		t.Helper()
		if got.requests != want.requests || got.failed != want.failed || len(got.byStatus) != 2 || got.byStatus["5"] != 1640 || got.byStatus["8"] != 11576 ||
			math.Abs(got.errorRate-13216.0/31925) > 5e-4 {
			t.Errorf("%s: %+v, want %+v, error rate 13216/31925", what, got, want)
		}
	}

	kj, errOut, code := runCLI(t, "", "knee", "--format", "json", run)
	if code != 0 {
		t.Fatalf("knee: exit %d: %s", code, errOut)
	}
	metric, requests, ok, failed, rate := kneeOverall(t, kj)
	if metric != "grpc_req_duration" || requests != 31925 || ok != 18709 || failed != 13216 || math.Abs(rate-13216.0/31925) > 1e-12 {
		t.Errorf("knee: %s, %d calls, %d OK, %d failed, rate %v", metric, requests, ok, failed, rate)
	}
	same("knee's errors check", errorsEvidence(t, kj))

	byName, _, _ := runCLI(t, "", "knee", "--by", "name", "--format", "csv", run)
	var n, nf uint64
	for i, l := range strings.Split(strings.TrimSpace(byName), "\n") {
		f := strings.Split(l, ",")
		if i == 0 || len(f) < 8 {
			continue
		}
		c, _ := strconv.ParseUint(f[2], 10, 64)
		x, _ := strconv.ParseUint(f[7], 10, 64)
		n, nf = n+c, nf+x
	}
	if n != 31925 || nf != 13216 {
		t.Errorf("knee --by name: %d calls, %d failed over the windows; want 31925 and 13216", n, nf)
	}

	cj, _, code := runCLI(t, "", "check", "--format", "json", run)
	if code != 1 {
		t.Errorf("check: exit %d, want 1 (the errors check fails)", code)
	}
	same("check", errorsEvidence(t, cj))
	cmd, _, _ := runCLI(t, "", "check", "--format", "markdown", run)
	for _, w := range []string{"13216 of 31925 calls failed", "1640 × 5 NotFound", "11576 × 8 ResourceExhausted"} {
		if !strings.Contains(cmd, w) {
			t.Errorf("check's markdown lacks %q", w)
		}
	}

	md, errOut, code := runCLI(t, "", "report", run)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	same("report's checks table", reportEvidence(t, md))
	for _, w := range []string{"| calls | 31925 (41.4% failed), 226.4 calls/s |", "| /grpc.health.v1.Health/Check | 31925 | 226.4 | 41.4% |"} {
		if !strings.Contains(md, w) {
			t.Errorf("report lacks %q", w)
		}
	}
}

// TestCommandsAgreeRestrictedTags: breakpoint.csv.gz recorded with
// restricted --system-tags (no status or expected_response column; built
// here by dropping them) has its failures only in the http_req_failed rows
// and k6's error codes. knee, check and report give it the same error
// rate, and the same as the full file: 3,298 of 23,232 requests
// (2,982 × 429 and 316 × 503 by the full file's status column).
func TestCommandsAgreeRestrictedTags(t *testing.T) {
	full := td + "breakpoint.csv.gz"
	restricted := dropColumns(t, full, "status", "expected_response")
	for _, run := range []string{full, restricted} {
		kj, errOut, code := runCLI(t, "", "knee", "--format", "json", run)
		if code != 0 {
			t.Fatalf("knee %s: exit %d: %s", run, code, errOut)
		}
		_, requests, ok, failed, rate := kneeOverall(t, kj)
		if requests != 23232 || failed != 3298 || ok != 23232-3298 {
			t.Errorf("knee %s: %d requests, %d OK, %d failed", run, requests, ok, failed)
		}
		cj, _, _ := runCLI(t, "", "check", "--format", "json", run)
		ck := errorsEvidence(t, cj)
		md, _, _ := runCLI(t, "", "report", run)
		rp := reportEvidence(t, md)
		if ck.requests != 23232 || ck.failed != 3298 || ck.errorRate != rate || rp.requests != 23232 || rp.failed != 3298 || math.Abs(rp.errorRate-rate) > 5e-4 {
			t.Errorf("%s: knee rate %v; check %+v; report %+v", run, rate, ck, rp)
		}
		if !strings.Contains(md, "| requests | 23232 (14.2% failed), ") {
			t.Errorf("%s: report's run facts lack 23232 (14.2%% failed)", run)
		}
		if run == full && (ck.byStatus["429"] != 2982 || ck.byStatus["503"] != 316) {
			t.Errorf("full file by status: %v", ck.byStatus)
		}
	}
	if kerr := func() string { _, e, _ := runCLI(t, "", "knee", restricted); return e }(); !strings.Contains(kerr, "restricted --system-tags") {
		t.Errorf("knee on the restricted file does not say how it counted failures: %s", kerr)
	}
}

// gzipCSV is a CSV reader (any number of fields a record) over the
// gzipped file path, closed when the test ends.
func gzipCSV(t *testing.T, path string) *csv.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(bufio.NewReader(zr))
	r.FieldsPerRecord = -1
	return r
}

// dropColumns copies the gzipped k6 CSV src without the named columns, as
// a run recorded with restricted --system-tags is written, to a temporary
// file.
func dropColumns(t *testing.T, src string, drop ...string) string {
	t.Helper()
	r := gzipCSV(t, src)
	path := filepath.Join(t.TempDir(), "restricted.csv")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(out)
	var keep []int
	for i := 0; ; i++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			for j, h := range rec {
				if !slices.Contains(drop, h) {
					keep = append(keep, j)
				}
			}
			if len(keep) != len(rec)-len(drop) {
				t.Fatalf("%s lacks a column of %v", src, drop)
			}
		}
		row := make([]string, 0, len(keep))
		for _, j := range keep {
			row = append(row, rec[j])
		}
		if err := w.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	if err := errors.Join(w.Error(), out.Close()); err != nil {
		t.Fatal(err)
	}
	return path
}

// errorsWindow reads the errors check's worst window (peak_window_*) from
// a knee or check JSON document.
func errorsWindow(t *testing.T, doc string) (rate, start float64) {
	t.Helper()
	ev := errorsCheck(t, doc)
	return ev["peak_window_error_rate"], ev["peak_window_start_s"]
}

// TestCommandsAgreeWorstWindow: knee (whatever its --window), check and
// report quote one worst error window under "Validity (ldanalyze check
// shows the evidence)", the checks' default 10 s from the run's first
// second. The truth is counted here from breakpoint.csv.gz's
// http_req_failed rows (value 1: failed), in 10 s windows from its first
// timestamp, leaving out the last window when it is under half a window
// long (here +130 s, one second).
func TestCommandsAgreeWorstWindow(t *testing.T) {
	const run = td + "breakpoint.csv.gz"
	r := gzipCSV(t, run)
	var first, last int64 = -1, -1
	reqs, failed := map[int64]float64{}, map[int64]float64{}
	var ts []int64
	var vals []bool
	for i := 0; ; i++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			continue
		}
		sec, err := strconv.ParseInt(rec[1], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if first < 0 || sec < first {
			first = sec
		}
		last = max(last, sec)
		if rec[0] == "http_req_failed" {
			ts, vals = append(ts, sec), append(vals, rec[2] == "1.000000")
		}
	}
	for i, s := range ts {
		w := (s - first) / 10 * 10
		reqs[w]++
		if vals[i] {
			failed[w]++
		}
	}
	wantRate, wantStart := 0.0, -1.0
	for w, n := range reqs {
		if last-first-w+1 < 5 {
			continue // under half a window: the checks skip it
		}
		if x := failed[w] / n; x > wantRate || (x == wantRate && float64(w) < wantStart) {
			wantRate, wantStart = x, float64(w)
		}
	}
	if wantStart < 0 || wantRate < 0.2 {
		t.Fatalf("truth: worst window %v at +%v s; the run's failures were not found", wantRate, wantStart)
	}
	near := func(what string, rate, start float64) {
		t.Helper()
		if math.Abs(rate-wantRate) > 5e-4 || start != wantStart {
			t.Errorf("%s: worst window %.4f at +%v s, want %.4f at +%v s", what, rate, start, wantRate, wantStart)
		}
	}
	for _, args := range [][]string{{"knee"}, {"knee", "--window", "60s"}, {"check"}} {
		doc, errOut, code := runCLI(t, "", append(append(args, "--format", "json"), run)...)
		if code > 1 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		rate, start := errorsWindow(t, doc)
		near(strings.Join(args, " "), rate, start)
	}
	md, errOut, code := runCLI(t, "", "report", run)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	want := fmt.Sprintf("worst 10 s window at +%v s with %.2f %%", wantStart, 100*wantRate)
	if !strings.Contains(md, want) {
		t.Errorf("report lacks %q", want)
	}
	txt, _, _ := runCLI(t, "", "knee", run)
	if !strings.Contains(txt, want) {
		t.Errorf("knee lacks %q", want)
	}
}
