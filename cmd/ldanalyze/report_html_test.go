package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromiumPath is where Debian's `chromium` package puts the browser
// (.ci/run installs it).
const chromiumPath = "/usr/bin/chromium"

// hostileURL is a url tag written to make an unescaped page misbehave in
// every way the test can see: the script would retitle the page, the image
// would be a network request (caught in the net log), the event handler
// would log to the console, and the '|' would cut a markdown table.
const hostileURL = `/menu?q=<script>document.title='pwned'</script>` +
	`<img src="http://evil.example/p.png" onerror="console.error('xss')">|x`

// TestReportHTMLChromium writes report.html for open_ramp.csv.gz with the
// url tag of every /menu request replaced by hostileURL (and --by url, so
// the value reaches the endpoint table and the per-endpoint plot), opens
// it in headless Chromium and checks that
//   - it renders: the DOM Chromium built has the title, the verdict, every
//     section and the five inline plots;
//   - the hostile value is text: it appears escaped in the DOM, no <script>
//     or <img> element exists, the title is unchanged;
//   - nothing reached the console (no CONSOLE line in Chromium's log: the
//     page has no script, so any message is a fault);
//   - the page made no request: Chromium's net log has no URL request made
//     on behalf of the file:// page. Host names also resolve to nothing
//     (--host-resolver-rules), so a request could not leave the machine.
//
// A control page with an external image and a console error runs through
// the same harness first, to show that it sees both.
//
// The test is skipped when /usr/bin/chromium is absent, and with -short.
func TestReportHTMLChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("%s not installed (Debian package chromium): %v", chromiumPath, err)
	}
	if testing.Short() {
		t.Skip("starts a browser; skipped with -short")
	}
	dir := t.TempDir()

	t.Run("control", func(t *testing.T) {
		page := filepath.Join(dir, "control.html")
		ctl := `<!DOCTYPE html><html><head><title>control</title></head><body><p>control</p>` +
			`<img src="http://control.example/x.png"><script>console.error("control-console")</script></body></html>`
		if err := os.WriteFile(page, []byte(ctl), 0o644); err != nil {
			t.Fatal(err)
		}
		got := openInChromium(t, page)
		if !strings.Contains(got.DOM, "<p>control</p>") {
			t.Errorf("control page not rendered:\n%s", got.DOM)
		}
		if len(got.Console) != 1 || !strings.Contains(got.Console[0], "control-console") {
			t.Errorf("console lines %q, want the one control message", got.Console)
		}
		if len(got.Requests) != 1 || got.Requests[0] != "http://control.example/x.png" {
			t.Errorf("requests %q, want the control image", got.Requests)
		}
	})
	if t.Failed() {
		t.Fatal("the harness does not see console messages or requests; the report checks would prove nothing")
	}

	in := filepath.Join(dir, "hostile_open_ramp.csv")
	if n := writeHostileCSV(t, td+"open_ramp.csv.gz", in, "menu", hostileURL); n == 0 {
		t.Fatal("no /menu rows rewritten")
	}
	page := filepath.Join(dir, "report.html")
	md := filepath.Join(dir, "report.md")
	if _, errOut, code := runCLI(t, "", "report", in, "--by", "url", "--slo", "p95<100ms", "-o", md, "--html", page); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	src, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	// The page itself: no network reference and no script or image element.
	// (Event handlers are judged on the DOM below: the escaped hostile text
	// holds " onerror=" as text.)
	for _, re := range []string{`(?i)(src|href)\s*=\s*["']?\s*(https?:)?//`, `(?i)<script`, `(?i)<img`, `(?i)url\(\s*["']?(https?:)?//`} {
		if m := regexp.MustCompile(re).Find(src); m != nil {
			t.Errorf("report.html matches %s: %q", re, m)
		}
	}
	// The markdown keeps the '|' inside its cell.
	mdb, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(mdb, []byte(`\|x`)) {
		t.Errorf("report.md does not escape the '|' of the url tag")
	}

	got := openInChromium(t, page)
	if len(got.Console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(got.Console, "\n"))
	}
	if len(got.Requests) > 0 {
		t.Errorf("the page made requests: %q", got.Requests)
	}
	dom := got.DOM
	wantTitle := "<title>Load-test report: " + in + "</title>"
	for _, want := range []string{
		wantTitle,
		`<div class="verdict"><p>Knee: `,
		"<h2>Run facts</h2>", "<h2>Load levels</h2>", "<h2>Over time</h2>", "<h2>Endpoints</h2>",
		"<h2>Validity checks</h2>", "<h2>Method</h2>",
		// The hostile value as text in the endpoint table (Chromium
		// serialises '<' in text as &lt; and leaves quotes as they are).
		`<td class="wrap">/menu?q=&lt;script&gt;document.title='pwned'&lt;/script&gt;&lt;img src="http://evil.example/p.png" onerror="console.error('xss')"&gt;|x</td>`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered DOM lacks %q", want)
		}
	}
	if n := strings.Count(dom, `<svg role="img" class="plot"`); n != 5 {
		t.Errorf("%d inline plots in the DOM, want 5 (knee, load, latency, errors, endpoints)", n)
	}
	if !strings.Contains(dom, "&lt;script&gt;document.title=") || strings.Count(dom, "&lt;script&gt;") < 2 {
		t.Errorf("the hostile value is not text in both the table and the endpoint plot")
	}
	for _, bad := range []string{"<script", "<img", "pwned</title>"} {
		if strings.Contains(dom, bad) {
			t.Errorf("the rendered DOM holds %q: the hostile tag became markup", bad)
		}
	}
}

