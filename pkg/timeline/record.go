package timeline

import (
	"github.com/ldanalyze/ldanalyze/internal/vugauge"
	"github.com/ldanalyze/ldanalyze/pkg/outcome"
)

// nProto is the number of protocols with a request stream (outcome.HTTP
// … outcome.Browser, indexed from 0).
const nProto = 4

// protoIndex is p's index in a record's per-protocol counts, −1 for None.
func protoIndex(p outcome.Protocol) int { return int(p) - 1 }

// reqCount counts one second of one protocol's request stream.
type reqCount struct {
	n, ok, unknown     uint32
	transport, timeout uint32
	// limited counts responses that say "too many requests": HTTP 429,
	// gRPC ResourceExhausted.
	limited uint32
	// rateSum and rateN are the sum and count of the protocol's failed-rate
	// rows (http_req_failed, browser_http_req_failed: 1 = failed).
	rateSum, rateN uint32
}

func (c *reqCount) add(o *reqCount) {
	c.n += o.n
	c.ok += o.ok
	c.unknown += o.unknown
	c.transport += o.transport
	c.timeout += o.timeout
	c.limited += o.limited
	c.rateSum += o.rateSum
	c.rateN += o.rateN
}

// resolved returns the second's successes and failures, the Unknown
// outcomes resolved by the failed-rate rows (the package doc of outcome):
// the failures among the unknown are the rate rows' failures beyond those
// the tags already told, at most the unknown; without rate rows the
// unknown count as successes.
func (c *reqCount) resolved() (ok, failed uint64) {
	tagged := uint64(c.n - c.ok - c.unknown)
	unknownFailed := uint64(0)
	if c.unknown > 0 && c.rateN > 0 && uint64(c.rateSum) > tagged {
		unknownFailed = min(uint64(c.rateSum)-tagged, uint64(c.unknown))
	}
	ok = uint64(c.ok) + uint64(c.unknown) - unknownFailed
	return ok, uint64(c.n) - ok
}

// statusCount is a count of one failure status of one second.
type statusCount struct {
	key uint32 // the Accumulator's status index (protocol, status)
	n   uint32
}

// second is the record of one second of the run.
type second struct {
	req                 [nProto]reqCount
	iterations, dropped uint32
	// metricN counts the samples of each latency candidate.
	metricN [nCand]uint32
	// fails counts failed stream samples by (protocol, status).
	fails                    []statusCount
	bytesSent, bytesReceived float64
	// msgsSent and msgsReceived are the ws_msgs_sent and
	// ws_msgs_received counters.
	msgsSent, msgsReceived float64
	vus, vusMax            vugauge.Sources
	// hist holds, per request name (the Accumulator's name number), the
	// successful latencies of the analysed Trend while the second is
	// live; histEnc the same once sealed (Hist.appendEnc; encodings
	// concatenate to a sum).
	hist    []*Hist
	histEnc [][]byte
	// nameFail counts, per request name (the same numbering as hist), the
	// failed samples of the analysed Trend: with hist's counts, the mix
	// of the requests offered in the second.
	nameFail []uint32
	// any is set once a sample fell in the second.
	any bool
}

// nCand is the most latency Trends an Accumulator keeps at once (one per
// protocol when the metric is chosen at Close).
const nCand = 4

// addFail counts n failures of status key k.
func (s *second) addFail(k uint32, n uint32) {
	for i := range s.fails {
		if s.fails[i].key == k {
			s.fails[i].n += n
			return
		}
	}
	s.fails = append(s.fails, statusCount{k, n})
}

// merge adds o into s: o's source i is s's remap[i] and o's name i is s's
// hremap[i] (nil: the same numbering; −1: past the names cap, counted in
// *over). o is dropped afterwards.
func (s *second) merge(o *second, remap, hremap []int, over *uint64, fail func(error)) {
	s.any = s.any || o.any
	for p := range s.req {
		s.req[p].add(&o.req[p])
	}
	s.iterations += o.iterations
	s.dropped += o.dropped
	for i := range s.metricN {
		s.metricN[i] += o.metricN[i]
	}
	for _, f := range o.fails {
		s.addFail(f.key, f.n)
	}
	s.bytesSent += o.bytesSent
	s.msgsSent += o.msgsSent
	s.msgsReceived += o.msgsReceived
	s.bytesReceived += o.bytesReceived
	s.vus.Merge(&o.vus, remap)
	s.vusMax.Merge(&o.vusMax, remap)
	to := func(i int) int {
		if hremap == nil {
			return i
		}
		return hremap[i]
	}
	grow := func(j int) {
		for len(s.histEnc) <= j {
			s.histEnc = append(s.histEnc, nil)
		}
	}
	for i, n := range o.nameFail {
		if j := to(i); j >= 0 && n > 0 {
			for len(s.nameFail) <= j {
				s.nameFail = append(s.nameFail, 0)
			}
			s.nameFail[j] += n
		}
	}
	for i, h := range o.hist {
		if h == nil {
			continue
		}
		j := to(i)
		if j < 0 {
			*over += h.Total()
			continue
		}
		grow(j)
		s.histEnc[j] = h.appendEnc(s.histEnc[j])
	}
	for i, enc := range o.histEnc {
		if len(enc) == 0 {
			continue
		}
		j := to(i)
		if j < 0 {
			var h Hist
			fail(h.addEnc(enc))
			*over += h.Total()
			continue
		}
		grow(j)
		s.histEnc[j] = append(s.histEnc[j], enc...)
	}
}
