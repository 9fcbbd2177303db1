package ingest

// interner returns one shared string for equal byte slices, so that tag
// values and metric names repeated on millions of rows cost one allocation
// each. Past maxInterned distinct values (a high-cardinality tag such as a
// url with query strings) it stops remembering and returns fresh strings,
// which keeps memory bounded.
type interner struct {
	m map[string]string
}

const maxInterned = 1 << 16

func newInterner() *interner { return &interner{m: make(map[string]string, 256)} }

// intern returns a string equal to b.
func (in *interner) intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if s, ok := in.m[string(b)]; ok { // no allocation for the lookup
		return s
	}
	s := string(b)
	if len(in.m) < maxInterned {
		in.m[s] = s
	}
	return s
}