// chromiumResult is what one headless Chromium run saw.
type chromiumResult struct {
	DOM string
	// Console are the CONSOLE lines of Chromium's log.
	Console []string
	// Requests are the URLs requested on behalf of a file:// page.
	Requests []string
}

// openInChromium loads path in headless Chromium with --dump-dom and
// returns the DOM, the console lines of its log and the page's network
// requests (from --log-net-log).
func openInChromium(t *testing.T, path string) chromiumResult {
	t.Helper()
	tmp := t.TempDir()
	netlog := filepath.Join(tmp, "netlog.json")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, chromiumPath,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(tmp, "profile"),
		"--enable-logging=stderr", "--v=0",
		"--host-resolver-rules=MAP * ~NOTFOUND",
		"--log-net-log="+netlog,
		"--dump-dom", (&url.URL{Scheme: "file", Path: abs}).String())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, lastLines(stderr.String(), 20))
	}
	var r chromiumResult
	r.DOM = stdout.String()
	if r.DOM == "" {
		t.Fatalf("chromium dumped no DOM:\n%s", lastLines(stderr.String(), 20))
	}
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, ":CONSOLE") || strings.Contains(l, "Uncaught") {
			r.Console = append(r.Console, l)
		}
	}
	f, err := os.Open(netlog)
	if err != nil {
		t.Fatalf("chromium wrote no net log: %v", err)
	}
	defer f.Close()
	if r.Requests, err = pageRequests(f); err != nil {
		t.Fatalf("%s: %v", netlog, err)
	}
	return r
}

// pageRequests reads a Chromium net log (--log-net-log) and returns the
// URLs of the URL_REQUEST_START_JOB events made for a file:// page: their
// network isolation key names the file:// site. Requests the browser makes
// for itself (its key is not file://) are left out.
func pageRequests(r io.Reader) ([]string, error) {
	var doc struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int `json:"type"`
			Params struct {
				URL string `json:"url"`
				NIK string `json:"network_isolation_key"`
			} `json:"params"`
		} `json:"events"`
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("net log: %w", err)
	}
	start, ok := doc.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok {
		return nil, fmt.Errorf("net log: no URL_REQUEST_START_JOB event type in its constants")
	}
	var out []string
	for _, e := range doc.Events {
		if e.Type == start && strings.HasPrefix(e.Params.NIK, "file://") {
			out = append(out, e.Params.URL)
		}
	}
	return out, nil
}

// writeHostileCSV copies the k6 CSV src (gzip) to dst (plain CSV) with the
// url column set to value on every row whose name tag is name, and returns
// how many rows it changed.
func writeHostileCSV(t *testing.T, src, dst, name, value string) int {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	cr := csv.NewReader(zr)
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	ni, ok1 := col["name"]
	ui, ok2 := col["url"]
	if !ok1 || !ok2 {
		t.Fatalf("%s: no name or url column in %q", src, head)
	}
	var out bytes.Buffer
	cw := csv.NewWriter(&out)
	if err := cw.Write(head); err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec[ni] == name {
			rec[ui] = value
			n++
		}
		if err := cw.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return n
}

// lastLines returns the last n lines of s, for error messages.
func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(ls[max(0, len(ls)-n):], "\n")
}
