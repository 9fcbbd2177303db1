// Package promtest starts a real Prometheus server (Debian's package) for
// tests and replays recorded series into it through its remote-write
// endpoint, so that queries run against the real query engine. Every
// server listens on 127.0.0.1 on a free port, keeps its TSDB in a
// temporary directory and is stopped when the test ends.
package promtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Server is a running Prometheus.
type Server struct {
	// URL is its base URL, http://127.0.0.1:<port>.
	URL string
	// Dir is its temporary directory (config and TSDB).
	Dir string

	cmd *exec.Cmd
	log *syncBuffer
}

// Options configure Start. The zero value is a server with the
// remote-write receiver and native histograms on, no scrape targets.
type Options struct {
	// ReadyTimeout bounds the wait for /-/ready (default 60 s).
	ReadyTimeout time.Duration
	// ExtraArgs are added to the command line.
	ExtraArgs []string
}

// Binary is the path of the prometheus binary: on PATH, else
// /usr/bin/prometheus; "" when there is none.
func Binary() string {
	if p, err := exec.LookPath("prometheus"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/bin/prometheus"); err == nil {
		return "/usr/bin/prometheus"
	}
	return ""
}

// Start starts Prometheus for the test t: a temporary TSDB, listening on
// 127.0.0.1 on a free port, with --web.enable-remote-write-receiver and
// --enable-feature=native-histograms, and waits until it is ready. The
// test is skipped, with the reason, when the binary is absent or under
// -short. The server is stopped (and its log shown if the test failed)
// when t ends.
func Start(t testing.TB, opt Options) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		t.Skip("prometheus is not installed (apt-get install -y prometheus): skipping the test against a real Prometheus")
	}
	if testing.Short() {
		t.Skip("-short: skipping the test that starts a Prometheus server")
	}
	if opt.ReadyTimeout <= 0 {
		opt.ReadyTimeout = 60 * time.Second
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte("global:\n  scrape_interval: 15s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{
		"--config.file=" + cfg,
		"--storage.tsdb.path=" + filepath.Join(dir, "data"),
		"--storage.tsdb.retention.time=100y",
		"--web.listen-address=" + addr,
		"--web.enable-remote-write-receiver",
		"--enable-feature=native-histograms",
		"--log.level=warn",
	}
	args = append(args, opt.ExtraArgs...)
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{URL: "http://" + addr, Dir: dir, log: &syncBuffer{}}
	s.cmd = exec.CommandContext(ctx, bin, args...)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	s.cmd.WaitDelay = 10 * time.Second
	if err := s.cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start %s: %v", bin, err)
	}
	t.Cleanup(func() {
		cancel()
		_ = s.cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus log:\n%s", s.log.String())
		}
	})
	if err := s.waitReady(opt.ReadyTimeout); err != nil {
		t.Fatalf("%v\nprometheus log:\n%s", err, s.log.String())
	}
	return s
}

// Log is what the server wrote so far.
func (s *Server) Log() string { return s.log.String() }

func (s *Server) waitReady(timeout time.Duration) error {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		resp, err := client.Get(s.URL + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("prometheus not ready at %s after %s", s.URL, timeout)
}

// freeAddr is a 127.0.0.1 address with a port nobody listens on.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// syncBuffer is a bytes.Buffer safe for the server's two output streams.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
