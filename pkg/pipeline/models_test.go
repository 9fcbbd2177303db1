package pipeline

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/queueing"
	"github.com/ldanalyze/ldanalyze/pkg/scale"
	"github.com/ldanalyze/ldanalyze/pkg/sketch"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// These are the model adapters end to end, on real k6 files: the pipeline
// reads a run, the adapters hand its levels and queries to queueing and
// scale, and the numbers are those hand-checked against the corpus.

func nearT(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > tol {
		t.Errorf("%s = %.6g, want %.6g ± %g", what, got, want, tol)
	}
}

func analyzeFiles(t *testing.T, opt Options, paths ...string) *Analysis {
	t.Helper()
	an, err := Run(paths, opt)
	if err != nil {
		t.Fatal(err)
	}
	if an.Input.Skipped > 0 {
		t.Fatalf("%v: %d lines skipped: %v", paths, an.Input.Skipped, an.Input.Errors)
	}
	return an
}

func runValue(t *testing.T, sel string, paths ...string) scale.RunValue {
	t.Helper()
	v, err := selectorValue(t, sel, paths...)
	if err != nil {
		t.Fatalf("%s of %v: %v", sel, paths, err)
	}
	return v
}

// selectorValue is `scale --fit --run`'s y: the selector's query through
// the pipeline.
func selectorValue(t *testing.T, sel string, paths ...string) (scale.RunValue, error) {
	t.Helper()
	s, err := scale.ParseSelector(sel)
	if err != nil {
		t.Fatal(err)
	}
	q := timeline.Query{Metric: s.Metric}
	for _, m := range s.Tags {
		q.Filter = append(q.Filter, [2]string{m.Key, m.Value})
	}
	an := analyzeFiles(t, Options{Queries: []timeline.Query{q}, AllowNoMetric: true}, paths...)
	return s.Value(QueryStats(an, 0))
}

var rooms = []struct {
	x     float64
	files []string
}{
	{100, []string{"../../testdata/scale/room100.csv"}},
	{250, []string{"../../testdata/scale/room250.csv"}},
	{500, []string{"../../testdata/scale/room500a.csv", "../../testdata/scale/room500b.csv"}},
}

// The published growth case as three k6 runs (testdata/scale/README.md,
// hand sums): data_received totals 36 MB, 382 MB and 2645 MB give
// b = 2.665001 (methods.md §7), the same fit as the --point case.
func TestQueryStatsRooms(t *testing.T) {
	var x, y []float64
	for i, want := range []float64{36e6, 382e6, 2645e6} {
		v := runValue(t, "data_received:total", rooms[i].files...)
		if v.Value != want || v.Unit != scale.Bytes || v.DurationSeconds != 10 {
			t.Errorf("x=%g: data_received:total = %g %q over %g s, want %g B over 10 s", rooms[i].x, v.Value, v.Unit, v.DurationSeconds, want)
		}
		// Each run spans t … t+9 at 1 s resolution: 10 s.
		r := runValue(t, "data_received:rate", rooms[i].files...)
		nearT(t, "data_received:rate", r.Value, want/10, 1e-6)
		x, y = append(x, rooms[i].x), append(y, v.Value)
	}
	p, err := scale.Fit(x, y, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	nearT(t, "exponent", p.Exponent, 2.665001, 1e-5)

	// room100.csv: join durations 10, 20, 30, 40, 50 ms, one move of 100 ms.
	f := rooms[0].files
	for _, c := range []struct {
		sel  string
		want float64
	}{
		{"http_req_duration{name:join}:p95", 0.048}, // k6: rank 3.8, 40 + 0.8·10 ms
		{"http_req_duration{name:join}:mean", 0.030},
		{"http_req_duration{name:join}:count", 5},
		{"http_req_duration:max", 0.100},
		{"http_req_duration:min", 0.010},
		{"http_req_duration:med", 0.035}, // six values: (30 + 40)/2 ms
		{"http_req_duration:total", 0.250},
		{"http_reqs:rate", 0.6}, // 6 requests in 10 s
		{"data_sent:total", 3000},
	} {
		v := runValue(t, c.sel, f...)
		nearT(t, c.sel, v.Value, c.want, 1e-12)
	}
}

// TestQueryStatsStrayTimestamp: a stray sample an hour after room100.csv
// (10 s of data) makes a second span: the rate is per second of data,
// 6 requests in 11 s (the stray's second counts, as in every whole-run
// figure), not in 3,601 s; totals are unchanged.
func TestQueryStatsStrayTimestamp(t *testing.T) {
	b, err := os.ReadFile(rooms[0].files[0])
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "stray.csv")
	b = append(b, "vus,1796003609,1,,,,,,,,,rooms,,,,,,,\n"...)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runValue(t, "http_reqs:rate", path)
	if r.DurationSeconds != 11 {
		t.Errorf("duration %g s, want 11 (10 s of data and the stray second)", r.DurationSeconds)
	}
	nearT(t, "http_reqs:rate", r.Value, 6.0/11, 1e-12)
	nearT(t, "data_received:total", runValue(t, "data_received:total", path).Value, 36e6, 0)
}

