package checks

import (
	"fmt"
	"math"

	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// IDBacklog is the check of a backlog that drains after the load ended.
const IDBacklog ID = "backlog"

// Backlog thresholds: the samples measured after the highest load level
// ended count as a draining backlog when there are at least
// BacklogMinSamples of them and at least BacklogMinShare of the metric's
// samples, and their median is above BacklogFactor times the median of
// that level.
const (
	BacklogMinSamples = 20
	BacklogMinShare   = 0.01
	BacklogFactor     = 3.0
)

// backlog flags a run whose latency was still being measured, much higher,
// after its load ended: samples of the analysed Trend after the level with
// the highest offered load, with a median well above that level's. A
// server that queued work (a WebSocket fan-out behind one lock, a worker
// pool) keeps answering while k6 stops (gracefulStop, gracefulRampDown),
// and those late answers belong to the load that was offered before: the
// last level's figures understate its latency, and the run's percentiles
// mix in the drain.
func (e *eval) backlog() Check {
	ch := Check{ID: IDBacklog}
	if e.res == nil || e.tl.Rows() == 0 {
		ch.Status, ch.Message = NA, "no load levels: a backlog after the load cannot be told."
		return ch
	}
	var top *levelRef
	for _, l := range e.res.AllLevels() {
		if l.Offered.Valid() && (top == nil || float64(l.Offered) > top.offered) {
			top = &levelRef{offered: float64(l.Offered), start: l.Start.Unix(), end: l.End.Unix(), p50: float64(l.P50MS)}
		}
	}
	if top == nil || top.end >= e.s1 {
		ch.Status, ch.Message = OK, "the highest load level lasted to the end of the run: no samples after it."
		return ch
	}
	var tail, all uint64
	e.tl.Each(func(sec int64, s *timeline.Second) {
		all += s.MetricSamples
		if sec >= top.end {
			tail += s.MetricSamples
		}
	})
	lat := e.tl.Latency(top.end, e.s1)
	med, mx := lat.Quantile(0.5), lat.Max()
	share := float64(tail) / math.Max(1, float64(all))
	ch.Evidence.add("load_end_s", float64(top.end-e.o))
	ch.Evidence.add("after_samples", float64(tail))
	ch.Evidence.add("after_share", share)
	ch.Evidence.add("after_p50_ms", med)
	ch.Evidence.add("after_max_ms", mx)
	ch.Evidence.add("top_level_p50_ms", top.p50)
	metric := e.tl.Metric()
	if tail == 0 {
		ch.Status = OK
		ch.Message = fmt.Sprintf("no sample of %s after the highest load level (ended at %s s): no backlog draining after the load.", metric, plus(float64(top.end-e.o)))
		return ch
	}
	if tail < BacklogMinSamples || share < BacklogMinShare || !(top.p50 > 0) || !(med > BacklogFactor*top.p50) {
		ch.Status = OK
		ch.Message = fmt.Sprintf("after the highest load level (ended at %s s) %d samples of %s, median %s ms against %s ms in that level: no backlog draining after the load.",
			plus(float64(top.end-e.o)), tail, metric, fmtNum(med), fmtNum(top.p50))
		return ch
	}
	ch.Status = Warn
	ch.Message = fmt.Sprintf("%d samples of %s (%s of them) were measured after the highest load level ended at %s s, median %s ms (max %s ms) against %s ms in that level: the system was still working through a backlog when the load stopped — those answers belong to the load offered before, so that level's latency understates it and the run's percentiles mix in the drain; judge the knee below that level, or hold the load until latency settles.",
		tail, metric, fmtPct(share), plus(float64(top.end-e.o)), fmtNum(med), fmtNum(mx), fmtNum(top.p50))
	return ch
}

// levelRef is what the backlog check keeps of a level.
type levelRef struct {
	offered    float64
	start, end int64 // unix seconds [start, end)
	p50        float64
}
