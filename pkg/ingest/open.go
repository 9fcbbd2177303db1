package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// TruncatedError reports a compressed stream that ended before its end
// marker (a k6 process that was killed leaves such a .gz) or whose checksum
// failed. Readers treat it as the end of input plus a warning.
type TruncatedError struct {
	File string
	Err  error
}

func (e *TruncatedError) Error() string {
	if e.Corrupt() {
		return fmt.Sprintf("%s: compressed stream damaged (%v): it was read to its end, but some of its bytes decoded wrong", e.File, e.Err)
	}
	return fmt.Sprintf("%s: compressed stream cut short (%v)", e.File, e.Err)
}

// Corrupt reports a stream that was read to its end but failed its
// checksum: its bytes were damaged (on disk, in a copy), not cut.
func (e *TruncatedError) Corrupt() bool { return errors.Is(e.Err, gzip.ErrChecksum) }

func (e *TruncatedError) Unwrap() error { return e.Err }

// Format is a detected input format.
type Format string

// The input formats Open recognises from content.
const (
	FormatK6CSV  Format = "k6-csv"
	FormatK6JSON Format = "k6-json"
)

// Open opens one input for reading samples. path "-" reads stdin. The
// compression (gzip, zstd) is detected from magic bytes, not from the name,
// and so is the format (k6 CSV or k6 JSON lines). It returns an error that
// names the file when it cannot be opened or its format is unknown.
func Open(path string, stdin io.Reader) (Reader, error) {
	return openCounted(path, stdin, nil)
}

// countingReader reports the bytes read from the file (before
// decompression) to onRead.
type countingReader struct {
	r      io.Reader
	onRead func(int)
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.onRead(n)
	}
	return n, err
}

func openCounted(path string, stdin io.Reader, onRead func(int)) (Reader, error) {
	var (
		src    io.Reader
		closer io.Closer
		file   *onceCloser // the file opened, nil for standard input
		osFile *os.File
		name   = path
	)
	if path == "-" {
		if stdin == nil {
			return nil, errors.New("-: no standard input")
		}
		src, name = stdin, "-"
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s: a directory, not a k6 output: give the run's files (several are one distributed run), or use `ldanalyze suite` for a directory of runs", path)
		}
		file = &onceCloser{c: f}
		src, closer, osFile = f, file, f
	}
	if onRead != nil {
		src = countingReader{src, onRead}
	}
	r, cl, err := decompress(src, name)
	if err != nil {
		if closer != nil {
			closer.Close()
		}
		return nil, err
	}
	if cl != nil {
		closer = multiCloser{cl, closer}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	format, err := sniff(br, name)
	if err != nil {
		if closer != nil {
			closer.Close()
		}
		return nil, err
	}
	var rd Reader
	switch format {
	case FormatK6CSV:
		var c *CSVReader
		c, err = NewCSVReader(br, name)
		rd = c
	case FormatK6JSON:
		// A UTF-8 byte order mark (an editor's or PowerShell's) is not
		// JSON: drop it, as the CSV reader does.
		var start int64
		if b, _ := br.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
			_, _ = br.Discard(3)
			start = 3
		}
		j := NewK6JSONReader(br, name)
		if osFile != nil && cl == nil {
			// A plain file: Drain may map it instead of reading it.
			j.mapAt = &mapTarget{f: osFile, start: start, onRead: onRead}
		}
		rd = j
	case FormatParquet, FormatArrow:
		var c *ColumnarReader
		if path != "-" && cl == nil {
			c, err = OpenColumnar(path)
		} else {
			c, err = openColumnarStream(br, name)
		}
		if err == nil {
			rd, closer = c, multiCloser{c, closer}
		}
	default:
		err = fmt.Errorf("%s: %s input is not supported yet", name, format)
	}
	if err != nil {
		if closer != nil {
			closer.Close()
		}
		return nil, err
	}
	return &closingReader{Reader: rd, closer: closer, file: file}, nil
}

// Decompress returns r decompressed when it starts with gzip's or zstd's
// magic bytes, and r's bytes as they are otherwise, with the closer of the
// decompressor (nil for a plain r). A stream cut short or failing its
// checksum reads as a *TruncatedError naming name; a bad header is an
// error naming name. The run readers tell compression this way, and so
// does package summary.
func Decompress(r io.Reader, name string) (io.Reader, io.Closer, error) {
	return decompress(r, name)
}

// decompress wraps r in a decompressor chosen by magic bytes.
func decompress(r io.Reader, name string) (io.Reader, io.Closer, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	magic, err := br.Peek(4)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		if len(magic) == 0 {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: gzip header: %w", name, err)
		}
		return &damageReader{r: zr, name: name}, zr, nil
	case len(magic) >= 4 && bytes.Equal(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: zstd header: %w", name, err)
		}
		return &damageReader{r: zr, name: name}, closeFunc(func() error { zr.Close(); return nil }), nil
	}
	return &peekedReader{br: br, r: r}, nil, nil
}