func TestQueryStatsNoMetric(t *testing.T) {
	for _, sel := range []string{"ws_msgs_received:total", "http_req_duration{name:leave}:p95"} {
		if _, err := selectorValue(t, sel, rooms[1].files...); !errors.Is(err, scale.ErrNoMetric) {
			t.Errorf("%s: error %v, want ErrNoMetric", sel, err)
		}
	}
}

// Real k6 runs against k6's own end-of-test summaries
// (testdata/k6/*.summary.json): counts and sums are exact, percentiles
// within the sketch's relative error, rates within 1 % (k6 divides by the
// test's wall time, 100.87 s for closed_ramp; the CSV's whole-second
// stamps give 101 s).
func TestQueryStatsK6Summary(t *testing.T) {
	closed := "../../testdata/k6/closed_ramp.csv.gz"
	for _, c := range []struct {
		sel  string
		want float64
		rel  float64
	}{
		{"data_received:total", 2832284, 0},
		{"data_sent:total", 1340953, 0},
		{"iterations:count", 4442, 0},
		{"iteration_duration:mean", 1.360110302828903, 1e-12},
		{"iteration_duration:p95", 1.6456578264, sketch.RelativeError},
		{"iteration_duration:max", 1.701186085, 1e-12},
		{"data_received:rate", 28078.42565630876, 0.01},
		{"http_reqs:rate", 132.11002155714982, 0.01},
		// 13326 requests less the 823 answered 429 (corpus README).
		{"http_reqs{expected_response:true}:count", 12503, 0},
	} {
		v := runValue(t, c.sel, closed)
		if math.Abs(v.Value-c.want) > c.rel*c.want {
			t.Errorf("closed_ramp %s = %.10g, want %.10g ± %g relative", c.sel, v.Value, c.want, c.rel)
		}
	}
	v := runValue(t, "data_received:total", "../../testdata/k6/open_ramp.csv.gz")
	if v.Value != 5256040 || v.Samples != 25032 {
		t.Errorf("open_ramp data_received = %g over %d samples, want 5256040 over 25032 (k6 summary)", v.Value, v.Samples)
	}
}

func analyse(t *testing.T, paths ...string) scale.RunLevels {
	t.Helper()
	lv, err := RunLevels(analyzeFiles(t, Options{Metric: "iteration_duration"}, paths...))
	if err != nil {
		t.Fatal(err)
	}
	return lv
}

