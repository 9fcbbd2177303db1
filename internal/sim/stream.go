package sim

import (
	"math"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
)

// Stream is a simulated run read as k6 samples: an ingest.Reader that
// simulates as it is read, one simulated second at a time, so memory stays
// bounded however long the run. Samples come in the order k6's output
// writes them (see Output.PushJitter); their tag columns are the CSV's
// (the enabled system tags, sorted), their extra tags the run's and the
// class's user tags.
type Stream struct {
	e        *engine
	truth    Truth
	rows     []row
	pos      int
	boundary int64
	ended    bool
	s        ingest.Sample
	st       ingest.Stats
}

var _ ingest.Reader = (*Stream)(nil)

// NewStream starts simulating c. It returns the validation error of a bad
// config.
func NewStream(c Config) (*Stream, error) {
	e, err := newEngine(c, true)
	if err != nil {
		return nil, err
	}
	s := &Stream{e: e, truth: e.computeTruth()}
	s.st.ResolutionNS = 1
	return s, nil
}

// Next advances to the next sample.
func (s *Stream) Next() bool {
	r, ok := s.nextRow()
	if !ok {
		return false
	}
	s.s = ingest.Sample{
		Metric: metricDefs[r.m].name,
		TimeNS: r.t,
		Value:  r.v,
		Tags:   ingest.NewTags(s.e.cols.names, r.ts.vals, r.ts.extraStr, ""),
		Source: s.e.cfg.Source,
	}
	s.st.Rows++
	return true
}

// nextRow returns the next emitted row, simulating as needed.
func (s *Stream) nextRow() (row, bool) {
	for s.pos >= len(s.rows) {
		if s.ended {
			return row{}, false
		}
		s.boundary += 1e9
		if s.boundary < 0 {
			s.boundary = math.MaxInt64
		}
		more := s.e.advance(s.boundary)
		s.rows, s.pos = s.e.out.take(), 0
		if !more {
			s.ended = true
			s.truth.Measured = s.e.measured()
		}
	}
	r := s.rows[s.pos]
	s.pos++
	return r, true
}

// Sample returns the current sample, valid until the next call to Next.
func (s *Stream) Sample() *ingest.Sample { return &s.s }

// Err is always nil: a simulation does no I/O.
func (s *Stream) Err() error { return nil }

// Stats returns the samples returned so far (ResolutionNS 1: simulated
// times are exact to the nanosecond).
func (s *Stream) Stats() ingest.Stats { return s.st }

// Close stops the simulation.
func (s *Stream) Close() error {
	s.ended = true
	s.rows = nil
	return nil
}

// Columns returns the tag columns of every sample (the CSV's tag columns).
func (s *Stream) Columns() []string { return s.e.cols.names }

// Truth returns the run's truth. Its Measured part is filled once Next has
// returned false.
func (s *Stream) Truth() Truth { return s.truth }

// Simulate runs c without producing samples and returns its truth,
// Measured included: the fastest way to the numbers.
func Simulate(c Config) (Truth, error) {
	e, err := newEngine(c, false)
	if err != nil {
		return Truth{}, err
	}
	tr := e.computeTruth()
	for e.advance(math.MaxInt64) {
	}
	tr.Measured = e.measured()
	return tr, nil
}
