package window

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/internal/textdiff"
	"github.com/ldanalyze/ldanalyze/pkg/ingest"
)

// manyNames returns the samples of a run with 350 distinct names (more
// than 2 × DefaultMaxGroups, fewer than DefaultExactGroups) over 6
// windows of 10 s: name i has 1 + i%7 http_req_duration samples, so counts
// tie in groups of 50 and the kept set turns on the tie-break; values have
// at most 3 decimals (sums exact in any order, package sketch), and every
// fifth request failed (an http_req_failed row with value 1, placed before
// its duration row so that a split read can see the failure first).
func manyNames() []*ingest.Sample {
	var out []*ingest.Sample
	for i := range 350 {
		name := fmt.Sprintf("/item/%03d", i)
		for j := range 1 + i%7 {
			sec := int64(1796004000 + (i*7+j*11)%60)
			if (i+j)%5 == 0 {
				out = append(out, sample("http_req_failed", sec, 1, name, "500"))
			} else {
				out = append(out, sample("http_req_failed", sec, 0, name, "200"))
			}
			out = append(out, sample("http_req_duration", sec, float64(i*13%101)+float64(j)/8, name, "200"))
		}
	}
	return out
}

// closed is the rows and warnings of a Close, as text.
func closed(a *Aggregator) string {
	rows := a.Close()
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%+v\n", r)
	}
	fmt.Fprintf(&b, "%q\n", a.Warnings())
	return b.String()
}

// split adds samples to k Aggregators the way a parallel reader does:
// chunks of a random size (1 to 64 samples) each handed to a random one,
// then merges them in a random order (into a random one of them).
func split(t *testing.T, opt Options, samples []*ingest.Sample, k int, r *rand.Rand) *Aggregator {
	t.Helper()
	aggs := make([]*Aggregator, k)
	for i := range aggs {
		a, err := New(opt)
		if err != nil {
			t.Fatal(err)
		}
		aggs[i] = a
	}
	for i := 0; i < len(samples); {
		n := min(len(samples)-i, 1+r.IntN(64))
		a := aggs[r.IntN(k)]
		for _, s := range samples[i : i+n] {
			a.Add(s)
		}
		i += n
	}
	r.Shuffle(k, func(i, j int) { aggs[i], aggs[j] = aggs[j], aggs[i] })
	for _, o := range aggs[1:] {
		aggs[0].Merge(o)
	}
	return aggs[0]
}

// TestPartitionIndependent: up to the capacity the rows and warnings of
// Close are the same however the samples were split over Aggregators (1,
// 2, 3 or 7, random chunk sizes and assignments, random merge order) and
// in whatever order the samples came (a columnar file's order differs
// from the CSV's): byte for byte the rows of one Aggregator given them in
// file order.
func TestPartitionIndependent(t *testing.T) {
	samples := manyNames()
	for _, opt := range []Options{
		{Metric: "http_req_duration", WidthNS: 10e9, By: []string{"name"}},
		{Metric: "http_req_duration", WidthNS: 10e9, By: []string{"name", "status"}, MaxGroups: 7},
		{Metric: "http_req_duration", WidthNS: 10e9, By: []string{"name"}, MaxGroups: 3, ExactGroups: 350},
	} {
		one, _ := New(opt)
		for _, s := range samples {
			one.Add(s)
		}
		want := closed(one)
		if !strings.Contains(want, "(other)") {
			t.Fatalf("%+v: no other rows; the test needs more names than MaxGroups", opt)
		}
		r := rand.New(rand.NewPCG(1, 2))
		for _, k := range []int{1, 2, 3, 7} {
			for try := range 4 {
				in := samples
				if try%2 == 1 {
					in = slices.Clone(samples)
					r.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
				}
				if got := closed(split(t, opt, in, k, r)); got != want {
					t.Fatalf("%+v, %d aggregators, try %d: rows differ from one aggregator's\n%s", opt, k, try, textdiff.First(got, want))
				}
			}
		}
	}
}

// TestTopTies is hand-checked: a, b and c have 3 samples each, d 1;
// MaxGroups 2 keeps the two of the smallest text among the busiest (a, b)
// whichever Aggregator saw c first, and the other row sums c's 3 and d's
// 1. The failure of c (seen by y before any c duration) is in the other
// row, b's in b's.
func TestTopTies(t *testing.T) {
	opt := Options{Metric: "m", WidthNS: 10e9, By: []string{"name"}, MaxGroups: 2}
	x, _ := New(opt)
	y, _ := New(opt)
	for range 3 {
		y.Add(sample("m", 1, 1, "c", "200"))
	}
	y.Add(sample("http_req_failed", 1, 1, "b", "500"))
	y.Add(sample("http_req_failed", 1, 1, "c", "500"))
	x.Add(sample("m", 2, 1, "d", "200"))
	for range 3 {
		x.Add(sample("m", 2, 2, "b", "200"))
		y.Add(sample("m", 3, 3, "a", "200"))
	}
	y.Merge(x)
	rows := y.Close()
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%s %d %d", r.Tags[0], r.Count, r.Failed))
	}
	if want := []string{"a 3 0", "b 3 1", "(other) 4 1"}; !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	want := `name: more than the cap of 2 distinct values: rows are kept for the 2 with the most m samples; 2 other values (4 samples) are folded into "(other)" rows`
	if w := y.Warnings(); len(w) != 1 || w[0] != want {
		t.Errorf("warnings %q\nwant %q", w, want)
	}
}

