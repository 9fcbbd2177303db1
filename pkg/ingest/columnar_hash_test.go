package ingest

import (
	"hash/maphash"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
)

// TestColumnarSeriesHashStrings: a Parquet row's SeriesHash is the hash of
// its tag strings (each column's, in order, then the extra tags' pairs),
// whether its columns were decoded for the batch before (a Get) or not,
// and whether the ids came from a dictionary or from plain pages.
func TestColumnarSeriesHashStrings(t *testing.T) {
	src := corpusFile(t, corpusPublic, "k6-csv-v0.5x-finance.csv")
	samples, keys := copySamples(t, src, func(n int, _ *Sample) (extra, meta string) {
		if n%7 == 3 {
			extra = "b=2&a=1" // some rows with extra tags
		}
		return extra, ""
	})
	dir := t.TempDir()
	seed := maphash.MakeSeed()
	for _, v := range []struct {
		name   string
		rgRows int
		props  []parquet.WriterProperty
	}{
		{"dictionary, zstd", 300, []parquet.WriterProperty{parquet.WithDictionaryDefault(true), parquet.WithCompression(compress.Codecs.Zstd)}},
		{"dictionary overflowing to plain", 5000, []parquet.WriterProperty{parquet.WithDictionaryDefault(true), parquet.WithDictionaryPageSizeLimit(200), parquet.WithDataPageSize(2048), parquet.WithBatchSize(50)}},
		{"plain", 1 << 20, []parquet.WriterProperty{parquet.WithDictionaryDefault(false)}},
	} {
		p := filepath.Join(dir, "hash.parquet")
		writeEncodedParquet(t, p, samples, keys, v.rgRows, v.props...)
		c, err := OpenColumnar(p)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		row := 0
		for c.Next() {
			s := c.Sample()
			row++
			var got uint64
			if row%3 == 0 {
				got = s.Tags.SeriesHash(seed) // before any Get of the row
			}
			want := uint64(0x243F6A8885A308D3)
			for j := range c.TagColumns() {
				want = mixSeries(want ^ maphash.String(seed, s.Tags.Value(j)))
			}
			if e := s.Tags.Extra(); e != "" {
				want += pairsHash(seed, e)
			}
			if row%3 != 0 {
				got = s.Tags.SeriesHash(seed)
			}
			if got != want {
				t.Fatalf("%s: row %d: SeriesHash %x, want %x", v.name, row, got, want)
			}
		}
		if c.Err() != nil || row != len(samples) {
			t.Fatalf("%s: err %v, %d rows of %d", v.name, c.Err(), row, len(samples))
		}
		c.Close()
	}
}
