package main

import (
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/promtest"
)

const corpusV2 = "../../../shared/corpus/k6-v2/"

// kneeJSON is the part of knee's JSON these tests read.
type kneeJSON struct {
	Model       string    `json:"model"`
	ResolutionS float64   `json:"resolution_s"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	Knee        *struct {
		Offered float64 `json:"offered"`
	} `json:"knee"`
	Ceiling *struct {
		CompletedRPS float64 `json:"completed_rps"`
	} `json:"ceiling"`
	Warnings []string `json:"warnings"`
}

// The done-when of issue 17: against a real Prometheus holding the
// recorded prom_rw_stats series (replayed through remote write), `knee
// --from-prom URL` — the run's window found from k6_iterations_total —
// finds the open model, a knee at an offered 170–190 it/s and a ceiling
// of 180–190 req/s (the corpus README's ranges for that run), at the
// store's 5 s step, and warns that the trend stats are cumulative and
// that per-window percentiles need native histograms, naming the setting.
func TestKneeFromPromStats(t *testing.T) {
	srv := promtest.Start(t, promtest.Options{})
	srv.ReplayCorpus(t, corpusV2+"prom_rw_stats.prom_query_range.json.gz")
	out, errOut, code := runCLI(t, "", "knee", "--from-prom", srv.URL, "--format", "json", "--timeout", "30s", "--deadline", "2m")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got kneeJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Model != "open" || got.ResolutionS != 5 {
		t.Errorf("model %s at %v s; want open at the 5 s push interval", got.Model, got.ResolutionS)
	}
	if got.Knee == nil || got.Knee.Offered < 170 || got.Knee.Offered > 190 {
		t.Errorf("knee %+v, want an offered load of 170–190 it/s (README)", got.Knee)
	}
	if got.Ceiling == nil || got.Ceiling.CompletedRPS < 180 || got.Ceiling.CompletedRPS > 190 {
		t.Errorf("ceiling %+v, want 180–190 req/s (README)", got.Ceiling)
	}
	all := strings.Join(got.Warnings, "\n")
	for _, want := range []string{"cumulative since the start of the test", "K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true", "÷ 1000", "percentiles of per-step means"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	// The table output says the same on stderr.
	_, errOut, code = runCLI(t, "", "knee", "--from-prom", srv.URL)
	if code != 0 || !strings.Contains(errOut, "cumulative since the start of the test") {
		t.Errorf("exit %d, stderr lacks the caveat:\n%s", code, errOut)
	}
}

// The saved export of the same run (query_range and raw samples as one
// gzipped JSON file) gives the same analysis without a server, and so
// does a directory of plain query_range files, one per metric, named as
// a user's script names them; check and report take --from-prom too.
func TestKneeFromPromFiles(t *testing.T) {
	path := corpusV2 + "prom_rw_stats.prom_query_range.json.gz"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("corpus: %v", err)
	}
	out, errOut, code := runCLI(t, "", "knee", "--from-prom", path, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var file kneeJSON
	if err := json.Unmarshal([]byte(out), &file); err != nil {
		t.Fatal(err)
	}
	if file.Model != "open" || file.Knee == nil || file.Knee.Offered < 170 || file.Knee.Offered > 190 {
		t.Errorf("from the file: model %s, knee %+v", file.Model, file.Knee)
	}
	// Trend stats give each step's mean only: the whole-run line says its
	// percentiles are of those (the JSON's overall.of), the CSV run's not.
	if !strings.Contains(out, `"of": "per-step means"`) {
		t.Errorf("overall lacks \"of\": \"per-step means\"")
	}
	txt, _, _ := runCLI(t, "", "knee", "--from-prom", path)
	if !strings.Contains(txt, "http_req_duration over the run (percentiles and max of per-step means): 36759 samples") {
		t.Errorf("the whole-run line does not say its percentiles are of per-step means:\n%s", txt)
	}
	if csvTxt, _, _ := runCLI(t, "", "knee", td+"breakpoint.csv.gz"); strings.Contains(csvTxt, "per-step means") {
		t.Errorf("a CSV run's whole-run line speaks of per-step means")
	}
	// One plain query_range file per metric: the raw samples of every
	// k6_* name, as {"status":"success","data":{...}}.
	dir := t.TempDir()
	resps, err := promtest.CorpusFile(path, "raw_samples")
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string][]string{}
	for _, s := range resps {
		b, err := json.Marshal(s.Labels)
		if err != nil {
			t.Fatal(err)
		}
		var vals []string
		for _, p := range s.Points {
			vals = append(vals, fmt.Sprintf(`[%.3f,"%g"]`, float64(p.TimeNS)/1e9, p.Value))
		}
		byName[s.Name()] = append(byName[s.Name()], fmt.Sprintf(`{"metric":%s,"values":[%s]}`, b, strings.Join(vals, ",")))
	}
	for name, series := range byName {
		body := `{"status":"success","data":{"resultType":"matrix","result":[` + strings.Join(series, ",") + `]}}`
		if err := os.WriteFile(filepath.Join(dir, "export-"+name+".json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code = runCLI(t, "", "knee", "--from-prom", dir, "--format", "json")
	if code != 0 {
		t.Fatalf("directory: exit %d: %s", code, errOut)
	}
	var fromDir kneeJSON
	if err := json.Unmarshal([]byte(out), &fromDir); err != nil {
		t.Fatal(err)
	}
	if fromDir.Knee == nil || math.Abs(fromDir.Knee.Offered-file.Knee.Offered) > 1e-6 || math.Abs(fromDir.Ceiling.CompletedRPS-file.Ceiling.CompletedRPS) > 1e-6 {
		t.Errorf("directory: knee %+v ceiling %+v; the file: %+v %+v", fromDir.Knee, fromDir.Ceiling, file.Knee, file.Ceiling)
	}
	// check warns of the errors (24 % of requests, all past the knee at
	// +75 s), as on the CSV, and repeats the caveat.
	out, errOut, code = runCLI(t, "", "check", "--from-prom", path, "--format", "markdown")
	if code != 0 || !strings.Contains(out, "| rate-limited | warn |") || !strings.Contains(out, "They came past the knee (from +75 s") || !strings.Contains(errOut, "cumulative since the start of the test") {
		t.Errorf("check: exit %d, stdout %q, stderr %q; want 0, the rate limit past the knee and the caveat", code, out, errOut)
	}
	md := filepath.Join(t.TempDir(), "r.md")
	if _, errOut, code := runCLI(t, "", "report", "--from-prom", path, "-o", md); code != 0 {
		t.Errorf("report: exit %d: %s", code, errOut)
	} else if b, _ := os.ReadFile(md); !strings.Contains(string(b), "time resolution | 5s") {
		t.Errorf("report lacks the 5 s resolution:\n%.600s", b)
	}
}

// Usage errors name the flag: files and --from-prom together, a bad
// --match, a bad --start; a URL's password never reaches the output; a
// server that holds no k6 run is an error naming it.
func TestFromPromUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"knee", "--from-prom", "x.json", td + "breakpoint.csv.gz"}, "knee: give FILEs or --from-prom, not both"},
		{[]string{"check", "--from-prom", "http://127.0.0.1:1", "--match", "testid=1"}, "check: --match"},
		{[]string{"knee", "--from-prom", "http://127.0.0.1:1", "--start", "yesterday"}, `--start "yesterday": want RFC 3339`},
		{[]string{"knee", "--from-prom", filepath.Join(t.TempDir(), "none.json")}, "knee: --from-prom: "},
	} {
		_, errOut, code := runCLI(t, "", c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	srv := promtest.Start(t, promtest.Options{})
	u := strings.Replace(srv.URL, "http://", "http://me:s3cret@", 1)
	start := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	out, errOut, code := runCLI(t, "", "knee", "--from-prom", u, "--start", start, "--timeout", "10s")
	if code != 2 || !strings.Contains(errOut, "no k6_vus or k6_iterations_total series") || strings.Contains(out+errOut, "s3cret") {
		t.Errorf("empty server: exit %d, stderr %q; want 2, no k6 series, no password", code, errOut)
	}
}

// levelJSON is a load level of knee's JSON (holds and ramp steps).
type levelJSON struct {
	Start   time.Time `json:"start"`
	End     time.Time `json:"end"`
	Offered float64   `json:"offered"`
}

// kneeLevels runs knee --format json on args and returns the result and
// its levels (holds and ramp steps) in time order.
func kneeLevels(t *testing.T, args ...string) (kneeJSON, []levelJSON) {
	t.Helper()
	out, errOut, code := runCLI(t, "", append([]string{"knee", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("knee %v: exit %d: %s", args, code, errOut)
	}
	var res kneeJSON
	var lv struct {
		Holds     []levelJSON `json:"holds"`
		RampSteps []levelJSON `json:"ramp_steps"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out), &lv); err != nil {
		t.Fatal(err)
	}
	all := append(lv.Holds, lv.RampSteps...)
	sort.Slice(all, func(i, j int) bool { return all[i].Start.Before(all[j].Start) })
	return res, all
}

// offeredOver is the offered load of levels over [from, to), weighted by
// each level's overlap with it (NaN when none overlaps).
func offeredOver(levels []levelJSON, from, to time.Time) float64 {
	var w, secs float64
	for _, l := range levels {
		lo, hi := l.Start, l.End
		if from.After(lo) {
			lo = from
		}
		if to.Before(hi) {
			hi = to
		}
		if d := hi.Sub(lo).Seconds(); d > 0 {
			w += d * l.Offered
			secs += d
		}
	}
	return w / secs
}

// The native-histogram export of prom_rw_native: no level offers more
// than the schedule's top, 400 it/s (README "Schedule": one linear stage
// of 180 s from 10 to 400 it/s), and every level's offered load agrees
// with the CSV's over the same seconds within one 5 s step of the ramp,
// 2.167 it/s/s × 5 s = 10.8 it/s (levels are cut at different seconds
// from 1 s and from 5 s data). Measured: the last level 375.1 it/s
// (+171 s, 9 s) against the CSV's 372.3; it was 412.9 when the last step,
// which holds k6's final flush 0.58 s after its last regular push, was
// counted over 5 s instead of the 5.58 s it holds.
func TestKneeFromPromNativeLastLevel(t *testing.T) {
	path := corpusV2 + "prom_rw_native.prom_query_range.json.gz"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("corpus: %v", err)
	}
	_, prom := kneeLevels(t, "--from-prom", path)
	_, csv := kneeLevels(t, corpusV2+"prom_rw_native.csv.gz")
	if len(prom) == 0 || len(csv) == 0 {
		t.Fatalf("%d levels from Prometheus, %d from the CSV", len(prom), len(csv))
	}
	for _, l := range prom {
		want := offeredOver(csv, l.Start, l.End)
		t.Logf("level %s–%s: %.1f it/s from Prometheus, %.1f from the CSV", l.Start.Format("15:04:05"), l.End.Format("15:04:05"), l.Offered, want)
		if l.Offered > 400 {
			t.Errorf("level at %s offers %.1f it/s, more than the schedule's 400", l.Start.Format(time.RFC3339), l.Offered)
		}
		if math.Abs(l.Offered-want) > 2.167*5 {
			t.Errorf("level at %s: %.1f it/s from Prometheus, %.1f from the CSV: more than 10.8 it/s apart", l.Start.Format(time.RFC3339), l.Offered, want)
		}
	}
}

// withoutRawSamples writes the corpus export src (gzipped JSON
// {"query_range": …, "raw_samples": …}) without its raw_samples section
// to a file in dir: the query_range answers at the export's 5 s step
// only, as a user who saved query_range JSON has.
func withoutRawSamples(t *testing.T, src, dir string) string {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Skipf("corpus: %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.NewDecoder(zr).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "raw_samples")
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "query_range.json")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// The same run read from the export's raw samples (every push, at its
// time) and from its query_range answers only (values at a 5 s grid,
// repeated for the 5 m lookback after the run) gives the same window
// within one 5 s step, and knees within one step of the ramp (10.8 it/s,
// 2.167 it/s/s × 5 s) and ceilings within 5 % of each other and of the
// CSV's. Before the window ended at a counter's last change, the
// query_range read ran 10 s longer (190 s against 181 s), the lookback's
// repeats adding a level of 133 it/s at the end. Measured (knee, ceiling;
// it/s, req/s): prom_rw_native raw 176.1, 186.0; query_range 173.0,
// 186.0; CSV 176.1, 182.0. prom_rw_stats raw 182.9, 187.1; query_range
// 184.8, 187.1; CSV 185.0, 183.3.
func TestKneeFromPromRawVsQueryRange(t *testing.T) {
	for _, name := range []string{"prom_rw_native", "prom_rw_stats"} {
		t.Run(name, func(t *testing.T) {
			raw := corpusV2 + name + ".prom_query_range.json.gz"
			qr := withoutRawSamples(t, raw, t.TempDir())
			r, _ := kneeLevels(t, "--from-prom", raw)
			q, _ := kneeLevels(t, "--from-prom", qr)
			c, _ := kneeLevels(t, corpusV2+name+".csv.gz")
			t.Logf("raw: %s–%s knee %+v ceiling %+v; query_range: %s–%s knee %+v ceiling %+v; CSV knee %+v ceiling %+v",
				r.Start.Format("15:04:05.000"), r.End.Format("15:04:05.000"), r.Knee, r.Ceiling, q.Start.Format("15:04:05.000"), q.End.Format("15:04:05.000"), q.Knee, q.Ceiling, c.Knee, c.Ceiling)
			// Only the query_range read says its push times are not known.
			const gridNote = "is read from query_range answers on a 5s grid, not raw samples"
			if !strings.Contains(strings.Join(q.Warnings, "\n"), gridNote) || strings.Contains(strings.Join(r.Warnings, "\n"), gridNote) {
				t.Errorf("the grid caveat: query_range warnings %q, raw %q; want it in the first only", q.Warnings, r.Warnings)
			}
			if d := math.Abs(q.Start.Sub(r.Start).Seconds()); d > 5 {
				t.Errorf("start %s from query_range, %s from raw samples: %.1f s apart, more than a step", q.Start, r.Start, d)
			}
			if d := math.Abs(q.End.Sub(r.End).Seconds()); d > 5 {
				t.Errorf("end %s from query_range, %s from raw samples: %.1f s apart, more than a step", q.End, r.End, d)
			}
			if r.Knee == nil || q.Knee == nil || c.Knee == nil || r.Ceiling == nil || q.Ceiling == nil || c.Ceiling == nil {
				t.Fatalf("a knee or ceiling missing: raw %+v %+v, query_range %+v %+v, CSV %+v %+v", r.Knee, r.Ceiling, q.Knee, q.Ceiling, c.Knee, c.Ceiling)
			}
			for _, p := range [][2]float64{{r.Knee.Offered, q.Knee.Offered}, {r.Knee.Offered, c.Knee.Offered}, {q.Knee.Offered, c.Knee.Offered}} {
				if math.Abs(p[0]-p[1]) > 2.167*5 {
					t.Errorf("knees %.1f and %.1f it/s: more than one step (10.8 it/s) apart", p[0], p[1])
				}
			}
			for _, p := range [][2]float64{{r.Ceiling.CompletedRPS, q.Ceiling.CompletedRPS}, {r.Ceiling.CompletedRPS, c.Ceiling.CompletedRPS}, {q.Ceiling.CompletedRPS, c.Ceiling.CompletedRPS}} {
				if math.Abs(p[0]-p[1]) > 0.05*p[1] {
					t.Errorf("ceilings %.1f and %.1f req/s: more than 5 %% apart", p[0], p[1])
				}
			}
		})
	}
}

// A --from-prom that is not an http(s) URL or a file says so, naming it
// once with its password redacted (prom.RedactURL), as exact strings.
func TestFromPromURLMessages(t *testing.T) {
	for _, c := range []struct{ arg, want string }{
		{"ftp://me:s3cret@prom:9090", "ldanalyze: knee: --from-prom: ftp://me:xxxxx@prom:9090: unsupported scheme ftp: want http or https\n"},
		{"prom:9090", "ldanalyze: knee: --from-prom: prom:9090: no such file, and not a URL: prefix it with http:// or https:// for a Prometheus server\n"},
		{"http://me:s3cret@pr om:9090", "ldanalyze: knee: --from-prom: prometheus URL http://xxxxx@pr om:9090: invalid character \" \" in host name\n"},
	} {
		_, errOut, code := runCLI(t, "", "knee", "--from-prom", c.arg)
		if code != 2 || errOut != c.want {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", c.arg, code, errOut, c.want)
		}
	}
	// A server that does not answer: its URL once, not again in the
	// http.Client's "Get <URL>" nor in the pipeline's prefix.
	_, errOut, code := runCLI(t, "", "knee", "--from-prom", "http://127.0.0.1:1", "--timeout", "5s", "--retries", "-1")
	if code == 0 || strings.Count(errOut, "http://127.0.0.1:1") != 1 || !strings.Contains(errOut, "GET /api/v1/label/__name__/values") {
		t.Errorf("exit %d, stderr %q; want the URL once and the request", code, errOut)
	}
	_, errOut, _ = runCLI(t, "", "prom", "k6", "--url", "prom:9090")
	if want := "ldanalyze: prometheus URL prom:9090: no scheme: want http:// or https:// before the host\n"; errOut != want {
		t.Errorf("prom k6 --url prom:9090: stderr %q, want %q", errOut, want)
	}
	_, errOut, _ = runCLI(t, "", "prom", "k6", "--url", "ftp://me:s3cret@prom:9090")
	if want := "ldanalyze: prometheus URL ftp://me:xxxxx@prom:9090: unsupported scheme ftp: want http or https\n"; errOut != want {
		t.Errorf("prom k6: stderr %q, want %q", errOut, want)
	}
}

// Saved query_range JSON whose counter values are "NaN", "+Inf" and "-5"
// (as the Prometheus API writes them) reads without a panic: `prom k6`
// exits 0, warns with the count, the series and the time of the first,
// and counts 1,000 iterations (10 pushes of 100, hand count).
func TestPromK6BadValuesFile(t *testing.T) {
	var vals, reqs []string
	t0 := 1_800_000_000.0
	for i := range 10 {
		v := fmt.Sprintf(`"%d"`, 100*(i+1))
		switch i {
		case 2:
			v = `"NaN"`
		case 4:
			v = `"+Inf"`
		case 6:
			v = `"-5"`
		}
		vals = append(vals, fmt.Sprintf(`[%.3f,%s]`, t0+5*float64(i)+0.012, v))
		reqs = append(reqs, fmt.Sprintf(`[%.3f,"%d"]`, t0+5*float64(i)+0.012, 100*(i+1)))
	}
	body := `{"status":"success","data":{"resultType":"matrix","result":[` +
		`{"metric":{"__name__":"k6_iterations_total","scenario":"a"},"values":[` + strings.Join(vals, ",") + `]},` +
		`{"metric":{"__name__":"k6_http_reqs_total","status":"200","expected_response":"true"},"values":[` + strings.Join(reqs, ",") + `]}]}}`
	path := filepath.Join(t.TempDir(), "k6.json")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "", "prom", "k6", path, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := `3 counter samples that are NaN, ±Inf or negative in 1 series (the first k6_iterations_total{scenario="a"} at 2027-01-15T08:00:10.012Z: NaN): skipped`
	if !strings.Contains(errOut, want) {
		t.Errorf("stderr %q lacks %q", errOut, want)
	}
	var run struct {
		Steps []struct{ Iterations float64 }
	}
	if err := json.Unmarshal([]byte(out), &run); err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, s := range run.Steps {
		total += s.Iterations
	}
	if total != 1000 {
		t.Errorf("%v iterations, want 1000", total)
	}
}

// TestPromK6CSV: `prom k6 --format csv` is one table (a header, then rows
// with RFC 3339 end times and empty cells for missing values), as every
// --format csv is: it started with the prose line of the range and model.
func TestPromK6CSV(t *testing.T) {
	out, errOut, code := runCLI(t, "", "prom", "k6", "--format", "csv", "../../testdata/k6-v2/prom_rw_stats.prom_query_range.json.gz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) < 2 || rows[0][0] != "end" {
		t.Fatalf("not one CSV table (%v): %.300s", err, out)
	}
	for _, r := range rows[1:] {
		if _, err := time.Parse(time.RFC3339, r[0]); err != nil {
			t.Errorf("end %q: %v", r[0], err)
		}
		for _, c := range r {
			if c == "-" {
				t.Errorf("row %q: missing values must be empty", r)
				break
			}
		}
	}
}

// TestFromPromResolutionCheck: a run read from Prometheus at a 5 s step
// says so, not "whole-second timestamps (k6's default CSV)".
func TestFromPromResolutionCheck(t *testing.T) {
	out, errOut, _ := runCLI(t, "", "check", "--format", "json", "--from-prom", "../../testdata/k6-v2/prom_rw_stats.prom_query_range.json.gz")
	if !strings.Contains(out, `one point every 5 s (the source's step)`) || strings.Contains(out, "k6's default CSV") {
		t.Errorf("resolution check: %.2000s\n%s", out, errOut)
	}
}

// k6 exports its checks as k6_checks_rate, a running ratio with no count
// beside it; check --from-prom recovers the counts (ratio × the
// scenario's iterations, a whole number at every step) and says how. The
// expected counts are `ldanalyze check` on the CSV of the same run
// (prom_rw_native.csv.gz: checks=36541, failed=9264, pass_ratio=0.746;
// prom_rw_stats.csv.gz: 36759, 8750), exact, from the saved exports and
// from a real Prometheus holding the replayed series. Before, the checks
// check said "no checks metric".
func TestCheckFromPromChecks(t *testing.T) {
	srv := promtest.Start(t, promtest.Options{})
	srv.ReplayCorpus(t, corpusV2+"prom_rw_native.prom_query_range.json.gz")
	for _, tc := range []struct {
		name, src      string
		checks, failed float64
	}{
		{"native file", corpusV2 + "prom_rw_native.prom_query_range.json.gz", 36541, 9264},
		{"stats file", corpusV2 + "prom_rw_stats.prom_query_range.json.gz", 36759, 8750},
		{"native live", srv.URL, 36541, 9264},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, "", "check", "--from-prom", tc.src, "--format", "json", "--timeout", "30s")
			if code != 0 && code != 1 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var got struct {
				Checks []struct {
					ID       string             `json:"id"`
					Status   string             `json:"status"`
					Evidence map[string]float64 `json:"evidence"`
					Message  string             `json:"message"`
				} `json:"checks"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, c := range got.Checks {
				if c.ID != "checks" {
					continue
				}
				found = true
				if c.Status != "warn" || c.Evidence["checks"] != tc.checks || c.Evidence["failed"] != tc.failed {
					t.Errorf("checks %s %v: %s; want warn, checks=%v, failed=%v (the CSV's)", c.Status, c.Evidence, c.Message, tc.checks, tc.failed)
				}
				want := (tc.checks - tc.failed) / tc.checks
				if r := c.Evidence["pass_ratio"]; math.Abs(r-want) > 1e-9 {
					t.Errorf("pass_ratio %v, want %v", r, want)
				}
			}
			if !found {
				t.Fatalf("no checks check in %s", out)
			}
			if !strings.Contains(errOut, "checks counted from k6_checks_rate, a running ratio") || !strings.Contains(errOut, `check="status is 200"`) {
				t.Errorf("stderr lacks how the counts were derived:\n%s", errOut)
			}
		})
	}
}

// A k6 output given to --from-prom (the reverse of a Prometheus export
// given as a run) is named as such, with the command that reads it.
func TestFromPromRefusesK6Output(t *testing.T) {
	js := filepath.Join(t.TempDir(), "run.json")
	if err := os.WriteFile(js, []byte(`{"type":"Point","metric":"vus","data":{"time":"2026-11-30T02:07:09Z","value":1,"tags":null}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{td + "closed_ramp.csv.gz", js} {
		_, errOut, code := runCLI(t, "", "knee", "--from-prom", f)
		if code != 2 || !strings.Contains(errOut, "not a Prometheus export: give it as a run, without --from-prom (`ldanalyze knee "+f+"`)") {
			t.Errorf("%s: exit %d, %q", f, code, errOut)
		}
	}
}
