package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/prom"
)

const promTD = "../../testdata/prom/"

// kneeProm is the part of the knee JSON that --prom adds.
type kneeProm struct {
	Saturated []struct {
		Resource    string  `json:"resource"`
		Utilisation float64 `json:"utilisation"`
	} `json:"saturated"`
	Imbalance []struct {
		Group   string  `json:"group"`
		Busiest string  `json:"busiest"`
		Share   float64 `json:"share"`
	} `json:"imbalance"`
	InvalidHolds []struct {
		Start  time.Time `json:"start"`
		Reason string    `json:"reason"`
	} `json:"invalid_holds"`
}

func kneeWithProm(t *testing.T, dir string) (kneeProm, string) {
	t.Helper()
	out, errOut, code := runCLI(t, "", "knee", "--format", "json", "--prom", dir, td+"breakpoint.csv.gz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got kneeProm
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	text, errOut, code := runCLI(t, "", "knee", "--prom", dir, td+"breakpoint.csv.gz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	return got, text
}

// The two-pod case (testdata/prom/two_pods, written by gen_fixtures.py):
// at the ceiling hold (02:08:40–02:08:50, offered 240.2 it/s) game-0 uses
// 2.37 cores and game-1 0.03 (set by hand), so game-0's share is
// 2.37 / 2.40 = 0.9875 (exact to float rounding); with 4-core limits
// nothing is at 90 %; game-1's restart counter goes 0 → 1 between the
// points at 02:08:40 and 02:08:45, inside the hold starting 02:08:40.
func TestKneePromTwoPods(t *testing.T) {
	got, text := kneeWithProm(t, promTD+"two_pods")
	if len(got.Saturated) != 0 {
		t.Errorf("saturated = %+v, want none (game-0 at 2.37 of 4 cores)", got.Saturated)
	}
	if len(got.Imbalance) != 1 || got.Imbalance[0].Group != "arena/game" || got.Imbalance[0].Busiest != "arena/game-0" ||
		math.Abs(got.Imbalance[0].Share-2.37/2.40) > 1e-9 {
		t.Errorf("imbalance = %+v, want arena/game busiest arena/game-0 share 0.9875", got.Imbalance)
	}
	if len(got.InvalidHolds) != 1 || !got.InvalidHolds[0].Start.Equal(time.Date(2026, 11, 30, 2, 8, 40, 0, time.UTC)) ||
		!strings.Contains(got.InvalidHolds[0].Reason, "arena/game-1 container game restarted between 02:08:40Z and 02:08:45Z (OOMKilled)") {
		t.Errorf("invalid_holds = %+v", got.InvalidHolds)
	}
	for _, want := range []string{
		"What saturated (ceiling level from 02:08:40Z): nothing at or above 90 % (busiest: arena/game-0 CPU (of limit) at 59.2 %)",
		"Imbalance: arena/game-0 carried 99 % of arena/game's CPU (2.37 of 2.40 cores; arena/game-1 0.03).",
		"Invalid level from 02:08:40Z: arena/game-1 container game restarted",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%s", want, text)
		}
	}
}

// The database case (testdata/prom/database_95): the db-1 node's CPU busy
// ratio is 0.95 from 02:08:20 to 02:09:00 (set by hand), so at the ceiling
// hold it is the one saturated resource; the api pods (1.1 of 2 cores
// each) are balanced and below 90 %.
func TestKneePromDatabase95(t *testing.T) {
	got, text := kneeWithProm(t, promTD+"database_95")
	if len(got.Saturated) != 1 || got.Saturated[0].Resource != "db-1:9100 node CPU" || math.Abs(got.Saturated[0].Utilisation-0.95) > 1e-9 {
		t.Errorf("saturated = %+v, want db-1:9100 node CPU at 0.95", got.Saturated)
	}
	if len(got.Imbalance) != 0 || len(got.InvalidHolds) != 0 {
		t.Errorf("imbalance = %+v, invalid_holds = %+v, want none (api pods even; restart counters flat)", got.Imbalance, got.InvalidHolds)
	}
	if want := "What saturated (ceiling level from 02:08:40Z): db-1:9100 node CPU at 95.0 %."; !strings.Contains(text, want) {
		t.Errorf("text output lacks %q:\n%s", want, text)
	}
}

// Without --prom the JSON has none of the added keys.
func TestKneeWithoutPromHasNoPromKeys(t *testing.T) {
	out, _, code := runCLI(t, "", "knee", "--format", "json", td+"breakpoint.csv.gz")
	if code != 0 {
		t.Fatal(code)
	}
	for _, k := range []string{`"saturated"`, `"imbalance"`, `"invalid_holds"`} {
		if strings.Contains(out, k) {
			t.Errorf("knee JSON without --prom has %s", k)
		}
	}
}

// An export of another day is an error naming both ranges.
func TestKneePromNoOverlap(t *testing.T) {
	dir := t.TempDir()
	e, err := prom.ReadDir(promTD + "two_pods")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range e.Data {
		for i := range d.Series {
			for j := range d.Series[i].Points {
				d.Series[i].Points[j].TimeNS -= int64(24 * time.Hour)
			}
		}
	}
	if err := prom.WriteDir(dir, e); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, "", "knee", "--prom", dir, td+"breakpoint.csv.gz")
	want := "the Prometheus export covers 2026-11-29T02:07:00Z to 2026-11-29T02:09:30Z but the k6 run is 2026-11-30T02:07:09Z to 2026-11-30T02:09:19Z: they do not overlap"
	if code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q, want 2 and %q", code, errOut, want)
	}
}

func TestPromPullUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"prom", "pull", "--url", "http://127.0.0.1:1", "--dir", "x"}, "give the range with --start and --end, or --run FILE"},
		{[]string{"prom", "pull", "--url", "http://127.0.0.1:1", "--dir", "x", "--start", "yesterday", "--end", "1"}, `--start "yesterday": want RFC 3339`},
		{[]string{"prom", "pull", "--url", "http://127.0.0.1:1", "--dir", "x", "--start", "10", "--end", "5"}, "is not after --start"},
		{[]string{"prom", "pull", "--url", "http://127.0.0.1:1", "--dir", "x", "--start", "1", "--end", "5", "--token-env", "LDANALYZE_TEST_UNSET_TOKEN"}, "--token-env LDANALYZE_TEST_UNSET_TOKEN: the variable is empty or unset"},
	} {
		_, errOut, code := runCLI(t, "", tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// An API error reaches the user verbatim (a fake server is fine for an
// error path; the real server is exercised in TestPromPullRealServer), and
// the token from --token-file is sent as a bearer token.
func TestPromPullAPIErrorVerbatim(t *testing.T) {
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"status":"error","errorType":"bad_data","error":"1:5: parse error: unexpected \"}\"","warnings":["w1"]}`)
	}))
	defer srv.Close()
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, "", "prom", "pull", "--url", srv.URL, "--start", "1000", "--end", "2000", "--dir", t.TempDir(), "--token-file", tok)
	want := `Prometheus API error (bad_data): 1:5: parse error: unexpected "}"; warning: w1`
	if code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q, want 2 and %q", code, errOut, want)
	}
	if auth != "Bearer s3cret" {
		t.Errorf("Authorization = %q, want Bearer s3cret", auth)
	}
}

// backfill is the OpenMetrics the real-server test loads with promtool:
// every 15 s from 02:05:00 to 02:10:30 on 2026-11-30 (the breakpoint run is
// 02:07:09–02:09:19). Counters grow linearly, so rate() is exactly the
// slope: game-0 2.37 cores, game-1 0.03 cores; db-1's single CPU is idle
// 0.05 s per s (busy 0.95); game-1 restarts between 02:08:30 and 02:08:45.
type sample struct {
	series string
	t      int64 // Unix seconds
	v      float64
}

func backfill() (string, []sample) {
	t0 := time.Date(2026, 11, 30, 2, 5, 0, 0, time.UTC).Unix()
	t1 := time.Date(2026, 11, 30, 2, 10, 30, 0, time.UTC).Unix()
	restartAt := time.Date(2026, 11, 30, 2, 8, 45, 0, time.UTC).Unix()
	type gen struct {
		name, labels string
		f            func(t int64) float64
	}
	gens := []gen{
		{"container_cpu_usage_seconds_total", `container="game",namespace="arena",pod="game-0"`, func(t int64) float64 { return 1000 + 2.37*float64(t-t0) }},
		{"container_cpu_usage_seconds_total", `container="game",namespace="arena",pod="game-1"`, func(t int64) float64 { return 1000 + 0.03*float64(t-t0) }},
		{"kube_pod_container_resource_limits", `container="game",namespace="arena",pod="game-0",resource="cpu",unit="core"`, func(int64) float64 { return 4 }},
		{"kube_pod_container_resource_limits", `container="game",namespace="arena",pod="game-1",resource="cpu",unit="core"`, func(int64) float64 { return 4 }},
		{"kube_pod_container_status_restarts_total", `container="game",namespace="arena",pod="game-1"`, func(t int64) float64 {
			if t >= restartAt {
				return 1
			}
			return 0
		}},
		{"node_cpu_seconds_total", `cpu="0",instance="db-1:9100",mode="idle"`, func(t int64) float64 { return 5000 + 0.05*float64(t-t0) }},
	}
	var b strings.Builder
	var all []sample
	for _, g := range gens {
		for t := t0; t <= t1; t += 15 {
			v := g.f(t)
			fmt.Fprintf(&b, "%s{%s} %s %d\n", g.name, g.labels, strconv.FormatFloat(v, 'g', -1, 64), t)
			all = append(all, sample{g.name + "{" + g.labels + "}", t, v})
		}
	}
	b.WriteString("# EOF\n")
	return b.String(), all
}

// TestPromPullRealServer backfills a TSDB with promtool, starts Debian's
// prometheus on it, pulls with `prom pull --run` and checks that a raw
// selector returns exactly the backfilled samples of the run's window and
// that knee --prom names the imbalance, the saturated database node and
// the restart. It needs prometheus and promtool on PATH (CI installs the
// Debian package) and is skipped otherwise.
func TestPromPullRealServer(t *testing.T) {
	promBin, err1 := exec.LookPath("prometheus")
	promtool, err2 := exec.LookPath("promtool")
	if err1 != nil || err2 != nil {
		t.Skip("prometheus and promtool not on PATH (apt-get install -y prometheus)")
	}
	if testing.Short() {
		t.Skip("starts a Prometheus server")
	}
	dir := t.TempDir()
	om, samples := backfill()
	omFile := filepath.Join(dir, "backfill.om")
	if err := os.WriteFile(omFile, []byte(om), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	if out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", omFile, data).CombinedOutput(); err != nil {
		t.Fatalf("promtool: %v\n%s", err, out)
	}
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte("global:\n  scrape_interval: 15s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var logb strings.Builder
	cmd := exec.CommandContext(ctx, promBin, "--config.file="+cfg, "--storage.tsdb.path="+data,
		"--storage.tsdb.retention.time=100y", "--web.listen-address="+addr)
	cmd.Stdout, cmd.Stderr = &logb, &logb
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	url := "http://" + addr
	ready := false
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		resp, err := http.Get(url + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				ready = true
				break
			}
		}
	}
	if !ready {
		t.Fatalf("prometheus not ready at %s:\n%s", url, logb.String())
	}

	queries := filepath.Join(dir, "queries.yaml")
	if err := os.WriteFile(queries, []byte("queries:\n  - name: raw_cpu\n    expr: container_cpu_usage_seconds_total\n    counter: true\n    unit: seconds\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "pulled")
	stdout, stderr, code := runCLI(t, "", "prom", "pull", "--url", url, "--run", td+"breakpoint.csv.gz", "--rate-window", "1m",
		"--queries", queries, "--dir", out)
	if code != 0 {
		t.Fatalf("prom pull: exit %d\n%s\n%s\nserver log:\n%s", code, stdout, stderr, logb.String())
	}
	e, err := prom.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	// --run: the run's 02:07:09–02:09:19 (+1 s resolution) widened to whole
	// 15 s steps.
	wantStart, wantEnd := time.Date(2026, 11, 30, 2, 7, 0, 0, time.UTC), time.Date(2026, 11, 30, 2, 9, 30, 0, time.UTC)
	if !e.Manifest.Start.Equal(wantStart) || !e.Manifest.End.Equal(wantEnd) {
		t.Errorf("manifest range %s–%s, want %s–%s", e.Manifest.Start, e.Manifest.End, wantStart, wantEnd)
	}
	var raw *prom.Data
	for i, q := range e.Manifest.Queries {
		if q.Name == "raw_cpu" {
			raw = e.Data[i]
		}
	}
	if raw == nil {
		t.Fatal("no raw_cpu in the manifest")
	}
	want := map[string][]prom.Point{}
	for _, s := range samples {
		if strings.HasPrefix(s.series, "container_cpu_usage_seconds_total{") && s.t >= wantStart.Unix() && s.t <= wantEnd.Unix() {
			want[s.series] = append(want[s.series], prom.Point{TimeNS: s.t * 1e9, Value: s.v})
		}
	}
	if len(raw.Series) != len(want) {
		t.Fatalf("raw_cpu: %d series, want %d", len(raw.Series), len(want))
	}
	for _, s := range raw.Series {
		key := s.Labels["__name__"] + `{container="game",namespace="arena",pod="` + s.Labels["pod"] + `"}`
		w := want[key]
		if len(s.Points) != len(w) {
			t.Errorf("%s: %d points, want %d", key, len(s.Points), len(w))
			continue
		}
		for i := range w {
			if s.Points[i] != w[i] {
				t.Errorf("%s point %d = %+v, want %+v (the backfilled sample)", key, i, s.Points[i], w[i])
			}
		}
	}
	got, _ := kneeWithProm(t, out)
	if len(got.Imbalance) != 1 || got.Imbalance[0].Busiest != "arena/game-0" || math.Abs(got.Imbalance[0].Share-2.37/2.40) > 1e-6 {
		t.Errorf("imbalance = %+v, want arena/game-0 with share 0.9875", got.Imbalance)
	}
	if len(got.Saturated) != 1 || got.Saturated[0].Resource != "db-1:9100 node CPU" || math.Abs(got.Saturated[0].Utilisation-0.95) > 1e-6 {
		t.Errorf("saturated = %+v, want db-1:9100 node CPU at 0.95", got.Saturated)
	}
	// The restart fell in the step (02:08:30, 02:08:45], which overlaps the
	// holds from 02:08:31 and 02:08:40: both are marked.
	if len(got.InvalidHolds) != 2 || !got.InvalidHolds[0].Start.Equal(time.Date(2026, 11, 30, 2, 8, 31, 0, time.UTC)) ||
		!got.InvalidHolds[1].Start.Equal(time.Date(2026, 11, 30, 2, 8, 40, 0, time.UTC)) {
		t.Errorf("invalid_holds = %+v, want the holds from 02:08:31 and 02:08:40", got.InvalidHolds)
	}
}

// --prom takes what users have: the two_pods files without their
// manifest (named like the presets), one query_range file of the raw
// cAdvisor counter, and a directory holding that file under a name of the
// user's, give the same imbalance as the pull directory. The raw
// counters grow 0.99 and 0.01 cores·s per s (set by hand) for pods game-a
// and game-b, which have no generated suffix.
func TestKneePromWithoutManifest(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"pod_cpu_cores.json", "pod_cpu_limit_cores.json", "restarts.json", "oom_killed.json"} {
		b, err := os.ReadFile(promTD + "two_pods/" + f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := kneeWithProm(t, dir)
	if len(got.Imbalance) != 1 || got.Imbalance[0].Busiest != "arena/game-0" || math.Abs(got.Imbalance[0].Share-2.37/2.40) > 1e-9 {
		t.Errorf("without manifest: imbalance = %+v", got.Imbalance)
	}
	// One raw file: container_cpu_usage_seconds_total of game-a and game-b
	// over the breakpoint run (02:07:00–02:09:30 every 15 s).
	var b strings.Builder
	b.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[`)
	t0 := time.Date(2026, 11, 30, 2, 7, 0, 0, time.UTC).Unix()
	for i, pod := range []string{"game-a", "game-b"} {
		if i > 0 {
			b.WriteString(",")
		}
		slope := map[string]float64{"game-a": 0.99, "game-b": 0.01}[pod]
		fmt.Fprintf(&b, `{"metric":{"__name__":"container_cpu_usage_seconds_total","namespace":"arena","pod":%q,"container":"game"},"values":[`, pod)
		for k := 0; k <= 10; k++ {
			if k > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `[%d,"%g"]`, t0+int64(15*k), 100+slope*float64(15*k))
		}
		b.WriteString("]}")
	}
	b.WriteString("]}}")
	raw := filepath.Join(t.TempDir(), "cpu.json")
	if err := os.WriteFile(raw, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _ = kneeWithProm(t, raw)
	if len(got.Imbalance) != 1 || got.Imbalance[0].Group != "arena/game" || got.Imbalance[0].Busiest != "arena/game-a" || math.Abs(got.Imbalance[0].Share-0.99) > 1e-9 {
		t.Errorf("raw counter file: imbalance = %+v, want arena/game with game-a at 0.99", got.Imbalance)
	}
	// A directory of plain query_range files named as a user's script
	// names them (no manifest, no preset names), gzipped or not: the same.
	mine := t.TempDir()
	if err := os.WriteFile(filepath.Join(mine, "cadvisor-cpu.json"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mine, "notes.txt"), []byte("not an answer"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _ = kneeWithProm(t, mine)
	if len(got.Imbalance) != 1 || got.Imbalance[0].Busiest != "arena/game-a" || math.Abs(got.Imbalance[0].Share-0.99) > 1e-9 {
		t.Errorf("directory of plain query_range files: imbalance = %+v, want arena/game with game-a at 0.99", got.Imbalance)
	}
}

// prom k6 reads the saved export of the trend-stats run: open model,
// 36,759 iterations (README totals), latency from trend stats, and the
// cumulative-stats caveat on stderr.
func TestPromK6Files(t *testing.T) {
	out, errOut, code := runCLI(t, "", "prom", "k6", "--step", "10s", "--format", "json", "../../../shared/corpus/k6-v2/prom_rw_stats.prom_query_range.json.gz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var run prom.K6Run
	if err := json.Unmarshal([]byte(out), &run); err != nil {
		t.Fatal(err)
	}
	iters := 0.0
	for _, s := range run.Steps {
		iters += s.Iterations
	}
	if run.Model != "open" || run.LatencySource != "trend-stats" || iters != 36759 {
		t.Errorf("model %s, latency %s, %v iterations; want open, trend-stats, 36759", run.Model, run.LatencySource, iters)
	}
	if !strings.Contains(errOut, "cumulative since the start of the test") || !strings.Contains(errOut, "÷ 1000") {
		t.Errorf("stderr lacks the trend-stats caveats:\n%s", errOut)
	}
}
