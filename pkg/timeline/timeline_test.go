package timeline

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/outcome"
)

func readFile(t *testing.T, path string, accs ...*Accumulator) ingest.Stats {
	t.Helper()
	r, err := ingest.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := 0; r.Next(); i++ {
		accs[i/5000%len(accs)].Add(r.Sample())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return r.Stats()
}

func sumSeconds(tl *Timeline) (reqs, ok, failed, iters, dropped uint64) {
	tl.Each(func(_ int64, s *Second) {
		reqs += s.Requests
		ok += s.OK
		failed += s.Failed
		iters += s.Iterations
		dropped += s.Dropped
	})
	return
}

// TestGRPCOutcomes: the gRPC ramp of testdata/k6-v2 (README there and
// ../shared/corpus/k6-v2/README.md, from the server's own counters):
// 31,925 calls, 18,709 OK (status 0), 1,640 NotFound (5) and 11,576
// ResourceExhausted (8); 1,268 dropped iterations. The metric is chosen
// from the run's protocol: grpc_req_duration.
func TestGRPCOutcomes(t *testing.T) {
	a := New(Options{})
	st := readFile(t, filepath.Join("..", "..", "testdata", "k6-v2", "grpc_ramp.csv.gz"), a)
	tl := a.Close(st.ResolutionNS)
	if tl.Metric() != "grpc_req_duration" || tl.Protocol() != outcome.GRPC {
		t.Fatalf("metric %q protocol %v, want grpc_req_duration, grpc", tl.Metric(), tl.Protocol())
	}
	reqs, ok, failed, iters, dropped := sumSeconds(tl)
	if reqs != 31925 || ok != 18709 || failed != 13216 || iters != 31925 || dropped != 1268 {
		t.Errorf("calls %d ok %d failed %d iterations %d dropped %d; want 31925 18709 13216 31925 1268", reqs, ok, failed, iters, dropped)
	}
	by := map[string]uint64{}
	for _, f := range tl.FailuresByName() {
		by[f.Status] += f.N
	}
	if by["5"] != 1640 || by["8"] != 11576 || len(by) != 2 {
		t.Errorf("failures by status %v, want 5: 1640, 8: 11576", by)
	}
	if tr := tl.Trend(); tr.OK.Count() != 18709 || tr.Failed.Count() != 13216 || tr.Limited.Count() != 11576 {
		t.Errorf("trend ok %d failed %d limited %d", tr.OK.Count(), tr.Failed.Count(), tr.Limited.Count())
	}
	if got := tl.StatusLabel("8"); got != "ResourceExhausted" {
		t.Errorf("StatusLabel(8) = %q", got)
	}
}

// TestWebSocketStream: the WebSocket run's request stream is its
// ws_sessions (1,806 sessions, status 101), and an explicit custom Trend
// (fanout_ms, no status tag) counts every sample as a success.
func TestWebSocketStream(t *testing.T) {
	a := New(Options{Metric: "fanout_ms"})
	st := readFile(t, filepath.Join("..", "..", "testdata", "k6-v2", "ws_fanout.csv.gz"), a)
	tl := a.Close(st.ResolutionNS)
	if tl.Protocol() != outcome.WebSocket {
		t.Fatalf("protocol %v", tl.Protocol())
	}
	reqs, ok, _, _, _ := sumSeconds(tl)
	if reqs != 1806 || ok != 1806 {
		t.Errorf("sessions %d ok %d, want 1806", reqs, ok)
	}
	if tr := tl.Trend(); tr.All.Count() != 15243 || tr.OK.Count() != 15243 {
		t.Errorf("fanout_ms %d samples, %d ok; want 15243", tr.All.Count(), tr.OK.Count())
	}
}

// restrict copies a k6 CSV without the named columns, as a run recorded
// with restricted --system-tags is written.
func restrict(t *testing.T, src string, drop ...string) string {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(bufio.NewReader(zr))
	r.FieldsPerRecord = -1
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
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRestrictedSystemTags: without the status and expected_response
// columns the failures come from the http_req_failed rows, second by
// second, so the counts equal those of the full file (breakpoint run).
func TestRestrictedSystemTags(t *testing.T) {
	full := filepath.Join("..", "..", "testdata", "k6", "breakpoint.csv.gz")
	a := New(Options{})
	st := readFile(t, full, a)
	want := a.Close(st.ResolutionNS)
	b := New(Options{})
	st = readFile(t, restrict(t, full, "status", "expected_response"), b)
	got := b.Close(st.ResolutionNS)
	wr, wok, wf, _, _ := sumSeconds(want)
	gr, gok, gf, _, _ := sumSeconds(got)
	if wf == 0 || gr != wr || gok != wok || gf != wf {
		t.Errorf("restricted: requests %d ok %d failed %d; full file %d %d %d", gr, gok, gf, wr, wok, wf)
	}
	// The successes carry no outcome tag at all; k6's error_code still
	// tells the failures (1429, 1503, 1050).
	if got.UnknownOutcomes() < gok || !got.FailedRateRows() {
		t.Errorf("unknown %d of %d (%d ok), rate rows %v", got.UnknownOutcomes(), gr, gok, got.FailedRateRows())
	}
	// Without error_code either, only the rate rows tell.
	c := New(Options{})
	st = readFile(t, restrict(t, full, "status", "expected_response", "error_code"), c)
	bare := c.Close(st.ResolutionNS)
	br, bok, bf, _, _ := sumSeconds(bare)
	if br != wr || bok != wok || bf != wf || bare.UnknownOutcomes() != br {
		t.Errorf("no tags at all: requests %d ok %d failed %d unknown %d; full file %d %d %d", br, bok, bf, bare.UnknownOutcomes(), wr, wok, wf)
	}
	// Second by second too.
	want.Each(func(sec int64, w *Second) {
		g, ok := got.Second(sec)
		if !ok || g.OK != w.OK || g.Failed != w.Failed {
			t.Fatalf("second %d: ok %d failed %d, want %d %d", sec, g.OK, g.Failed, w.OK, w.Failed)
		}
	})
}

// sameRecords fails unless a and b hold the same per-second records and
// per-name histograms.
func sameRecords(t *testing.T, a, b *Timeline) {
	t.Helper()
	n := 0
	a.Each(func(sec int64, s *Second) {
		o, ok := b.Second(sec)
		if !ok {
			t.Fatalf("second %d missing", sec)
		}
		if s.Requests != o.Requests || s.OK != o.OK || s.Iterations != o.Iterations || s.Dropped != o.Dropped ||
			s.VUs != o.VUs || s.BytesReceived != o.BytesReceived || len(s.Failures) != len(o.Failures) {
			t.Fatalf("second %d: %+v, want %+v", sec, o, s)
		}
		for i, name := range a.HistNames() {
			j := slices.Index(b.HistNames(), name)
			if j < 0 {
				t.Fatalf("name %q missing", name)
			}
			ha, hb := a.NameHist(i, sec, sec+1), b.NameHist(j, sec, sec+1)
			if ha != hb {
				t.Fatalf("second %d name %q: histograms differ", sec, name)
			}
			if fa, fb := a.NameFailures(i, sec, sec+1), b.NameFailures(j, sec, sec+1); fa != fb {
				t.Fatalf("second %d name %q: %d failures, want %d", sec, name, fb, fa)
			}
			n += int(ha.Total())
		}
	})
	if n == 0 {
		t.Fatal("no histogram compared")
	}
	if x, y := a.Latency(a.Main().First, a.Main().Last+1), b.Latency(b.Main().First, b.Main().Last+1); x.Count() != y.Count() || x.Quantile(0.95) != y.Quantile(0.95) {
		t.Errorf("latency %d p95 %v, want %d %v", y.Count(), y.Quantile(0.95), x.Count(), x.Quantile(0.95))
	}
}

// TestForkAndMerge: the breakpoint run fed to an accumulator and its fork
// in alternating blocks of rows (as the parallel reader does), and to two
// accumulators filled apart, merges to the records of one accumulator fed
// everything.
func TestForkAndMerge(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "k6", "breakpoint.csv.gz")
	one := New(Options{})
	st := readFile(t, path, one)
	want := one.Close(st.ResolutionNS)

	a := New(Options{})
	b := a.Fork()
	readFile(t, path, a, b)
	a.Merge(b)
	sameRecords(t, want, a.Close(st.ResolutionNS))

	c, d := New(Options{}), New(Options{})
	readFile(t, path, d, c) // d sees the first block: another numbering
	c.Merge(d)
	sameRecords(t, want, c.Close(st.ResolutionNS))
}

// TestLateSamples: a run fed backwards (every sample late for a second
// already sealed) gives the records of the run fed in order.
func TestLateSamples(t *testing.T) {
	r, err := ingest.Open(filepath.Join("..", "..", "testdata", "k6", "breakpoint.csv.gz"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var samples []ingest.Sample
	for r.Next() && len(samples) < 60000 {
		s := *r.Sample()
		samples = append(samples, s)
	}
	r.Close()
	fwd, back := New(Options{}), New(Options{})
	for i := range samples {
		fwd.Add(&samples[i])
		back.Add(&samples[len(samples)-1-i])
	}
	sameRecords(t, fwd.Close(1e9), back.Close(1e9))
}

// TestHistEncodingDamage: a damaged per-second histogram is an error the
// Timeline reports (Err), never a panic or a silently short histogram.
func TestHistEncodingDamage(t *testing.T) {
	var h Hist
	h[3], h[40] = 2, 300
	enc := h.appendEnc(nil)
	var back Hist
	if err := back.addEnc(enc); err != nil || back != h {
		t.Fatalf("round trip: %v", err)
	}
	for _, bad := range [][]byte{enc[:len(enc)-1], {200, 1}, {3}} {
		var x Hist
		if err := x.addEnc(bad); err == nil {
			t.Errorf("%v decoded", bad)
		}
	}
	a := New(Options{})
	readFile(t, filepath.Join("..", "..", "testdata", "k6", "breakpoint.csv.gz"), a)
	tl := a.Close(1e9)
	tl.sh.secs.Each(func(_ int64, s *second) {
		for i := range s.histEnc {
			s.histEnc[i] = append(s.histEnc[i], 255)
		}
	})
	tl.NameHist(0, tl.Main().First, tl.Main().Last+1)
	if tl.Err() == nil {
		t.Error("damaged histograms not reported")
	}
}

// TestOutcomeResolution: the unknown outcomes of a second are resolved by
// its failed-rate rows, never beyond the unknown count.
func TestOutcomeResolution(t *testing.T) {
	for _, c := range []struct {
		name     string
		r        reqCount
		ok, fail uint64
	}{
		{"tags only", reqCount{n: 10, ok: 8}, 8, 2},
		{"rate only", reqCount{n: 10, unknown: 10, rateSum: 3, rateN: 10}, 7, 3},
		{"no rate rows: unknown succeed", reqCount{n: 10, unknown: 10}, 10, 0},
		{"tags and rate rows agree", reqCount{n: 10, ok: 8, rateSum: 2, rateN: 10}, 8, 2},
		{"mixed", reqCount{n: 10, ok: 5, unknown: 4, rateSum: 3, rateN: 10}, 7, 3},
		{"rate beyond the unknown", reqCount{n: 10, ok: 5, unknown: 2, rateSum: 9, rateN: 10}, 5, 5},
	} {
		ok, fail := c.r.resolved()
		if ok != c.ok || fail != c.fail {
			t.Errorf("%s: ok %d failed %d, want %d %d", c.name, ok, fail, c.ok, c.fail)
		}
	}
}

// TestNameMix: per request name, the successful latencies (NameHist) and
// the failed samples (NameFailures) of open_ramp add up to the run's
// http_req_duration samples, and the failures per name to the failures of
// FailuresByName; the one scenario spans the run.
func TestNameMix(t *testing.T) {
	a := New(Options{})
	st := readFile(t, filepath.Join("..", "..", "testdata", "k6", "open_ramp.csv.gz"), a)
	tl := a.Close(st.ResolutionNS)
	from, to := tl.StartNS()/1e9, tl.EndNS()/1e9+1
	var ok, failed uint64
	perName := map[string]uint64{}
	for i, name := range tl.HistNames() {
		h := tl.NameHist(i, from, to)
		ok += h.Total()
		f := tl.NameFailures(i, from, to)
		failed += f
		perName[name] = f
	}
	tr := tl.Trend()
	if ok != tr.OK.Count() || failed != tr.Failed.Count() {
		t.Errorf("names hold %d successes and %d failures, want %d and %d", ok, failed, tr.OK.Count(), tr.Failed.Count())
	}
	want := map[string]uint64{}
	for _, f := range tl.FailuresByName() {
		want[f.Name] += f.N
	}
	for name, n := range want {
		if perName[name] != n {
			t.Errorf("%s: %d failures, want %d", name, perName[name], n)
		}
	}
	if failed == 0 {
		t.Error("open_ramp has failures (20 %)")
	}
	first, last, found := tl.ScenarioSpan("open_ramp")
	if !found || first < tl.StartNS() || last > tl.EndNS() || last-first < 120e9 {
		t.Errorf("scenario open_ramp spans %d–%d (found %v), want most of the run %d–%d", first, last, found, tl.StartNS(), tl.EndNS())
	}
	if _, _, found := tl.ScenarioSpan("nope"); found {
		t.Error("a scenario that is not in the run has a span")
	}
}

// TestCounterValues: a counter row counts its value rounded (k6 writes
// 1), so a row of 0 is no request or iteration and a row of 3 is three;
// NaN and negative values count nothing. Hand-checked sums.
func TestCounterValues(t *testing.T) {
	a := New(Options{})
	ok := ingest.NewTags([]string{"status", "expected_response"}, []string{"200", "true"}, "", "")
	const ns = 1_700_000_000e9
	for _, v := range []float64{1, 0, 3, 2.6, -1, math.NaN(), 0.4} {
		a.Add(&ingest.Sample{Metric: "http_reqs", TimeNS: ns, Value: v, Tags: ok})
		a.Add(&ingest.Sample{Metric: "iterations", TimeNS: ns, Value: v})
		a.Add(&ingest.Sample{Metric: "dropped_iterations", TimeNS: ns, Value: v})
	}
	a.Add(&ingest.Sample{Metric: "http_req_duration", TimeNS: ns, Value: 12, Tags: ok})
	reqs, okN, failed, iters, dropped := sumSeconds(a.Close(1e9))
	// 1 + 0 + 3 + 3 + 0 + 0 + 0 = 7 of each.
	if reqs != 7 || okN != 7 || failed != 0 || iters != 7 || dropped != 7 {
		t.Errorf("requests %d ok %d failed %d iterations %d dropped %d, want 7 7 0 7 7", reqs, okN, failed, iters, dropped)
	}
}

// TestNegativeVUs: a vus sample below zero is counted (NegativeVUs) and
// left out of the second's gauge: the second with vus 4 and −7 reads 4,
// a second with only −2 has no gauge.
func TestNegativeVUs(t *testing.T) {
	a := New(Options{})
	const ns = 1_700_000_000e9
	a.Add(&ingest.Sample{Metric: "vus", TimeNS: ns, Value: 4, Source: "a"})
	a.Add(&ingest.Sample{Metric: "vus", TimeNS: ns, Value: -7, Source: "a"})
	a.Add(&ingest.Sample{Metric: "vus_max", TimeNS: ns + 1e9, Value: -2, Source: "a"})
	tl := a.Close(1e9)
	s0, _ := tl.Second(1_700_000_000)
	s1, _ := tl.Second(1_700_000_001)
	if tl.NegativeVUs() != 2 || !s0.HasVUs || s0.VUs != 4 || s1.HasVUsMax {
		t.Errorf("negative %d; second 0 vus %v (%v); second 1 has vus_max %v", tl.NegativeVUs(), s0.VUs, s0.HasVUs, s1.HasVUsMax)
	}
}

// TestStatusAndNameCounts: requests counted by status and the set of
// request names, over runs of repeated and alternating statuses, more
// names than the recent-name cache holds (each coming back), an empty
// name, and two Accumulators merged. Hand-counted: of 60 requests, every
// fifth fails (i = 4, 9, …, 59), half of those with 503 and half (i = 9,
// 19, …) with no status (counted as "0"): 48 are 200, 6 are 503 and 6 are
// "0"; there are 6 names, one of them "".
func TestStatusAndNameCounts(t *testing.T) {
	a := New(Options{})
	b := a.Fork()
	names := []string{"a", "b", "c", "d", "e", ""}
	const ns = 1_700_000_000e9
	for i := range 60 {
		st, exp := "200", "true"
		if i%5 == 4 {
			st, exp = "503", "false"
			if i%10 == 9 {
				st = ""
			}
		}
		keys := []string{"status", "expected_response", "name"}
		tags := ingest.NewTags(keys, []string{st, exp, names[(i/2)%len(names)]}, "", "")
		acc := a
		if i%3 == 0 {
			acc = b
		}
		acc.Add(&ingest.Sample{Metric: "http_reqs", TimeNS: ns + int64(i)*1e8, Value: 1, Tags: tags})
	}
	a.Merge(b)
	tl := a.Close(1e9)
	got := map[string]uint64{}
	for _, s := range tl.Statuses() {
		got[s.Status] = s.N
	}
	want := map[string]uint64{"200": 48, "503": 6, "0": 6}
	if len(got) != len(want) || got["200"] != want["200"] || got["503"] != want["503"] || got["0"] != want["0"] {
		t.Errorf("statuses %v, want %v", got, want)
	}
	if n := tl.NameCount(); n != len(names) {
		t.Errorf("%d names, want %d", n, len(names))
	}
}

// TestSeriesCount: series are counted on http_reqs and custom metrics, one
// per distinct tag set, however often and in whatever order they come back
// (more than the cache of known series holds, so that keys share its
// slots) and across a merge: 700 URLs of http_reqs and 3 tag sets of a
// custom counter are 703 series; the built-in http_req_duration adds none.
func TestSeriesCount(t *testing.T) {
	a := New(Options{})
	b := a.Fork()
	const ns = 1_700_000_000e9
	keys := []string{"status", "url"}
	for i := range 5000 {
		u := fmt.Sprintf("http://h/items/%d", (i*7919)%700)
		tags := ingest.NewTags(keys, []string{"200", u}, "", "")
		acc := a
		if i%4 == 1 {
			acc = b
		}
		acc.Add(&ingest.Sample{Metric: "http_reqs", TimeNS: ns, Value: 1, Tags: tags})
		acc.Add(&ingest.Sample{Metric: "http_req_duration", TimeNS: ns, Value: 3, Tags: tags})
		c := ingest.NewTags(keys, []string{"", fmt.Sprint(i % 3)}, "", "")
		acc.Add(&ingest.Sample{Metric: "my_counter", TimeNS: ns, Value: 1, Tags: c})
	}
	a.Merge(b)
	if n := a.Close(1e9).SeriesCount(); n != 703 {
		t.Errorf("%d series, want 703", n)
	}
}
