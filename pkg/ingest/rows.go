package ingest

import (
	"errors"
	"io"
)

// Batch is a run of consecutive rows of a columnar file (up to 8,192 rows
// of a Parquet row group, or an Arrow record batch) that ReadAllBatches
// hands whole to a batch sink: the fixed columns as slices, a row as a
// Sample on demand (whose tags decode a tag column for the whole batch on
// first use, as the reader's own samples do). Every row of a Batch passed
// the reader's checks (no null fixed column, a metric name, a time in
// range, a finite value ≥ 0); rows that did not were recorded as syntax
// errors and are not in any batch. A Batch, its slices and the Sample
// returned are valid during the sink's call only.
type Batch struct {
	// MetricIDs are the rows' metric names as indices into Names.
	MetricIDs []int32
	// TimesNS are the rows' times, nanoseconds since the Unix epoch.
	TimesNS []int64
	// Values are the rows' values, in each metric's own unit.
	Values []float64
	// Names are the strings the ids index, as interned as a Sample's
	// Metric: Names[MetricIDs[i]] is the string, same bytes and address,
	// that Sample(i).Metric is. An id names the same string in every
	// batch of one call of a sink, not across calls.
	Names []string

	c *ColumnarReader
	b *colBatch
	r *colRow
	s *Sample
}

// Len returns the number of rows.
func (bt *Batch) Len() int { return len(bt.MetricIDs) }

// Sample returns row i as the reader's Drain would hand it to a sink. The
// Sample is shared by the batch's rows: it is valid until the next call.
func (bt *Batch) Sample(i int) *Sample {
	b, s := bt.b, bt.s
	s.Metric = b.tab.strs[b.metric[i]]
	s.TimeNS, s.Value, bt.r.i = b.times[i], b.values[i], i
	if b.oneSrc {
		s.Source = b.src
	} else {
		s.Source = bt.c.source(b, i)
	}
	return s
}

// BatchDrainer is a Reader that can hand its rows to batch sinks in
// parallel (the columnar reader): rows[i] and samples[i] are called only
// from worker i's goroutine; a batch's rows go to rows[i] whole when all
// pass the reader's checks, else one by one to samples[i].
type BatchDrainer interface {
	DrainBatches(samples []func(*Sample), rows []func(*Batch)) error
}

// DrainBatches is Drain with batch sinks: rows[i] is worker i's (see
// BatchDrainer). len(rows) must be len(samples).
func (c *ColumnarReader) DrainBatches(samples []func(*Sample), rows []func(*Batch)) error {
	if len(rows) != len(samples) {
		return errors.New("ingest: DrainBatches with as many batch sinks as sample sinks needed")
	}
	return c.drain(samples, nil, rows)
}

// ReadAllBatches is ReadAll that hands a columnar input's rows to rows[i]
// a batch at a time (Batch), beside sinks[i], from the same goroutine;
// other formats go to sinks as ReadAll sends them. rows must be as long
// as sinks, or nil (ReadAll).
func ReadAllBatches(paths []string, stdin io.Reader, sinks []func(*Sample), rows []func(*Batch), onRead func(n int)) (Stats, error) {
	if rows != nil && len(rows) != len(sinks) {
		return Stats{}, errors.New("ingest: ReadAllBatches with as many batch sinks as sample sinks needed")
	}
	return readAll(paths, stdin, sinks, rows, onRead)
}
