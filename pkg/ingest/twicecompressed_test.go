package ingest

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestCompressedTwice: a gzip of a .csv.gz, or a zstd of one, is named as
// compressed twice, not as an unknown binary format; once compressed it
// reads.
func TestCompressedTwice(t *testing.T) {
	csv := hdr + "http_reqs,1796004429,1,,,,true,,GET,menu,HTTP/1.1,s,,200,,,menu,,\n"
	gz := func(b []byte) []byte {
		var out bytes.Buffer
		w := gzip.NewWriter(&out)
		w.Write(b)
		w.Close()
		return out.Bytes()
	}
	zs := func(b []byte) []byte {
		var out bytes.Buffer
		w, _ := zstd.NewWriter(&out)
		w.Write(b)
		w.Close()
		return out.Bytes()
	}
	once := gz([]byte(csv))
	r, err := Open("-", bytes.NewReader(once))
	if err != nil {
		t.Fatalf("once: %v", err)
	}
	r.Close()
	for name, b := range map[string][]byte{"gzip of gzip": gz(once), "zstd of gzip": zs(once), "gzip of zstd": gz(zs([]byte(csv)))} {
		_, err := Open("-", bytes.NewReader(b))
		if err == nil || !strings.Contains(err.Error(), "compressed twice") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
