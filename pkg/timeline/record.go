package timeline

import (
	"github.com/ldanalyze/ldanalyze/internal/secstore"
	"github.com/ldanalyze/ldanalyze/internal/varenc"
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
	hist    []*liveHist
	histEnc [][]byte
	// spareHist are emptied histograms of an earlier second, for hist.
	spareHist []*liveHist
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
			*over += h.h.Total()
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
		if len(s.histEnc[j]) == 0 {
			// Nothing writes into o's encodings afterwards (reset drops
			// them; a decoded block's have their capacity cut), so s can
			// keep them instead of a copy.
			s.histEnc[j] = enc
			continue
		}
		s.histEnc[j] = append(s.histEnc[j], enc...)
	}
}

// histAt returns the live histogram of name number i, adding it (an
// emptied one of an earlier second when there is one).
func (s *second) histAt(i int) *liveHist {
	for len(s.hist) <= i {
		s.hist = append(s.hist, nil)
	}
	if s.hist[i] == nil {
		if n := len(s.spareHist); n > 0 {
			s.hist[i] = s.spareHist[n-1]
			s.spareHist = s.spareHist[:n-1]
		} else {
			s.hist[i] = &liveHist{}
		}
	}
	return s.hist[i]
}

// reset empties s for reuse (secstore.Codec.Reset), keeping its slices'
// capacity and its histograms, emptied, as spares.
func (s *second) reset() {
	for _, h := range s.hist {
		if h != nil {
			h.reset()
			s.spareHist = append(s.spareHist, h)
		}
	}
	clear(s.hist)
	clear(s.histEnc) // they may share an encoded block's bytes
	// Field by field (TestSecondResetEveryField checks every one):
	// assigning a whole second{} built a new record and copied all of it
	// back, slices with their write barriers, for every record sealed.
	s.req = [nProto]reqCount{}
	s.iterations, s.dropped = 0, 0
	s.metricN = [nCand]uint32{}
	s.fails = s.fails[:0]
	s.bytesSent, s.bytesReceived, s.msgsSent, s.msgsReceived = 0, 0, 0, 0
	s.vus.Reset()
	s.vusMax.Reset()
	s.hist, s.histEnc, s.nameFail = s.hist[:0], s.histEnc[:0], s.nameFail[:0]
	s.any = false
}

// secondCodec keeps sealed seconds encoded (secstore.NewEncoded): a flags
// byte (bit 0: any; bit 1+p: protocol p has counts), then the counts as a
// length-prefixed section (each counted protocol's eight counts,
// iterations, dropped, metricN, the failures by status, the byte and
// message counters as varenc floats, the two VU gauges), then each name's
// histogram (length-prefixed appendEnc bytes) and each name's failures —
// ~50–80 bytes for a second of a run with a few request names, against
// ~400 for the record. Readers of one part skip the others: views decode
// the counts (decodeCounts), NameHist finds one name's bytes (encNames).
var secondCodec = secstore.Codec[second]{Append: appendSecond, Decode: decodeSecond, Reset: (*second).reset, Prepare: (*second).sealHists, Move: moveSecond}

// moveSecond is merge(dst, o, nil, nil, …) for dst emptied by reset and o
// sealed (sealHists: no live histogram), by swapping their fields: every
// count of dst is zero, so merging adds o's to nothing (a live second's
// byte and message sums and gauge sums are never −0, which 0 + −0 would
// turn into +0: they start at +0), fails are distinct already, and the
// last failure count and histogram encoding of o's names are never empty
// (grown to a name's number by adding to it), so merge's lengths are o's.
// Each record keeps its own spare histograms. o is reset afterwards.
func moveSecond(dst, o *second) {
	spare, ospare := dst.spareHist, o.spareHist
	*dst, *o = *o, *dst
	dst.spareHist, o.spareHist = spare, ospare
}

// sealHists encodes s's live histograms into histEnc (emptied ones kept
// as spares): merging s then appends the same bytes that merging its live
// histograms would have (Hist.appendEnc; encodings concatenate to a sum).
func (s *second) sealHists() {
	for i, h := range s.hist {
		if h == nil {
			continue
		}
		for len(s.histEnc) <= i {
			s.histEnc = append(s.histEnc, nil)
		}
		s.histEnc[i] = h.appendEnc(s.histEnc[i])
		h.reset()
		s.spareHist = append(s.spareHist, h)
		s.hist[i] = nil
	}
	s.hist = s.hist[:0]
}

