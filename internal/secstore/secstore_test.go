package secstore

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
)

type rec struct{ n, sum int64 }

func add(dst, src *rec) { dst.n += src.n; dst.sum += src.sum }

// recCodec encodes a rec as two varints.
var recCodec = Codec[rec]{
	Append: func(dst []byte, r *rec) []byte {
		return binary.AppendVarint(binary.AppendVarint(dst, r.n), r.sum)
	},
	Decode: func(b []byte, r *rec) ([]byte, error) {
		n, k := binary.Varint(b)
		if k <= 0 {
			return b, errors.New("short")
		}
		sum, j := binary.Varint(b[k:])
		if j <= 0 {
			return b, errors.New("short")
		}
		r.n, r.sum = n, sum
		return b[k+j:], nil
	},
	Reset: func(r *rec) { *r = rec{} },
}

// stores are the two kinds of Store the tests run on: records kept as
// they are, and records kept encoded past the newest maxHot blocks.
var stores = map[string]func() *Store[rec]{
	"plain":   func() *Store[rec] { return New(add) },
	"encoded": func() *Store[rec] { return NewEncoded(add, recCodec) },
}

// TestSharedMatchesDirect: two goroutines fill one Store in alternating
// blocks of samples that are mostly in time order, with some late by 1–3 s
// and a few by minutes; every second's record equals the direct sum, and
// absent seconds stay absent.
func TestSharedMatchesDirect(t *testing.T) {
	for name, mk := range stores {
		t.Run(name, func(t *testing.T) { testSharedMatchesDirect(t, mk()) })
	}
}

func testSharedMatchesDirect(t *testing.T, st *Store[rec]) {
	rng := rand.New(rand.NewPCG(1, 2))
	type sample struct{ sec, v int64 }
	var ss []sample
	want := map[int64]rec{}
	for sec := int64(-100); sec < 900; sec++ {
		if sec%7 == 0 {
			continue // seconds without samples
		}
		for range 1 + rng.IntN(20) {
			s := sec
			if rng.IntN(10) == 0 {
				s -= int64(1 + rng.IntN(3))
			}
			if rng.IntN(500) == 0 {
				s -= 200
			}
			v := rng.Int64N(1000)
			ss = append(ss, sample{s, v})
			r := want[s]
			r.n++
			r.sum += v
			want[s] = r
		}
	}
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := st.Local()
			for i := w * 50; i < len(ss); i += 100 {
				for _, s := range ss[i:min(i+50, len(ss))] {
					r := l.At(s.sec)
					r.n++
					r.sum += s.v
				}
			}
			l.Flush()
		}()
	}
	wg.Wait()
	if st.Len() != len(want) {
		t.Fatalf("%d seconds, want %d", st.Len(), len(want))
	}
	prev := int64(-1 << 62)
	st.Each(func(sec int64, r *rec) {
		if sec <= prev {
			t.Fatalf("Each out of order: %d after %d", sec, prev)
		}
		prev = sec
		if *r != want[sec] {
			t.Fatalf("second %d: %+v, want %+v", sec, *r, want[sec])
		}
	})
	absent := 0
	for sec := int64(-400); sec < 1000; sec++ {
		if _, ok := want[sec]; ok != (st.Get(sec, new(rec)) != nil) {
			t.Fatalf("second %d: present %v, want %v", sec, !ok, ok)
		} else if !ok {
			absent++
		}
	}
	if absent < 100 {
		t.Fatalf("only %d absent seconds tested", absent)
	}
	if r := st.Get(-99, new(rec)); r == nil || *r != want[-99] {
		t.Errorf("Get(-99) = %v, want %+v", r, want[-99])
	}
}

// TestReversedAndMergeFrom: samples in reverse time order (each one late)
// stay bounded in live records and sum correctly; MergeFrom adds a store
// filled apart.
func TestReversedAndMergeFrom(t *testing.T) {
	for name, mk := range stores {
		t.Run(name, func(t *testing.T) { testReversedAndMergeFrom(t, mk(), mk()) })
	}
}

