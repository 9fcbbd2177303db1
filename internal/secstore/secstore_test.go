package secstore

import (
	"math/rand/v2"
	"sync"
	"testing"
)

type rec struct{ n, sum int64 }

func add(dst, src *rec) { dst.n += src.n; dst.sum += src.sum }

// TestSharedMatchesDirect: two goroutines fill one Store in alternating
// blocks of samples that are mostly in time order, with some late by 1–3 s
// and a few by minutes; every second's record equals the direct sum, and
// absent seconds stay absent.
func TestSharedMatchesDirect(t *testing.T) {
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
	st := New(add)
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
		if _, ok := want[sec]; ok != (st.Get(sec) != nil) {
			t.Fatalf("second %d: present %v, want %v", sec, !ok, ok)
		} else if !ok {
			absent++
		}
	}
	if absent < 100 {
		t.Fatalf("only %d absent seconds tested", absent)
	}
	if r := st.Get(-99); r == nil || *r != want[-99] {
		t.Errorf("Get(-99) = %v, want %+v", r, want[-99])
	}
}

// TestReversedAndMergeFrom: samples in reverse time order (each one late)
// stay bounded in live records and sum correctly; MergeFrom adds a store
// filled apart.
func TestReversedAndMergeFrom(t *testing.T) {
	a, b := New(add), New(add)
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
		if r := a.Get(sec); r == nil || *r != (rec{1, 2}) {
			t.Fatalf("second %d: %v", sec, r)
		}
	}
}
