// Package over counts the samples of a Trend above a limit: "how many
// waited more than 1 s", over the run and per value of some tags (the
// teacher's IP, the endpoint), with the worst value of each. It is an
// accumulator like window's: Add every sample (on several goroutines,
// one Counter each, then Merge), Close once.
//
// Counts are exact: each sample is compared with the limit as it comes,
// not read back from a sketch. Memory is bounded by MaxKeys tag values
// (the first seen); past it, the samples of new values count in one
// OtherKey entry and Result.Warnings says so.
package over

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/jsonnum"
	"github.com/ldanalyze/ldanalyze/pkg/outcome"
)

// OtherKey is the key of the samples of tag values past MaxKeys.
const OtherKey = "(other)"

// DefaultMaxKeys is the MaxKeys of the zero Options.
const DefaultMaxKeys = 10000

// Options configure a Counter.
type Options struct {
	// Metric is the Trend counted; empty counts every protocol's request
	// Trend (http_req_duration, grpc_req_duration, …) apart, and Close
	// picks the one the run was analysed with.
	Metric string
	// Limit is the value a sample must exceed, in the Trend's unit (ms
	// for k6's time trends).
	Limit float64
	// By lists the tag keys whose values split the counts (knee --by);
	// empty: the whole run only.
	By []string
	// MaxKeys bounds the tag values kept apart (0: DefaultMaxKeys).
	MaxKeys int
}

// Counter accumulates samples. The zero value is not usable; call New.
type Counter struct {
	opt     Options
	metrics map[string]*tally
	sb      strings.Builder
}

// tally is the counts of one metric.
type tally struct {
	total, over uint64
	worst       float64
	keys        map[string]*keyTally
	other       *keyTally
}

type keyTally struct {
	total, over uint64
	worst       float64
}

// New returns a Counter. It returns an error for a limit that is not a
// finite number.
func New(opt Options) (*Counter, error) {
	if math.IsNaN(opt.Limit) || math.IsInf(opt.Limit, 0) {
		return nil, fmt.Errorf("over: limit %v is not a number", opt.Limit)
	}
	if opt.MaxKeys <= 0 {
		opt.MaxKeys = DefaultMaxKeys
	}
	c := &Counter{opt: opt, metrics: map[string]*tally{}}
	if opt.Metric != "" {
		c.metrics[opt.Metric] = newTally()
	} else {
		for _, p := range outcome.Protocols {
			c.metrics[p.LatencyMetric()] = newTally()
		}
	}
	return c, nil
}

func newTally() *tally {
	return &tally{worst: math.Inf(-1), keys: map[string]*keyTally{}}
}

// Fork returns an empty Counter with c's options, for another goroutine.
func (c *Counter) Fork() *Counter {
	f, _ := New(c.opt) // c's options were checked
	return f
}

// Add counts s when it is a sample of a counted metric.
func (c *Counter) Add(s *ingest.Sample) {
	t := c.metrics[s.Metric]
	if t == nil {
		return
	}
	t.total++
	above := s.Value > c.opt.Limit
	if above {
		t.over++
		t.worst = math.Max(t.worst, s.Value)
	}
	if len(c.opt.By) == 0 {
		return
	}
	c.sb.Reset()
	for i, k := range c.opt.By {
		if i > 0 {
			c.sb.WriteByte(',')
		}
		v, _ := s.Tags.Get(k)
		c.sb.WriteString(v)
	}
	kt := t.keys[c.sb.String()]
	if kt == nil {
		if len(t.keys) >= c.opt.MaxKeys {
			if t.other == nil {
				t.other = &keyTally{worst: math.Inf(-1)}
			}
			kt = t.other
		} else {
			kt = &keyTally{worst: math.Inf(-1)}
			t.keys[c.sb.String()] = kt
		}
	}
	kt.total++
	if above {
		kt.over++
		kt.worst = math.Max(kt.worst, s.Value)
	}
}

