package sketch

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// same fails unless a and b hold the same summary: count, sum, min, max,
// mode and every percentile equal.
func same(t *testing.T, what string, a, b *Sketch) {
	t.Helper()
	if a.Count() != b.Count() || a.Exact() != b.Exact() {
		t.Fatalf("%s: count/exact %d/%v vs %d/%v", what, a.Count(), a.Exact(), b.Count(), b.Exact())
	}
	if a.Count() == 0 {
		return
	}
	if a.Min() != b.Min() || a.Max() != b.Max() || math.Abs(a.Sum()-b.Sum()) > 1e-9*math.Abs(a.Sum()) {
		t.Fatalf("%s: min/max/sum %v %v %v vs %v %v %v", what, a.Min(), a.Max(), a.Sum(), b.Min(), b.Max(), b.Sum())
	}
	for _, q := range []float64{0, 0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999, 1} {
		if x, y := a.Quantile(q), b.Quantile(q); x != y {
			t.Fatalf("%s: q%v = %v vs %v", what, q, x, y)
		}
	}
}

// micros rounds to six decimals, as k6's CSV output prints values.
func micros(v float64) float64 { return math.Round(v*1e6) / 1e6 }

func TestEncodeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	gens := map[string]func() float64{
		"csv-latency": func() float64 { return micros(math.Exp(rng.NormFloat64() + 3)) },
		"json-float":  func() float64 { return math.Exp(rng.NormFloat64() + 3) },
		"signed":      func() float64 { return micros(rng.NormFloat64() * 50) },
		"zeros":       func() float64 { return float64(rng.IntN(3)) },
		"wide":        func() float64 { return math.Pow(10, rng.Float64()*30-15) },
	}
	for name, gen := range gens {
		for _, n := range []int{0, 1, 7, 1024, 1025, 20000} {
			var s Sketch
			for range n {
				s.Add(gen())
			}
			enc := s.AppendEncoded(nil)
			var d Sketch
			if err := d.MergeEncoded(enc); err != nil {
				t.Fatalf("%s n=%d: %v", name, n, err)
			}
			same(t, name, &d, &s)
			// Merging the encoding into a non-empty sketch equals Merge.
			var a, b Sketch
			for range 300 {
				v := gen()
				a.Add(v)
				b.Add(v)
			}
			a.Merge(&s)
			if err := b.MergeEncoded(enc); err != nil {
				t.Fatal(err)
			}
			same(t, name+" merged", &b, &a)
		}
	}
}

// TestEncodeSize checks the point of the encoding: a second of k6 CSV
// latencies (400 values, six decimals) in under 3 bytes a value, a busy
// second (20,000 values, histogram) in under 1.6 bytes a non-empty bucket,
// instead of 8 bytes a value and 4 bytes a bucket between min and max.
func TestEncodeSize(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var s Sketch
	for range 400 {
		s.Add(micros(math.Exp(rng.NormFloat64()*0.8 + 3)))
	}
	if n := len(s.AppendEncoded(nil)); n > 3*400+40 {
		t.Errorf("400 exact values: %d bytes", n)
	}
	var h Sketch
	for range 20000 {
		h.Add(micros(math.Exp(rng.NormFloat64()*0.8 + 3)))
	}
	nonEmpty := 0
	for _, c := range h.pos.counts {
		if c != 0 {
			nonEmpty++
		}
	}
	if n := len(h.AppendEncoded(nil)); float64(n) > 1.6*float64(nonEmpty)+40 {
		t.Errorf("histogram of %d non-empty buckets: %d bytes", nonEmpty, n)
	}
}

func TestMergeEncodedRefusesDamage(t *testing.T) {
	var s Sketch
	for i := range 2000 {
		s.Add(float64(i) / 7)
	}
	enc := s.AppendEncoded(nil)
	for _, bad := range [][]byte{nil, {9}, enc[:len(enc)-1], append(append([]byte{}, enc...), 0)} {
		var d Sketch
		d.Add(1)
		if err := d.MergeEncoded(bad); err == nil {
			t.Errorf("accepted %d bytes of damage", len(bad))
		}
		if d.Count() != 1 {
			t.Errorf("damaged input changed the sketch")
		}
	}
}

