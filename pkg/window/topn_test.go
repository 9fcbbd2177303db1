package window

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
)

// counts returns the rows' counts by first tag ("(other)" for the other
// rows), summed over windows.
func counts(rows []Row) map[string]uint64 {
	m := map[string]uint64{}
	for _, r := range rows {
		m[r.Tags[0]] += r.Count
	}
	return m
}

// TestTopExact: up to the capacity (here DefaultExactGroups) distinct names nothing is estimated:
// the 2 busiest have rows, the other samples (and failures) are summed
// in one "(other)" row per window, placed last, and Warnings says so.
func TestTopExact(t *testing.T) {
	a, _ := New(Options{Metric: "m", WidthNS: 10e9, By: []string{"name"}, MaxGroups: 2})
	for name, n := range map[string]int{"a": 10, "b": 5, "c": 3, "d": 1} {
		for i := range n {
			a.Add(sample("m", int64(i%10), float64(i), name, "200"))
		}
	}
	a.Add(sample("http_req_failed", 1, 1, "c", "500"))
	a.Add(sample("http_req_failed", 1, 1, "zz", "500")) // a name never seen with the metric
	rows := a.Close()
	if len(rows) != 3 || rows[0].Tags[0] != "a" || rows[1].Tags[0] != "b" || !rows[2].Other || rows[2].Tags[0] != OtherTag {
		t.Fatalf("rows %+v", rows)
	}
	if rows[0].Count != 10 || rows[1].Count != 5 || rows[2].Count != 4 || rows[2].Failed != 2 {
		t.Errorf("counts %d, %d, %d, other failed %d; want 10, 5, 4 (3 c + 1 d), 2", rows[0].Count, rows[1].Count, rows[2].Count, rows[2].Failed)
	}
	// c and d folded, 4 samples (3 c + 1 d).
	want := `name: more than the cap of 2 distinct values: rows are kept for the 2 with the most m samples; 2 other values (4 samples) are folded into "(other)" rows`
	if w := a.Warnings(); len(w) != 1 || w[0] != want {
		t.Errorf("warnings %q\nwant %q", w, want)
	}
}

// TestTopHeavyHitters: 2,000 names seen once each between two names that
// take 80 % of 10,000 samples (MaxGroups 2, ExactGroups 4: 4 counters,
// so past the exact regime): the two are kept
// (each has more than n ÷ 4 samples, space-saving's guarantee), every
// sample is in some row, a kept name's rows fall short of its true count
// by at most the figure Warnings gives, and the tag sets held stay within
// the 4 counters and the cells within a bound however many names pass.
func TestTopHeavyHitters(t *testing.T) {
	a, _ := New(Options{Metric: "m", WidthNS: 10e9, By: []string{"name"}, MaxGroups: 2, ExactGroups: 4})
	const n = 10000
	single := 0
	maxGroups, maxCells := 0, 0
	for i := range n {
		name := "h1"
		switch {
		case i%10 >= 8:
			name = fmt.Sprintf("/item/%d", single)
			single++
		case i%10 >= 5:
			name = "h2"
		}
		a.Add(sample("m", int64(i/100), 1, name, "200")) // 100 samples a second, 10 windows
		maxGroups = max(maxGroups, a.Groups())
		maxCells = max(maxCells, a.cells.Len())
	}
	if maxGroups != 4 {
		t.Errorf("at most %d tag sets held, want the 4 counters", maxGroups)
	}
	// Kept cells: 4 tag sets × 10 windows; dropped ones wait for a fold
	// up to minFold cells; the other rows 10 windows.
	if bound := 4*10 + minFold + 10; maxCells > bound {
		t.Errorf("%d cells held, want at most %d", maxCells, bound)
	}
	rows := a.Close()
	c := counts(rows)
	if len(c) != 3 || c["h1"]+c["h2"]+c[OtherTag] != n {
		t.Fatalf("counts %v, want h1, h2 and (other) summing to %d", c, n)
	}
	w := a.Warnings()
	var missed uint64
	if len(w) != 1 || !strings.Contains(w[0], "heavy-hitters count") {
		t.Fatalf("warnings %q", w)
	}
	fmt.Sscanf(w[0][strings.Index(w[0], "at most ")+len("at most "):], "%d", &missed)
	for name, truth := range map[string]uint64{"h1": 5000, "h2": 3000} {
		if c[name] > truth || c[name]+missed < truth {
			t.Errorf("%s: %d in its rows, true %d, missed at most %d", name, c[name], truth, missed)
		}
	}
}

// TestTopMerge: merging two readers' aggregators gives the rows of one
// that saw every sample, while the tag sets fit the counters.
func TestTopMerge(t *testing.T) {
	opt := Options{Metric: "m", WidthNS: 10e9, By: []string{"name"}, MaxGroups: 2}
	one, _ := New(opt)
	x, _ := New(opt)
	y, _ := New(opt)
	add := func(agg *Aggregator, name string, n int) {
		for i := range n {
			s := sample("m", int64(i), float64(i), name, "200")
			agg.Add(s)
			one.Add(s)
		}
	}
	add(x, "a", 10)
	add(x, "b", 1)
	add(y, "c", 5)
	add(y, "d", 3)
	x.Merge(y)
	got, want := x.Close(), one.Close()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("merged rows\n%v\nwant\n%v", got, want)
	}
	if c := counts(got); c["a"] != 10 || c["c"] != 5 || c[OtherTag] != 4 {
		t.Errorf("counts %v", c)
	}
}

// TestUnbounded: MaxGroups < 0 keeps every tag set, with no warning,
// whatever ExactCells says.
func TestUnbounded(t *testing.T) {
	a, _ := New(Options{Metric: "m", WidthNS: 10e9, By: []string{"name"}, MaxGroups: -1, ExactCells: 10})
	for i := range 1000 {
		a.Add(sample("m", 0, 1, fmt.Sprint(i), "200"))
	}
	if rows := a.Close(); len(rows) != 1000 || a.Warnings() != nil {
		t.Errorf("%d rows, warnings %q", len(rows), a.Warnings())
	}
}

// TestFailureBeforeItsRequest: a parallel read can give one core the
// http_req_failed row of a request whose http_req_duration row another
// core reads: the failure still counts in its tag set's row, not in an
// "(other)" row, and no bound is said to be passed.
func TestFailureBeforeItsRequest(t *testing.T) {
	opt := Options{Metric: "http_req_duration", WidthNS: 10e9, By: []string{"name"}}
	a, _ := New(opt)
	b, _ := New(opt)
	tags := func(name string) ingest.Tags { return ingest.NewTags([]string{"name"}, []string{name}, "", "") }
	a.Add(&ingest.Sample{Metric: "http_req_failed", TimeNS: 1e9, Value: 1, Tags: tags("order")})
	b.Add(&ingest.Sample{Metric: "http_req_duration", TimeNS: 1e9, Value: 12, Tags: tags("order")})
	b.Add(&ingest.Sample{Metric: "http_req_duration", TimeNS: 2e9, Value: 13, Tags: tags("menu")})
	a.Merge(b)
	rows := a.Close()
	if len(rows) != 2 || len(a.Warnings()) != 0 {
		t.Fatalf("rows %+v, warnings %q", rows, a.Warnings())
	}
	for _, r := range rows {
		want := uint64(0)
		if r.Tags[0] == "order" {
			want = 1
		}
		if r.Other || r.Failed != want {
			t.Errorf("%v: failed %d other %v, want %d", r.Tags, r.Failed, r.Other, want)
		}
	}
}
