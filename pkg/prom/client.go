package prom

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Defaults of ClientOptions.
const (
	// DefaultTimeout bounds one HTTP request, the whole body included.
	DefaultTimeout = 60 * time.Second
	// DefaultMaxResponseBytes caps one response body, 128 MiB.
	DefaultMaxResponseBytes = 128 << 20
	// DefaultRetries is how many times a 5xx or 429 answer is retried.
	DefaultRetries = 3
)

// ClientOptions configure a Client. Credentials are never part of an
// error, a manifest or a report: the URL's user and password are taken
// out of it (and used as basic auth unless Username is set), and every
// message names the server by its redacted URL.
type ClientOptions struct {
	// URL is the server's base URL, e.g. http://prometheus:9090.
	URL string
	// BearerToken, when not empty, is sent as "Authorization: Bearer …".
	BearerToken string
	// Username and Password, when Username is not empty, are sent as
	// basic auth.
	Username, Password string
	// Timeout bounds each request, body included (default
	// DefaultTimeout); the caller's context bounds the whole.
	Timeout time.Duration
	// MaxResponseBytes caps each response body (default
	// DefaultMaxResponseBytes); a larger one is an error naming the cap.
	MaxResponseBytes int64
	// Retries is the number of retries of a 5xx or 429 answer, with
	// exponential backoff from RetryWait (default DefaultRetries and 500
	// ms; Retries < 0 means none). Nothing else is retried.
	Retries   int
	RetryWait time.Duration
	// MaxPoints caps the points per series per query_range request
	// (default MaxPointsPerSeries); longer ranges are split.
	MaxPoints int
	// Transport is the HTTP transport (default http.DefaultTransport).
	Transport http.RoundTripper
}

// Client talks to the Prometheus HTTP API with bounds: a timeout per
// request, a size cap per response, retries for 5xx/429 only, credentials
// kept off redirects to another host and out of every message. Responses
// are streamed (APIReader), never held whole.
type Client struct {
	base     *url.URL
	redacted string
	opt      ClientOptions
	hc       *http.Client
}

// NewClient checks the options and returns a Client.
func NewClient(opt ClientOptions) (*Client, error) {
	if !strings.Contains(opt.URL, "://") {
		// prom:9090 parses as the scheme "prom": say what is missing.
		return nil, fmt.Errorf("prometheus URL %s: no scheme: want http:// or https:// before the host", RedactURL(opt.URL))
	}
	u, err := url.Parse(opt.URL)
	if err != nil {
		// url.Error repeats the URL (with its password): the cause alone.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("prometheus URL %s: %v", RedactURL(opt.URL), redactErr(err, opt.URL))
	}
	if err := CheckScheme(u.Scheme); err != nil {
		return nil, fmt.Errorf("prometheus URL %s: %w", RedactURL(opt.URL), err)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("prometheus URL %s: no host: want http://host[:port] or https://host[:port]", RedactURL(opt.URL))
	}
	if u.User != nil {
		if opt.Username == "" {
			opt.Username = u.User.Username()
			opt.Password, _ = u.User.Password()
		}
		u.User = nil
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.MaxResponseBytes <= 0 {
		opt.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if opt.Retries == 0 {
		opt.Retries = DefaultRetries
	}
	if opt.RetryWait <= 0 {
		opt.RetryWait = 500 * time.Millisecond
	}
	if opt.MaxPoints <= 0 || opt.MaxPoints > MaxPointsPerSeries {
		opt.MaxPoints = MaxPointsPerSeries
	}
	rt := opt.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c := &Client{base: u, redacted: u.String(), opt: opt}
	c.hc = &http.Client{Transport: rt, Timeout: opt.Timeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("more than 5 redirects")
		}
		if req.URL.Host != u.Host || req.URL.Scheme != u.Scheme {
			// Credentials stay with the server they were given for.
			req.Header.Del("Authorization")
		}
		return nil
	}}
	return c, nil
}

// CheckScheme is nil for the schemes a Client speaks, http and https, and
// else an error naming the scheme ("unsupported scheme ftp: want http or
// https"; "no scheme" when empty).
func CheckScheme(scheme string) error {
	switch strings.ToLower(scheme) {
	case "http", "https":
		return nil
	case "":
		return errors.New("no scheme: want http or https")
	}
	return fmt.Errorf("unsupported scheme %s: want http or https", scheme)
}

// URL is the server's URL without credentials.
func (c *Client) URL() string { return c.redacted }

// RedactURL returns u with its password replaced by "xxxxx" (url.URL's
// Redacted); a string that does not parse has everything between "//" and
// "@" replaced.
func RedactURL(u string) string {
	p, err := url.Parse(u)
	if err == nil {
		return p.Redacted()
	}
	if i := strings.Index(u, "//"); i >= 0 {
		if j := strings.LastIndex(u, "@"); j > i {
			return u[:i+2] + "xxxxx" + u[j:]
		}
	}
	return u
}

