package prom

import (
	"context"
	"errors"
	"fmt"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// MaxPointsPerSeries is the query_range limit of the Prometheus server:
// (end − start) ÷ step may not exceed 11,000 (web/api/v1/api.go).
const MaxPointsPerSeries = 11000

// PullOptions configure Pull. The zero value of Step, RateWindow, Queries
// and MaxPoints take the defaults.
type PullOptions struct {
	// Client holds the server's URL, credentials and bounds (timeout per
	// request, response cap, retries); see ClientOptions.
	Client ClientOptions
	// Start and End bound the range; points are at Start + k·Step.
	Start, End time.Time
	// Step is the query_range resolution (default 15s).
	Step time.Duration
	// RateWindow is the range of rate() in the queries, replacing $window
	// (default 1m).
	RateWindow time.Duration
	// Queries to run (default Presets).
	Queries []Query
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

// Pull runs every query as query_range over [Start, End] with a bounded
// Client (a timeout per request, a size cap per response, retries of
// 5xx/429 only, credentials kept off other hosts), splitting the range so
// that no request exceeds the points limit, and returns the export to
// write with WriteDir. The caller's ctx is the overall deadline. A query
// the server rejects stops the pull with the server's error type and
// message verbatim; warnings are kept on the query's manifest entry. The
// manifest's URL carries no credentials.
func Pull(ctx context.Context, opt PullOptions) (*Export, error) {
	if opt.Step <= 0 {
		opt.Step = 15 * time.Second
	}
	if opt.RateWindow <= 0 {
		opt.RateWindow = time.Minute
	}
	if len(opt.Queries) == 0 {
		opt.Queries = Presets
	}
	if !opt.End.After(opt.Start) {
		return nil, fmt.Errorf("prom pull: end %s is not after start %s", opt.End.Format(time.RFC3339), opt.Start.Format(time.RFC3339))
	}
	c, err := NewClient(opt.Client)
	if err != nil {
		return nil, fmt.Errorf("prom pull: %w", err)
	}
	window := model.Duration(opt.RateWindow).String()
	e := &Export{Manifest: Manifest{
		Version: 1, URL: c.URL(), Start: opt.Start.UTC(), End: opt.End.UTC(),
		StepS: opt.Step.Seconds(), RateWindow: window,
	}}
	for _, q := range opt.Queries {
		if err := q.check(); err != nil {
			return nil, fmt.Errorf("prom pull: %w", err)
		}
		expr := q.expand(window)
		ent := Entry{Query: q, File: q.Name + ".json"}
		ent.Expr = expr
		d, err := c.QueryRange(ctx, expr, Range{Start: opt.Start, End: opt.End, Step: opt.Step})
		if err != nil {
			return nil, pullError(q.Name, expr, err)
		}
		ent.Warnings = append(ent.Warnings, d.Warnings...)
		d.Warnings = ent.Warnings
		e.Manifest.Queries = append(e.Manifest.Queries, ent)
		e.Data = append(e.Data, d)
	}
	return e, nil
}

// pullError names the query; an API error keeps the server's words
// verbatim (its detail cut at 500 bytes).
func pullError(name, expr string, err error) error {
	var ae *APIError
	if errors.As(err, &ae) {
		msg := fmt.Sprintf("prom pull: query %s (%s): Prometheus API error (%s): %s", name, expr, ae.ErrorType, ae.Message)
		if len(msg) > 2000 {
			msg = msg[:2000] + "…"
		}
		for _, w := range ae.Warnings {
			msg += "; warning: " + w
		}
		return errors.New(msg)
	}
	return fmt.Errorf("prom pull: query %s: %w", name, err)
}
