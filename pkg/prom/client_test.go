package prom

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var testRange = Range{Start: time.Unix(1700000000, 0), End: time.Unix(1700000060, 0), Step: 15 * time.Second}

// stream writes prefix, then chunk repeated until total bytes were sent or
// the client went away; nothing is buffered beyond one chunk.
func stream(w http.ResponseWriter, r *http.Request, prefix, chunk string, total int64) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, prefix)
	buf := bytes.Repeat([]byte(chunk), 64<<10/len(chunk))
	for sent := int64(len(prefix)); sent < total; sent += int64(len(buf)) {
		if r.Context().Err() != nil {
			return
		}
		if _, err := w.Write(buf); err != nil {
			return
		}
	}
}

// peakSys is the memory the Go runtime took from the OS so far, bytes.
func peakSys() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Sys
}

// A server sending a 4 GiB answer (streamed, never held) is cut at the
// response cap or at the series limit, fast and in bounded memory, with
// the reason: one series longer than Prometheus ever sends, and a body
// that is 4 GiB of whitespace inside a valid response.
func TestClientHugeResponse(t *testing.T) {
	const fourGiB = 4 << 30
	for _, tc := range []struct {
		name, prefix, chunk, want string
	}{
		{"one endless series", `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"a":"b"},"values":[`, `[1,"1"],`,
			"more points in one series than Prometheus ever sends (11,000 per query_range series)"},
		{"4 GiB of whitespace", `{"status":"success",`, "        ",
			fmt.Sprintf("response too large: more than %d bytes (the cap MaxResponseBytes, --max-response-bytes)", DefaultMaxResponseBytes)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				stream(w, r, tc.prefix, tc.chunk, fourGiB)
			}))
			defer srv.Close()
			c, err := NewClient(ClientOptions{URL: srv.URL, Timeout: 60 * time.Second, Retries: -1})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = c.QueryRange(context.Background(), "up", testRange)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to say %q", err, tc.want)
			}
			if sys := peakSys(); sys > 512<<20 {
				t.Errorf("the runtime took %d MB from the OS, want under 512 MB", sys>>20)
			}
			t.Logf("failed after %s: %v", time.Since(start).Round(time.Millisecond), err)
		})
	}
}

// A server that never answers, and one that drips a byte a second, fail
// at the request timeout (1 s here) with a message that says so.
func TestClientTimeouts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"never answers", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }},
		{"drips a byte a second", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusOK)
			for _, b := range []byte(`{"status":"success","data":{"resultType":"matrix","result":[]}}`) {
				if _, err := w.Write([]byte{b}); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(time.Second):
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			c, err := NewClient(ClientOptions{URL: srv.URL, Timeout: time.Second, Retries: -1})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = c.QueryRange(context.Background(), "up", testRange)
			took := time.Since(start)
			if err == nil || !strings.Contains(err.Error(), "no complete answer within the timeout of 1s (--timeout)") {
				t.Fatalf("err = %v, want the timeout named", err)
			}
			if took > 5*time.Second {
				t.Errorf("took %s, want about the 1 s timeout", took)
			}
		})
	}
}

// 503 and 429 are retried (twice here, then the answer comes); a 400 is
// not retried and its API error is verbatim.
func TestClientRetries(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1:
			w.WriteHeader(http.StatusServiceUnavailable)
		case 2:
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"a":"b"},"values":[[1700000000,"1"]]}]}}`)
		}
	}))
	defer srv.Close()
	c, _ := NewClient(ClientOptions{URL: srv.URL, RetryWait: time.Millisecond})
	d, err := c.QueryRange(context.Background(), "up", Range{Start: time.Unix(1700000000, 0), End: time.Unix(1700000000, 0), Step: time.Second})
	if err != nil || len(d.Series) != 1 || n.Load() != 3 {
		t.Fatalf("after %d requests: %v, %+v", n.Load(), err, d)
	}
	var m atomic.Int32
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.Add(1)
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"status":"error","errorType":"bad_data","error":"1:3: parse error"}`)
	}))
	defer bad.Close()
	c, _ = NewClient(ClientOptions{URL: bad.URL, RetryWait: time.Millisecond})
	_, err = c.QueryRange(context.Background(), "up(", testRange)
	if err == nil || !strings.Contains(err.Error(), `Prometheus API status "error" (bad_data): 1:3: parse error`) || m.Load() != 1 {
		t.Errorf("%d requests, err %v; want one request and the server's words", m.Load(), err)
	}
}

// A redirect to another host does not carry the credentials; the
// password never appears in an error or in Client.URL.
func TestClientRedirectAndRedaction(t *testing.T) {
	var got atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("Authorization"))
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, "boom")
	}))
	defer other.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			t.Error("the first server got no credentials")
		}
		http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusFound)
	}))
	defer first.Close()
	u := strings.Replace(first.URL, "http://", "http://alice:hunter2pw@", 1)
	c, err := NewClient(ClientOptions{URL: u, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(c.URL(), "hunter2pw") || strings.Contains(c.URL(), "alice") {
		t.Errorf("URL() = %s", c.URL())
	}
	_, err = c.QueryRange(context.Background(), "up", testRange)
	if err == nil || strings.Contains(err.Error(), "hunter2pw") {
		t.Errorf("err = %v", err)
	}
	if a, _ := got.Load().(string); a != "" {
		t.Errorf("the other host got Authorization %q", a)
	}
	if _, err := NewClient(ClientOptions{URL: "http://alice:hunter2pw@[::1"}); err == nil || strings.Contains(err.Error(), "hunter2pw") {
		t.Errorf("bad URL: err = %v", err)
	}
}