// The synthetic sweep (testdata/scale/README.md): constant-vus runs whose
// successful requests per second are written per second, so X over the
// 40 s hold is that count exactly.
func TestSteadyThroughputSweep(t *testing.T) {
	for _, c := range []struct {
		n    float64
		file string
		x    float64
	}{
		{1, "vus1.csv", 100}, {2, "vus2.csv", 190}, {4, "vus4.csv", 344},
		{8, "vus8.csv", 569}, {16, "vus16.csv", 804}, {32, "vus32.csv", 903},
	} {
		tp, err := scale.SteadyThroughput(analyse(t, "../../testdata/scale/"+c.file), c.n)
		if err != nil {
			t.Fatal(err)
		}
		if tp.PerSecond != c.x || tp.Span != scale.SpanHold || tp.Seconds != 40 || tp.VUs != c.n || !tp.HasVUs {
			t.Errorf("N=%g: %+v; want X=%g over a 40 s hold at %g VUs", c.n, tp, c.x, c.n)
		}
		if len(tp.Warnings) > 0 {
			t.Errorf("N=%g: warnings %q", c.n, tp.Warnings)
		}
		if c.n == 32 {
			// one 503 per second beside 903 successes
			nearT(t, "error rate", tp.ErrorRate, 1.0/904, 1e-12)
		}
	}
	// A label that is not the VU count is named.
	tp, err := scale.SteadyThroughput(analyse(t, "../../testdata/scale/vus8.csv"), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(tp.Warnings) != 1 || !strings.Contains(tp.Warnings[0], "the hold's mean VUs is 8.0, 20% away from the label") {
		t.Errorf("warnings %q", tp.Warnings)
	}
}

// closed_ramp is a continuous ramp with no hold: X falls back to the whole
// run, 12503 successful requests in its 100 s of ramp steps (corpus
// README: 13326 requests, 823 of them 429), with a warning.
func TestSteadyThroughputNoHold(t *testing.T) {
	tp, err := scale.SteadyThroughput(analyse(t, "../../testdata/k6/closed_ramp.csv.gz"), 60)
	if err != nil {
		t.Fatal(err)
	}
	// The ramp steps cover the run's 101 s; 12,503 successful responses.
	if tp.Span != scale.SpanRun || tp.Seconds != 101 {
		t.Errorf("span %s over %g s, want run over 101 s", tp.Span, tp.Seconds)
	}
	nearT(t, "X", tp.PerSecond, 12503.0/101, 1e-9)
	nearT(t, "error rate", tp.ErrorRate, 823.0/13326, 1e-9)
	if len(tp.Warnings) == 0 || !strings.Contains(tp.Warnings[0], "no hold found") {
		t.Errorf("warnings %q", tp.Warnings)
	}
	if _, err := scale.SteadyThroughput(scale.RunLevels{}, 1); err == nil {
		t.Error("no levels: no error")
	}
}

// levelsOf runs the pipeline on a corpus file and returns the Little spans
// of its levels (LittleSpans) and the model.
func levelsOf(t *testing.T, path string) ([]queueing.Span, knee.Model) {
	t.Helper()
	opt := Options{Metric: "iteration_duration"}
	opt.Knee.RampStepNS = 10e9 // the hand-checked ratios are of 10 s steps
	an := analyzeFiles(t, opt, path)
	spans, err := LittleSpans(an)
	if err != nil {
		t.Fatal(err)
	}
	return spans, an.Knee.Model
}

// closed_ramp (ramping-vus 0→120, 1 s think time, journeys of 3 requests):
// the corpus README says mean VUs ≈ λ_iter × iteration_duration. k6's own
// summary gives λ = 44.0367/s (over its 100.87 s) and W = 1.360110 s:
// 59.90 busy VUs. Over the 100 s of ramp steps λ = 4438/100 and the pooled
// L and λW agree within 1 %; λW is within 1 % of k6's figure.
// Per 10 s ramp step, the steps while VUs rise steadily (2–9) agree within
// 10 % (measured ratios 0.949–0.983); the first step lags (VUs whose first
// iteration has not ended: 0.838) and the ramp-down step (91–101 s: the
// ramp down and the run's last seconds) shows iterations finishing after
// the gauge dropped their VUs (1.223).
func TestCheckLittleClosedRamp(t *testing.T) {
	spans, model := levelsOf(t, "../../testdata/k6/closed_ramp.csv.gz")
	if model != knee.Closed || len(spans) != 10 {
		t.Fatalf("model %s, %d levels; want closed, 10 ramp steps", model, len(spans))
	}
	chk, err := queueing.CheckLittle(spans, queueing.LittleOptions{Closed: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range chk.Levels {
		want := queueing.LittleHolds
		switch i {
		case 0:
			want = queueing.LittleIdle
		case 9:
			want = queueing.LittleExcess
		}
		if l.Verdict != want {
			t.Errorf("step %d (%.1f VUs, λW %.1f): %s, want %s", i+1, l.VUs, l.BusyVUs, l.Verdict, want)
		}
	}
	nearT(t, "step 1 ratio", chk.Levels[0].Ratio, 0.838, 0.001)
	nearT(t, "step 10 ratio", chk.Levels[9].Ratio, 1.223, 0.001)
	nearT(t, "overall ratio", chk.Overall.Ratio, 1, 0.01)
	nearT(t, "overall λW vs k6 summary", chk.Overall.BusyVUs, 44.036673852383274*1.360110302828903, 0.01*59.9)
	if chk.Overall.Verdict != queueing.LittleHolds {
		t.Errorf("overall %s: %s", chk.Overall.Verdict, chk.Overall.Reason)
	}
}

// open_ramp (ramping-arrival-rate 20→320 it/s over 90 s, a 20 s hold,
// 20 s down; one request per iteration): 9 steps up, the hold, 2 steps
// down. The vus gauge counts busy VUs, so every level agrees, the low-load
// ones (≈ 0.4–1.2 busy VUs) within the snapshot noise band; pooled over the
// run, L and λW agree within 2 %.
func TestCheckLittleOpenRamp(t *testing.T) {
	spans, model := levelsOf(t, "../../testdata/k6/open_ramp.csv.gz")
	if model != knee.Open || len(spans) != 12 {
		t.Fatalf("model %s, %d levels; want open, 9 ramp steps up, a hold, 2 down", model, len(spans))
	}
	chk, err := queueing.CheckLittle(spans, queueing.LittleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range chk.Levels {
		if l.Verdict != queueing.LittleHolds {
			t.Errorf("step %d (%.1f VUs, λW %.2f, band %.2f): %s", i+1, l.VUs, l.BusyVUs, l.Band, l.Verdict)
		}
	}
	nearT(t, "overall ratio", chk.Overall.Ratio, 1, 0.02)
}

// The synthetic sweep writes W = N/X per second (testdata/scale/README.md),
// so λW = N = 8 in every second, and so over the run's one hold (knee
// takes a run that one hold covers for a steady run); W is written to
// 0.001 ms, so λW is 8 within 569/s · 0.0005 ms = 3e-4.
func TestCheckLittleSweepFile(t *testing.T) {
	spans, _ := levelsOf(t, "../../testdata/scale/vus8.csv")
	chk, err := queueing.CheckLittle(spans, queueing.LittleOptions{Closed: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(chk.Levels) != 1 {
		t.Fatalf("%d levels", len(chk.Levels))
	}
	for _, l := range chk.Levels {
		nearT(t, "λW", l.BusyVUs, 8, 3e-4)
		nearT(t, "L", l.VUs, 8, 1e-12)
	}
}

// The corpus test server has C = 2 worker slots (testdata/k6/README.md);
// the estimate from each k6 run's levels recovers c = 2: X_max·S =
// 187.4/s × 11.02 ms = 2.07 (open_ramp; S is the first ramp step's mean,
// knee's 11.0246 ms), 182.8/s × 10.6 ms = 1.94 (breakpoint),
// 164.6/s × 12.51 ms = 2.06 (closed_ramp).
func TestEstimateMMcCorpus(t *testing.T) {
	for _, c := range []struct {
		file         string
		serversExact float64
	}{
		{"open_ramp.csv.gz", 2.066},
		{"breakpoint.csv.gz", 1.937},
		{"closed_ramp.csv.gz", 2.059},
	} {
		opt := Options{}
		opt.Knee.RampStepNS = 10e9 // the hand-checked S is of 10 s steps
		an := analyzeFiles(t, opt, "../../testdata/k6/"+c.file)
		in, ceiling, _, err := LoadLevels(an, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		res := an.Knee
		e, err := queueing.EstimateMMc(in, ceiling, queueing.EstimateOptions{Closed: res.Model == knee.Closed})
		if err != nil {
			t.Fatal(err)
		}
		if e.Servers != 2 {
			t.Errorf("%s: c = %d, want 2", c.file, e.Servers)
		}
		nearT(t, c.file+" X_max·S", e.ServersExact, c.serversExact, 0.001)
		if c.file == "open_ramp.csv.gz" {
			nearT(t, "open_ramp S", e.ServiceSeconds, 0.0110246, 1e-6)
			// Below the knee the model is stable; past the ceiling not.
			if !e.Levels[0].Stable || e.Levels[5].Stable {
				t.Errorf("stable: level 1 %v, level 6 %v", e.Levels[0].Stable, e.Levels[5].Stable)
			}
		}
	}
}

// TestAutoWindow: a 131 s run at 1 s resolution cut into about 80 windows
// gets ⌈131/80⌉ = 2 s windows; never finer than the resolution.
func TestAutoWindow(t *testing.T) {
	// A sample every 10 s: one span (gaps under timeline.MaxGapS).
	run := func() *timeline.Accumulator {
		acc := timeline.New(timeline.Options{})
		for sec := int64(1796004258); sec <= 1796004388; sec += 10 {
			acc.Add(&ingest.Sample{Metric: "vus", TimeNS: sec * 1e9})
		}
		return acc
	}
	if got := autoWindowNS(run().Close(1e9), 80); got != 2e9 {
		t.Errorf("window %d ns, want 2e9", got)
	}
	if got := autoWindowNS(run().Close(5e9), 80); got != 5e9 {
		t.Errorf("window %d ns, want the 5 s resolution", got)
	}
	// A stray sample at the epoch splits the data: the windows cut the
	// main span (the one analysed), so its 131 s give 2 s windows, not
	// 56 years ÷ 80.
	acc := timeline.New(timeline.Options{})
	acc.Add(&ingest.Sample{Metric: "vus", TimeNS: 0})
	for sec := int64(1796004258); sec <= 1796004388; sec++ {
		acc.Add(&ingest.Sample{Metric: "vus", TimeNS: sec * 1e9})
	}
	if got := autoWindowNS(acc.Close(1e9), 80); got != 2e9 {
		t.Errorf("with a stray sample at 0: window %d ns, want 2e9 (the main span's)", got)
	}
}
