package timeline

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/sketch"
	"github.com/ldanalyze/ldanalyze/pkg/threshold"
)

// histCase is one histogram of a test run: its second, tags and buckets.
type histCase struct {
	sec     int64
	metric  string
	tags    [][2]string
	buckets []HistogramBucket
}

// histRun is a small run as histograms: successful requests of two names
// in native-histogram-wide buckets (×2^(1/8)), some big enough for the
// sketches' histogram mode, 429s, a timeout bucket, iteration durations
// and trend stats' zero-width "bucket" (a mean).
func histRun() []histCase {
	ok := [][2]string{{"expected_response", "true"}, {"status", "200"}, {"name", "menu"}}
	search := [][2]string{{"expected_response", "true"}, {"status", "200"}, {"name", "search"}}
	limited := [][2]string{{"expected_response", "false"}, {"status", "429"}, {"name", "search"}}
	b := func(lo float64, counts ...uint64) []HistogramBucket {
		var out []HistogramBucket
		for _, c := range counts {
			hi := lo * math.Pow(2, 1.0/8)
			out = append(out, HistogramBucket{Lower: lo, Upper: hi, Count: c})
			lo = hi
		}
		return out
	}
	return []histCase{
		{100, "http_req_duration", ok, b(4, 3, 10, 20, 7)},
		{100, "http_req_duration", search, b(9, 1, 5, 9, 2, 1)},
		{101, "http_req_duration", ok, b(4, 300, 800, 900, 400, 30)},
		{101, "http_req_duration", limited, b(180, 40, 60)},
		{102, "http_req_duration", search, []HistogramBucket{{Lower: 210, Upper: 210, Count: 57}}},
		{102, "http_req_duration", limited, []HistogramBucket{{Lower: 2900, Upper: 3100, Count: 3}, {Lower: 9e7, Upper: 9.1e7, Count: 2}}},
		{101, "iteration_duration", nil, b(5, 100, 2000, 50)},
	}
}

func tagsOf(kv [][2]string) ingest.Tags {
	var ks, vs []string
	for _, p := range kv {
		ks, vs = append(ks, p[0]), append(vs, p[1])
	}
	return ingest.NewTags(ks, vs, "", "")
}

