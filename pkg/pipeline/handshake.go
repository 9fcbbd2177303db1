package pipeline

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/k6metric"
	"github.com/ldanalyze/ldanalyze/pkg/outcome"
	"github.com/ldanalyze/ldanalyze/pkg/timeline"
)

// handshakeOnly is the warning for a WebSocket run analysed on its
// default metric, ws_connecting: k6 times only the handshake, once per
// session, so the messages' latency (what a fan-out or chat test is
// about) is not in it, and a server that queues messages but accepts
// connections reads as healthy. It names the run's custom metrics with at
// least as many samples as ws_connecting (a k6 JSON file's declared time
// Trends only; a CSV does not say a metric's type), those named as times
// (…_ms, …_duration, …_latency, …_time) first, then busiest first, the
// first as the --metric to try; "" when the run is not a WebSocket one on
// ws_connecting or has no such metric.
func handshakeOnly(tl *timeline.Timeline, declared map[string]ingest.MetricInfo) string {
	if tl.Protocol() != outcome.WebSocket || tl.Metric() != outcome.WebSocket.LatencyMetric() {
		return ""
	}
	own := tl.MetricSamples()
	type mc struct {
		name string
		n    uint64
	}
	var c []mc
	for name, n := range tl.Metrics() {
		if _, builtin := k6metric.Builtin(name); builtin || n < own {
			continue
		}
		if d, ok := declared[name]; ok && (d.Type != "trend" || d.Contains != "time") {
			continue
		}
		c = append(c, mc{name, n})
	}
	if len(c) == 0 {
		return ""
	}
	timeLike := func(name string) int {
		for _, suf := range []string{"_ms", "_duration", "_latency", "_time"} {
			if strings.HasSuffix(name, suf) {
				return 0
			}
		}
		return 1
	}
	slices.SortFunc(c, func(a, b mc) int {
		return cmp.Or(cmp.Compare(timeLike(a.name), timeLike(b.name)), cmp.Compare(b.n, a.n), cmp.Compare(a.name, b.name))
	})
	parts := make([]string, 0, 4)
	for _, m := range c[:min(len(c), 4)] {
		parts = append(parts, fmt.Sprintf("%s (%d samples)", m.name, m.n))
	}
	return fmt.Sprintf("%s times only the WebSocket handshake, once per session (%d samples): the messages' latency is not in it, and a server that queues messages reads as healthy. The run also has %s: if one times the messages, give it with --metric %s",
		tl.Metric(), own, strings.Join(parts, ", "), c[0].name)
}