func appendSecond(dst []byte, s *second) []byte {
	var flags byte
	if s.any {
		flags |= 1
	}
	for p := range s.req {
		if s.req[p] != (reqCount{}) {
			flags |= 2 << p
		}
	}
	dst = append(dst, flags)
	dst = varenc.AppendPrefixed(dst, func(dst []byte) []byte { return s.appendCounts(dst, flags) })
	names := max(len(s.hist), len(s.histEnc))
	dst = varenc.AppendUint(dst, uint64(names))
	for j := range names {
		dst = varenc.AppendPrefixed(dst, func(dst []byte) []byte {
			if j < len(s.histEnc) {
				dst = append(dst, s.histEnc[j]...)
			}
			if j < len(s.hist) && s.hist[j] != nil {
				dst = s.hist[j].appendEnc(dst)
			}
			return dst
		})
	}
	dst = varenc.AppendUint(dst, uint64(len(s.nameFail)))
	for _, n := range s.nameFail {
		dst = varenc.AppendUint(dst, uint64(n))
	}
	return dst
}

func (s *second) appendCounts(dst []byte, flags byte) []byte {
	for p := range s.req {
		if flags&(2<<p) == 0 {
			continue
		}
		c := &s.req[p]
		for _, v := range [...]uint32{c.n, c.ok, c.unknown, c.transport, c.timeout, c.limited, c.rateSum, c.rateN} {
			dst = varenc.AppendUint(dst, uint64(v))
		}
	}
	dst = varenc.AppendUint(dst, uint64(s.iterations))
	dst = varenc.AppendUint(dst, uint64(s.dropped))
	for _, n := range s.metricN {
		dst = varenc.AppendUint(dst, uint64(n))
	}
	dst = varenc.AppendUint(dst, uint64(len(s.fails)))
	for _, f := range s.fails {
		dst = varenc.AppendUint(dst, uint64(f.key))
		dst = varenc.AppendUint(dst, uint64(f.n))
	}
	for _, v := range [...]float64{s.bytesSent, s.bytesReceived, s.msgsSent, s.msgsReceived} {
		dst = varenc.AppendFloat(dst, v)
	}
	dst = s.vus.AppendEnc(dst)
	return s.vusMax.AppendEnc(dst)
}

// decodeCounts sets s to the counts of the encoded second at the start
// of b (everything but the names' histograms and failures, which it
// empties) and returns a reader at the names.
func decodeCounts(b []byte, s *second) varenc.Reader {
	if len(b) == 0 {
		return varenc.Reader{Err: varenc.ErrShort}
	}
	flags := b[0]
	r := varenc.Reader{B: b[1:]}
	n := r.Uint()
	if n > uint64(len(r.B)) {
		return varenc.Reader{Err: varenc.ErrShort}
	}
	c := varenc.Reader{B: r.B[:n]}
	r.B = r.B[n:]
	s.any = flags&1 != 0
	for p := range s.req {
		q := &s.req[p]
		if flags&(2<<p) == 0 {
			*q = reqCount{}
			continue
		}
		q.n, q.ok, q.unknown, q.transport = c.Uint32(), c.Uint32(), c.Uint32(), c.Uint32()
		q.timeout, q.limited, q.rateSum, q.rateN = c.Uint32(), c.Uint32(), c.Uint32(), c.Uint32()
	}
	s.iterations = c.Uint32()
	s.dropped = c.Uint32()
	for i := range s.metricN {
		s.metricN[i] = c.Uint32()
	}
	s.fails = s.fails[:0]
	for range c.Len() {
		s.fails = append(s.fails, statusCount{c.Uint32(), c.Uint32()})
	}
	s.bytesSent, s.bytesReceived, s.msgsSent, s.msgsReceived = c.Float(), c.Float(), c.Float(), c.Float()
	s.vus.Reset()
	s.vusMax.Reset()
	s.vus.Decode(&c)
	s.vusMax.Decode(&c)
	clear(s.hist)
	s.hist = s.hist[:0]
	clear(s.histEnc)
	s.histEnc = s.histEnc[:0]
	s.nameFail = s.nameFail[:0]
	if c.Err != nil || len(c.B) != 0 {
		return varenc.Reader{Err: varenc.ErrShort}
	}
	return r
}

// decodeSecond decodes a whole encoded second (secstore.Codec.Decode).
func decodeSecond(b []byte, s *second) ([]byte, error) {
	r := decodeCounts(b, s)
	for range r.Len() {
		s.histEnc = append(s.histEnc, r.Bytes())
	}
	for range r.Len() {
		s.nameFail = append(s.nameFail, r.Uint32())
	}
	return r.B, r.Err
}

// encNames returns name number i's histogram encoding and failures from
// the encoded second at the start of b, skipping the rest.
func encNames(b []byte, i int) (hist []byte, failed uint32, err error) {
	if len(b) == 0 {
		return nil, 0, varenc.ErrShort
	}
	r := varenc.Reader{B: b[1:]}
	r.Skip(r.Uint())
	n := r.Len()
	for j := range n {
		if j == i {
			hist = r.Bytes()
		} else {
			r.Skip(r.Uint())
		}
	}
	m := r.Len()
	for j := range m {
		v := r.Uint32()
		if j == i {
			failed = v
		}
	}
	return hist, failed, r.Err
}
