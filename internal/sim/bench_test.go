package sim

import (
	"io"
	"testing"
)

// The speed case of the brief: high-capacity is a 30-min ramp through
// 2,500 req/s (4.59 million requests, 36.7 million samples). Run with
// go test -run '^$' -bench . -benchtime 1x ./internal/sim/ (go test alone
// does not).

func BenchmarkSimulateHighCapacity(b *testing.B) {
	var n int64
	for b.Loop() {
		tr, err := Simulate(HighCapacity())
		if err != nil {
			b.Fatal(err)
		}
		n += tr.Measured.Requests
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "req/s")
}

func BenchmarkStreamHighCapacity(b *testing.B) {
	var n int64
	for b.Loop() {
		s, err := NewStream(HighCapacity())
		if err != nil {
			b.Fatal(err)
		}
		for s.Next() {
		}
		n += s.Stats().Rows
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "samples/s")
}

// countingWriter counts the bytes written.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func BenchmarkWriteCSVHighCapacity(b *testing.B) {
	var w countingWriter
	for b.Loop() {
		if _, err := WriteCSV(&w, HighCapacity(), CSVOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(w.n / int64(b.N))
}

func BenchmarkWriteJSONOpenRamp30m(b *testing.B) {
	var w countingWriter
	for b.Loop() {
		if _, err := WriteJSON(&w, OpenRamp30m(), JSONOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(w.n / int64(b.N))
}

var _ io.Writer = (*countingWriter)(nil)
