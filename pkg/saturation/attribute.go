// Package saturation lines Prometheus series up with the load levels of a
// run to say what saturated: each resource's utilisation per level (pod
// CPU ÷ limit, throttling, memory ÷ limit, network ÷ link, node CPU),
// the resources at or above a threshold at the ceiling, workloads whose
// pods carry uneven shares of the CPU at every level, a per-level,
// per-pod table of CPU and throttling, and the levels a restart made
// invalid. It takes plain load levels (Level), not a knee result, and
// reads no file format itself.
package saturation

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/jsonnum"
	"github.com/ldanalyze/ldanalyze/pkg/prom"
)

// Level is one load level of a run (a hold, a ramp step or a window), on
// the same clock as the Prometheus series.
type Level struct {
	// Kind is "hold", "ramp" or "window".
	Kind       string
	Start, End time.Time
	// Offered is the offered load (iterations/s or VUs, the run's unit)
	// and CompletedRPS the successful responses per second.
	Offered, CompletedRPS float64
	// Verdict is the level's verdict (headroom, saturated, overloaded), ""
	// when not judged.
	Verdict string
}

// Series is a Prometheus series as prom reads it.
type Series = prom.Series

// Role says what a series measures; see prom's Role constants.
type Role = prom.Role

// AttributeOptions configure Attribute. The zero value takes the defaults.
type AttributeOptions struct {
	// SaturatedRatio is the utilisation at or above which a resource counts
	// as saturated, a 0–1 ratio (default 0.9).
	SaturatedRatio float64
	// LinkMbps is the network link speed, megabits per second; network
	// throughput is divided by it. 0 leaves network out of utilisation.
	LinkMbps float64
	// ImbalanceFactor flags a group when its busiest member carries more
	// than this many times an even share (default 1.5: with two pods, a
	// share above 0.75).
	ImbalanceFactor float64
}

// Saturation is a resource at or above the saturation threshold at the
// ceiling.
type Saturation struct {
	// Resource names the resource, e.g. "shop/api-7d9f-x2 CPU (of limit)".
	Resource string `json:"resource"`
	// Utilisation is used ÷ capacity at the ceiling level, a 0–1 ratio
	// (above 1 when a pod bursts over its request-based "limit").
	Utilisation jsonnum.Float `json:"utilisation"`
}

// Imbalance is a group of pods (one workload) whose busiest member carried
// much more than an even share of the group's CPU at the ceiling.
type Imbalance struct {
	// Group is "namespace/workload": the pods' owner (see Workloads).
	Group string `json:"group"`
	// Busiest is the busiest member, "namespace/pod".
	Busiest string `json:"busiest"`
	// Share is the busiest member's share of the group's total, a 0–1
	// ratio.
	Share jsonnum.Float `json:"share"`
	// Members is the number of pods in the group.
	Members int `json:"members"`
	// BusiestCores and TotalCores are CPU used, cores.
	BusiestCores jsonnum.Float `json:"busiest_cores"`
	TotalCores   jsonnum.Float `json:"total_cores"`
	// Cores lists every member's CPU, cores, keyed "namespace/pod".
	Cores map[string]jsonnum.Float `json:"cores"`
}

// InvalidHold is a load level during which a container restarted (or was
// OOM-killed): its numbers measure a recovering system.
type InvalidHold struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Reason says which container restarted, when, and why if known.
	Reason string `json:"reason"`
	// Restarts are the times of the sample at which each restart was first
	// seen (the restart happened in the step before).
	Restarts []time.Time `json:"restarts"`
}

// LevelUtilisation is every resource's utilisation over one load level,
// 0–1 ratios keyed by resource name.
type LevelUtilisation struct {
	Start     time.Time                `json:"start"`
	End       time.Time                `json:"end"`
	Resources map[string]jsonnum.Float `json:"resources"`
}

// LevelImbalance is the imbalanced workloads over one level.
type LevelImbalance struct {
	Start  time.Time   `json:"start"`
	End    time.Time   `json:"end"`
	Groups []Imbalance `json:"groups"`
}

