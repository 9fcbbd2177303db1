// Package ingest reads the files a load test leaves behind into one stream of
// samples: k6 CSV output (every header k6 has shipped, plain or gzip, any of
// the six K6_CSV_TIME_FORMAT encodings), with more formats added beside it.
//
// Readers stream with bounded memory. They follow the scanner shape of
// golang.org/x/perf/benchfmt: Next() advances, Sample() returns the current
// sample (valid until the next call to Next), Err() the I/O error that
// stopped the read, if any. A malformed line does not stop the read: it is
// recorded as a SyntaxError in Stats and skipped.
package ingest

import (
	"fmt"
	"hash/maphash"
	"strings"
	"time"
)

// Sample is one k6 metric sample.
//
// A Sample and the strings it refers to are owned by the reader and valid
// until the next call to Next; copy what you keep. Tag values and metric
// names are interned by the readers, so keeping them is cheap.
type Sample struct {
	// Metric is the k6 metric name, e.g. "http_req_duration".
	Metric string
	// TimeNS is the sample time in nanoseconds since the Unix epoch, at the
	// resolution the file carries (see Resolution).
	TimeNS int64
	// Value is the metric value in the metric's own unit: milliseconds for
	// time trends, bytes for data counters, 1/0 for rates and counters.
	Value float64
	// Tags are the sample's tags (system tags and user tags alike).
	Tags Tags
	// Source is the name of the file the sample came from ("-" for stdin).
	Source string
}

// Time returns TimeNS as a time.Time in UTC.
func (s *Sample) Time() time.Time { return time.Unix(0, s.TimeNS).UTC() }

// Tags is the tag set of a sample: named tag columns plus the extra tags and
// metadata that k6 encodes as "k=v&k=v" (pair order is random in k6's
// output, so lookups never depend on it).
//
// An empty column value means the sample lacks that tag (k6 writes absent
// and empty tags the same way in CSV). Read tags through the methods: the
// CSV reader decodes a column only when it is asked for, which is most of
// its speed. Values returned are interned and may be kept.
type Tags struct {
	keys  []string
	vals  []string // eager readers
	extra string
	meta  string
	lazy  *lazyRow // the CSV reader: values decoded on demand
	lazyJ *jsonRow // the JSON reader: likewise
	lazyC *colRow  // the columnar reader: columns decoded per batch on demand
}

// NewTags returns a tag set with the given columns (keys and values
// index-aligned) and raw "k=v&k=v" extra tags and metadata. keys and values
// are used, not copied.
func NewTags(keys, values []string, extra, metadata string) Tags {
	return Tags{keys: keys, vals: values, extra: extra, meta: metadata}
}

// Len returns the number of tag columns (values may be empty).
func (t *Tags) Len() int { return len(t.Keys()) }

// Key returns the name of column i.
func (t *Tags) Key(i int) string { return t.Keys()[i] }

// Keys returns the column names, shared by every sample of a file; do not
// modify it. A JSON file's columns grow as new keys are asked for (see
// K6JSONReader): a later sample may return a longer slice, of which this
// one is a prefix.
func (t *Tags) Keys() []string {
	if t.lazyJ != nil {
		return t.lazyJ.keys()
	}
	return t.keys
}

// Value returns the value of column i ("" when the sample lacks the tag).
func (t *Tags) Value(i int) string {
	if t.lazy != nil {
		return t.lazy.value(i)
	}
	if t.lazyJ != nil {
		return t.lazyJ.col(i)
	}
	if t.lazyC != nil {
		return t.lazyC.value(i)
	}
	return t.vals[i]
}

// Extra returns the raw extra_tags field ("k=v&k=v"), or "".
func (t *Tags) Extra() string {
	if t.lazy != nil {
		return t.lazy.extra()
	}
	if t.lazyJ != nil {
		return t.lazyJ.extraTags()
	}
	if t.lazyC != nil {
		return t.lazyC.extra()
	}
	return t.extra
}

// Metadata returns the raw metadata field ("k=v&k=v"), or "". k6 writes
// the non-indexable tags vu and iter and exec.vu.metrics.metadata here.
func (t *Tags) Metadata() string {
	if t.lazy != nil {
		return t.lazy.metadata()
	}
	if t.lazyJ != nil {
		return t.lazyJ.metadata()
	}
	if t.lazyC != nil {
		return t.lazyC.metadata()
	}
	return t.meta
}

