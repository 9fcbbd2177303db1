package prom

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
)

// getStrings reads an API response whose data is a list of strings
// (/api/v1/label/<name>/values), with the client's bounds.
func (c *Client) getStrings(ctx context.Context, path string, params url.Values) ([]string, error) {
	u := *c.base
	u.Path = strings.TrimRight(u.Path, "/") + path
	u.RawQuery = params.Encode()
	what := "GET " + path
	ctx, cancel := context.WithTimeout(ctx, c.opt.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	switch {
	case c.opt.BearerToken != "":
		req.Header.Set("Authorization", "Bearer "+c.opt.BearerToken)
	case c.opt.Username != "":
		req.SetBasicAuth(c.opt.Username, c.opt.Password)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, c.wrap(ctx, what, err)
	}
	defer resp.Body.Close()
	var env struct {
		Status    string   `json:"status"`
		Data      []string `json:"data"`
		ErrorType string   `json:"errorType"`
		Error     string   `json:"error"`
	}
	if err := json.NewDecoder(&capReader{r: resp.Body, limit: c.opt.MaxResponseBytes}).Decode(&env); err != nil {
		return nil, c.wrap(ctx, what, fmt.Errorf("HTTP %s: %w", resp.Status, err))
	}
	if env.Status != "success" {
		return nil, &APIError{File: c.redacted + " " + what, Status: env.Status, ErrorType: env.ErrorType, Message: env.Error}
	}
	return env.Data, nil
}

// Names lists the k6_* metric names with series matching sel.
func (c *Client) Names(ctx context.Context, sel Selector) ([]string, error) {
	match := append(Selector{{Name: "__name__", Op: "=~", Value: "k6_.+"}}, sel...)
	return c.LabelValues(ctx, "__name__", match.PromQL(""), time.Time{}, time.Time{})
}

// SearchRange is how far back Span looks for a run when no range is given.
const SearchRange = 7 * 24 * time.Hour

// Span finds the first and last sample of the named metrics matching sel
// within r (the SearchRange before now when r has no bounds) with
// subqueries evaluated on the server, min_over_time(timestamp(x)[range:1m])
// and max_over_time: timestamp() of a vector selector is the time of the
// sample each step sees, so the extremes are the first and last samples.
// The interval is the median gap between the raw samples of the last
// minute of the run.
func (c *Client) Span(ctx context.Context, names []string, sel Selector, r Range) (time.Time, time.Time, time.Duration, error) {
	end := r.End
	if end.IsZero() {
		end = time.Now()
	}
	rng := SearchRange
	if !r.Start.IsZero() {
		rng = end.Sub(r.Start)
	}
	res := time.Minute
	if rng/res > MaxPointsPerSeries {
		res = (rng / MaxPointsPerSeries).Round(time.Minute) + time.Minute
	}
	var sels []string
	for _, n := range names {
		sels = append(sels, sel.PromQL(n))
	}
	union := strings.Join(sels, " or ")
	sub := fmt.Sprintf("[%s:%s]", model.Duration(rng), model.Duration(res))
	scalar := func(expr string) (float64, error) {
		d, err := c.Query(ctx, expr, end)
		if err != nil {
			return 0, err
		}
		for _, s := range d.Series {
			for _, p := range s.Points {
				if !math.IsNaN(p.Value) {
					return p.Value, nil
				}
			}
		}
		return math.NaN(), nil
	}
	lo, err := scalar(fmt.Sprintf("min(min_over_time(timestamp(%s)%s))", union, sub))
	if err != nil {
		return time.Time{}, time.Time{}, 0, err
	}
	hi, err := scalar(fmt.Sprintf("max(max_over_time(timestamp(%s)%s))", union, sub))
	if err != nil {
		return time.Time{}, time.Time{}, 0, err
	}
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return time.Time{}, time.Time{}, 0, fmt.Errorf("%s: no sample of %s in the %s before %s", c.redacted, union, model.Duration(rng), end.UTC().Format(time.RFC3339))
	}
	// In a subquery timestamp() is the evaluation time (Prometheus 2.42),
	// so lo and hi are within one resolution step after the first sample
	// and within the lookback (5 m) after the last one. The raw samples
	// around them give the exact times and the push interval.
	raw := func(at time.Time, back time.Duration) ([]int64, error) {
		d, err := c.Query(ctx, fmt.Sprintf("%s[%s]", sels[0], model.Duration(back)), at)
		if err != nil {
			return nil, err
		}
		var ts []int64
		for _, s := range d.Series {
			for _, p := range s.Points {
				ts = append(ts, p.TimeNS)
			}
			for _, h := range s.Histograms {
				ts = append(ts, h.TimeNS)
			}
		}
		sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
		return ts, nil
	}
	loT, hiT := time.Unix(0, int64(lo*1e9)).UTC(), time.Unix(0, int64(hi*1e9)).UTC()
	head, err := raw(loT, res+time.Second)
	if err != nil {
		return time.Time{}, time.Time{}, 0, err
	}
	tail, err := raw(hiT, DefaultLookback+res+time.Second)
	if err != nil {
		return time.Time{}, time.Time{}, 0, err
	}
	if len(head) == 0 || len(tail) == 0 {
		return time.Time{}, time.Time{}, 0, fmt.Errorf("%s: no raw sample of %s near %s or %s", c.redacted, sels[0], loT.Format(time.RFC3339), hiT.Format(time.RFC3339))
	}
	first, last := time.Unix(0, head[0]).UTC(), time.Unix(0, tail[len(tail)-1]).UTC()
	var interval time.Duration
	var gaps []int64
	for _, ts := range [][]int64{head, tail} {
		for i := 1; i < len(ts); i++ {
			if g := ts[i] - ts[i-1]; g > 0 {
				gaps = append(gaps, g)
			}
		}
	}
	if len(gaps) > 0 {
		sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
		interval = time.Duration(gaps[len(gaps)/2]).Round(time.Millisecond)
	}
	return first, last, interval, nil
}