// Attribution is what Prometheus says about a k6 run: what saturated at
// the ceiling, which groups were imbalanced, which levels are invalid.
type Attribution struct {
	// Saturated are the resources at or above SaturatedRatio at the
	// ceiling level, highest first.
	Saturated []Saturation `json:"saturated"`
	// Imbalance lists the imbalanced groups at the ceiling level, the
	// largest share first.
	Imbalance []Imbalance `json:"imbalance"`
	// ImbalanceByLevel lists the imbalanced groups at every level.
	ImbalanceByLevel []LevelImbalance `json:"imbalance_by_level,omitempty"`
	// Pods is CPU and throttling per pod at every level.
	Pods []PodLevel `json:"pods,omitempty"`
	// InvalidHolds are the levels with a restart inside them.
	InvalidHolds []InvalidHold `json:"invalid_holds"`
	// SaturatedRatio is the threshold used, a 0–1 ratio.
	SaturatedRatio float64 `json:"saturated_threshold"`
	// CeilingLevelStart is the start of the level the saturation and
	// imbalance were read at.
	CeilingLevelStart time.Time `json:"ceiling_level_start"`
	// Busiest is the resource with the highest utilisation at the ceiling
	// level, whether saturated or not ("" when none was measured).
	Busiest            string        `json:"busiest_resource,omitempty"`
	BusiestUtilisation jsonnum.Float `json:"busiest_utilisation"`
	// Utilisation is every resource per level.
	Utilisation []LevelUtilisation `json:"resource_utilisation"`
	// PromWarnings are caveats: server warnings, resources left out.
	PromWarnings []string `json:"prom_warnings,omitempty"`
}

// Attribute lines up the export's series with the load levels of res (its
// holds, its ramp steps when it had no holds, else its windows; same
// clock) and computes, per level, the utilisation of each resource: pod
// CPU ÷ its limit, throttle ratio, memory ÷ limit, network ÷ LinkMbps,
// node CPU busy ratio, custom utilisation ratios. A series' value over a
// level is the time-weighted mean of its points, each point at t standing
// for the step (t − step, t]. At the ceiling level (the level whose
// offered load is the ceiling's; the highest completed load when there is
// no ceiling) it names the saturated resources and the imbalanced groups;
// restarts inside the run mark levels invalid. An export whose time range
// does not overlap the run is an error giving both ranges.
func Attribute(e *prom.Export, levels []Level, ceiling int, runStart, runEnd time.Time, opt AttributeOptions) (*Attribution, error) {
	if opt.SaturatedRatio <= 0 {
		opt.SaturatedRatio = 0.9
	}
	if opt.ImbalanceFactor <= 0 {
		opt.ImbalanceFactor = 1.5
	}
	es, ee := e.Span()
	if ee.Before(runStart) || es.After(runEnd) {
		return nil, fmt.Errorf("the Prometheus export covers %s to %s but the k6 run is %s to %s: they do not overlap (same clock expected: UTC Unix time)",
			es.Format(time.RFC3339), ee.Format(time.RFC3339), runStart.Format(time.RFC3339), runEnd.Format(time.RFC3339))
	}
	a := &Attribution{Saturated: []Saturation{}, Imbalance: []Imbalance{}, InvalidHolds: []InvalidHold{},
		BusiestUtilisation: jsonnum.Float(math.NaN()), SaturatedRatio: opt.SaturatedRatio}
	for _, d := range e.Data {
		a.PromWarnings = append(a.PromWarnings, d.Warnings...)
	}
	if len(levels) == 0 {
		a.PromWarnings = append(a.PromWarnings, "the k6 run has no load levels to line Prometheus up with")
		return a, nil
	}
	step := int64(e.Manifest.StepS * 1e9)
	byRole := ByRole(e)
	ci := ceiling
	if ci < 0 || ci >= len(levels) {
		ci = highestCompleted(levels)
	}
	a.CeilingLevelStart = levels[ci].Start
	for _, l := range levels {
		m := utilisations(byRole, l, step, opt, &a.PromWarnings)
		a.Utilisation = append(a.Utilisation, LevelUtilisation{Start: l.Start, End: l.End, Resources: m})
	}
	for r, u := range a.Utilisation[ci].Resources {
		if !u.Valid() {
			continue
		}
		if a.Busiest == "" || float64(u) > float64(a.BusiestUtilisation) || (float64(u) == float64(a.BusiestUtilisation) && r < a.Busiest) {
			a.Busiest, a.BusiestUtilisation = r, u
		}
		if float64(u) >= opt.SaturatedRatio {
			a.Saturated = append(a.Saturated, Saturation{Resource: r, Utilisation: u})
		}
	}
	sort.Slice(a.Saturated, func(i, j int) bool {
		if a.Saturated[i].Utilisation != a.Saturated[j].Utilisation {
			return a.Saturated[i].Utilisation > a.Saturated[j].Utilisation
		}
		return a.Saturated[i].Resource < a.Saturated[j].Resource
	})
	owners := Workloads(append(append([]Series(nil), byRole[prom.RolePodCPUCores]...), byRole[prom.RoleCPUThrottleRatio]...))
	for _, l := range levels {
		a.ImbalanceByLevel = append(a.ImbalanceByLevel, LevelImbalance{Start: l.Start, End: l.End,
			Groups: imbalance(byRole[prom.RolePodCPUCores], owners, l, step, opt.ImbalanceFactor)})
	}
	a.Imbalance = a.ImbalanceByLevel[ci].Groups
	a.Pods = podTable(byRole, owners, levels, step)
	a.InvalidHolds = invalidHolds(byRole[prom.RoleRestarts], byRole[prom.RoleOOMKilled], levels, runStart, runEnd)
	return a, nil
}

