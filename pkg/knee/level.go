package knee

import (
	"math"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/jsonnum"
	"github.com/ldanalyze/ldanalyze/pkg/sketch"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// F is a JSON-safe float (NaN and ±Inf encode as null).
type F = jsonnum.Float

// Level is the aggregate of a span of seconds at one load level: a hold, a
// window or a ramp step. Rates are per second of the span, durations in ms
// (the unit of k6 time trends), ratios 0–1.
type Level struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Seconds is the span's length in seconds of data.
	Seconds float64 `json:"seconds"`
	// Offered is the offered load: iterations started per second in an
	// open model (completed + dropped + growth of in-flight), mean VUs in a
	// closed model (see Result.OfferedUnit).
	Offered F `json:"offered"`
	// OfferedRPS is the offered load in requests per second (open model:
	// Offered × requests per iteration; closed model: NaN).
	OfferedRPS F `json:"offered_rps"`
	// CompletedRPS is successful responses per second (goodput).
	CompletedRPS F `json:"completed_rps"`
	// RequestsRPS is all responses per second, errors included.
	RequestsRPS F `json:"requests_rps"`
	// ErrorRate is failed ÷ all requests, 0–1.
	ErrorRate F `json:"error_rate"`
	// DroppedPerS is dropped_iterations per second.
	DroppedPerS F `json:"dropped_per_s"`
	// VUs is the mean of the vus gauge.
	VUs F `json:"vus"`
	// BytesReceivedPerS and BytesSentPerS are k6's data_received and
	// data_sent counters over the span, bytes per second of data: the
	// network rate the load generator saw (0 when the file has no such
	// rows).
	BytesReceivedPerS F `json:"bytes_received_per_s"`
	BytesSentPerS     F `json:"bytes_sent_per_s"`
	// BytesPerRequest is data_received ÷ all responses (the mean response
	// size, headers included, bytes) and BytesSentPerRequest data_sent ÷
	// all responses (the request size); per iteration in a run without
	// requests; NaN when the span has neither.
	BytesPerRequest     F `json:"bytes_per_request"`
	BytesSentPerRequest F `json:"bytes_sent_per_request"`
	// Count is the number of successful samples of the metric.
	Count uint64 `json:"count"`
	// Mean, Min, Max of the successful samples of the metric, ms.
	MeanMS F `json:"mean_ms"`
	MinMS  F `json:"min_ms"`
	MaxMS  F `json:"max_ms"`
	// P50MS, P95MS, P99MS are k6-style percentiles of the successful
	// samples of the metric, ms.
	P50MS F `json:"p50_ms"`
	P90MS F `json:"p90_ms"`
	P95MS F `json:"p95_ms"`
	P99MS F `json:"p99_ms"`
	// Percentiles holds the --percentiles values, keyed "p95", "p99.9".
	Percentiles map[string]F `json:"percentiles,omitempty"`
	// Verdict is headroom, saturated, overloaded or generator (holds and
	// ramp steps).
	Verdict string `json:"verdict,omitempty"`
	// Reason says which rule set the verdict.
	Reason string `json:"reason,omitempty"`
	// Kind is hold or ramp for a load level, empty for a window.
	Kind LevelKind `json:"kind,omitempty"`
	// WebVital, for a web vital metric (Result.WebVital), is the level's
	// p75 and the shares of its page loads that were good, needed
	// improvement or were poor by Google's thresholds.
	WebVital *VitalShares `json:"web_vital,omitempty"`

	lat *sketch.Sketch
	i0  int // first second index (for internal use)
	i1  int // one past the last
	// Counts over the level's seconds: all responses, failed ones,
	// offered requests (open model; NaN closed), dropped iterations.
	nReqs, nFailed, nOffered, nDropped float64
	// nUnits counts the completed units the closed model's throughput is
	// judged in: all responses of the request stream (errors are judged
	// apart), WebSocket messages received, or iterations.
	nUnits float64
	// nLimited counts the failures saying "too many requests"; latFlat
	// is set by the judge when p95 and p50 stayed within LatencyFactor of
	// the low-load p95 and p50 (a noisy low-load p95 alone lets a median
	// that rose 10× pass as flat).
	nLimited float64
	latFlat  bool
	// growing is set by the judge when a hold's queue grew.
	growing bool
	// short is set by the judge when the level's responses fell
	// significantly short of its offered load (open) or of linear in VUs
	// (closed): the system did not keep up with what it was sent.
	short bool
}

// VitalShares is a level's web vital by Google's method: its 75th
// percentile, and the shares (0–1) of page loads at most the good
// threshold, between the two, and above the poor one.
type VitalShares struct {
	P75              F `json:"p75"`
	Good             F `json:"good"`
	NeedsImprovement F `json:"needs_improvement"`
	Poor             F `json:"poor"`
}

// Verdicts of a level.
const (
	// Headroom: completed follows offered, latency flat, errors and drops
	// at their low-load level.
	Headroom = "headroom"
	// Saturated: the system no longer keeps up (completed lags offered,
	// latency jumped, errors or drops grew) but does not shed much.
	Saturated = "saturated"
	// Overloaded: the system sheds (errors grew by more than the error
	// limit over the low-load rate), its goodput fell, or its queue grew
	// through the level.
	Overloaded = "overloaded"
	// Generator: the load generator, not the system, set the limit:
	// iterations were dropped with every VU busy (vus at vus_max) while
	// latency stayed flat.
	Generator = "generator"
)