// Merge adds the counts of o (a Fork of c) to c.
func (c *Counter) Merge(o *Counter) {
	for m, ot := range o.metrics {
		t := c.metrics[m]
		t.total += ot.total
		t.over += ot.over
		t.worst = math.Max(t.worst, ot.worst)
		merge := func(dst **keyTally, src *keyTally) {
			if *dst == nil {
				*dst = &keyTally{worst: math.Inf(-1)}
			}
			(*dst).total += src.total
			(*dst).over += src.over
			(*dst).worst = math.Max((*dst).worst, src.worst)
		}
		for k, okt := range ot.keys {
			kt := t.keys[k]
			if kt == nil && len(t.keys) >= c.opt.MaxKeys {
				merge(&t.other, okt)
				continue
			}
			merge(&kt, okt)
			t.keys[k] = kt
		}
		if ot.other != nil {
			merge(&t.other, ot.other)
		}
	}
}

// Result is the count over the limit of one Trend (the JSON contract's
// "over" object).
type Result struct {
	// Metric is the Trend counted.
	Metric string `json:"metric"`
	// LimitMS is the limit, in the Trend's unit (ms for time trends).
	LimitMS float64 `json:"limit_ms"`
	// Count is the samples above the limit, Total all samples, Share
	// Count ÷ Total (NaN without samples); WorstMS the largest value
	// (NaN when none is above).
	Count   uint64        `json:"count"`
	Total   uint64        `json:"total"`
	Share   jsonnum.Float `json:"share"`
	WorstMS jsonnum.Float `json:"worst_ms"`
	// ByTags are the tag keys of By.
	ByTags []string `json:"by_tags,omitempty"`
	// By are the tag values with a sample above the limit, the most such
	// samples first (then the worst value): each one's count above, its
	// samples, its share and its worst value.
	By []Key `json:"by"`
	// Warnings say when tag values past MaxKeys were counted together.
	Warnings []string `json:"warnings,omitempty"`
}

// Key is one tag value (several --by keys: their values joined with ",")
// of a Result.
type Key struct {
	Key     string        `json:"key"`
	Count   uint64        `json:"count"`
	Total   uint64        `json:"total"`
	Share   jsonnum.Float `json:"share"`
	WorstMS jsonnum.Float `json:"worst_ms"`
}

// Close returns the counts of metric (the Trend the run was analysed
// with, when Options.Metric was empty). A metric not counted has no
// samples.
func (c *Counter) Close(metric string) Result {
	if c.opt.Metric != "" {
		metric = c.opt.Metric
	}
	t := c.metrics[metric]
	if t == nil {
		t = newTally()
	}
	r := Result{Metric: metric, LimitMS: c.opt.Limit, Count: t.over, Total: t.total, Share: share(t.over, t.total), WorstMS: worst(t.worst),
		ByTags: c.opt.By, By: []Key{}}
	for k, kt := range t.keys {
		if kt.over > 0 {
			r.By = append(r.By, Key{Key: k, Count: kt.over, Total: kt.total, Share: share(kt.over, kt.total), WorstMS: worst(kt.worst)})
		}
	}
	slices.SortFunc(r.By, func(a, b Key) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(b.WorstMS, a.WorstMS), cmp.Compare(a.Key, b.Key))
	})
	if o := t.other; o != nil {
		if o.over > 0 {
			r.By = append(r.By, Key{Key: OtherKey, Count: o.over, Total: o.total, Share: share(o.over, o.total), WorstMS: worst(o.worst)})
		}
		r.Warnings = append(r.Warnings, fmt.Sprintf("more than %d values of %s: the samples of the rest are counted together as %s", c.opt.MaxKeys, strings.Join(c.opt.By, ","), OtherKey))
	}
	return r
}

func share(n, of uint64) jsonnum.Float {
	if of == 0 {
		return jsonnum.Float(math.NaN())
	}
	return jsonnum.Float(float64(n) / float64(of))
}

func worst(v float64) jsonnum.Float {
	if math.IsInf(v, -1) {
		return jsonnum.Float(math.NaN())
	}
	return jsonnum.Float(v)
}
