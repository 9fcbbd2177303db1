package sketch

import "testing"

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