// aggregate builds the level of seconds [i0, i1) of p.
func (a *analysis) aggregate(i0, i1 int, pcts []float64) Level {
	return a.aggregateInto(i0, i1, pcts, nil)
}

// aggregateInto is aggregate with the level's latency Sketch in lat
// (reset first) when lat is not nil: the windows reuse one.
func (a *analysis) aggregateInto(i0, i1 int, pcts []float64, lat *sketch.Sketch) Level {
	p := a.p
	from, to := p.start+int64(i0), p.start+int64(i1)
	if lat == nil {
		lat = p.tl.Latency(from, to)
	} else {
		p.tl.LatencyInto(from, to, lat)
	}
	l := Level{i0: i0, i1: i1, lat: lat}
	l.Start = time.Unix(p.start+int64(i0), 0).UTC()
	l.End = time.Unix(p.start+int64(i1), 0).UTC()
	secs := float64(max(1, p.dataIn(i0, i1))) // rates per second of data
	l.Seconds = secs
	var reqs, errs, dropped, iters, vus, limited, done, sent, recv float64
	for i := i0; i < i1; i++ {
		done += p.completed.at(i)
		reqs += p.reqs.at(i)
		dropped += p.dropped.at(i)
		iters += p.iterations.at(i)
		vus += p.vus.at(i)
	}
	p.tl.Range(p.start+int64(i0), p.start+int64(i1), func(_ int64, s *timeline.Second) {
		sent += s.BytesSent
		recv += s.BytesReceived
		limited += float64(s.Limited)
		errs += float64(s.Failed)
	})
	nan := F(math.NaN())
	l.RequestsRPS = F(reqs / secs)
	l.CompletedRPS = F(done / secs)
	if !a.hasHTTP {
		l.RequestsRPS = nan
	}
	l.ErrorRate = nan
	if reqs > 0 {
		l.ErrorRate = F(errs / reqs)
	} else if !a.hasHTTP {
		l.ErrorRate = 0
	}
	l.DroppedPerS = F(dropped / secs)
	l.BytesReceivedPerS, l.BytesSentPerS = F(recv/secs), F(sent/secs)
	l.BytesPerRequest, l.BytesSentPerRequest = nan, nan
	if per := reqs; per > 0 || (!a.hasHTTP && iters > 0) {
		if !a.hasHTTP {
			per = iters
		}
		l.BytesPerRequest, l.BytesSentPerRequest = F(recv/per), F(sent/per)
	}
	l.nReqs, l.nFailed, l.nDropped, l.nLimited = reqs, errs, dropped, limited
	if !a.hasHTTP {
		l.nReqs, l.nFailed = iters, 0
	}
	l.nUnits = l.nReqs
	if p.msgs {
		l.nUnits = done
	}
	l.VUs = nan
	if p.hasVUs {
		l.VUs = F(vus / float64(i1-i0)) // the gauge is carried over seconds without samples
	}
	if a.model == Open {
		// started = completed + dropped + growth of in-flight iterations
		// (the vus gauge of an arrival-rate executor counts busy VUs).
		growth := 0.0
		if p.hasVUs {
			before := 0.0
			if i0 > 0 {
				before = p.vus.at(i0 - 1)
			}
			growth = p.vus.at(i1-1) - before
		}
		started := iters + dropped + growth
		l.Offered = F(math.Max(0, started) / secs)
		l.OfferedRPS = F(float64(l.Offered) * a.reqsPerIter)
		l.nOffered = float64(l.OfferedRPS) * secs
		if !a.hasHTTP {
			l.nOffered = float64(l.Offered) * secs
		}
	} else {
		l.Offered = l.VUs
		if a.opt.UsersPerVU > 0 {
			l.Offered = F(float64(l.VUs) * a.opt.UsersPerVU)
		}
		l.OfferedRPS = nan
		l.nOffered = math.NaN()
	}
	l.Count = l.lat.Count()
	l.MeanMS, l.MinMS, l.MaxMS = F(l.lat.Mean()), F(l.lat.Min()), F(l.lat.Max())
	l.P50MS, l.P90MS = F(l.lat.Quantile(0.50)), F(l.lat.Quantile(0.90))
	l.P95MS, l.P99MS = F(l.lat.Quantile(0.95)), F(l.lat.Quantile(0.99))
	if v := a.vital; v != nil && l.Count > 0 {
		n := float64(l.Count)
		good := float64(l.lat.CountAtMost(v.Good))
		poor := n - float64(l.lat.CountAtMost(v.Poor))
		l.WebVital = &VitalShares{P75: F(l.lat.Quantile(0.75)), Good: F(good / n), NeedsImprovement: F((n - good - poor) / n), Poor: F(poor / n)}
	}
	if len(pcts) > 0 {
		l.Percentiles = make(map[string]F, len(pcts))
		for _, q := range pcts {
			l.Percentiles[PercentileName(q)] = F(l.lat.Quantile(q / 100))
		}
	}
	return l
}

// PercentileName names a percentile the way k6 summaries do without
// parentheses: 95 → "p95", 99.9 → "p99.9".
func PercentileName(p float64) string {
	return "p" + trimFloat(p)
}
