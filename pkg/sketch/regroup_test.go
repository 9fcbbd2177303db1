package sketch

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRegroup: folding group 2 into group 0 merges their slots second by
// second (values counted once), leaves group 1 alone and frees group 2's
// slots.
func TestRegroup(t *testing.T) {
	s := NewSeries(-1)
	w := s.Writer()
	for sec := int64(100); sec < 110; sec++ {
		for g := range 3 {
			for v := range 3 {
				w.Add(sec, g, float64(10*g+v))
			}
		}
	}
	w.Flush()
	if s.Len() != 30 {
		t.Fatalf("%d slots, want 30", s.Len())
	}
	s.Regroup(func(g int) int {
		if g == 2 {
			return 0
		}
		return g
	})
	if s.Len() != 20 {
		t.Errorf("%d slots after folding group 2 into 0, want 20", s.Len())
	}
	g0, g1, g2 := s.Range(0, 100, 110), s.Range(1, 100, 110), s.Range(2, 100, 110)
	if g0.Count() != 60 || g0.Min() != 0 || g0.Max() != 22 || g1.Count() != 30 || g2.Count() != 0 {
		t.Errorf("counts %d (min %g, max %g), %d, %d; want 60 (0, 22), 30, 0", g0.Count(), g0.Min(), g0.Max(), g1.Count(), g2.Count())
	}
	if one := s.Range(0, 105, 106); one.Count() != 6 {
		t.Errorf("second 105 of group 0 holds %d values, want 6", one.Count())
	}
}

// microSketch returns a Sketch of n values drawn as whole millionths in
// (−span, span) millionths (many repeats when span is small), as k6's CSV writes
// them.
func microSketch(rng *rand.Rand, n int, span int64) *Sketch {
	sk := &Sketch{}
	for range n {
		sk.Add(float64(rng.Int64N(2*span-1)-span+1) / 1e6)
	}
	return sk
}

// TestAppendMergedMicro: merging two exact encodings as integers writes
// the bytes that merging them into a Sketch and encoding it writes
// (mergeEncodedOwn then AppendEncoded, a coarsening's slow path), for
// halves of any size up to ExactLimit together, with repeated values,
// negatives and one half alone; and it declines, leaving dst as it was,
// what it cannot merge so: more than ExactLimit values, values of
// maxMergedMicro millionths or more, values that are not whole
// millionths, histograms, a truncated encoding.
func TestAppendMergedMicro(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var ints [2][ExactLimit]int64
	slow := func(a, b []byte) []byte {
		var sc Sketch
		if sc.mergeEncodedOwn(a) != nil || (b != nil && sc.mergeEncodedOwn(b) != nil) {
			t.Fatal("the test's own encodings do not decode")
		}
		return sc.AppendEncoded(nil)
	}
	prefix := []byte{0xee, 0xff}
	for trial := range 3000 {
		na := 1 + rng.IntN(ExactLimit)
		nb := rng.IntN(ExactLimit + 1 - na)
		if trial%10 == 0 {
			nb = ExactLimit - na // exactly the limit together
		}
		span := []int64{3, 1e3, 5e9, maxMergedMicro}[rng.IntN(4)]
		a := microSketch(rng, na, span).AppendEncoded(nil)
		var b []byte
		if nb > 0 {
			b = microSketch(rng, nb, span).AppendEncoded(nil)
		}
		got, ok := appendMergedMicro(slices.Clone(prefix), a, b, &ints)
		if !ok || !bytes.Equal(got[:2], prefix) || !bytes.Equal(got[2:], slow(a, b)) {
			t.Fatalf("trial %d (%d + %d values, span %d): ok %v, got %x, want %x", trial, na, nb, span, ok, got, slow(a, b))
		}
	}
	enc := func(vs ...float64) []byte {
		var sk Sketch
		for _, v := range vs {
			sk.Add(v)
		}
		return sk.AppendEncoded(nil)
	}
	half := microSketch(rng, ExactLimit/2, 1e6).AppendEncoded(nil)
	for _, c := range []struct {
		name string
		a, b []byte
	}{
		{"over the limit", half, microSketch(rng, ExactLimit/2+1, 1e6).AppendEncoded(nil)},
		{"a histogram", microSketch(rng, ExactLimit+1, 1e6).AppendEncoded(nil), nil},
		{"not whole millionths", enc(1, 0.1234567), half},
		// A float whose 8 bytes read as a varint of 0: only the mode
		// tells it from a whole millionth.
		{"a float that reads as a varint", enc(math.Float64frombits(0x0080808080808080)), nil},
		{"a value at the bound", half, enc(2, float64(maxMergedMicro)/1e6)},
		{"a value at minus the bound", enc(-float64(maxMergedMicro) / 1e6), nil},
		{"truncated", half[:len(half)-1], nil},
		{"trailing bytes", append(slices.Clone(half), 0), nil},
		{"empty", enc(), nil},
	} {
		if got, ok := appendMergedMicro(slices.Clone(prefix), c.a, c.b, &ints); ok || !bytes.Equal(got, prefix) {
			t.Errorf("%s: ok %v, dst %x", c.name, ok, got)
		}
	}
	// Just below the bound merges, still as the slow path does.
	a, b := enc(float64(maxMergedMicro-1)/1e6, 1), enc(-float64(maxMergedMicro-1)/1e6)
	if got, ok := appendMergedMicro(nil, a, b, &ints); !ok || !bytes.Equal(got, slow(a, b)) {
		t.Errorf("values just inside the bound: ok %v, got %x, want %x", ok, got, slow(a, b))
	}
}

