// Package vugauge accumulates a k6 gauge (vus, vus_max) within one second
// over the sources of a distributed run: each instance reports its own VUs
// about once a second, and the run's VUs are the sum over instances of each
// instance's mean within the second.
package vugauge

import (
	"sync"

	"github.com/ldanalyze/ldanalyze/internal/varenc"
)

// Gauge is the sum and count of one source's samples within a second.
type Gauge struct {
	Sum float64
	N   int
}

// Sources is one second's gauges, indexed by source number. The first
// source is kept inline: a run from one k6 instance allocates nothing per
// second.
type Sources struct {
	first Gauge
	more  []Gauge // sources 1, 2, …
}

// at returns the gauge of source i, adding sources up to i.
func (s *Sources) at(i int) *Gauge {
	if i == 0 {
		return &s.first
	}
	for len(s.more) < i {
		s.more = append(s.more, Gauge{})
	}
	return &s.more[i-1]
}

// Add adds the value v reported by source i (0-based).
func (s *Sources) Add(i int, v float64) {
	g := s.at(i)
	g.Sum += v
	g.N++
}

// each calls fn for every source's gauge, in source order.
func (s *Sources) each(fn func(i int, g Gauge)) {
	fn(0, s.first)
	for i, g := range s.more {
		fn(i+1, g)
	}
}

// Total returns the sum over sources of each source's mean, and whether any
// source reported.
func (s *Sources) Total() (float64, bool) {
	t, any := 0.0, false
	s.each(func(_ int, g Gauge) {
		if g.N > 0 {
			t += g.Sum / float64(g.N)
			any = true
		}
	})
	return t, any
}

// Merge adds o, whose source i is this one's remap[i] (nil: the same
// numbering), into s.
func (s *Sources) Merge(o *Sources, remap []int) {
	o.each(func(i int, g Gauge) {
		if g.N == 0 {
			return
		}
		j := i
		if remap != nil {
			j = remap[i]
		}
		d := s.at(j)
		d.Sum += g.Sum
		d.N += g.N
	})
}

// Reset empties s, keeping the capacity of its sources.
func (s *Sources) Reset() {
	s.first = Gauge{}
	s.more = s.more[:0]
}

// AppendEnc appends s's encoding to dst: the number of sources beyond the
// first, then each source's sum (varenc.AppendFloat) and count.
func (s *Sources) AppendEnc(dst []byte) []byte {
	dst = varenc.AppendUint(dst, uint64(len(s.more)))
	s.each(func(_ int, g Gauge) {
		dst = varenc.AppendFloat(dst, g.Sum)
		dst = varenc.AppendUint(dst, uint64(g.N))
	})
	return dst
}

// Decode adds the AppendEnc encoding at the start of r to s (emptied by
// Reset); a malformed one sets r.Err.
func (s *Sources) Decode(r *varenc.Reader) {
	n := r.Len()
	for i := 0; i <= n && r.Err == nil; i++ {
		g := s.at(i)
		g.Sum += r.Float()
		g.N += int(r.Uint())
	}
}

// Index numbers the sources (input files) of a run, or any names, in the
// order they are first seen. The zero value is ready to use; it is safe
// for concurrent use (collectors that share per-second records share their
// Index).
type Index struct {
	// Max caps the names numbered: past it Of returns −1. 0: no cap.
	Max int
	mu  sync.Mutex
	m   map[string]int
}

// Names returns the names in number order.
func (x *Index) Names() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make([]string, len(x.m))
	for n, i := range x.m {
		out[i] = n
	}
	return out
}

// Of returns the number of name, adding it if new, or −1 when it is new
// and Max names are numbered already.
func (x *Index) Of(name string) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.of(name)
}

func (x *Index) of(name string) int {
	if x.m == nil {
		x.m = map[string]int{}
	}
	i, ok := x.m[name]
	if !ok {
		if x.Max > 0 && len(x.m) >= x.Max {
			return -1
		}
		i = len(x.m)
		x.m[name] = i
	}
	return i
}

// Remap returns, for each source number of o, its number in x (adding the
// sources x lacks): the remap argument of Sources.Merge.
func (x *Index) Remap(o *Index) []int {
	if o == x {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	r := make([]int, len(o.m))
	for name, i := range o.m {
		r[i] = x.of(name)
	}
	return r
}
