package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/sim"
)

// secs formats a truth time, "never" for −1.
func secs(d time.Duration) string {
	if d < 0 {
		return "never"
	}
	return fmt.Sprintf("%.3f s", d.Seconds())
}

// writeTruth prints the truth as text, one figure per line.
func writeTruth(w io.Writer, tr sim.Truth) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("truth")
	if tr.Servers > 0 && tr.CapacityPerS > 0 {
		p("  server          %d slots, E[S] %.3f ms, C = %.2f successful responses/s", tr.Servers, tr.MeanServiceMS, tr.CapacityPerS)
		p("  ρ = 1           at %s, offered %.2f req/s (%.2f it/s)", secs(tr.RhoOneAt), tr.RhoOneOfferedPerS, tr.RhoOneIterationsPerS)
		p("  ceiling         %.2f successful responses/s; load-independent errors %.2f %%", tr.CeilingPerS, 100*tr.LoadIndependentErrorFraction)
	}
	if tr.RateLimitPerS > 0 {
		p("  rate limiter    %.2f req/s, reached at %s", tr.RateLimitPerS, secs(tr.RateLimitAt))
	}
	if tr.GeneratorLimitAt >= 0 {
		p("  generator       %s can run %.2f it/s, exceeded at %s", tr.GeneratorLimitScenario, tr.GeneratorLimitIterationsPerS, secs(tr.GeneratorLimitAt))
	}
	if ws := tr.WS; ws != nil {
		p("  ws lock         %.3f ms/msg: %.2f msgs/s; a class offers %.3f msgs/s; knee %.2f classes at %s",
			ws.PerMessageMS, ws.CapacityMsgsPerS, ws.MsgsPerSPerClass, ws.KneeClasses, secs(ws.RhoOneAt))
	}
	limit := tr.Limit
	if limit == "" {
		limit = "none (the run stays below every limit)"
	}
	if tr.Limit == sim.LimitWSLock || tr.Limit == "" {
		p("  first limit     %s at %s", limit, secs(tr.KneeAt))
	} else {
		p("  first limit     %s at %s, offered %.2f req/s (%.2f it/s); generator-limited: %v",
			limit, secs(tr.KneeAt), tr.KneeOfferedPerS, tr.KneeIterationsPerS, tr.GeneratorLimited)
	}
	for _, s := range tr.Scenarios {
		p("  scenario %s (%s, %.1f–%.1f s)", s.Name, s.Executor, s.Start.Seconds(), s.End.Seconds())
		if s.RequestsPerIteration == 0 {
			continue
		}
		p("    %.2f req/iteration, W %.3f ms, D %.3f ms, E[S] %.3f ms, C %.2f req/s, ρ = 1 alone at %.2f it/s",
			s.RequestsPerIteration, s.WorkPerIterationMS, s.ZeroLoadIterationMS, s.MeanServiceMS, s.CapacityPerS, s.RhoOneIterationsPerS)
		if s.Open {
			p("    its VUs can run %.2f it/s; peak scheduled %.2f it/s", s.MaxIterationsPerS, s.PeakIterationsPerS)
		} else {
			p("    knee %.2f VUs; peak %.2f it/s without queueing", s.KneeVUs, s.PeakIterationsPerS)
		}
	}
	m := tr.Measured
	p("measured")
	p("  run             %.3f s, %d iterations, %d dropped (first at %s), %d interrupted, vus_max %d",
		m.Duration.Seconds(), m.Iterations, m.Dropped, secs(m.FirstDropAt), m.Interrupted, m.VUsMax)
	if m.Requests > 0 {
		p("  requests        %d: %d ok, %d errors (%d timeouts); served %d (%d wasted)", m.Requests, m.OK, m.Errors, m.TimedOut, m.Served, m.Wasted)
		p("  server          utilisation %.4f, E[S] %.3f ms, wait %.3f ms; L %.4f, λW %.4f",
			m.Utilisation, m.MeanServiceMS, m.MeanWaitMS, m.MeanInSystem, m.ArrivalRatePerS*m.MeanSojournMS/1000)
	}
	if m.WSWritten > 0 {
		p("  ws lock         utilisation %.4f; %d msgs written, %d delivered, %d lost", m.WSLockUtilisation, m.WSWritten, m.WSDelivered, m.WSLost)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTruthJSON prints the whole truth as indented JSON (durations in ns).
func writeTruthJSON(w io.Writer, tr sim.Truth) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(tr)
}