// ByRole collects the export's series by role; a raw counter's points
// become per-second rates (prom.Rate) except for restart counters, which
// are read raw.
func ByRole(e *prom.Export) map[Role][]Series {
	byRole := map[Role][]Series{}
	for i, q := range e.Manifest.Queries {
		ss := e.Data[i].Series
		if q.Counter && q.Role != prom.RoleRestarts {
			rates := make([]Series, len(ss))
			for j, s := range ss {
				rates[j] = Series{Labels: s.Labels, Points: prom.Rate(s.Points)}
			}
			ss = rates
		}
		byRole[q.Role] = append(byRole[q.Role], ss...)
	}
	return byRole
}

// highestCompleted is the index of the level of highest completed load.
func highestCompleted(levels []Level) int {
	best := 0
	for i, l := range levels {
		if l.CompletedRPS > levels[best].CompletedRPS {
			best = i
		}
	}
	return best
}

// CeilingLevel is the index of the level whose offered load is closest to
// offered (a ceiling's offered load); −1 when offered is NaN.
func CeilingLevel(levels []Level, offered float64) int {
	if math.IsNaN(offered) || len(levels) == 0 {
		return -1
	}
	best := 0
	for i, l := range levels {
		if math.Abs(l.Offered-offered) < math.Abs(levels[best].Offered-offered) {
			best = i
		}
	}
	return best
}

// subject names what a series measures: "namespace/pod", the container
// appended when labelled, or the instance, or the label set.
func subject(ls map[string]string) string {
	if p := ls["pod"]; p != "" {
		s := p
		if ns := ls["namespace"]; ns != "" {
			s = ns + "/" + p
		}
		if c := ls["container"]; c != "" {
			s += " container " + c
		}
		return s
	}
	if in := ls["instance"]; in != "" {
		return in
	}
	if lg := ls["legend"]; lg != "" {
		return lg
	}
	rest := map[string]string{}
	for k, v := range ls {
		if k != "__name__" {
			rest[k] = v
		}
	}
	if n := ls["__name__"]; n != "" {
		return n + prom.LabelsKey(rest)
	}
	return prom.LabelsKey(rest)
}

func podKey(ls map[string]string) string { return ls["namespace"] + "/" + ls["pod"] }

