package prom

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// MaxPointsPerSeries is the query_range limit of the Prometheus server:
// (end − start) ÷ step may not exceed 11,000 (web/api/v1/api.go).
const MaxPointsPerSeries = 11000

// PullOptions configure Pull. The zero value of Step, RateWindow, Queries
// and MaxPoints take the defaults.
type PullOptions struct {
	// URL is the Prometheus server's base URL, e.g. http://prom:9090.
	URL string
	// Start and End bound the range; points are at Start + k·Step.
	Start, End time.Time
	// Step is the query_range resolution (default 15s).
	Step time.Duration
	// RateWindow is the range of rate() in the queries, replacing $window
	// (default 1m).
	RateWindow time.Duration
	// Queries to run (default Presets).
	Queries []Query
	// BearerToken, when not empty, is sent as "Authorization: Bearer …".
	// The caller reads it from an environment variable or a file.
	BearerToken string
	// MaxPoints caps the points per series per request (default
	// MaxPointsPerSeries); longer ranges are split.
	MaxPoints int
	// Transport is the HTTP transport (default http.DefaultTransport).
	Transport http.RoundTripper
}

// bearer adds the Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// Chunks splits [start, end] at step into ranges of at most maxPoints
// points each (a range [s, e] holds (e − s) ÷ step + 1 points); the next
// range starts one step after the previous one ends, so no point is asked
// twice.
func Chunks(start, end time.Time, step time.Duration, maxPoints int) []v1.Range {
	if maxPoints < 1 {
		maxPoints = 1
	}
	span := time.Duration(maxPoints-1) * step
	var out []v1.Range
	for s := start; !s.After(end); s = s.Add(span + step) {
		e := s.Add(span)
		if e.After(end) {
			e = end
		}
		out = append(out, v1.Range{Start: s, End: e, Step: step})
	}
	return out
}

// Pull runs every query as query_range over [Start, End] through the
// official client (github.com/prometheus/client_golang/api), splitting the
// range so that no request exceeds the points limit, and returns the
// export to write with WriteDir. A query the server rejects stops the pull
// with the server's error type and message verbatim; warnings are kept on
// the query's manifest entry.
func Pull(ctx context.Context, opt PullOptions) (*Export, error) {
	if opt.Step <= 0 {
		opt.Step = 15 * time.Second
	}
	if opt.RateWindow <= 0 {
		opt.RateWindow = time.Minute
	}
	if opt.MaxPoints <= 0 || opt.MaxPoints > MaxPointsPerSeries {
		opt.MaxPoints = MaxPointsPerSeries
	}
	if len(opt.Queries) == 0 {
		opt.Queries = Presets
	}
	if !opt.End.After(opt.Start) {
		return nil, fmt.Errorf("prom pull: end %s is not after start %s", opt.End.Format(time.RFC3339), opt.Start.Format(time.RFC3339))
	}
	rt := opt.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	if opt.BearerToken != "" {
		rt = bearer{token: opt.BearerToken, next: rt}
	}
	client, err := api.NewClient(api.Config{Address: opt.URL, RoundTripper: rt})
	if err != nil {
		return nil, fmt.Errorf("prom pull: %w", err)
	}
	a := v1.NewAPI(client)
	window := model.Duration(opt.RateWindow).String()
	e := &Export{Manifest: Manifest{
		Version: 1, URL: opt.URL, Start: opt.Start.UTC(), End: opt.End.UTC(),
		StepS: opt.Step.Seconds(), RateWindow: window,
	}}
	chunks := Chunks(opt.Start, opt.End, opt.Step, opt.MaxPoints)
	for _, q := range opt.Queries {
		if err := q.check(); err != nil {
			return nil, fmt.Errorf("prom pull: %w", err)
		}
		expr := q.expand(window)
		ent := Entry{Query: q, File: q.Name + ".json"}
		ent.Expr = expr
		var series []Series
		for _, r := range chunks {
			val, warns, infos, err := a.QueryRange(ctx, expr, r)
			if err != nil {
				return nil, pullError(opt.URL, q.Name, expr, err, append(warns, infos...))
			}
			ent.Warnings = append(ent.Warnings, warns...)
			ent.Warnings = append(ent.Warnings, infos...)
			m, ok := val.(model.Matrix)
			if !ok {
				return nil, fmt.Errorf("prom pull: %s: result type %s, want matrix", q.Name, val.Type())
			}
			for _, ss := range m {
				s := Series{Labels: metricLabels(ss.Metric), Points: make([]Point, len(ss.Values))}
				for i, v := range ss.Values {
					s.Points[i] = Point{TimeNS: int64(v.Timestamp) * 1e6, Value: float64(v.Value)}
				}
				series = append(series, s)
			}
		}
		d := &Data{Format: "api", ResultType: "matrix", Warnings: ent.Warnings}
		d.Series, _ = Normalize(series)
		e.Manifest.Queries = append(e.Manifest.Queries, ent)
		e.Data = append(e.Data, d)
	}
	return e, nil
}

// pullError keeps the server's error type and message verbatim.
func pullError(url, name, expr string, err error, warnings []string) error {
	var ae *v1.Error
	if errors.As(err, &ae) {
		msg := fmt.Sprintf("prom pull: %s: query %s (%s): Prometheus API error (%s): %s", url, name, expr, ae.Type, ae.Msg)
		if d := strings.TrimSpace(ae.Detail); d != "" {
			if len(d) > 500 {
				d = d[:500] + "…"
			}
			msg += ": " + d
		}
		for _, w := range warnings {
			msg += "; warning: " + w
		}
		return errors.New(msg)
	}
	return fmt.Errorf("prom pull: %s: query %s: %w", url, name, err)
}