func testReversedAndMergeFrom(t *testing.T, a, b *Store[rec]) {
	la, lb := a.Local(), b.Local()
	for sec := int64(1000); sec >= 0; sec-- {
		la.At(sec).n++
		if len(la.live) > maxLive+1 {
			t.Fatalf("%d live records", len(la.live))
		}
		lb.At(sec).sum += 2
	}
	la.Flush()
	lb.Flush()
	a.MergeFrom(b, add)
	a.MergeFrom(a, add)
	for sec := int64(0); sec <= 1000; sec++ {
		if r := a.Get(sec, new(rec)); r == nil || *r != (rec{1, 2}) {
			t.Fatalf("second %d: %v", sec, r)
		}
	}
}

// TestEncodedBounded: a long run in time order keeps at most maxHot
// blocks decoded, the rest encoded; a sample hours late decodes its block
// again and sums in; every record reads back through Get and Each; a
// malformed encoding is reported by Err and its record left out.
func TestEncodedBounded(t *testing.T) {
	st := NewEncoded(add, recCodec)
	l := st.Local()
	const n = 86400
	for sec := int64(0); sec < n; sec++ {
		r := l.At(sec)
		r.n++
		r.sum += sec
	}
	l.At(100).sum += 7 // late: its block was encoded long ago
	l.Flush()
	decoded, encoded := 0, 0
	for _, b := range st.blocks {
		if b.recs != nil {
			decoded++
		} else if b.enc != nil {
			encoded++
		}
	}
	if decoded > maxHot || decoded+encoded != n>>blockBits {
		t.Fatalf("%d blocks decoded, %d encoded, want ≤ %d and %d in all", decoded, encoded, maxHot, n>>blockBits)
	}
	if free := len(st.hot); free > maxHot {
		t.Fatalf("%d hot keys", free)
	}
	check := func(sec int64, r *rec) {
		t.Helper()
		want := rec{1, sec}
		if sec == 100 {
			want = rec{1, 107}
		}
		if r == nil || *r != want {
			t.Fatalf("second %d: %v, want %+v", sec, r, want)
		}
	}
	seen := 0
	st.Each(func(sec int64, r *rec) { check(sec, r); seen++ })
	if seen != n || st.Len() != n {
		t.Fatalf("Each saw %d seconds, Len %d, want %d", seen, st.Len(), n)
	}
	var scratch rec
	for _, sec := range []int64{0, 100, 4000, n - 1} {
		check(sec, st.Get(sec, &scratch))
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	// Break one encoded record: Err reports it and Get leaves it out.
	b := st.blocks[2]
	if b.enc == nil {
		t.Fatal("block 2 not encoded")
	}
	b.enc[b.off[5]] = 0xff
	b.enc = b.enc[:b.off[5]+1]
	if r := st.Get(128+5, &scratch); r != nil || st.Err() == nil {
		t.Fatalf("Get of a broken record = %v, Err %v", r, st.Err())
	}
}

// TestLiveSealsInBatches: in time order a Live keeps at most
// lag+sealBatch+1 seconds live and seals them sealBatch at a time, each
// second once, in one call of the seal function per batch.
func TestLiveSealsInBatches(t *testing.T) {
	calls, sealed := 0, map[int64]int{}
	l := NewLive(func(s int64) int64 { return s }, func() *rec { return new(rec) },
		func(keys []int64, _ []*rec) {
			calls++
			for _, k := range keys {
				sealed[k]++
			}
		})
	const n = 1000
	most := 0
	for sec := int64(0); sec < n; sec++ {
		l.At(sec).n++
		most = max(most, len(l.live))
	}
	l.Flush()
	if most > lag+sealBatch+1 {
		t.Errorf("%d seconds live at once, want at most %d", most, lag+sealBatch+1)
	}
	if want := n/sealBatch + 2; calls > want || calls < n/(sealBatch+1) {
		t.Errorf("%d seal calls for %d seconds, want about %d", calls, n, n/sealBatch)
	}
	for sec := int64(0); sec < n; sec++ {
		if sealed[sec] != 1 {
			t.Fatalf("second %d sealed %d times", sec, sealed[sec])
		}
	}
}

// TestRangeRawMatchesGetRaw: RangeRaw visits, in order, exactly the
// seconds of [from, to) that GetRaw finds, with the same record or
// encoding, for ranges that start and end anywhere in a block (negative
// seconds too), in decoded and encoded blocks.
func TestRangeRawMatchesGetRaw(t *testing.T) {
	for name, mk := range stores {
		t.Run(name, func(t *testing.T) {
			st := mk()
			l := st.Local()
			rng := rand.New(rand.NewPCG(11, 12))
			for sec := int64(-300); sec < 3000; sec++ {
				if rng.IntN(4) > 0 {
					l.At(sec).n++
				}
			}
			l.Flush()
			for range 3000 {
				from := -400 + rng.Int64N(3500)
				to := from + rng.Int64N(300) - 20
				var want []int64
				for k := from; k < to; k++ {
					if _, _, ok := st.GetRaw(k); ok {
						want = append(want, k)
					}
				}
				var got []int64
				st.RangeRaw(from, to, func(sec int64, r *rec, enc []byte) {
					wr, we, _ := st.GetRaw(sec)
					if wr != r || len(we) != len(enc) || (len(we) > 0 && &we[0] != &enc[0]) {
						t.Fatalf("second %d: RangeRaw gave another record than GetRaw", sec)
					}
					got = append(got, sec)
				})
				if len(got) != len(want) || (len(got) > 0 && (got[0] != want[0] || got[len(got)-1] != want[len(want)-1])) {
					t.Fatalf("[%d, %d): %d seconds %v…, want %d %v…", from, to, len(got), got[:min(3, len(got))], len(want), want[:min(3, len(want))])
				}
				for i := 1; i < len(got); i++ {
					if got[i] <= got[i-1] {
						t.Fatalf("[%d, %d): out of order at %d", from, to, got[i])
					}
				}
			}
		})
	}
}

// TestEncodedLateAcrossBlocks: four goroutines fill an encoded Store over
// 6,000 seconds (~94 blocks, far more than maxHot), in runs of time order
// broken by samples late by up to an hour and bursts of seconds scattered
// over the whole run (a seal then takes more blocks than maxHot, out of
// the hot ones, some of them its own or another Local's while it encodes
// them after unlocking); every second's record equals the direct sum.
func TestEncodedLateAcrossBlocks(t *testing.T) {
	st := NewEncoded(add, recCodec)
	rng := rand.New(rand.NewPCG(3, 4))
	type sample struct{ sec, v int64 }
	var ss []sample
	want := map[int64]rec{}
	put := func(s int64) {
		v := rng.Int64N(1000)
		ss = append(ss, sample{s, v})
		r := want[s]
		r.n++
		r.sum += v
		want[s] = r
	}
	for sec := int64(0); sec < 6000; sec++ {
		for range 1 + rng.IntN(4) {
			s := sec
			switch rng.IntN(40) {
			case 0:
				s -= rng.Int64N(3600)
			case 1:
				for range 70 { // a burst all over the run
					put(rng.Int64N(6000))
				}
			}
			put(s)
		}
	}
	var wg sync.WaitGroup
	const workers, run = 4, 300
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := st.Local()
			for i := w * run; i < len(ss); i += workers * run {
				for _, s := range ss[i:min(i+run, len(ss))] {
					r := l.At(s.sec)
					r.n++
					r.sum += s.v
				}
			}
			l.Flush()
		}()
	}
	wg.Wait()
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	if st.Len() != len(want) {
		t.Fatalf("%d seconds, want %d", st.Len(), len(want))
	}
	n := 0
	st.Each(func(sec int64, r *rec) {
		n++
		if *r != want[sec] {
			t.Fatalf("second %d: %+v, want %+v", sec, *r, want[sec])
		}
	})
	if n != len(want) {
		t.Fatalf("Each visited %d seconds, want %d", n, len(want))
	}
}