// peekedReader reads what a bufio.Reader peeked, then the stream under it
// directly: a plain input is then copied once, into the reader's chunks,
// instead of twice (the 256 KiB buffer's reads are smaller than a chunk
// less its carried line, so bufio would copy every byte through itself).
type peekedReader struct {
	br *bufio.Reader // nil once its buffer is drained
	r  io.Reader
}

func (p *peekedReader) Read(b []byte) (int, error) {
	if p.br != nil {
		if p.br.Buffered() > 0 {
			return p.br.Read(b)
		}
		// Drained: what ended the peek, if anything (io.EOF, a read
		// error), the stream returns again.
		p.br = nil
	}
	return p.r.Read(b)
}

// sniff tells the format from the first bytes.
func sniff(br *bufio.Reader, name string) (Format, error) {
	head, perr := br.Peek(512)
	t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case len(t) == 0 && perr != nil && perr != io.EOF && perr != bufio.ErrBufferFull:
		// Not empty: a compressed stream that is cut or damaged before its
		// first line, or a read error.
		var te *TruncatedError
		if errors.As(perr, &te) {
			return "", fmt.Errorf("%v before any data: nothing to analyse (a damaged or incomplete compressed file)", te)
		}
		return "", fmt.Errorf("%s: %w", name, perr)
	case len(t) == 0:
		return FormatK6CSV, nil // NewCSVReader reports the empty file
	case t[0] == '{':
		if isSummaryHead(firstLine(t)) {
			return "", fmt.Errorf("%s: a k6 end-of-test summary, not a sample stream (k6 --out json lines or csv); read it with `ldanalyze summary`", name)
		}
		if isPromHead(t) {
			return "", fmt.Errorf("%s: Prometheus query_range JSON, not a k6 sample stream (k6 --out json lines or csv): read it with `--from-prom FILE` (a k6 run streamed with -o experimental-prometheus-rw), or give it with `--prom FILE` beside the run (the system's metrics)", name)
		}
		return FormatK6JSON, nil
	case bytes.HasPrefix(head, []byte("PAR1")):
		return FormatParquet, nil
	case bytes.HasPrefix(head, []byte("ARROW1")):
		return FormatArrow, nil
	case bytes.Contains(firstLine(t), []byte("metric_name")):
		return FormatK6CSV, nil
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b, len(head) >= 4 && bytes.Equal(head[:4], []byte{0x28, 0xb5, 0x2f, 0xfd}):
		// What decompressed is compressed again (gzip of a .gz): one
		// layer is read, as k6 and every tool write one.
		return "", fmt.Errorf("%s: compressed twice (gzip or zstd inside gzip or zstd): decompress the outer layer (gunzip, zstd -d) and give the file inside", name)
	}
	for _, ch := range t[:min(len(t), 64)] {
		if ch < 0x09 || (ch > 0x0d && ch < 0x20) {
			return "", fmt.Errorf("%s: unknown binary format: want a k6 CSV or JSON output, plain, gzip or zstd", name)
		}
	}
	return FormatK6CSV, nil // let the CSV reader name the missing columns
}

// isPromHead reports whether t, the start of a JSON input, is a
// Prometheus HTTP API answer (`{"status":"success","data":{"resultType":…`)
// or a saved set of them (`{"prometheus":…,"query_range":{…}}`, as the
// corpus and `prom pull` keep them): its first key is one of those and a
// "resultType" follows.
func isPromHead(t []byte) bool {
	k, _, ok := scanString(t, skipWS(t, 1))
	if !ok {
		return false
	}
	switch string(k) {
	case "status", "data", "prometheus", "query_range":
		return bytes.Contains(t, []byte(`"resultType"`))
	}
	return false
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}

// damageReader turns the errors of a cut or corrupt compressed stream into
// a *TruncatedError, so readers keep what came before it.
type damageReader struct {
	r    io.Reader
	name string
}

func (d *damageReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.Is(err, zstd.ErrMagicMismatch) {
			err = &TruncatedError{File: d.name, Err: err}
		}
	}
	return n, err
}

type closeFunc func() error

func (f closeFunc) Close() error { return f() }

type multiCloser []io.Closer