// AddHistogram gives what Add gives for the spread values one by one: the
// per-second latency, the whole-run Trend and its counts, the per-name
// histograms and failures, a threshold on a tagged submetric, the
// iteration durations and the sample counts, all equal (quantiles
// bit for bit: the same sketch buckets).
func TestAddHistogramIsAdds(t *testing.T) {
	th, err := threshold.Parse("http_req_duration{name:search}:p(95)<500")
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Metric: "http_req_duration", Thresholds: []threshold.Threshold{th}}
	ha, sa := New(opt), New(opt)
	for _, c := range histRun() {
		s := &ingest.Sample{Metric: c.metric, TimeNS: c.sec*1e9 + 5e8, Tags: tagsOf(c.tags), Source: "h"}
		ha.AddHistogram(s, c.buckets)
		for _, b := range c.buckets {
			for k := range b.Count {
				s.Value = sketch.SpreadValue(b.Lower, b.Upper, k, b.Count)
				sa.Add(s)
			}
		}
	}
	h, a := ha.Close(1e9), sa.Close(1e9)
	if h.Rows() != a.Rows() || h.MetricSamples() != a.MetricSamples() || h.Metrics()["http_req_duration"] != a.Metrics()["http_req_duration"] {
		t.Errorf("rows %d/%d, metric samples %d/%d, metric counts %v/%v", h.Rows(), a.Rows(), h.MetricSamples(), a.MetricSamples(), h.Metrics(), a.Metrics())
	}
	if h.MetricSamples() != 40+18+2430+100+57+5 {
		t.Errorf("metric samples %d, want 2650 (the buckets' counts)", h.MetricSamples())
	}
	same := func(what string, x, y *sketch.Sketch) {
		t.Helper()
		if x.Count() != y.Count() || math.Abs(x.Sum()-y.Sum()) > 1e-6*math.Abs(y.Sum())+1e-9 {
			t.Errorf("%s: count %d sum %v, adds %d %v", what, x.Count(), x.Sum(), y.Count(), y.Sum())
		}
		for _, q := range []float64{0, 0.5, 0.9, 0.95, 0.99, 1} {
			if qx, qy := x.Quantile(q), y.Quantile(q); qx != qy && !(math.IsNaN(qx) && math.IsNaN(qy)) {
				t.Errorf("%s: q%v %v, adds %v", what, q, qx, qy)
			}
		}
	}
	for sec := int64(99); sec <= 103; sec++ {
		same("latency second", h.Latency(sec, sec+1), a.Latency(sec, sec+1))
		same("iteration durations", h.IterationDurations(sec, sec+1), a.IterationDurations(sec, sec+1))
		x, _ := h.Second(sec)
		y, _ := a.Second(sec)
		if x.MetricSamples != y.MetricSamples {
			t.Errorf("second %d: %d metric samples, adds %d", sec, x.MetricSamples, y.MetricSamples)
		}
		v, ok := h.ThresholdValue(0, sec, sec+1)
		w, wok := a.ThresholdValue(0, sec, sec+1)
		if ok != wok || (v != w && !(math.IsNaN(v) && math.IsNaN(w))) {
			t.Errorf("second %d: threshold %v %v, adds %v %v", sec, v, ok, w, wok)
		}
	}
	same("whole run", h.Latency(0, 1000), a.Latency(0, 1000))
	ht, at := h.Trend(), a.Trend()
	same("all", ht.All, at.All)
	same("ok", ht.OK, at.OK)
	same("failed", ht.Failed, at.Failed)
	same("limited", ht.Limited, at.Limited)
	if ht.Huge != 2 || at.Huge != 2 || ht.Negative != 0 {
		t.Errorf("huge %d (adds %d), negative %d; want the 2 values above a day", ht.Huge, at.Huge, ht.Negative)
	}
	if len(h.HistNames()) != 2 {
		t.Fatalf("hist names %v", h.HistNames())
	}
	for i, name := range h.HistNames() {
		j := -1
		for k, n := range a.HistNames() {
			if n == name {
				j = k
			}
		}
		if hh, ah := h.NameHist(i, 0, 1000), a.NameHist(j, 0, 1000); hh != ah {
			t.Errorf("%s: histogram %v, adds %v", name, hh, ah)
		}
		if hf, af := h.NameFailures(i, 0, 1000), a.NameFailures(j, 0, 1000); hf != af {
			t.Errorf("%s: failures %d, adds %d", name, hf, af)
		}
	}
	if err := h.Err(); err != nil {
		t.Error(err)
	}
}

// Empty histograms add nothing.
func TestAddHistogramEmpty(t *testing.T) {
	a := New(Options{})
	a.AddHistogram(&ingest.Sample{Metric: "http_req_duration", TimeNS: 1e9}, []HistogramBucket{{Lower: 1, Upper: 2}})
	if tl := a.Close(1e9); tl.Rows() != 0 || tl.DataSeconds() != 0 {
		t.Errorf("rows %d, seconds %d; want none", tl.Rows(), tl.DataSeconds())
	}
}

// TestHistAppendEncEveryBin: appendEnc writes exactly the non-empty bins,
// in order, each as (bin, uvarint count), for histograms with any bins
// set (the first, the last, neighbours in one group of four, huge
// counts), and addEnc reads them back.
func TestHistAppendEncEveryBin(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for k := range 3000 {
		var h Hist
		for range rng.IntN(12) {
			c := uint32(rng.IntN(300) + 1)
			if rng.IntN(10) == 0 {
				c = rng.Uint32() | 1
			}
			h[rng.IntN(HistBins)] = c
		}
		if k < HistBins {
			h[k] = 7 // every bin alone once
		}
		var want []byte
		for i, c := range h {
			if c != 0 {
				want = binary.AppendUvarint(append(want, byte(i)), uint64(c))
			}
		}
		got := h.appendEnc([]byte{0xee})
		if !bytes.Equal(got[1:], want) || got[0] != 0xee {
			t.Fatalf("%v: appendEnc %x, want %x", h, got, want)
		}
		var back Hist
		if err := back.addEnc(got[1:]); err != nil || back != h {
			t.Fatalf("round trip: %v", err)
		}
	}
}
