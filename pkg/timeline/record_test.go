package timeline

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/ldanalyze/ldanalyze/internal/secstore"
	"github.com/ldanalyze/ldanalyze/internal/vugauge"
	"github.com/ldanalyze/ldanalyze/pkg/ingest"
)

// fullSecond is a record with every field set, fractions, a negative
// gauge and two sources among them, live histograms beside sealed ones.
func fullSecond() *second {
	s := &second{any: true, iterations: 300, dropped: 2, metricN: [nCand]uint32{7, 0, 1 << 20, 3}}
	s.req[0] = reqCount{n: 1000, ok: 900, unknown: 5, transport: 3, timeout: 2, limited: 40, rateSum: 95, rateN: 1000}
	s.req[2] = reqCount{n: 1, ok: 1}
	s.fails = []statusCount{{1, 60}, {otherStatus, 40}}
	s.bytesSent, s.bytesReceived, s.msgsSent, s.msgsReceived = 1<<40, 12.5, math.Copysign(0, -1), 3
	s.vus.Add(0, 10)
	s.vus.Add(0, 11)
	s.vus.Add(2, -1.25)
	s.vusMax.Add(1, 50)
	var h Hist
	h[4], h[90] = 1, 70000
	s.histEnc = [][]byte{h.appendEnc(nil), nil, h.appendEnc(nil)}
	s.histAt(1).add(3)
	s.histAt(3).add(1e9)
	s.nameFail = []uint32{0, 5, 0, 1 << 31}
	return s
}

// sealed is s as the Store keeps it: the live histograms folded into the
// encodings (merge into an empty record).
func sealed(s *second) *second {
	var d second
	d.merge(s, nil, nil, new(uint64), func(error) {})
	// 0 + −0 is 0: the counters as they were, bit for bit.
	d.bytesSent, d.bytesReceived, d.msgsSent, d.msgsReceived = s.bytesSent, s.bytesReceived, s.msgsSent, s.msgsReceived
	return &d
}

// same compares two records field by field, the VU gauges by their
// totals and each name's histogram by its counts.
func same(t *testing.T, what string, got, want *second) {
	t.Helper()
	if got.any != want.any || got.req != want.req || got.iterations != want.iterations || got.dropped != want.dropped ||
		got.metricN != want.metricN || !reflect.DeepEqual(got.fails, want.fails) && (len(got.fails) > 0 || len(want.fails) > 0) {
		t.Fatalf("%s: counts %+v, want %+v", what, got, want)
	}
	for _, p := range [][2]float64{{got.bytesSent, want.bytesSent}, {got.bytesReceived, want.bytesReceived}, {got.msgsSent, want.msgsSent}, {got.msgsReceived, want.msgsReceived}} {
		if math.Float64bits(p[0]) != math.Float64bits(p[1]) {
			t.Fatalf("%s: counter %v, want %v", what, p[0], p[1])
		}
	}
	for _, g := range [][2]*vugauge.Sources{{&got.vus, &want.vus}, {&got.vusMax, &want.vusMax}} {
		a, oka := g[0].Total()
		b, okb := g[1].Total()
		// Fuzzed bytes can hold a NaN gauge, which equals nothing.
		if (a != b && !(math.IsNaN(a) && math.IsNaN(b))) || oka != okb || fmt.Sprint(*g[0]) != fmt.Sprint(*g[1]) {
			t.Fatalf("%s: gauge %v, want %v", what, *g[0], *g[1])
		}
	}
	if len(got.histEnc) != len(want.histEnc) || len(got.nameFail) != len(want.nameFail) {
		t.Fatalf("%s: %d names, %d failures, want %d, %d", what, len(got.histEnc), len(got.nameFail), len(want.histEnc), len(want.nameFail))
	}
	for i := range want.histEnc {
		var a, b Hist
		ea, eb := a.addEnc(got.histEnc[i]), b.addEnc(want.histEnc[i])
		if ea != nil || eb != nil {
			// Bytes that are no histogram (fuzzed) are kept as they are.
			if string(got.histEnc[i]) != string(want.histEnc[i]) {
				t.Fatalf("%s: name %d bytes differ", what, i)
			}
		} else if a != b {
			t.Fatalf("%s: name %d histogram differs", what, i)
		}
	}
	for i := range want.nameFail {
		if got.nameFail[i] != want.nameFail[i] {
			t.Fatalf("%s: name %d failures %d, want %d", what, i, got.nameFail[i], want.nameFail[i])
		}
	}
}