// utilisations computes every resource's utilisation over level l.
func utilisations(by map[Role][]Series, l Level, step int64, opt AttributeOptions, warns *[]string) map[string]jsonnum.Float {
	s0, s1 := l.Start.UnixNano(), l.End.UnixNano()
	out := map[string]jsonnum.Float{}
	put := func(name string, v float64) {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			out[name] = jsonnum.Float(v)
		}
	}
	limits := func(r Role) map[string]float64 {
		m := map[string]float64{}
		for _, s := range by[r] {
			m[podKey(s.Labels)] = s.Mean(s0, s1, step)
		}
		return m
	}
	cpuLim := limits(prom.RolePodCPULimitCores)
	for _, s := range by[prom.RolePodCPUCores] {
		if lim := cpuLim[podKey(s.Labels)]; lim > 0 {
			put(subject(s.Labels)+" CPU (of limit)", s.Mean(s0, s1, step)/lim)
		}
	}
	memLim := limits(prom.RolePodMemoryLimitBytes)
	for _, s := range by[prom.RolePodMemoryBytes] {
		if lim := memLim[podKey(s.Labels)]; lim > 0 {
			put(subject(s.Labels)+" memory (of limit)", s.Mean(s0, s1, step)/lim)
		}
	}
	for _, s := range by[prom.RoleCPUThrottleRatio] {
		put(subject(s.Labels)+" CPU throttled", s.Mean(s0, s1, step))
	}
	for _, s := range by[prom.RoleNodeCPURatio] {
		put(subject(s.Labels)+" node CPU", s.Mean(s0, s1, step))
	}
	for _, s := range by[prom.RoleUtilisationRatio] {
		put(subject(s.Labels), s.Mean(s0, s1, step))
	}
	if opt.LinkMbps > 0 {
		for r, what := range map[Role]string{prom.RolePodNetworkTransmitMbps: " network transmit (of link)", prom.RolePodNetworkReceiveMbps: " network receive (of link)", prom.RoleNodeNetworkTransmitMbps: " node network transmit (of link)"} {
			for _, s := range by[r] {
				put(subject(s.Labels)+what, s.Mean(s0, s1, step)/opt.LinkMbps)
			}
		}
	}
	return out
}

// imbalance groups pod CPU by workload (owners) at level l and flags the
// groups whose busiest pod carries more than factor × an even share.
func imbalance(cpu []Series, owners map[string]string, l Level, step int64, factor float64) []Imbalance {
	s0, s1 := l.Start.UnixNano(), l.End.UnixNano()
	groups := map[string]map[string]float64{}
	for _, s := range cpu {
		pod := s.Labels["pod"]
		if pod == "" {
			continue
		}
		v := s.Mean(s0, s1, step)
		if math.IsNaN(v) {
			continue
		}
		g := owners[podKey(s.Labels)]
		if groups[g] == nil {
			groups[g] = map[string]float64{}
		}
		groups[g][podKey(s.Labels)] += v
	}
	out := []Imbalance{}
	for g, members := range groups {
		if len(members) < 2 {
			continue
		}
		var total, top float64
		var busiest string
		cores := map[string]jsonnum.Float{}
		for p, v := range members {
			total += v
			cores[p] = jsonnum.Float(v)
			if v > top || (v == top && p < busiest) {
				top, busiest = v, p
			}
		}
		if total <= 0 {
			continue
		}
		share := top / total
		if share <= factor/float64(len(members)) {
			continue
		}
		out = append(out, Imbalance{Group: g, Busiest: busiest, Share: jsonnum.Float(share), Members: len(members),
			BusiestCores: jsonnum.Float(top), TotalCores: jsonnum.Float(total), Cores: cores})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Share != out[j].Share {
			return out[i].Share > out[j].Share
		}
		return out[i].Group < out[j].Group
	})
	return out
}

