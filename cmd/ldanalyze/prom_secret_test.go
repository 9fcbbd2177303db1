package main

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A password given in --url is used as basic auth and appears nowhere:
// not in manifest.json, the query files, stdout or stderr, on success and
// on a server error (a 500 answer, retried then reported).
func TestPromPullPasswordInURLNeverShown(t *testing.T) {
	const pw = "Sup3rS3cretPw"
	fail := false
	var gotUser, gotPw string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotUser, gotPw, _ = r.BasicAuth()
		if fail {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, "upstream said %s", r.Header.Get("Authorization"))
			return
		}
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"pod":"a"},"values":[[1000,"1"]]}]}}`)
	}))
	defer srv.Close()
	u := strings.Replace(srv.URL, "http://", "http://alice:"+pw+"@", 1)
	dir := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := runCLI(t, "", "prom", "pull", "--url", u, "--start", "1000", "--end", "1060", "--dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if gotUser != "alice" || gotPw != pw {
		t.Errorf("basic auth %q/%q, want alice and the password", gotUser, gotPw)
	}
	basic := base64.StdEncoding.EncodeToString([]byte("alice:" + pw))
	check := func(what, s string) {
		t.Helper()
		if strings.Contains(s, pw) || strings.Contains(s, basic) {
			t.Errorf("%s holds the password:\n%s", what, s)
		}
	}
	check("stdout", stdout)
	check("stderr", stderr)
	files, _ := os.ReadDir(dir)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		check(f.Name(), string(b))
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "manifest.json")); !strings.Contains(string(b), `"url": "`+srv.URL+`"`) {
		t.Errorf("manifest URL: want %s without the user info:\n%s", srv.URL, b)
	}
	fail = true
	stdout, stderr, code = runCLI(t, "", "prom", "pull", "--url", u, "--start", "1000", "--end", "1060", "--dir", dir, "--retries", "1")
	if code == 0 || !strings.Contains(stderr, "500 Internal Server Error") {
		t.Errorf("exit %d, stderr %q: want a failure naming the 500", code, stderr)
	}
	check("stdout on error", stdout)
	check("stderr on error", stderr)
}