// TestSecondCodec: a record round-trips through its encoding (live
// histograms folded into the sealed ones), decodeCounts gives the counts
// and encNames each name's bytes; every strict prefix of the encoding is
// an error, never a panic or a record.
func TestSecondCodec(t *testing.T) {
	s := fullSecond()
	want := sealed(fullSecond())
	enc := appendSecond(nil, s)
	var got second
	rest, err := decodeSecond(enc, &got)
	if err != nil || len(rest) != 0 {
		t.Fatalf("decode: %v, %d bytes left", err, len(rest))
	}
	same(t, "round trip", &got, want)
	if len(enc) > 120 {
		t.Errorf("%d bytes for one second", len(enc))
	}
	var counts second
	counts.histEnc = [][]byte{{1}}
	if r := decodeCounts(enc, &counts); r.Err != nil || counts.req != want.req || !reflect.DeepEqual(counts.fails, want.fails) || len(counts.histEnc) != 0 {
		t.Fatalf("counts: %v %+v", r.Err, counts)
	}
	for i := range want.histEnc {
		h, f, err := encNames(enc, i)
		var a, b Hist
		if err != nil || a.addEnc(h) != nil || b.addEnc(want.histEnc[i]) != nil || a != b || f != want.nameFail[i] {
			t.Fatalf("name %d: %v, %d failures", i, err, f)
		}
	}
	if h, f, err := encNames(enc, 10); err != nil || h != nil || f != 0 {
		t.Fatalf("name past the record: %v %d %v", h, f, err)
	}
	for n := range len(enc) {
		var x second
		if _, err := decodeSecond(enc[:n], &x); err == nil {
			t.Fatalf("a %d-byte prefix of %d decoded", n, len(enc))
		}
	}
	// An empty second and a reset one encode alike.
	s.reset()
	if a, b := appendSecond(nil, s), appendSecond(nil, &second{}); string(a) != string(b) {
		t.Fatalf("reset record encodes as %v, empty as %v", a, b)
	}
	if len(s.spareHist) != 2 || s.spareHist[0].h.Total() != 0 || s.spareHist[0].used != [2]uint64{} {
		t.Fatalf("reset kept %d spare histograms", len(s.spareHist))
	}
}

// FuzzDecodeSecond: any bytes decode to a record or an error, never a
// panic; a record that decodes encodes to bytes that decode to it again.
func FuzzDecodeSecond(f *testing.F) {
	f.Add(appendSecond(nil, fullSecond()))
	f.Add(appendSecond(nil, &second{}))
	f.Add([]byte{0xff, 0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		var s second
		if _, err := decodeSecond(b, &s); err != nil {
			return
		}
		var back second
		if _, err := decodeSecond(appendSecond(nil, &s), &back); err != nil {
			t.Fatalf("re-encoding does not decode: %v", err)
		}
		same(t, "re-encoded", &back, &s)
	})
}

// TestLongRunEncoded: a 5-hour run (281 blocks of 64 s, most kept
// encoded) gives the same seconds, histograms and name failures as the
// same run kept in plain records; NameMix agrees with NameHist and
// NameFailures.
func TestLongRunEncoded(t *testing.T) {
	plain := New(Options{})
	plain.sh.secs = secstore.New(func(d, s *second) { d.merge(s, nil, nil, new(uint64), func(error) {}) })
	plain.live = plain.sh.secs.Local()
	enc := New(Options{})
	names := []string{"home", "search", "cart"}
	const t0 = 1_700_000_000
	for sec := int64(0); sec < 5*3600; sec++ {
		ns := (t0 + sec) * 1e9
		for k := range 1 + sec%4 {
			name := names[(sec+k)%3]
			status, failed := "200", "false"
			if (sec+k)%7 == 0 {
				status, failed = "503", "true"
			}
			tags := ingest.NewTags([]string{"name", "status", "expected_response", "method"}, []string{name, status, map[string]string{"true": "false", "false": "true"}[failed], "GET"}, "", "")
			for _, s := range []ingest.Sample{
				{Metric: "http_reqs", TimeNS: ns, Value: 1, Tags: tags},
				{Metric: "http_req_duration", TimeNS: ns + k*1e6, Value: float64(10 + sec%50 + k), Tags: tags},
				{Metric: "data_sent", TimeNS: ns, Value: 100.5, Tags: tags},
			} {
				plain.Add(&s)
				enc.Add(&s)
			}
		}
		vus := ingest.Sample{Metric: "vus", TimeNS: ns, Value: float64(sec % 100)}
		plain.Add(&vus)
		enc.Add(&vus)
	}
	a, b := plain.Close(1e9), enc.Close(1e9)
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	encoded := 0
	b.sh.secs.EachRaw(func(_ int64, r *second, _ []byte) {
		if r == nil {
			encoded++
		}
	})
	if encoded < 4*3600 {
		t.Fatalf("only %d of %d seconds kept encoded", encoded, b.DataSeconds())
	}
	sameRecords(t, a, b)
	var fa, fb uint64
	a.Each(func(_ int64, s *Second) { fa += s.Failed })
	b.Each(func(_ int64, s *Second) { fb += s.Failed })
	if fa != fb || fa == 0 {
		t.Fatalf("%d failures encoded, %d plain", fb, fa)
	}
	from, to := b.Main().First+100, b.Main().Last-100
	hs, failed := b.NameMix(from, to)
	for i := range b.HistNames() {
		if hs[i] != b.NameHist(i, from, to) || failed[i] != b.NameFailures(i, from, to) || hs[i] != a.NameHist(i, from, to) {
			t.Fatalf("name %d: NameMix differs from NameHist/NameFailures", i)
		}
	}
}

