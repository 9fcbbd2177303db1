package ingest

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// TestColumnarPlainFixed: PLAIN, required INT64 millisecond timestamps and
// doubles (another tool's file) read exactly through the page decoder's
// bulk loops: each time × 1e6 ns, each value's bits as written; a time
// below 0 or past 2200 is recorded (at whole seconds) and skipped, the
// last millisecond MaxTimeNS holds is not; a NaN is skipped, -0 kept.
func TestColumnarPlainFixed(t *testing.T) {
	req := parquet.Repetitions.Required
	node := func(n schema.Node, err error) schema.Node {
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	fields := schema.FieldList{
		node(schema.NewPrimitiveNodeLogical(ColMetric, req, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1)),
		node(schema.NewPrimitiveNodeLogical(ColTime, req, schema.NewTimestampLogicalType(true, schema.TimeUnitMillis), parquet.Types.Int64, -1, -1)),
		node(schema.NewPrimitiveNode(ColValue, req, parquet.Types.Double, -1, -1)),
	}
	root := node(schema.NewGroupNode("schema", req, fields, -1)).(*schema.GroupNode)
	var buf bytes.Buffer
	pw := file.NewParquetWriter(&buf, root, file.WithWriterProps(parquet.NewWriterProperties(parquet.WithDictionaryDefault(false))))
	lastMS := MaxTimeNS / 1e6
	times := []int64{1796004258500, -5000, 7289654400000, lastMS, 1796004259001, 1796004259002, 1796004259003}
	values := []float64{1.5, 2, 3, 4, math.NaN(), math.Copysign(0, -1), 5e-324}
	metrics := make([]parquet.ByteArray, len(times))
	for i := range metrics {
		metrics[i] = parquet.ByteArray("data_sent")
	}
	rgw, err := pw.AppendRowGroupChecked()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []func(c file.ColumnChunkWriter) error{
		func(c file.ColumnChunkWriter) error {
			_, err := c.(*file.ByteArrayColumnChunkWriter).WriteBatch(metrics, nil, nil)
			return err
		},
		func(c file.ColumnChunkWriter) error {
			_, err := c.(*file.Int64ColumnChunkWriter).WriteBatch(times, nil, nil)
			return err
		},
		func(c file.ColumnChunkWriter) error {
			_, err := c.(*file.Float64ColumnChunkWriter).WriteBatch(values, nil, nil)
			return err
		},
	} {
		c, err := rgw.NextColumn()
		if err == nil {
			err = f(c)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := rgw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	c, p := openColumnarBytes(t, "plain.parquet", buf.Bytes())
	var gotT []int64
	var gotV []uint64
	for c.Next() {
		gotT = append(gotT, c.Sample().TimeNS)
		gotV = append(gotV, math.Float64bits(c.Sample().Value))
	}
	wantT := []int64{1796004258500e6, lastMS * 1e6, 1796004259002e6, 1796004259003e6}
	wantV := []uint64{math.Float64bits(1.5), math.Float64bits(4), math.Float64bits(math.Copysign(0, -1)), math.Float64bits(5e-324)}
	if !equalInts(gotT, wantT) || !equalInts(gotV, wantV) {
		t.Errorf("times %v values %x, want %v %x", gotT, gotV, wantT, wantV)
	}
	var errs []string
	for _, e := range c.Stats().Errors {
		errs = append(errs, e.Error())
	}
	wantErrs := []string{
		p + ":2:2: timestamp 1969-12-31T23:59:55Z is outside 1970–2200",
		p + ":3:2: timestamp 2201-01-01T00:00:00Z is outside 1970–2200",
		p + ":5:3: metric_value NaN: want a finite number",
	}
	if c.Err() != nil || strings.Join(errs, "\n") != strings.Join(wantErrs, "\n") {
		t.Errorf("err %v, errors\n%s\nwant\n%s", c.Err(), strings.Join(errs, "\n"), strings.Join(wantErrs, "\n"))
	}
}

func equalInts[T int64 | uint64](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
