package ingest

// batchSink takes a reader's samples on the reader's workers, batch by
// batch: begin and end bracket the samples of one batch, whose seq numbers
// are 0, 1, 2, … in file order, each given once, to one sink. Within a
// batch the samples come in file order. It is how WriteColumnar converts
// on every core and still writes rows in file order.
type batchSink interface {
	begin(seq int64)
	sample(s *Sample)
	// end closes the batch; res is the timestamp resolution of its
	// samples as the reader's Stats would count it.
	end(seq int64, res resolution)
}

// batchDrainer is a reader that can hand its samples to batch sinks in
// parallel (the CSV, JSON and columnar readers, before any Next).
type batchDrainer interface {
	drainBatches(sinks []batchSink) error
}

// resolution is a batch's contribution to Stats.ResolutionNS: the coarsest
// unit of integer timestamps, and the finest unit of fractions that k6
// trims (RFC 3339, JSON times; 0 when there were none). Merged over
// batches, the resolution is the larger of the two.
type resolution struct {
	intNS, fracNS int64
}

func (r *resolution) merge(o resolution) {
	r.intNS = max(r.intNS, o.intNS)
	if o.fracNS > 0 && (r.fracNS == 0 || o.fracNS < r.fracNS) {
		r.fracNS = o.fracNS
	}
}

// ns returns the merged resolution in nanoseconds (0: no timestamp seen).
func (r resolution) ns() int64 { return max(r.intNS, r.fracNS) }
