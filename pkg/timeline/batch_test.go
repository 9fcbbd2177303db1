package timeline

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
)

// columnarCopy writes the k6 CSV at path as a columnar file (format,
// batchRows rows a batch) in a temporary directory and returns its path.
func columnarCopy(t *testing.T, path string, format ingest.Format, batchRows int) string {
	t.Helper()
	r, err := ingest.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var buf bytes.Buffer
	if _, err := ingest.WriteColumnar(&buf, r, ingest.ColumnarOptions{Format: format, BatchRows: batchRows}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "copy."+string(format))
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// drainInto reads the columnar file at path into a, on one worker: one row
// at a time (Add) or, with batches, a batch at a time (AddBatch).
func drainInto(t *testing.T, path string, a *Accumulator, batches bool) ingest.Stats {
	t.Helper()
	c, err := ingest.OpenColumnar(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if batches {
		err = c.DrainBatches([]func(*ingest.Sample){a.Add}, []func(*ingest.Batch){a.AddBatch})
	} else {
		err = c.Drain([]func(*ingest.Sample){a.Add})
	}
	if err != nil {
		t.Fatal(err)
	}
	return c.Stats()
}

// sameTimeline fails unless a and b hold the same totals and the same
// seconds, field for field.
func sameTimeline(t *testing.T, a, b *Timeline) {
	t.Helper()
	// Series keys are hashes of each Accumulator's own seed: their number
	// is compared, the rest of the totals field by field.
	x, y := a.tot, b.tot
	if len(x.series) != len(y.series) {
		t.Fatalf("%d series, want %d", len(y.series), len(x.series))
	}
	x.series, y.series = nil, nil
	if !reflect.DeepEqual(x, y) {
		for name, f := range map[string][2]any{
			"rows": {x.rows, y.rows}, "span": {[2]int64{x.minNS, x.maxNS}, [2]int64{y.minNS, y.maxNS}},
			"trends": {x.trends, y.trends}, "iterDur": {x.iterDur, y.iterDur}, "metrics": {x.metrics, y.metrics},
			"byStatus": {x.byStatus, y.byStatus}, "checks": {x.checks, y.checks}, "names": {x.names, y.names},
		} {
			if !reflect.DeepEqual(f[0], f[1]) {
				t.Errorf("totals.%s differ", name)
			}
		}
		t.Fatal("totals differ")
	}
	// The raw records, every field (the failed-rate counts of each
	// protocol too, which Second does not show).
	if a.sh.secs.Len() == 0 || a.sh.secs.Len() != b.sh.secs.Len() {
		t.Fatalf("%d raw second records, want %d", b.sh.secs.Len(), a.sh.secs.Len())
	}
	var scratch second
	a.sh.secs.Each(func(sec int64, r *second) {
		if o := b.sh.secs.Get(sec, &scratch); o == nil || !reflect.DeepEqual(*r, *o) {
			t.Fatalf("second %d: raw records differ", sec)
		}
	})
	n := 0
	a.Each(func(sec int64, s *Second) {
		o, ok := b.Second(sec)
		if !ok || !reflect.DeepEqual(*s, o) {
			t.Fatalf("second %d: %+v, want %+v", sec, o, *s)
		}
		n++
	})
	if n == 0 || a.Rows() != b.Rows() {
		t.Fatalf("%d seconds compared (rows %d, %d)", n, a.Rows(), b.Rows())
	}
	if x, y := a.Latency(a.Main().First, a.Main().Last+1), b.Latency(b.Main().First, b.Main().Last+1); x.Count() != y.Count() || x.Quantile(0.95) != y.Quantile(0.95) {
		t.Errorf("latency %d p95 %v, want %d %v", y.Count(), y.Quantile(0.95), x.Count(), x.Quantile(0.95))
	}
}

// oddCSV is a k6 CSV made to stress AddBatch's memo: 70 built-in
// sub-metric names (past the cardinality cache's 48), 300 custom metrics
// with 12,000 series (past MaxSeries), empty tags (nulls), a -0 value now
// and then, which sends its batch row by row, and rows of every metric
// AddBatch counts itself (fastOp).
func oddCSV(t *testing.T) string {
	var b strings.Builder
	b.WriteString("metric_name,timestamp,metric_value,name,status,scenario,check,extra_tags,metadata\n")
	for i := range 40000 {
		ts := 1796004429 + i/500
		name, status, scen := fmt.Sprintf("n%d", i%7), "200", "s1"
		if i%11 == 0 {
			name, status = "", ""
		}
		if i%13 == 0 {
			status = "500"
		}
		var metric, value string
		switch i % 9 {
		case 0:
			metric, value = "http_reqs", "1"
		case 1:
			metric, value = "http_req_duration", fmt.Sprintf("%d.%03d", i%97, i%1000)
		case 2:
			metric, value = "data_sent", fmt.Sprint(i%300)
			if i%1001 == 2 {
				value = "-0"
			}
		case 3:
			metric, value = fmt.Sprintf("http_req_x%d", i%70), fmt.Sprintf("0.%d", i%10)
		case 4:
			metric, value = fmt.Sprintf("custom_%d", i%300), "1"
			name = fmt.Sprintf("series%d", i%12000)
		case 5:
			metric, value = "checks", fmt.Sprint(i%5/4)
		case 6:
			metric, value = "iterations", "1"
		case 7:
			metric, value = "iteration_duration", fmt.Sprint(i%500+100)
		case 8:
			metric, value = "http_req_failed", fmt.Sprint(i%13/12)
			switch i % 5 {
			case 1:
				metric = "dropped_iterations"
			case 2:
				metric, value = "ws_msgs_sent", fmt.Sprint(i%7)
			case 3:
				metric, value = "ws_msgs_received", fmt.Sprint(i%11)
			case 4:
				metric = "browser_http_req_failed"
			}
		}
		fmt.Fprintf(&b, "%s,%d,%s,%s,%s,%s,%s,,\n", metric, ts, value, name, status, scen, "ok")
	}
	p := filepath.Join(t.TempDir(), "odd.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAddBatchSameAsAdd: a corpus run and oddCSV, as Parquet and as
// Arrow files of odd batch sizes, give the same totals and seconds fed a
// batch at a time (AddBatch) as fed a row at a time (Add).
func TestAddBatchSameAsAdd(t *testing.T) {
	files := []string{
		filepath.Join("..", "..", "testdata", "k6", "breakpoint.csv.gz"),
		filepath.Join("..", "..", "testdata", "k6", "timefmt_rfc3339_nano.csv"),
		oddCSV(t),
	}
	for _, f := range files {
		for _, c := range []struct {
			format ingest.Format
			rows   int
		}{{ingest.FormatParquet, 0}, {ingest.FormatParquet, 70000}, {ingest.FormatArrow, 777}} {
			t.Run(fmt.Sprintf("%s/%s/%d", filepath.Base(f), c.format, c.rows), func(t *testing.T) {
				p := columnarCopy(t, f, c.format, c.rows)
				row, bat := New(Options{}), New(Options{})
				st := drainInto(t, p, row, false)
				if st2 := drainInto(t, p, bat, true); st2.Rows != st.Rows || st2.Skipped != st.Skipped {
					t.Fatalf("rows %d skipped %d, want %d %d", st2.Rows, st2.Skipped, st.Rows, st.Skipped)
				}
				if st.Rows == 0 {
					t.Fatal("no rows")
				}
				sameTimeline(t, row.Close(st.ResolutionNS), bat.Close(st.ResolutionNS))
			})
		}
	}
}