// TestRegroupSlotsMatchesSketchMerge: a coarsening writes every slot as
// merging its two halves through a Sketch does, whether the halves merge
// as encodings (exact, no late values) or not (histograms, late values
// pending, a half alone).
func TestRegroupSlotsMatchesSketchMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	s := NewSeries(-1)
	w := s.Writer()
	group := func(sec int64) int { return int(sec / 50 % 3) } // runs of 50 s
	for sec := int64(1000); sec < 1400; sec++ {
		if rng.IntN(5) == 0 {
			continue // a second without values: its neighbour is alone
		}
		n := rng.IntN(40)
		if rng.IntN(20) == 0 {
			n = ExactLimit/2 + rng.IntN(ExactLimit) // halves past the limit together
		}
		for range n {
			w.Add(sec, group(sec), float64(rng.Int64N(2e6))/1e6)
		}
	}
	w.Flush()
	// Late values: pending in their slots.
	for sec := int64(1000); sec < 1400; sec += 7 {
		sk := &Sketch{}
		sk.Add(float64(sec) / 8)
		s.AddSketch(sec, group(sec), sk)
	}
	pending, pairs := 0, 0
	for k, sl := range s.slots {
		if sl.pending != nil {
			pending++
		}
		if k.slot%2 == 0 && s.slots[seriesKey{k.slot + 1, k.group}] != nil {
			pairs++
		}
	}
	got, err := regroupSlots(s.slots)
	if err != nil || pending == 0 || pairs < 100 {
		t.Fatalf("regroup: %v; %d slots with late values, %d with both halves", err, pending, pairs)
	}
	want := map[seriesKey][]byte{}
	for k := range s.slots {
		nk := seriesKey{floorDiv(k.slot, 2), k.group}
		if want[nk] != nil {
			continue
		}
		var sc Sketch
		for _, part := range []int64{2 * nk.slot, 2*nk.slot + 1} {
			if p := s.slots[seriesKey{part, k.group}]; p != nil {
				if err := p.mergeInto(&sc); err != nil {
					t.Fatal(err)
				}
			}
		}
		want[nk] = sc.AppendEncoded(nil)
	}
	if len(got) != len(want) {
		t.Fatalf("%d slots, want %d", len(got), len(want))
	}
	for k, enc := range want {
		if sl := got[k]; sl == nil || sl.pending != nil || !bytes.Equal(sl.enc, enc) {
			t.Fatalf("slot %v: %v, want %x", k, sl, enc)
		}
	}
}
