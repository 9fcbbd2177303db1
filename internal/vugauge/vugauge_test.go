package vugauge

import "testing"

// TestTotal: two instances of a distributed run, 10 and 20 VUs (the first
// reported twice in the second: 9 and 11, mean 10): 30 VUs; merging a
// collector whose source 0 is this one's source 1 adds to it.
func TestTotal(t *testing.T) {
	var s Sources
	if _, ok := s.Total(); ok {
		t.Fatal("empty reported")
	}
	s.Add(0, 9)
	s.Add(0, 11)
	s.Add(1, 20)
	if v, ok := s.Total(); !ok || v != 30 {
		t.Errorf("total %v, want 30", v)
	}
	var o Sources
	o.Add(0, 40)
	s.Merge(&o, []int{1})
	if v, _ := s.Total(); v != 10+30 { // source 1: (20+40)/2
		t.Errorf("after merge %v, want 40", v)
	}
}

// TestIndex: sources are numbered in first-seen order; Remap maps another
// index's numbers onto this one's, adding the missing sources.
func TestIndex(t *testing.T) {
	var a, b Index
	if a.Of("x") != 0 || a.Of("y") != 1 || a.Of("x") != 0 {
		t.Fatal("numbering")
	}
	b.Of("z")
	b.Of("x")
	r := a.Remap(&b)
	if len(r) != 2 || r[0] != 2 || r[1] != 0 {
		t.Errorf("remap %v, want [2 0]", r)
	}
}

// TestIndexMax: past Max names, new names get −1 and known ones keep
// their numbers; Names lists them in number order.
func TestIndexMax(t *testing.T) {
	x := Index{Max: 2}
	if x.Of("a") != 0 || x.Of("b") != 1 || x.Of("c") != -1 || x.Of("a") != 0 {
		t.Fatal("numbering with a cap")
	}
	if n := x.Names(); len(n) != 2 || n[0] != "a" || n[1] != "b" {
		t.Errorf("names %v", n)
	}
}