func FuzzMergeEncoded(f *testing.F) {
	var s Sketch
	for i := range 1500 {
		s.Add(float64(i%97) - 3.25)
	}
	f.Add(s.AppendEncoded(nil))
	var e Sketch
	e.Add(1.5)
	e.Add(2.000001)
	f.Add(e.AppendEncoded(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		var d Sketch
		if err := d.MergeEncoded(b); err != nil {
			return
		}
		// Whatever decodes re-encodes to something that decodes the same.
		var r Sketch
		if err := r.MergeEncoded(d.AppendEncoded(nil)); err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		if r.Count() != d.Count() {
			t.Fatalf("count %d vs %d", r.Count(), d.Count())
		}
	})
}

type timed struct {
	sec int64
	v   float64
}

// run makes 600 seconds of latencies whose rate rises with time, in time
// order except that 5 % of values are stamped 1–3 s early (k6 flushes
// late), plus a few very late ones.
func run(rng *rand.Rand) []timed {
	var out []timed
	for sec := int64(1_700_000_000); sec < 1_700_000_600; sec++ {
		n := 50 + int(sec-1_700_000_000)*3
		for range n {
			s := sec
			if rng.IntN(20) == 0 {
				s -= int64(1 + rng.IntN(3))
			}
			if rng.IntN(5000) == 0 {
				s -= 300
			}
			out = append(out, timed{s, micros(math.Exp(rng.NormFloat64() + 3 + float64(sec%600)/300))})
		}
	}
	return out
}

// TestSeriesMatchesDirect feeds a run through two concurrent Writers, each
// given alternating chunks as the parallel CSV reader does, and checks that
// every range equals a sketch of the same values added directly.
func TestSeriesMatchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	vals := run(rng)
	s := NewSeries(-1)
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wr := s.Writer()
			for i := w * 1000; i < len(vals); i += 2000 {
				for _, x := range vals[i:min(i+1000, len(vals))] {
					wr.Add(x.sec, 0, x.v)
				}
			}
			wr.Flush()
		}()
	}
	wg.Wait()
	if s.Width() != 1 {
		t.Fatalf("width %d without a slot limit", s.Width())
	}
	for _, r := range [][2]int64{{1_700_000_000, 1_700_000_001}, {1_700_000_010, 1_700_000_040}, {1_699_999_000, 1_700_001_000}, {1_700_000_599, 1_700_000_600}} {
		var direct Sketch
		for _, x := range vals {
			if x.sec >= r[0] && x.sec < r[1] {
				direct.Add(x.v)
			}
		}
		same(t, "range", s.Range(0, r[0], r[1]), &direct)
	}
	// The encodings are much smaller than the live sketches would be.
	if live := len(vals) * 8; s.Bytes() > live/2 {
		t.Errorf("series holds %d bytes for %d values", s.Bytes(), len(vals))
	}
}

// TestSeriesCoarsens gives a small slot limit: the width doubles to the
// smallest power of two at which the values fill no more slots than that,
// whatever the order of the values, no value is lost, and each range holds
// exactly the slots whose midpoints it contains.
func TestSeriesCoarsens(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	vals := run(rng)
	const maxSlots = 64
	s := NewSeries(maxSlots)
	wr := s.Writer()
	for _, x := range vals {
		wr.Add(x.sec, 0, x.v)
	}
	wr.Flush()
	occupied := func(w int64) int {
		m := map[int64]bool{}
		for _, x := range vals {
			m[floorDiv(x.sec, w)] = true
		}
		return len(m)
	}
	want := int64(1)
	for occupied(want) > maxSlots {
		want *= 2
	}
	w := s.Width()
	if w != want || w < 4 {
		t.Fatalf("width %d, want %d", w, want)
	}
	// Shuffled, the same width and the same summaries.
	sh := NewSeries(maxSlots)
	sw := sh.Writer()
	for _, i := range rng.Perm(len(vals)) {
		sw.Add(vals[i].sec, 0, vals[i].v)
	}
	sw.Flush()
	if sh.Width() != w {
		t.Fatalf("shuffled: width %d, want %d", sh.Width(), w)
	}
	same(t, "shuffled", sh.Range(0, 1_700_000_100, 1_700_000_400), s.Range(0, 1_700_000_100, 1_700_000_400))
	all := s.Range(0, 0, 2_000_000_000)
	if all.Count() != uint64(len(vals)) {
		t.Fatalf("%d values, want %d", all.Count(), len(vals))
	}
	from, to := int64(1_700_000_100), int64(1_700_000_203)
	var direct Sketch
	for _, x := range vals {
		mid2 := 2*floorDiv(x.sec, w)*w + w
		if mid2 >= 2*from && mid2 < 2*to {
			direct.Add(x.v)
		}
	}
	same(t, "coarse range", s.Range(0, from, to), &direct)
	// Adjacent ranges share nothing and miss nothing.
	a, b := s.Range(0, 1_699_999_000, from), s.Range(0, from, 1_700_001_000)
	if a.Count()+b.Count() != uint64(len(vals)) {
		t.Errorf("split ranges hold %d+%d of %d", a.Count(), b.Count(), len(vals))
	}
}

