package promtest

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/ldanalyze/ldanalyze/pkg/prom"
	"github.com/prometheus/prometheus/prompb"
)

// maxBatch is the number of samples (float or histogram) per remote-write
// request.
const maxBatch = 20000

// Replay writes the series — float points and native histograms — into the
// Prometheus at baseURL through its remote-write endpoint (/api/v1/write,
// protocol 1.0: a snappy-compressed prompb.WriteRequest), in batches of
// whole series. Native histograms are sent as integer histograms: their
// schema and bucket indices are recovered from the bucket bounds the HTTP
// API printed (see HistogramProto). Points must be in time order within a
// series, as prom.Normalize leaves them.
func Replay(ctx context.Context, baseURL string, series []prom.Series) error {
	var req prompb.WriteRequest
	n := 0
	flush := func() error {
		if len(req.Timeseries) == 0 {
			return nil
		}
		err := write(ctx, baseURL, &req)
		req.Timeseries, n = req.Timeseries[:0], 0
		return err
	}
	for _, s := range series {
		ts := prompb.TimeSeries{Labels: labelsProto(s.Labels)}
		for _, p := range s.Points {
			ts.Samples = append(ts.Samples, prompb.Sample{Timestamp: p.TimeNS / 1e6, Value: p.Value})
		}
		schema := int32(math.MinInt32)
		for _, h := range s.Histograms {
			hp, sc, err := HistogramProto(h, schema)
			if err != nil {
				return fmt.Errorf("%s: %w", s.Key(), err)
			}
			schema = sc
			ts.Histograms = append(ts.Histograms, hp)
		}
		req.Timeseries = append(req.Timeseries, ts)
		n += len(ts.Samples) + len(ts.Histograms)
		if n >= maxBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

func labelsProto(ls map[string]string) []prompb.Label {
	out := make([]prompb.Label, 0, len(ls))
	for k, v := range ls {
		out = append(out, prompb.Label{Name: k, Value: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func write(ctx context.Context, baseURL string, req *prompb.WriteRequest) error {
	raw, err := req.Marshal()
	if err != nil {
		return err
	}
	body := snappy.Encode(nil, raw)
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(baseURL, "/")+"/api/v1/write", bytes.NewReader(body))
	if err != nil {
		return err
	}
	hr.Header.Set("Content-Encoding", "snappy")
	hr.Header.Set("Content-Type", "application/x-protobuf")
	hr.Header.Set("X-Prometheus-Remote-Write-Version", "0.1.0")
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("remote write: %s: %s", resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}

// HistogramProto rebuilds the remote-write form of a native histogram from
// the buckets the HTTP API printed. In a standard exponential schema s the
// buckets' upper bounds are 2^(i·2^−s) (model/histogram/generic.go), so s =
// −log2(log2(upper ÷ lower)) and the index is i = log2(upper)·2^s, both
// rounded; the zero bucket (lower ≤ 0 ≤ upper) gives the zero threshold
// (its upper bound) and the zero count. Counts are rounded to integers
// (an integer histogram, as k6 sends). schema is the series' schema when
// known (math.MinInt32 otherwise), used for a sample that has only a zero
// bucket; the schema used is returned.
func HistogramProto(h prom.HistogramPoint, schema int32) (prompb.Histogram, int32, error) {
	out := prompb.Histogram{
		Sum:       h.Sum,
		Timestamp: h.TimeNS / 1e6,
		Count:     &prompb.Histogram_CountInt{CountInt: uint64(math.Round(h.Count))},
	}
	zt, zc := 0.0, 0.0
	type ib struct {
		i int32
		c int64
	}
	var pos, neg []ib
	for _, b := range h.Buckets {
		if b.Lower <= 0 && b.Upper >= 0 {
			zt, zc = b.Upper, b.Count
			continue
		}
		lo, hi := math.Abs(b.Lower), math.Abs(b.Upper)
		if lo > hi {
			lo, hi = hi, lo
		}
		s := int32(math.Round(-math.Log2(math.Log2(hi / lo))))
		if schema == math.MinInt32 {
			schema = s
		} else if s != schema {
			return out, schema, fmt.Errorf("bucket (%v, %v] is of schema %d, the histogram's is %d", b.Lower, b.Upper, s, schema)
		}
		i := int32(math.Round(math.Log2(hi) * math.Exp2(float64(schema))))
		c := int64(math.Round(b.Count))
		if b.Lower >= 0 {
			pos = append(pos, ib{i, c})
		} else {
			neg = append(neg, ib{i, c})
		}
	}
	if schema == math.MinInt32 {
		schema = 3
	}
	out.Schema = schema
	if zt == 0 {
		zt = math.Ldexp(1, -128) // client_golang's DefNativeHistogramZeroThreshold
	}
	out.ZeroThreshold = zt
	out.ZeroCount = &prompb.Histogram_ZeroCountInt{ZeroCountInt: uint64(math.Round(zc))}
	enc := func(bs []ib) ([]prompb.BucketSpan, []int64) {
		sort.Slice(bs, func(a, b int) bool { return bs[a].i < bs[b].i })
		var spans []prompb.BucketSpan
		var deltas []int64
		var prevI int32
		var prevC int64
		for k, b := range bs {
			switch {
			case k == 0:
				spans = append(spans, prompb.BucketSpan{Offset: b.i, Length: 1})
			case b.i == prevI+1:
				spans[len(spans)-1].Length++
			default:
				spans = append(spans, prompb.BucketSpan{Offset: b.i - prevI - 1, Length: 1})
			}
			deltas = append(deltas, b.c-prevC)
			prevI, prevC = b.i, b.c
		}
		return spans, deltas
	}
	out.PositiveSpans, out.PositiveDeltas = enc(pos)
	out.NegativeSpans, out.NegativeDeltas = enc(neg)
	return out, schema, nil
}

// CorpusFile reads a k6-v2 corpus export (NAME.prom_query_range.json.gz:
// {"query_range": {name: response}, "raw_samples": {name: response}})
// and returns the series of one section, every metric name together.
func CorpusFile(path, section string) ([]prom.Series, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r = zr
	}
	rs, err := prom.ReadResponses(r, path)
	if err != nil {
		return nil, err
	}
	var out []prom.Series
	for _, x := range rs {
		if x.Section == section {
			out = append(out, x.Data.Series...)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no series in section %q", path, section)
	}
	return out, nil
}

// ReplayCorpus starts nothing: it replays the raw stored samples of a
// corpus export (its "raw_samples" section: every sample k6 pushed, at the
// push times) into s and returns them. The test fails on any error.
func (s *Server) ReplayCorpus(t testing.TB, path string) []prom.Series {
	t.Helper()
	series, err := CorpusFile(path, "raw_samples")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := Replay(ctx, s.URL, series); err != nil {
		t.Fatalf("replay %s: %v\nprometheus log:\n%s", path, err, s.Log())
	}
	return series
}