// Get returns the value of tag key and whether the sample has it with a
// non-empty value. Columns are searched first, then the extra tags, then the
// metadata.
func (t *Tags) Get(key string) (string, bool) {
	if t.lazyJ != nil {
		return t.lazyJ.get(key)
	}
	if t.lazy != nil {
		return t.lazy.get(key)
	}
	if t.lazyC != nil {
		return t.lazyC.get(t.keys, key)
	}
	for i, k := range t.keys {
		if k == key {
			v := t.Value(i)
			return v, v != ""
		}
	}
	if v, ok := lookupPairs(t.Extra(), key); ok {
		return v, true
	}
	return lookupPairs(t.Metadata(), key)
}

// Each calls fn for every non-empty tag: columns, then extra tags, then
// metadata (with metadata true).
func (t *Tags) Each(fn func(key, value string, metadata bool)) {
	if t.lazyJ != nil {
		t.lazyJ.each(fn)
		return
	}
	for i, k := range t.keys {
		if v := t.Value(i); v != "" {
			fn(k, v, false)
		}
	}
	eachPair(t.Extra(), func(k, v string) { fn(k, v, false) })
	eachPair(t.Metadata(), func(k, v string) { fn(k, v, true) })
}

// lookupPairs finds key in a k6 "k=v&k=v" string. A pair splits at its
// first '=' (k6 does not escape, so a value may itself contain '=').
func lookupPairs(s, key string) (string, bool) {
	for s != "" {
		var pair string
		if i := strings.IndexByte(s, '&'); i >= 0 {
			pair, s = s[:i], s[i+1:]
		} else {
			pair, s = s, ""
		}
		if len(pair) > len(key) && pair[len(key)] == '=' && pair[:len(key)] == key {
			return pair[len(key)+1:], true
		}
	}
	return "", false
}

// eachPair calls fn for every pair of a k6 "k=v&k=v" string; a pair with no
// '=' is a key with an empty value.
func eachPair(s string, fn func(k, v string)) {
	for s != "" {
		var pair string
		if i := strings.IndexByte(s, '&'); i >= 0 {
			pair, s = s[:i], s[i+1:]
		} else {
			pair, s = s, ""
		}
		if pair == "" {
			continue
		}
		if i := strings.IndexByte(pair, '='); i >= 0 {
			fn(pair[:i], pair[i+1:])
		} else {
			fn(pair, "")
		}
	}
}

// ParsePairs parses a k6 "k=v&k=v" field (extra_tags, metadata) into a map.
// Pair order does not matter; a later duplicate key wins.
func ParsePairs(s string) map[string]string {
	m := map[string]string{}
	eachPair(s, func(k, v string) { m[k] = v })
	return m
}

// SyntaxError is a malformed line that was skipped. Line and Column are
// 1-based; Column 0 means the whole line.
type SyntaxError struct {
	File   string
	Line   int64
	Column int
	Msg    string
}