// TestSeriesMerge merges Series written separately, one coarser than the
// other, and compares with one written as a whole.
func TestSeriesMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	vals := run(rng)
	whole, a, b := NewSeries(-1), NewSeries(-1), NewSeries(-1)
	ww, wa, wb := whole.Writer(), a.Writer(), b.Writer()
	for i, x := range vals {
		ww.Add(x.sec, i%3, x.v)
		if i%2 == 0 {
			wa.Add(x.sec, i%3, x.v)
		} else {
			wb.Add(x.sec, i%3, x.v)
		}
	}
	ww.Flush()
	wa.Flush()
	wb.Flush()
	a.Merge(b)
	a.Merge(a)
	for g := range 3 {
		same(t, "merged", a.Range(g, 1_700_000_050, 1_700_000_450), whole.Range(g, 1_700_000_050, 1_700_000_450))
	}
	b2 := NewSeries(-1)
	w2 := b2.Writer()
	for i, x := range vals {
		if i%2 == 1 {
			w2.Add(x.sec, i%3, x.v)
		}
	}
	w2.Flush()
	for b2.Width() < 8 {
		b2.regroup()
	}
	a2 := NewSeries(-1)
	w3 := a2.Writer()
	for i, x := range vals {
		if i%2 == 0 {
			w3.Add(x.sec, i%3, x.v)
		}
	}
	w3.Flush()
	a2.Merge(b2)
	if a2.Width() != 8 {
		t.Fatalf("merged width %d, want 8", a2.Width())
	}
	for whole.Width() < 8 {
		whole.regroup()
	}
	for g := range 3 {
		same(t, "merged coarse", a2.Range(g, 1_700_000_000, 1_700_000_600), whole.Range(g, 1_700_000_000, 1_700_000_600))
	}
}

// TestSeriesGapCostsNothing: two 10-minute runs a day apart, and one stray
// value decades earlier, fill 1,201 one-second slots: no coarsening.
func TestSeriesGapCostsNothing(t *testing.T) {
	s := NewSeries(0)
	w := s.Writer()
	for _, start := range []int64{1_700_000_000, 1_700_086_400} {
		for sec := start; sec < start+600; sec++ {
			w.Add(sec, 0, 1)
		}
	}
	w.Add(86_400, 0, 2)
	w.Flush()
	if s.Width() != 1 {
		t.Errorf("width %d, want 1", s.Width())
	}
	if n := s.Range(0, 0, 2_000_000_000).Count(); n != 1201 {
		t.Errorf("%d values", n)
	}
}

// TestSeriesDamageIsAnError: a slot whose encoding does not decode makes
// Err report it (never a panic); Merge carries it over.
func TestSeriesDamageIsAnError(t *testing.T) {
	s := NewSeries(0)
	w := s.Writer()
	for sec := int64(100); sec < 110; sec++ {
		w.Add(sec, 0, float64(sec))
	}
	w.Flush()
	if s.Range(0, 100, 110).Count() != 10 || s.Err() != nil {
		t.Fatalf("undamaged: %v", s.Err())
	}
	s.slots[seriesKey{105, 0}].enc = []byte{modeHist, 1}
	if got := s.Range(0, 100, 110).Count(); got != 9 || s.Err() == nil {
		t.Errorf("damaged: %d values, err %v", got, s.Err())
	}
	m := NewSeries(0)
	m.Merge(s)
	if m.Err() == nil {
		t.Error("Merge lost the error")
	}
}

// TestSeriesMomentsMatchRange: Moments is Range's Count and Mean bit for
// bit, per second and over wide ranges, at width 1 and coarsened, with
// sealed slots and values still pending in a slot.
func TestSeriesMomentsMatchRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	vals := run(rng)
	for _, maxSlots := range []int{-1, 64} {
		s := NewSeries(maxSlots)
		wr := s.Writer()
		for _, x := range vals {
			wr.Add(x.sec, 0, x.v)
		}
		wr.Flush()
		// A late value lands in a sealed slot: it stays pending there.
		late := s.Writer()
		late.Add(vals[0].sec, 0, 123.456789)
		late.Flush()
		checked := 0
		for from := int64(1_699_999_990); from < 1_700_000_700; from += 3 {
			for _, to := range []int64{from + 1, from + 37, from + 5000} {
				sk := s.Range(0, from, to)
				n, mean := s.Moments(0, from, to)
				if n != sk.Count() || math.Float64bits(mean) != math.Float64bits(sk.Mean()) {
					t.Fatalf("slots %d, [%d, %d): Moments %d %v, Range %d %v", maxSlots, from, to, n, mean, sk.Count(), sk.Mean())
				}
				if n > 0 {
					checked++
				}
			}
		}
		if checked < 100 {
			t.Fatalf("slots %d: only %d non-empty ranges compared", maxSlots, checked)
		}
	}
}

