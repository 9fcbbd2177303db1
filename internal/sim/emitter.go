package sim

import (
	"math/rand/v2"
	"slices"
)

// row is one emitted sample.
type row struct {
	t  int64 // ns since the Unix epoch
	v  float64
	ts *tagSet
	m  uint8
}

// group is the samples one event pushed to k6's output at once (a request's
// samples, an iteration's end, a vus tick); push is when they reach the
// output buffer.
type group struct {
	push       int64
	start, end int32
}

// emitter collects the rows of a batch (one simulated second, like k6's
// 1-s CSV flush) and hands them out in push order.
type emitter struct {
	epoch  int64 // ns since the Unix epoch of simulated t = 0
	rows   []row
	groups []group
	out    []row
	jitter float64 // mean push delay, ns
	rng    *rand.Rand
}

func newEmitter(epochNS int64, jitterNS int64, seed uint64) *emitter {
	return &emitter{
		epoch:  epochNS,
		jitter: float64(jitterNS),
		rng:    rand.New(rand.NewPCG(seed, 0x6b36)),
	}
}

// begin starts a group of samples pushed by an event at simulated time t.
// chain, when not nil, is the last push time of the VU that pushes: one VU
// pushes its samples in order (a request's, its check's, then its
// iteration's), so its groups never overtake each other.
func (o *emitter) begin(t int64, chain *int64) {
	o.close()
	push := t
	if o.jitter > 0 {
		push += int64(o.rng.ExpFloat64() * o.jitter)
	}
	if chain != nil {
		push = max(push, *chain)
		*chain = push
	}
	o.groups = append(o.groups, group{push: push, start: int32(len(o.rows))})
}

func (o *emitter) close() {
	if n := len(o.groups); n > 0 {
		o.groups[n-1].end = int32(len(o.rows))
	}
}

// add appends a sample at simulated time t to the current group.
func (o *emitter) add(m uint8, t int64, v float64, ts *tagSet) {
	o.rows = append(o.rows, row{t: o.epoch + t, v: v, ts: ts, m: m})
}

// take returns the batch's rows in push order (ties in event order) and
// starts a new batch; the slice is valid until the next take.
func (o *emitter) take() []row {
	o.close()
	if o.jitter > 0 {
		slices.SortStableFunc(o.groups, func(a, b group) int {
			switch {
			case a.push < b.push:
				return -1
			case a.push > b.push:
				return 1
			}
			return 0
		})
	}
	o.out = o.out[:0]
	for _, g := range o.groups {
		o.out = append(o.out, o.rows[g.start:g.end]...)
	}
	o.rows = o.rows[:0]
	o.groups = o.groups[:0]
	return o.out
}
