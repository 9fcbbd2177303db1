package promtest

import (
	"context"
	"testing"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/prom"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// From a real Prometheus to the knee: the native run replayed, read live
// at k6's 5 s push interval (the store's step), filled into a timeline
// and analysed by pkg/knee as a k6 file would be. The README's truth for
// this run: open model, knee at an offered ≈ 170–190 it/s, goodput ceiling
// ≈ 180–190 req/s right after it (creeping to ≈ 215 with the mix shift),
// so the knee's offered load is checked in 150–200 it/s and the ceiling
// in 170–225 req/s.
func TestK6RunTimelineKnee(t *testing.T) {
	s := Start(t, Options{})
	s.ReplayCorpus(t, corpus+"prom_rw_native.prom_query_range.json.gz")
	c, err := prom.NewClient(prom.ClientOptions{URL: s.URL, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := prom.ReadK6Run(ctx, c, prom.K6Options{})
	if err != nil {
		t.Fatal(err)
	}
	if run.Step != 5*time.Second {
		t.Errorf("step %s, want k6's 5 s push interval", run.Step)
	}
	acc := timeline.New(timeline.Options{Metric: "http_req_duration"})
	if w := run.Fill(acc); len(w) > 0 {
		t.Logf("fill: %v", w)
	}
	tl := acc.Close(int64(run.Step))
	res, err := knee.Analyze(tl, knee.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("model %s, levels %s, knee %+v, ceiling %+v", res.Model, res.Levels, res.Knee, res.Ceiling)
	if res.Model != knee.Open {
		t.Errorf("model %s, want open", res.Model)
	}
	if res.Knee == nil || float64(res.Knee.Offered) < 150 || float64(res.Knee.Offered) > 200 {
		t.Errorf("knee %+v, want an offered load of 150–200 it/s", res.Knee)
	}
	if res.Ceiling == nil || float64(res.Ceiling.CompletedRPS) < 170 || float64(res.Ceiling.CompletedRPS) > 225 {
		t.Errorf("ceiling %+v, want 170–225 req/s", res.Ceiling)
	}
}