// zeroish reports whether v is as reset leaves a record's field: zero,
// with slices empty (their capacity kept) at any depth.
func zeroish(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice:
		return v.Len() == 0
	case reflect.Struct:
		for i := range v.NumField() {
			if !zeroish(v.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Array:
		for i := range v.Len() {
			if !zeroish(v.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Float64:
		return math.Float64bits(v.Float()) == 0 // −0 is not
	}
	return v.IsZero()
}

// TestSecondResetEveryField: reset empties every field of a full record
// (fullSecond sets each one) but the spare histograms, which it fills
// with the live ones; a field added to second fails here until reset
// and fullSecond handle it.
func TestSecondResetEveryField(t *testing.T) {
	known := map[string]bool{"req": true, "iterations": true, "dropped": true, "metricN": true, "fails": true,
		"bytesSent": true, "bytesReceived": true, "msgsSent": true, "msgsReceived": true, "vus": true, "vusMax": true,
		"hist": true, "histEnc": true, "spareHist": true, "nameFail": true, "any": true}
	s := fullSecond()
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		if !known[name] {
			t.Fatalf("second.%s is new: reset it in reset, set it in fullSecond, list it here", name)
		}
		if name != "spareHist" && zeroish(v.Field(i)) {
			t.Fatalf("fullSecond leaves second.%s empty", name)
		}
	}
	live := len(s.hist) - 2 // histAt(1), histAt(3): two live, two nil
	s.reset()
	for i := range v.NumField() {
		if name := v.Type().Field(i).Name; name != "spareHist" && !zeroish(v.Field(i)) {
			t.Errorf("reset left second.%s = %v", name, v.Field(i))
		}
	}
	if len(s.spareHist) != live {
		t.Errorf("%d spare histograms, want %d", len(s.spareHist), live)
	}
}

// TestMoveSecondMatchesMerge: moving a sealed live second into an emptied
// record (secondCodec.Move, how a Local's seal fills a second the Store
// holds no record of) makes the record merging it would: the same fields
// (spare histograms aside, which stay with their record) and the same
// encoding, for random seconds built as Add builds them — counts of every
// protocol, failures by status, gauges of up to three sources, byte and
// message sums, histograms and failures of names with gaps — into a
// record new or emptied after holding another.
func TestMoveSecondMatchesMerge(t *testing.T) {
	build := func(seed uint64, s *second) {
		rng := rand.New(rand.NewPCG(seed, 1))
		s.any = true
		for p := range s.req {
			if rng.IntN(2) == 0 {
				c := &s.req[p]
				c.n, c.ok, c.unknown, c.transport = rng.Uint32N(100), rng.Uint32N(100), rng.Uint32N(3), rng.Uint32N(3)
				c.timeout, c.limited, c.rateSum, c.rateN = rng.Uint32N(3), rng.Uint32N(3), rng.Uint32N(50), rng.Uint32N(50)
			}
		}
		s.iterations, s.dropped = rng.Uint32N(40), rng.Uint32N(3)
		for i := range s.metricN {
			s.metricN[i] = rng.Uint32N(100)
		}
		for range rng.IntN(4) {
			s.addFail(rng.Uint32N(5), 1+rng.Uint32N(9))
		}
		for range rng.IntN(30) {
			switch rng.IntN(6) {
			case 0:
				s.bytesSent += float64(rng.IntN(3000))
			case 1:
				s.bytesReceived += float64(rng.IntN(30000)) / 8
			case 2:
				s.msgsSent++
			case 3:
				s.vus.Add(rng.IntN(3), float64(rng.IntN(50)))
			case 4:
				s.vusMax.Add(rng.IntN(2), float64(rng.IntN(60)))
			case 5:
				j := rng.IntN(6)
				for len(s.nameFail) <= j {
					s.nameFail = append(s.nameFail, 0)
				}
				s.nameFail[j]++
			}
		}
		for range rng.IntN(40) {
			s.histAt(rng.IntN(5)).add(rng.Float64() * 300)
		}
		s.sealHists()
	}
	for seed := range uint64(300) {
		var merged, moved, src1, src2 second
		if seed%2 == 1 {
			// Records emptied after holding another.
			build(seed+1000, &merged)
			build(seed+1000, &moved)
			merged.reset()
			moved.reset()
		}
		build(seed, &src1)
		build(seed, &src2)
		merged.merge(&src1, nil, nil, new(uint64), func(err error) { t.Fatal(err) })
		moveSecond(&moved, &src2)
		a, b := appendSecond(nil, &merged), appendSecond(nil, &moved)
		merged.spareHist, moved.spareHist = nil, nil
		if string(a) != string(b) {
			t.Fatalf("seed %d: encodings differ: moved %x, merged %x", seed, b, a)
		}
		// The fields, an empty slice and nil alike (as %v prints them).
		if m, v := fmt.Sprintf("%+v", merged), fmt.Sprintf("%+v", moved); m != v {
			t.Fatalf("seed %d: moved %s\nmerged %s", seed, v, m)
		}
	}
}
