package ingest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestBatchTagIDs: for every row of every batch, and every tag column
// (asked before and after the row's Sample read it), Names[TagIDs(key)[i]]
// is what Sample(i).Tags.Get(key) says, present exactly when not empty;
// a key that is no tag column is not ok. The file has nulls, several
// row groups and a column whose dictionary is large.
func TestBatchTagIDs(t *testing.T) {
	var src strings.Builder
	src.WriteString("metric_name,timestamp,metric_value,name,status,url,extra_tags,metadata\n")
	for i := range 20000 {
		name, st := fmt.Sprintf("n%d", i%5), []string{"200", "", "404"}[i%3]
		if i%7 == 0 {
			name = ""
		}
		fmt.Fprintf(&src, "http_reqs,%d,1,%s,%s,http://h/%d,scenario=s%d,\n", 1796004429+i/100, name, st, i, i%2)
	}
	r, err := NewCSVReader(strings.NewReader(src.String()), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := WriteColumnar(&buf, r, ColumnarOptions{BatchRows: 3000}); err != nil {
		t.Fatal(err)
	}
	c, _ := openColumnarBytes(t, "t.parquet", buf.Bytes())
	defer c.Close()
	rows, batches := 0, 0
	err = c.DrainBatches([]func(*Sample){func(*Sample) { t.Error("a row outside a batch") }}, []func(*Batch){func(b *Batch) {
		batches++
		if _, ok := b.TagIDs("scenario"); ok {
			t.Error("TagIDs(scenario) ok: it is an extra tag, not a column")
		}
		for k, key := range []string{"status", "name", "url"} {
			for i := range b.Len() {
				var ids []int32
				var ok bool
				if k%2 == 0 {
					ids, ok = b.TagIDs(key)
				}
				want, has := b.Sample(i).Tags.Get(key)
				if k%2 == 1 {
					ids, ok = b.TagIDs(key)
				}
				if !ok || len(ids) != b.Len() {
					t.Fatalf("TagIDs(%s): %d ids, ok %v; want %d", key, len(ids), ok, b.Len())
				}
				if got := b.Names[ids[i]]; got != want || (got != "") != has {
					t.Fatalf("row %d %s: %q, want %q (%v)", i, key, got, want, has)
				}
			}
		}
		rows += b.Len()
	}})
	if err != nil {
		t.Fatal(err)
	}
	if rows != 20000 || batches < 7 {
		t.Fatalf("%d rows in %d batches", rows, batches)
	}
}

// TestBatchSources: a batch's rows keep their own source_file when the
// batch mixes sources, even when only one row differs: at an odd index
// inside the batch (batches of 1,001 rows: a.csv's 501, b.csv's 1, a.csv's
// 499), or last of an odd number (a.csv's 1,000, then c.csv's 1); the
// Source of each row is the one its name tag records.
func TestBatchSources(t *testing.T) {
	var rs []Reader
	for _, f := range []struct {
		file string
		n    int
	}{{"a.csv", 501}, {"b.csv", 1}, {"a.csv", 1499}, {"c.csv", 1}, {"c.csv", 1000}, {"d.csv", 2002}} {
		n := f.n
		var src strings.Builder
		src.WriteString("metric_name,timestamp,metric_value,name\n")
		file := f.file
		for i := range n {
			fmt.Fprintf(&src, "vus,%d,1,%s\n", 1796004429+i/100, file)
		}
		r, err := NewCSVReader(strings.NewReader(src.String()), file)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	var buf bytes.Buffer
	if _, err := WriteColumnar(&buf, NewMultiReader(rs...), ColumnarOptions{BatchRows: 1001}); err != nil {
		t.Fatal(err)
	}
	c, _ := openColumnarBytes(t, "t.parquet", buf.Bytes())
	defer c.Close()
	rows := 0
	err := c.DrainBatches([]func(*Sample){func(*Sample) { t.Error("a row outside a batch") }}, []func(*Batch){func(b *Batch) {
		for i := range b.Len() {
			s := b.Sample(i)
			if want, _ := s.Tags.Get("name"); s.Source != want {
				t.Fatalf("row %d of a batch of %d: source %q, want %q", i, b.Len(), s.Source, want)
			}
			rows++
		}
	}})
	if err != nil || rows != 5004 {
		t.Fatalf("%d rows, err %v", rows, err)
	}
}