// TestPastCapacityTotals: past the capacity (ExactGroups 8 for 350
// names) the kept set is a heavy-hitters estimate that may depend on the
// split, but every window's total count and failures are exact in any
// split, and Warnings says the choice was an estimate.
func TestPastCapacityTotals(t *testing.T) {
	samples := manyNames()
	opt := Options{Metric: "http_req_duration", WidthNS: 10e9, By: []string{"name"}, MaxGroups: 3, ExactGroups: 8}
	totals := func(a *Aggregator) string {
		type tot struct{ n, failed uint64 }
		m := map[int64]tot{}
		for _, r := range a.Close() {
			t := m[r.StartNS]
			t.n += r.Count
			t.failed += r.Failed
			m[r.StartNS] = t
		}
		return fmt.Sprint(m)
	}
	one, _ := New(opt)
	for _, s := range samples {
		one.Add(s)
	}
	want := totals(one)
	if w := one.Warnings(); len(w) != 1 || !strings.Contains(w[0], "heavy-hitters count") {
		t.Fatalf("warnings %q, want the heavy-hitters caveat", w)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{2, 3, 7} {
		if got := totals(split(t, opt, samples, k, r)); got != want {
			t.Errorf("%d aggregators: window totals %s, want %s", k, got, want)
		}
	}
}

// TestPendingFull: with room for 2 pending tag sets (ExactGroups 2,
// MaxGroups 1), the failure of z, read after those of x and y and before
// any m sample of z, goes to the other row although z has rows, and
// Warnings says so.
func TestPendingFull(t *testing.T) {
	a, _ := New(Options{Metric: "m", WidthNS: 10e9, By: []string{"name"}, MaxGroups: 1, ExactGroups: 2})
	for _, name := range []string{"x", "y", "z"} {
		a.Add(sample("http_req_failed", 1, 1, name, "500"))
	}
	a.Add(sample("m", 1, 1, "z", "200"))
	rows := a.Close()
	if len(rows) != 2 || rows[0].Tags[0] != "z" || rows[0].Failed != 0 || !rows[1].Other || rows[1].Failed != 3 {
		t.Fatalf("rows %+v, want z with no failure and (other) with 3", rows)
	}
	if w := a.Warnings(); len(w) != 1 || !strings.Contains(w[0], "more than 2 distinct values had failures before any m sample") {
		t.Errorf("warnings %q", w)
	}
}

// TestCellBudget: the exact regime ends where the run's distinct (window,
// name) cells of the metric pass ExactCells, whatever the split: at a
// budget of exactly that many cells every split gives one Aggregator's
// rows with no heavy-hitters caveat; one cell fewer, every split gives the
// caveat (and exact window totals).
func TestCellBudget(t *testing.T) {
	samples := manyNames()
	cells := map[[2]any]bool{}
	for _, s := range samples {
		if s.Metric == "http_req_duration" {
			name, _ := s.Tags.Get("name")
			cells[[2]any{s.TimeNS / 10e9, name}] = true
		}
	}
	opt := Options{Metric: "http_req_duration", WidthNS: 10e9, By: []string{"name"}, MaxGroups: 5, ExactCells: len(cells)}
	one, _ := New(opt)
	for _, s := range samples {
		one.Add(s)
	}
	want := closed(one)
	if strings.Contains(want, "heavy-hitters") {
		t.Fatalf("at a budget of the %d cells: %s", len(cells), want[strings.LastIndex(want, "\n[")+1:])
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, k := range []int{2, 3, 7} {
		if got := closed(split(t, opt, samples, k, r)); got != want {
			t.Fatalf("%d aggregators at the budget: %s", k, textdiff.First(got, want))
		}
	}
	opt.ExactCells--
	for _, k := range []int{1, 2, 3, 7} {
		a := split(t, opt, samples, k, r)
		a.Close()
		if w := a.Warnings(); len(w) != 1 || !strings.Contains(w[0], "heavy-hitters count of 10 counters") {
			t.Errorf("%d aggregators one cell past the budget: warnings %q", k, w)
		}
	}
}

// TestWarningNothingMissed: past the cell budget, but with every kept tag
// set counted from its first sample (none was let go), the warning says
// the kept rows are whole instead of "may miss up to 0 of its samples".
func TestWarningNothingMissed(t *testing.T) {
	opt := Options{Metric: "m", WidthNS: 1e9, By: []string{"name"}, MaxGroups: 2, ExactGroups: 4, ExactCells: 3}
	a, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	for sec := range int64(5) {
		a.Add(sample("m", sec, 1, "a", "200"))
		a.Add(sample("m", sec, 2, "b", "200"))
	}
	a.Add(sample("m", 4, 3, "c", "200"))
	c := counts(a.Close())
	if c["a"] != 5 || c["b"] != 5 || c[OtherTag] != 1 {
		t.Fatalf("counts %v, want a 5, b 5, (other) 1", c)
	}
	w := a.Warnings()
	if len(w) != 1 || !strings.Contains(w[0], "heavy-hitters count") || !strings.Contains(w[0], "every kept value's rows hold all its samples") || strings.Contains(w[0], "miss up to") {
		t.Fatalf("warnings %q", w)
	}
}