// invalidHolds finds restarts (an increase of a restart counter between
// two points) inside [runStart, runEnd] and marks the level containing the
// step of each (every level the step overlaps, or the next level when
// the restart fell between levels).
func invalidHolds(restarts, oom []Series, levels []Level, runStart, runEnd time.Time) []InvalidHold {
	oomAt := func(ls map[string]string, t int64) bool {
		for _, s := range oom {
			if s.Labels["namespace"] != ls["namespace"] || s.Labels["pod"] != ls["pod"] || s.Labels["container"] != ls["container"] {
				continue
			}
			for _, p := range s.Points {
				if p.TimeNS >= t && p.Value > 0 {
					return true
				}
			}
		}
		return false
	}
	type restart struct {
		at     int64
		reason string
	}
	perLevel := map[int][]restart{}
	for _, s := range restarts {
		for i := 1; i < len(s.Points); i++ {
			p0, p1 := s.Points[i-1], s.Points[i]
			if !(p1.Value > p0.Value) || p1.TimeNS < runStart.UnixNano() || p0.TimeNS > runEnd.UnixNano() {
				continue
			}
			// Every level the step (p0, p1] overlaps, or else the next level.
			var hit []int
			for k, l := range levels {
				if p0.TimeNS < l.End.UnixNano() && p1.TimeNS >= l.Start.UnixNano() {
					hit = append(hit, k)
				} else if len(hit) == 0 && l.Start.UnixNano() > p1.TimeNS {
					hit = append(hit, k)
					break
				}
			}
			n := p1.Value - p0.Value
			why := fmt.Sprintf("%s restarted", subject(s.Labels))
			if n > 1 {
				why = fmt.Sprintf("%s restarted %g times", subject(s.Labels), n)
			}
			why += fmt.Sprintf(" between %s and %s", time.Unix(0, p0.TimeNS).UTC().Format("15:04:05Z"), time.Unix(0, p1.TimeNS).UTC().Format("15:04:05Z"))
			if oomAt(s.Labels, p0.TimeNS) {
				why += " (OOMKilled)"
			}
			for _, li := range hit {
				perLevel[li] = append(perLevel[li], restart{p1.TimeNS, why})
			}
		}
	}
	out := []InvalidHold{}
	for li := range levels {
		hs := perLevel[li]
		if len(hs) == 0 {
			continue
		}
		sort.Slice(hs, func(i, j int) bool {
			return hs[i].at < hs[j].at || (hs[i].at == hs[j].at && hs[i].reason < hs[j].reason)
		})
		ih := InvalidHold{Start: levels[li].Start, End: levels[li].End}
		var rs []string
		for _, h := range hs {
			ih.Restarts = append(ih.Restarts, time.Unix(0, h.at).UTC())
			rs = append(rs, h.reason)
		}
		ih.Reason = strings.Join(rs, "; ")
		out = append(out, ih)
	}
	return out
}

// Summary is the attribution in sentences for a text report: what
// saturated (or that nothing did), the imbalanced groups and the invalid
// levels.
func (a *Attribution) Summary() []string {
	var out []string
	at := a.CeilingLevelStart.Format("15:04:05Z")
	if len(a.Saturated) > 0 {
		var parts []string
		for _, s := range a.Saturated {
			parts = append(parts, fmt.Sprintf("%s at %.1f %%", s.Resource, 100*float64(s.Utilisation)))
		}
		out = append(out, fmt.Sprintf("What saturated (ceiling level from %s): %s.", at, strings.Join(parts, ", ")))
	} else if a.Busiest == "" {
		out = append(out, fmt.Sprintf("What saturated (ceiling level from %s): not known — no CPU, memory, network or saturation series of the Prometheus data covers that level (a wrong export, a window other than the run's, or names it does not recognise): give --prom the cluster's series over the run (`ldanalyze prom read FILE` lists them).", at))
	} else {
		s := fmt.Sprintf("What saturated (ceiling level from %s): nothing at or above %.0f %%", at, 100*a.SaturatedRatio)
		if a.Busiest != "" {
			s += fmt.Sprintf(" (busiest: %s at %.1f %%)", a.Busiest, 100*float64(a.BusiestUtilisation))
		}
		out = append(out, s+": suspect the load generator or a limit (connection pool, rate limiter).")
	}
	for _, im := range a.Imbalance {
		var others []string
		for p, v := range im.Cores {
			if p != im.Busiest {
				others = append(others, fmt.Sprintf("%s %.2f", p, float64(v)))
			}
		}
		sort.Strings(others)
		out = append(out, fmt.Sprintf("Imbalance: %s carried %.0f %% of %s's CPU (%.2f of %.2f cores; %s).",
			im.Busiest, 100*float64(im.Share), im.Group, float64(im.BusiestCores), float64(im.TotalCores), strings.Join(others, ", ")))
	}
	for _, ih := range a.InvalidHolds {
		out = append(out, fmt.Sprintf("Invalid level from %s: %s.", ih.Start.Format("15:04:05Z"), ih.Reason))
	}
	return out
}
