package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/checks"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
	"github.com/ldanalyze/ldanalyze/pkg/window"
)

// writeKneeText renders the knee report as a terminal or markdown document:
// run facts, the levels table, then the knee, ceiling and SLO in words.
func writeKneeText(w io.Writer, f render.Format, rep *kneeReport, rows []window.Row, by []string, pcts []float64) error {
	r := rep.Result
	var b strings.Builder
	h := func(s string) {
		if f == render.Markdown {
			fmt.Fprintf(&b, "\n## %s\n\n", s)
		} else {
			fmt.Fprintf(&b, "\n%s\n", s)
		}
	}
	if f == render.Markdown {
		b.WriteString("# Knee analysis\n\n")
	}
	fmt.Fprintf(&b, "%s: %d samples, %s to %s (%s s at %s resolution), %s model (%s)\n",
		strings.Join(rep.Input.Files, ", "), rep.Input.Rows, r.Start.Format(time.RFC3339), r.End.Format(time.RFC3339),
		num(float64(r.DurationS)), time.Duration(float64(r.ResolutionS)*1e9), r.Model, r.ModelEvidence)
	o := r.Overall
	fmt.Fprintf(&b, "%s over the run: %d samples, p50 %s ms, p90 %s ms, p95 %s ms, p99 %s ms, max %s ms; %d requests, %s failed, %d dropped iterations\n",
		r.Metric, o.Count, num(float64(o.P50MS)), num(float64(o.P90MS)), num(float64(o.P95MS)), num(float64(o.P99MS)), num(float64(o.MaxMS)),
		o.Requests, pct(float64(o.ErrorRate)), o.Dropped)
	if len(rep.Summary) > 0 {
		h("k6's own summary beside the computed whole-run figures")
		if err := flush(w, &b); err != nil {
			return err
		}
		if err := summaryComparisonGrid(rep.Summary).Write(w, f); err != nil {
			return err
		}
	}
	levels, title := r.Holds, "Holds (plateaus of offered load; the seconds between levels are left out)"
	if r.Levels == "ramp" && len(r.RampSteps) > 0 {
		levels, title = r.RampSteps, fmt.Sprintf("Continuous ramp: %d ramp step%s of %s s (no plateaus of offered load to hold on)", len(r.RampSteps), plural(len(r.RampSteps)), num(r.RampSteps[0].Seconds))
	}
	if r.Levels != "none" {
		h(title)
		if f == render.Markdown {
			b.WriteString("Latency is of successful responses; percentiles by k6's definition.\n\n")
		}
		if err := flush(w, &b); err != nil {
			return err
		}
		if err := levelGrid(levels, r, pcts, false).Write(w, f); err != nil {
			return err
		}
		h("Verdict")
		writeFindings(&b, r)
	}
	if rep.Attribution != nil {
		for _, line := range rep.Attribution.Summary() {
			b.WriteString(line + "\n")
		}
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", wn)
	}
	writeCheckLines(&b, rep.Checks)
	if len(rows) > 0 {
		h(fmt.Sprintf("%s per %s window by %s", r.Metric, time.Duration(r.WindowS*1e9), strings.Join(by, ",")))
		if err := flush(w, &b); err != nil {
			return err
		}
		if err := byGrid(rows, by, pcts, false).Write(w, f); err != nil {
			return err
		}
	}
	if f == render.Markdown {
		fmt.Fprintf(&b, "\n_%s._\n", r.PercentileMethod)
	}
	return flush(w, &b)
}

// writeCheckLines lists the validity checks that did not pass, one line
// each; `ldanalyze check` shows them all with their evidence.
func writeCheckLines(b *strings.Builder, cs []checks.Check) {
	n := 0
	for _, c := range cs {
		if c.Status != checks.Warn && c.Status != checks.Fail {
			continue
		}
		if n == 0 {
			b.WriteString("Validity (ldanalyze check shows the evidence):\n")
		}
		n++
		fmt.Fprintf(b, "  %-4s %s: %s\n", c.Status, c.ID, c.Message)
	}
}

func flush(w io.Writer, b *strings.Builder) error {
	_, err := io.WriteString(w, b.String())
	b.Reset()
	return err
}

func writeFindings(b *strings.Builder, r *knee.Result) {
	unit := r.OfferedUnit
	if k := r.Knee; k != nil && !k.Reached {
		fmt.Fprintf(b, "Knee: not reached: every level had headroom, up to %s %s offered (%s req/s completed, p95 %s ms); test higher to find it.\n",
			num(float64(k.Offered)), unit, num(float64(k.CompletedRPS)), num(float64(k.P95MS)))
	} else if k != nil {
		fmt.Fprintf(b, "Knee: %s %s offered, %s req/s completed, p95 %s ms (%s).", num(float64(k.Offered)), unit, num(float64(k.CompletedRPS)), num(float64(k.P95MS)), k.Method)
		if k.Next != "" {
			fmt.Fprintf(b, " Next level %s.", k.Next)
		}
		b.WriteString("\n")
	} else {
		b.WriteString("Knee: none found: the lowest level tested already lacked headroom.\n")
	}
	if c := r.Ceiling; c != nil {
		fmt.Fprintf(b, "Ceiling: %s req/s of successful responses (95%% interval %s–%s) at %s %s offered, %s errors.",
			num(float64(c.CompletedRPS)), num(float64(c.Low)), num(float64(c.High)), num(float64(c.Offered)), unit, pct(float64(c.ErrorRate)))
		if c.Note != "" {
			fmt.Fprintf(b, " %s.", strings.TrimSuffix(c.Note, "."))
		}
		b.WriteString("\n")
	} else {
		b.WriteString("Ceiling: none: every level shed more than 5% of its requests.\n")
	}
	if s := r.SLO; s != nil {
		switch {
		case s.Met:
			fmt.Fprintf(b, "SLO %s: met at every level, up to %s %s (%s req/s).\n", s.Expr, num(float64(s.MaxOffered)), unit, num(float64(s.MaxCompletedRPS)))
		case math.IsNaN(float64(s.MaxOffered)):
			fmt.Fprintf(b, "SLO %s: not met even at the lowest level.\n", s.Expr)
		default:
			fmt.Fprintf(b, "SLO %s: met up to %s %s (%s req/s completed), interpolated between levels.\n", s.Expr, num(float64(s.MaxOffered)), unit, num(float64(s.MaxCompletedRPS)))
		}
		if s.ErrorLimited {
			b.WriteString("  (a level that failed more than 5% of its requests does not meet the SLO, however fast its successful responses)\n")
		}
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