// redactErr removes the secret parts of raw from err's text.
func redactErr(err error, raw string) string {
	msg := err.Error()
	if p, perr := url.Parse(raw); perr == nil && p.User != nil {
		if pw, ok := p.User.Password(); ok && pw != "" {
			msg = strings.ReplaceAll(msg, pw, "xxxxx")
		}
	}
	return strings.ReplaceAll(msg, raw, RedactURL(raw))
}

// capReader fails once more than limit bytes were read.
type capReader struct {
	r     io.Reader
	n     int64
	limit int64
}

// ErrResponseTooLarge is the error of a response over its cap.
var ErrResponseTooLarge = errors.New("response too large")

func (c *capReader) Read(p []byte) (int, error) {
	if c.n > c.limit {
		return 0, fmt.Errorf("%w: more than %d bytes (the cap MaxResponseBytes, --max-response-bytes)", ErrResponseTooLarge, c.limit)
	}
	if rem := c.limit + 1 - c.n; int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.limit {
		return n, fmt.Errorf("%w: more than %d bytes (the cap MaxResponseBytes, --max-response-bytes)", ErrResponseTooLarge, c.limit)
	}
	return n, err
}

// get sends GET path?params and reads the API response, retrying 5xx and
// 429 answers. what names the request in errors.
func (c *Client) get(ctx context.Context, path string, params url.Values, what string) (*Data, error) {
	u := *c.base
	u.Path = strings.TrimRight(u.Path, "/") + path
	u.RawQuery = params.Encode()
	wait := c.opt.RetryWait
	for attempt := 0; ; attempt++ {
		d, retry, err := c.once(ctx, u.String(), what)
		if err == nil || !retry || attempt >= c.opt.Retries {
			return d, err
		}
		var ra *retryAfter
		if errors.As(err, &ra) && ra.d > 0 && ra.d < 30*time.Second {
			wait = max(wait, ra.d)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: %s: %w (after %d attempts; last: %v)", c.redacted, what, ctx.Err(), attempt+1, err)
		case <-time.After(wait):
		}
		wait *= 2
	}
}

type retryAfter struct {
	status string
	d      time.Duration
	msg    string
}

func (r *retryAfter) Error() string {
	s := "HTTP " + r.status
	if r.msg != "" {
		s += ": " + r.msg
	}
	return s
}

func (c *Client) once(ctx context.Context, u, what string) (*Data, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %s: %w", c.redacted, what, err)
	}
	switch {
	case c.opt.BearerToken != "":
		req.Header.Set("Authorization", "Bearer "+c.opt.BearerToken)
	case c.opt.Username != "":
		req.SetBasicAuth(c.opt.Username, c.opt.Password)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, false, c.wrap(ctx, what, err)
	}
	defer resp.Body.Close()
	body := &capReader{r: resp.Body, limit: c.opt.MaxResponseBytes}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		msg, _ := io.ReadAll(io.LimitReader(body, 64<<10))
		text := strings.TrimSpace(string(msg))
		if d, err := ParseAPI(msg, "body"); d == nil {
			var ae *APIError
			if errors.As(err, &ae) {
				text = fmt.Sprintf("Prometheus API error (%s): %s", ae.ErrorType, ae.Message)
			}
		}
		if len(text) > 500 {
			text = text[:500] + "…"
		}
		ra := &retryAfter{status: resp.Status, msg: c.scrub(text)}
		if s := resp.Header.Get("Retry-After"); s != "" {
			if n, err := strconv.Atoi(s); err == nil {
				ra.d = time.Duration(n) * time.Second
			}
		}
		// Prometheus answers 503 both when it is overloaded and when a
		// query timed out; both are retried, the last answer is reported.
		return nil, true, fmt.Errorf("%s: %s: %w", c.redacted, what, ra)
	}
	ar := NewAPIReader(&squeezeReader{r: body}, c.redacted+" "+what)
	ar.maxPoints = MaxPointsPerSeries + 1
	ar.strictPoints = true
	d := &Data{Format: "api"}
	for ar.Next() {
		d.Series = append(d.Series, *ar.Series())
	}
	if err := ar.Err(); err != nil {
		var ae *APIError
		if errors.As(err, &ae) {
			ae.File = c.redacted + " " + what
			return nil, false, ae
		}
		if errors.Is(err, ErrResponseTooLarge) || isTimeout(err) || ctx.Err() != nil {
			return nil, false, c.wrap(ctx, what, err)
		}
		if errors.Is(err, errTooManyPoints) {
			return nil, false, fmt.Errorf("%s: %s: %w", c.redacted, what, err)
		}
		if resp.StatusCode/100 != 2 {
			return nil, false, fmt.Errorf("%s: %s: HTTP %s, and the body is not a Prometheus API response (%v)", c.redacted, what, resp.Status, err)
		}
		return nil, false, err
	}
	d.ResultType = ar.ResultType()
	d.Warnings = ar.Warnings()
	d.Skipped = ar.Skipped()
	return d, false, nil
}