func (e *SyntaxError) Error() string {
	if e.Column > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Stats counts what a reader read and skipped.
type Stats struct {
	// Rows is the number of samples returned.
	Rows int64
	// Skipped is the number of malformed lines skipped.
	Skipped int64
	// Errors holds the first MaxRecordedErrors syntax errors.
	Errors []*SyntaxError
	// Truncated is set when a compressed stream ended early (a k6 that was
	// killed leaves a gzip file with no trailer); the samples before the cut
	// were returned.
	Truncated bool
	// Corrupt is set, with Truncated, when a compressed stream was read to
	// its end but failed its checksum: some of the samples returned may
	// hold damaged bytes.
	Corrupt bool
	// Warnings are caveats about the input, in plain words.
	Warnings []string
	// ResolutionNS is the coarsest timestamp resolution seen, in
	// nanoseconds (1e9 for k6's default unix-seconds CSV).
	ResolutionNS int64
	// Bytes is the number of (decompressed) bytes read.
	Bytes int64
	// Metrics are the metrics a k6 JSON output declared in its Metric
	// lines (type, value kind), by name; nil for other formats. Filled by
	// ReadAll.
	Metrics map[string]MetricInfo
	// TimeSteps counts the steps back in time of more than BackStepNS
	// within a file (two runs in one file, or a stray timestamp), and
	// Steps are the first MaxTimeSteps of them. Each file with steps
	// also adds a Warning.
	TimeSteps int64
	Steps     []TimeStep
}

// MaxRecordedErrors is how many syntax errors a reader keeps in Stats.Errors;
// all of them are counted in Stats.Skipped.
const MaxRecordedErrors = 20

// record adds a syntax error to the stats.
func (st *Stats) record(e *SyntaxError) {
	st.Skipped++
	if len(st.Errors) < MaxRecordedErrors {
		st.Errors = append(st.Errors, e)
	}
}

// Merge adds o's counts to st (the stats of several inputs read one after
// the other).
func (st *Stats) Merge(o Stats) { st.merge(o) }

// merge adds o's counts to st.
func (st *Stats) merge(o Stats) {
	st.Rows += o.Rows
	st.Skipped += o.Skipped
	for _, e := range o.Errors {
		if len(st.Errors) < MaxRecordedErrors {
			st.Errors = append(st.Errors, e)
		}
	}
	st.Truncated = st.Truncated || o.Truncated
	st.Corrupt = st.Corrupt || o.Corrupt
	st.Warnings = append(st.Warnings, o.Warnings...)
	if o.ResolutionNS > st.ResolutionNS {
		st.ResolutionNS = o.ResolutionNS
	}
	st.Bytes += o.Bytes
	st.TimeSteps += o.TimeSteps
	for _, s := range o.Steps {
		if len(st.Steps) < MaxTimeSteps {
			st.Steps = append(st.Steps, s)
		}
	}
	for k, v := range o.Metrics {
		if st.Metrics == nil {
			st.Metrics = map[string]MetricInfo{}
		}
		if _, dup := st.Metrics[k]; !dup {
			st.Metrics[k] = v
		}
	}
}

// Reader is a stream of samples.
type Reader interface {
	// Next advances to the next sample and reports whether there is one.
	Next() bool
	// Sample returns the current sample, valid until the next call to Next.
	Sample() *Sample
	// Err returns the error that stopped the read (I/O, an unreadable
	// header), or nil at a clean end. Skipped lines are not errors.
	Err() error
	// Stats returns the counts so far.
	Stats() Stats
	// Close releases the underlying files.
	Close() error
}

// AppendValues appends the value of every column to dst and returns it.
func (t *Tags) AppendValues(dst []string) []string {
	if t.lazyJ != nil {
		for i := range t.lazyJ.keys() {
			dst = append(dst, t.lazyJ.col(i))
		}
		return dst
	}
	for i := range t.keys {
		dst = append(dst, t.Value(i))
	}
	return dst
}

// SeriesHash returns a hash of the sample's tag set without its metadata —
// with the metric name, the identity of a k6 time series. The extra tags
// are hashed regardless of their pair order (k6 writes it at random). It
// does not decode or intern tag values, so it is cheap on the CSV hot path.
// Equal tag sets give equal hashes for one seed; the hash of a CSV row and
// of the same sample read from JSON or a columnar file may differ (the
// columnar reader hashes each distinct tag value once, not per row).
func (t *Tags) SeriesHash(seed maphash.Seed) uint64 {
	if t.lazyJ != nil {
		return t.lazyJ.seriesHash(seed)
	}
	if t.lazyC != nil {
		return t.lazyC.seriesHash(seed)
	}
	var h maphash.Hash
	h.SetSeed(seed)
	if t.lazy != nil {
		t.lazy.hashColumns(&h)
	} else {
		for i, v := range t.vals {
			h.WriteString(v)
			h.WriteByte(byte(i))
		}
	}
	return h.Sum64() + pairsHash(seed, t.Extra())
}

// pairsHash is the hash of a k6 "k=v&k=v" field regardless of its pair
// order: the sum of the pairs' hashes.
func pairsHash(seed maphash.Seed, s string) uint64 {
	var sum uint64
	eachPair(s, func(k, v string) {
		var p maphash.Hash
		p.SetSeed(seed)
		p.WriteString(k)
		p.WriteByte(0)
		p.WriteString(v)
		sum += p.Sum64() * 0x9E3779B97F4A7C15
	})
	return sum
}