// Sum is sum by (by) (name{sel}) as query_range over r.
func (c *Client) Sum(ctx context.Context, name string, sel Selector, by []string, r Range) ([]Series, error) {
	return c.sumBy(ctx, sel.PromQL(name), by, r)
}

// CountSeries is count by (by) (name{sel}) as query_range over r: how
// many series each group's sum adds at each time.
func (c *Client) CountSeries(ctx context.Context, name string, sel Selector, by []string, r Range) ([]Series, error) {
	return c.aggBy(ctx, "count", sel.PromQL(name), by, r)
}

// sumBy runs sum by (by) (expr) as query_range over r, every by label
// present in each series ("" where the group has none).
func (c *Client) sumBy(ctx context.Context, expr string, by []string, r Range) ([]Series, error) {
	return c.aggBy(ctx, "sum", expr, by, r)
}

// aggBy runs op by (by) (expr) as query_range over r, every by label
// present in each series ("" where the group has none).
func (c *Client) aggBy(ctx context.Context, op, expr string, by []string, r Range) ([]Series, error) {
	d, err := c.QueryRange(ctx, fmt.Sprintf("%s by (%s) (%s)", op, strings.Join(by, ", "), expr), r)
	if err != nil {
		return nil, err
	}
	for i := range d.Series {
		for _, k := range by {
			if _, ok := d.Series[i].Labels[k]; !ok {
				d.Series[i].Labels[k] = ""
			}
		}
	}
	return d.Series, nil
}

// SumProduct is sum by (by) (a{sel} * b{sel}) as query_range over r.
func (c *Client) SumProduct(ctx context.Context, a, b string, sel Selector, by []string, r Range) ([]Series, error) {
	return c.sumBy(ctx, fmt.Sprintf("%s * %s", sel.PromQL(a), sel.PromQL(b)), by, r)
}

// SumHistogram is sum by (by) (name{sel}) of native histograms as
// query_range over r.
func (c *Client) SumHistogram(ctx context.Context, name string, sel Selector, by []string, r Range) ([]Series, error) {
	return c.sumBy(ctx, sel.PromQL(name), by, r)
}

// Quantile is histogram_quantile(q, sum(rate(name{sel}[window]))) as
// query_range over r: the server computes the quantile of the native
// histograms' increase over each window.
func (c *Client) Quantile(ctx context.Context, q float64, name string, sel Selector, window time.Duration, r Range) ([]Point, error) {
	expr := fmt.Sprintf("histogram_quantile(%s, sum(rate(%s[%s])))", strconv.FormatFloat(q, 'g', -1, 64), sel.PromQL(name), model.Duration(window.Round(time.Millisecond)))
	d, err := c.QueryRange(ctx, expr, r)
	if err != nil || len(d.Series) == 0 {
		return nil, err
	}
	return d.Series[0].Points, nil
}