func (m multiCloser) Close() error {
	var first error
	for _, c := range m {
		if c == nil {
			continue
		}
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

type closingReader struct {
	Reader
	closer io.Closer
	file   *onceCloser // also in closer; nil for standard input
}

// Close stops the reader's goroutines and closes what Open opened: the
// file and its decompressor. A line-oriented reader's goroutine may be
// reading ahead of the samples taken (a caller that stops early), so it
// is waited for first, with the file closed to end a read that waits
// (a named pipe's): a decompressor is not safe to close under a read.
// Standard input is not Open's to close, so nothing is waited for then.
func (c *closingReader) Close() error {
	if c.closer == nil {
		return c.Reader.Close()
	}
	if w, ok := c.Reader.(interface{ stopAndWait() }); ok {
		if c.file != nil {
			c.file.Close()
		}
		w.stopAndWait()
	}
	return c.closer.Close()
}

// onceCloser closes c once; later calls return the first one's error.
type onceCloser struct {
	c    io.Closer
	once sync.Once
	err  error
}

func (o *onceCloser) Close() error {
	o.once.Do(func() { o.err = o.c.Close() })
	return o.err
}

// OpenAll opens every path and returns them as one stream: the files of a
// distributed k6 run (one per execution segment) are one run. Each sample
// keeps its Source. On error the files already opened are closed.
func OpenAll(paths []string, stdin io.Reader) (Reader, error) {
	if len(paths) == 0 {
		return nil, errors.New("no input files: give one or more k6 output files, or - for standard input")
	}
	rs := make([]Reader, 0, len(paths))
	for _, p := range paths {
		r, err := Open(p, stdin)
		if err != nil {
			for _, o := range rs {
				o.Close()
			}
			return nil, err
		}
		rs = append(rs, r)
	}
	if len(rs) == 1 {
		return rs[0], nil
	}
	return &MultiReader{rs: rs}, nil
}

// MultiReader reads several readers one after the other as one stream.
type MultiReader struct {
	rs   []Reader
	i    int
	done Stats
	err  error
}

// NewMultiReader returns a reader of rs in order.
func NewMultiReader(rs ...Reader) *MultiReader { return &MultiReader{rs: rs} }

// Next advances to the next sample of the current reader, moving to the
// next reader at the end of each one.
func (m *MultiReader) Next() bool {
	for m.i < len(m.rs) && m.err == nil {
		r := m.rs[m.i]
		if r.Next() {
			return true
		}
		if err := r.Err(); err != nil {
			m.err = err
		}
		m.done.merge(r.Stats())
		m.i++
	}
	return false
}

// Sample returns the current sample.
func (m *MultiReader) Sample() *Sample { return m.rs[m.i].Sample() }

// Err returns the first error of any reader.
func (m *MultiReader) Err() error { return m.err }

// Stats returns the counts of every reader so far.
func (m *MultiReader) Stats() Stats {
	st := m.done
	if m.i < len(m.rs) {
		st.merge(m.rs[m.i].Stats())
	}
	return st
}

// Close closes every reader.
func (m *MultiReader) Close() error {
	var first error
	for _, r := range m.rs {
		if err := r.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Drainer is a Reader that can hand its samples to several sinks in
// parallel (the k6 CSV reader).
type Drainer interface {
	Drain(sinks []func(*Sample)) error
}

// Drain hands every sample to the sinks: in parallel when the reader below
// is a Drainer, else all to sinks[0] in order.
func (c *closingReader) Drain(sinks []func(*Sample)) error {
	if d, ok := c.Reader.(Drainer); ok {
		return d.Drain(sinks)
	}
	for c.Next() {
		sinks[0](c.Sample())
	}
	return c.Err()
}

// ReadAll reads every input, one after the other, and hands each sample to
// one of sinks: a k6 CSV's samples are spread over all sinks, sinks[i]
// called only from its own goroutine, so sinks are independent
// accumulators to be merged afterwards (len(sinks) is the parallelism,
// typically runtime.GOMAXPROCS); other formats go to sinks[0] in file
// order. A sample is valid during the call. It returns the stats of all
// inputs and the first error that stopped a read.
//
// onRead, when not nil, is told the number of bytes read from the files
// (compressed bytes for compressed files) as the read goes on: a progress
// bar's feed. It is called from the reading goroutine.
func ReadAll(paths []string, stdin io.Reader, sinks []func(*Sample), onRead func(n int)) (Stats, error) {
	return readAll(paths, stdin, sinks, nil, onRead)
}

// readAll is ReadAll, with batch sinks for a BatchDrainer when rows is
// not nil.
func readAll(paths []string, stdin io.Reader, sinks []func(*Sample), rows []func(*Batch), onRead func(n int)) (Stats, error) {
	var st Stats
	if len(paths) == 0 {
		return st, errors.New("no input files: give one or more k6 output files, or - for standard input")
	}
	if len(sinks) == 0 {
		return st, errors.New("ingest: ReadAll with no sinks")
	}
	for _, p := range paths {
		r, err := openCounted(p, stdin, onRead)
		if err != nil {
			return st, err
		}
		if d, ok := r.(*closingReader).Reader.(BatchDrainer); ok && rows != nil {
			err = d.DrainBatches(sinks, rows)
		} else {
			err = r.(*closingReader).Drain(sinks)
		}
		st.merge(r.Stats())
		if m, ok := DeclaredMetrics(r); ok {
			st.merge(Stats{Metrics: m})
		}
		r.Close()
		if err != nil {
			return st, err
		}
	}
	return st, nil
}