func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.As(err, &te) && te.Timeout() || errors.Is(err, context.DeadlineExceeded)
}

// wrap makes a transport error say why, without credentials.
func (c *Client) wrap(ctx context.Context, what string, err error) error {
	// An http.Client error is a url.Error that repeats the method and the
	// whole request URL: what and c.redacted already name them.
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		err = ue.Err
	}
	msg := c.scrub(err.Error())
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %s: stopped by the overall deadline (--deadline) or a cancel: %s", c.redacted, what, msg)
	case errors.Is(err, ErrResponseTooLarge):
		return fmt.Errorf("%s: %s: %w: more than %d bytes (the cap MaxResponseBytes, --max-response-bytes)", c.redacted, what, ErrResponseTooLarge, c.opt.MaxResponseBytes)
	case isTimeout(err):
		return fmt.Errorf("%s: %s: no complete answer within the timeout of %s (--timeout): %s", c.redacted, what, c.opt.Timeout, msg)
	}
	return fmt.Errorf("%s: %s: %s", c.redacted, what, msg)
}

// scrub removes the credentials from a message.
func (c *Client) scrub(s string) string {
	basic := ""
	if c.opt.Username != "" {
		basic = base64.StdEncoding.EncodeToString([]byte(c.opt.Username + ":" + c.opt.Password))
	}
	for _, secret := range []string{c.opt.Password, c.opt.BearerToken, basic} {
		if len(secret) >= 3 {
			s = strings.ReplaceAll(s, secret, "xxxxx")
		}
	}
	return s
}

// QueryRange runs expr as query_range over r, split so that no request
// asks for more than MaxPoints points per series, and merges the parts.
func (c *Client) QueryRange(ctx context.Context, expr string, r Range) (*Data, error) {
	out := &Data{Format: "api", ResultType: "matrix"}
	var all []Series
	for _, ch := range Chunks(r.Start, r.End, r.Step, c.opt.MaxPoints) {
		params := url.Values{"query": {expr}, "start": {formatTime(ch.Start)}, "end": {formatTime(ch.End)}, "step": {strconv.FormatFloat(r.Step.Seconds(), 'f', -1, 64)}}
		d, err := c.get(ctx, "/api/v1/query_range", params, "query_range "+expr)
		if err != nil {
			return nil, err
		}
		if d.ResultType != "matrix" {
			return nil, fmt.Errorf("%s: query_range %s: result type %q, want matrix", c.redacted, expr, d.ResultType)
		}
		out.Warnings = append(out.Warnings, d.Warnings...)
		out.Skipped = append(out.Skipped, d.Skipped...)
		all = append(all, d.Series...)
	}
	out.Series, _ = Normalize(all)
	return out, nil
}

// Query runs expr as an instant query at t.
func (c *Client) Query(ctx context.Context, expr string, t time.Time) (*Data, error) {
	return c.get(ctx, "/api/v1/query", url.Values{"query": {expr}, "time": {formatTime(t)}}, "query "+expr)
}

// LabelValues lists the values of label name on series matching match.
func (c *Client) LabelValues(ctx context.Context, name, match string, start, end time.Time) ([]string, error) {
	params := url.Values{"match[]": {match}}
	if !start.IsZero() {
		params.Set("start", formatTime(start))
	}
	if !end.IsZero() {
		params.Set("end", formatTime(end))
	}
	d, err := c.getStrings(ctx, "/api/v1/label/"+url.PathEscape(name)+"/values", params)
	return d, err
}

func formatTime(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixNano())/1e9, 'f', 3, 64)
}

// squeezeReader keeps one byte of each run of JSON whitespace outside
// strings. encoding/json's Decoder keeps every whitespace byte before a
// token in its buffer and rescans it on each refill, so a hostile answer
// of endless spaces costs quadratic time; squeezed, it costs nothing but
// the bytes read (which capReader counts).
type squeezeReader struct {
	r                    io.Reader
	inString, esc, space bool
	buf                  []byte
}

func (s *squeezeReader) Read(p []byte) (int, error) {
	for {
		if cap(s.buf) < len(p) {
			s.buf = make([]byte, len(p))
		}
		n, err := s.r.Read(s.buf[:len(p)])
		w := 0
		for _, c := range s.buf[:n] {
			switch {
			case s.inString:
				s.space = false
				switch {
				case s.esc:
					s.esc = false
				case c == '\\':
					s.esc = true
				case c == '"':
					s.inString = false
				}
			case c == ' ' || c == '\t' || c == '\n' || c == '\r':
				if s.space {
					continue
				}
				s.space = true
			default:
				s.space = false
				if c == '"' {
					s.inString = true
				}
			}
			p[w] = c
			w++
		}
		if w > 0 || err != nil {
			return w, err
		}
	}
}
