package pipeline

import (
	"slices"

	"regexp"

	"github.com/ldanalyze/ldanalyze/pkg/checks"
	"github.com/ldanalyze/ldanalyze/pkg/prom"
)

// GeneratorFromExport is the load generator's data for checks.GeneratorCheck
// from a Prometheus export (`prom pull`): the series of the pods whose name
// matches pods (nil: checks.DefaultGeneratorPods) from the export's
// queries of roles pod_cpu_cores, pod_cpu_limit_cores and
// cpu_throttle_ratio (the `prom pull` presets). Raw counters (Counter
// queries) are turned into per-second rates (prom.Rate), as
// saturation.Attribute does. Series without a pod label are left out. A
// nil export gives nil.
func GeneratorFromExport(e *prom.Export, pods *regexp.Regexp) *checks.GeneratorData {
	if e == nil {
		return nil
	}
	if pods == nil {
		pods, _ = checks.GeneratorPods(checks.DefaultGeneratorPods)
	}
	g := &checks.GeneratorData{StepNS: int64(e.Manifest.StepS * 1e9), Pattern: checks.PodPattern(pods)}
	gen, other := map[string]bool{}, map[string]bool{}
	for i, q := range e.Manifest.Queries {
		if i >= len(e.Data) || e.Data[i] == nil {
			continue
		}
		var dst *[]checks.PodSeries
		switch q.Role {
		case prom.RolePodCPUCores:
			dst = &g.CPUCores
		case prom.RolePodCPULimitCores:
			dst = &g.CPULimitCores
		case prom.RoleCPUThrottleRatio:
			dst = &g.ThrottleRatio
		default:
			continue
		}
		for _, s := range e.Data[i].Series {
			pod := s.Labels["pod"]
			if pod == "" {
				continue
			}
			key := podKey(s.Labels)
			if !pods.MatchString(pod) {
				other[key] = true
				continue
			}
			gen[key] = true
			pts := s.Points
			if q.Counter {
				pts = prom.Rate(pts)
			}
			*dst = append(*dst, checks.PodSeries{Pod: key, Container: s.Labels["container"], Points: slices.Clone(pts)})
		}
	}
	for k := range gen {
		g.Pods = append(g.Pods, k)
	}
	for k := range other {
		g.OtherPods = append(g.OtherPods, k)
	}
	slices.Sort(g.Pods)
	slices.Sort(g.OtherPods)
	return g
}

// podKey is a pod's "namespace/pod" ("pod" without a namespace label).
func podKey(ls map[string]string) string {
	if ns := ls["namespace"]; ns != "" {
		return ns + "/" + ls["pod"]
	}
	return ls["pod"]
}
