package ingest

import (
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCloseEarlyWaitsForTheReader: a caller that stops after a few
// samples and closes the reader leaves no goroutine reading the file or
// its decompressor (closing a gzip stream under a read was a data race):
// when Close returns, the reading goroutine has returned, for CSV and
// JSON lines, plain and gzip.
func TestCloseEarlyWaitsForTheReader(t *testing.T) {
	dir := t.TempDir()
	var csv, js strings.Builder
	csv.WriteString("metric_name,timestamp,metric_value,name,status,extra_tags,metadata\n")
	for i := range 200000 { // many chunks: the reader is far from done
		fmt.Fprintf(&csv, "http_req_duration,%d,%d.5,GET /a,200,,\n", 1700000000+i/100, i%97)
		if i < 50000 {
			fmt.Fprintf(&js, `{"metric":"http_req_duration","type":"Point","data":{"time":"2023-11-14T22:13:%02d.000Z","value":%d.5,"tags":{"name":"GET /a","status":"200"}}}`+"\n", i/1000%60, i%97)
		}
	}
	files := map[string]string{"run.csv": csv.String(), "run.json": js.String()}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(filepath.Join(dir, name+".gz"))
		if err != nil {
			t.Fatal(err)
		}
		zw := gzip.NewWriter(f)
		if _, err := zw.Write([]byte(text)); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil || f.Close() != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"run.csv", "run.csv.gz", "run.json", "run.json.gz"} {
		r, err := Open(filepath.Join(dir, name), nil)
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < 10 && r.Next(); n++ {
		}
		if err := r.Close(); err != nil {
			t.Fatalf("%s: Close: %v", name, err)
		}
		var done chan struct{}
		switch rd := r.(*closingReader).Reader.(type) {
		case *CSVReader:
			done = rd.done
		case *K6JSONReader:
			done = rd.done
		default:
			t.Fatalf("%s: a %T", name, rd)
		}
		select {
		case <-done:
		default:
			t.Fatalf("%s: the reading goroutine still runs after Close", name)
		}
	}
}

// TestCloseEndsAWaitingRead: a reader of a named pipe whose writer has
// gone quiet (neither writing nor closing) is closed without waiting for
// the writer: Close closes the file, which ends the read.
func TestCloseEndsAWaitingRead(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "k6.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	release := make(chan struct{})
	defer close(release)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		fmt.Fprintln(w, "metric_name,timestamp,metric_value,name,extra_tags,metadata")
		for i := range 12000 { // a chunk and a part: Next has samples, the next read waits
			fmt.Fprintf(w, "http_reqs,%d,1,GET /a,,\n", 1700000000+i)
		}
		<-release // quiet, the pipe held open
	}()
	r, err := Open(fifo, nil)
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() {
		n := 0
		for n < 5 && r.Next() {
			n++
		}
		err := r.Close()
		if n != 5 {
			err = fmt.Errorf("read %d samples before Close, want 5", n)
		}
		closed <- err
	}()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(30 * time.Second): // a hang guard, not a timing
		t.Fatal("Close waited for the pipe's writer")
	}
}
