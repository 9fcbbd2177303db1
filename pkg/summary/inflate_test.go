package summary

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestCompressedSummary: a summary gzipped or zstd-compressed (told by its
// bytes, as runs are) reads as the plain file does; a cut gzip is an error
// naming the file, not a JSON error on its binary bytes.
func TestCompressedSummary(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join("..", "..", "testdata", "k6", "breakpoint.summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := Read(bytes.NewReader(plain), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	var gz, zs bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	ze, err := zstd.NewWriter(&zs)
	if err != nil {
		t.Fatal(err)
	}
	ze.Write(plain)
	ze.Close()
	for name, b := range map[string][]byte{"gzip": gz.Bytes(), "zstd": zs.Bytes()} {
		got, err := Read(bytes.NewReader(b), "s.json")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) || len(got.Metrics) == 0 {
			t.Errorf("%s: summary differs from the plain file's (%d metrics, want %d)", name, len(got.Metrics), len(want.Metrics))
		}
	}
	_, err = Read(bytes.NewReader(gz.Bytes()[:gz.Len()/2]), "cut.json.gz")
	if err == nil || !strings.Contains(err.Error(), "cut.json.gz") || !strings.Contains(err.Error(), "compressed summary cut or damaged") {
		t.Errorf("cut gzip: %v", err)
	}
}