// TestSeriesCoarsensWhileOthersWrite: Writers on several goroutines, each
// given a share of the run's chunks, seal while one of them merges the old
// slots outside the lock (coarsen): the width and every range are those of
// one Writer given all the values in order.
func TestSeriesCoarsensWhileOthersWrite(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	vals := run(rng)
	const maxSlots = 16
	one := NewSeries(maxSlots)
	w1 := one.Writer()
	for _, x := range vals {
		w1.Add(x.sec, int(x.sec%3), x.v)
	}
	w1.Flush()
	for trial := range 8 {
		s := NewSeries(maxSlots)
		const writers, chunk = 4, 500
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				wr := s.Writer()
				for c := w * chunk; c < len(vals); c += writers * chunk {
					for _, x := range vals[c:min(c+chunk, len(vals))] {
						wr.Add(x.sec, int(x.sec%3), x.v)
					}
				}
				wr.Flush()
			}()
		}
		wg.Wait()
		if s.Width() != one.Width() || s.Width() < 16 {
			t.Fatalf("trial %d: width %d, want %d (and at least 16)", trial, s.Width(), one.Width())
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		for g := range 3 {
			same(t, "whole run", s.Range(g, 0, 2_000_000_000), one.Range(g, 0, 2_000_000_000))
			for from := int64(1_699_999_700); from < 1_700_000_700; from += 64 {
				same(t, "range", s.Range(g, from, from+100), one.Range(g, from, from+100))
			}
		}
	}
}

// TestMergeEncodedKeepsOrder: merging encodings one after another gives
// the values Merge of the sketches gives, already ascending when every
// part holds micro-unit values (so they encode again without a sort),
// and the same encoding, quantiles and extremes either way, whatever the
// parts (empty, one value, duplicates across parts, float-mode parts,
// parts that spill past ExactLimit into a histogram).
func TestMergeEncodedKeepsOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for k := range 400 {
		var want, got Sketch
		micro := rng.IntN(4) > 0
		for range 1 + rng.IntN(6) {
			var part Sketch
			n := rng.IntN(200)
			if rng.IntN(20) == 0 {
				n = 700
			}
			for range n {
				v := float64(rng.IntN(5000)) / 1000 // repeats across parts
				if !micro && rng.IntN(3) == 0 {
					v = rng.Float64()
				}
				part.Add(v)
			}
			enc := part.AppendEncoded(nil)
			want.Merge(&part)
			if err := got.mergeEncodedOwn(enc); err != nil {
				t.Fatal(err)
			}
		}
		if micro && !got.hist && got.n > 0 && (!got.sorted || !slices.IsSorted(got.exact)) {
			t.Fatalf("case %d: %d micro values merged from encodings are not kept ascending (sorted %v)", k, len(got.exact), got.sorted)
		}
		if a, b := got.AppendEncoded(nil), want.AppendEncoded(nil); !bytes.Equal(a, b) {
			t.Fatalf("case %d: encodings differ", k)
		}
		for _, q := range []float64{0, 0.01, 0.5, 0.95, 0.999, 1} {
			if a, b := got.Quantile(q), want.Quantile(q); a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
				t.Fatalf("case %d: q%v = %v, want %v", k, q, a, b)
			}
		}
	}
	// The merge itself, on runs that interleave, touch and repeat.
	for range 2000 {
		n, mid := rng.IntN(ExactLimit+1), 0
		if n > 0 {
			mid = rng.IntN(n + 1)
		}
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(rng.IntN(50))
		}
		slices.Sort(x[:mid])
		slices.Sort(x[mid:])
		want := slices.Clone(x)
		slices.Sort(want)
		mergeRuns(x, mid)
		if !slices.Equal(x, want) {
			t.Fatalf("mergeRuns(%d values, mid %d) is not sorted", n, mid)
		}
	}
}
