package saturation

import (
	"math"
	"sort"

	"github.com/ldanalyze/ldanalyze/pkg/jsonnum"
	"github.com/ldanalyze/ldanalyze/pkg/prom"
)

// PodLevel is one pod's CPU and throttling over one level: a row of the
// per-level, per-pod table.
type PodLevel struct {
	// Level is the index of the level in the levels given to Attribute.
	Level int `json:"level"`
	// Pod is "namespace/pod", Workload its "namespace/workload".
	Pod      string `json:"pod"`
	Workload string `json:"workload"`
	// CPUCores is the CPU used, cores; CPULimitCores the limit, cores
	// (NaN without a limit series); CPUOfLimit their ratio, 0–1.
	CPUCores      jsonnum.Float `json:"cpu_cores"`
	CPULimitCores jsonnum.Float `json:"cpu_limit_cores"`
	CPUOfLimit    jsonnum.Float `json:"cpu_of_limit"`
	// ThrottleRatio is throttled ÷ all CFS periods, the highest of the
	// pod's containers, 0–1 (NaN without throttling series).
	ThrottleRatio jsonnum.Float `json:"throttle_ratio"`
	// ShareOfWorkload is the pod's share of its workload's CPU, 0–1.
	ShareOfWorkload jsonnum.Float `json:"share_of_workload"`
}

// podTable is every pod's CPU and throttling at every level, pods sorted
// by name within a level.
func podTable(by map[Role][]Series, owners map[string]string, levels []Level, step int64) []PodLevel {
	var out []PodLevel
	for li, l := range levels {
		s0, s1 := l.Start.UnixNano(), l.End.UnixNano()
		rows := map[string]*PodLevel{}
		row := func(ls map[string]string) *PodLevel {
			k := podKey(ls)
			r := rows[k]
			if r == nil {
				nan := jsonnum.Float(math.NaN())
				r = &PodLevel{Level: li, Pod: k, Workload: owners[k], CPUCores: nan, CPULimitCores: nan, CPUOfLimit: nan, ThrottleRatio: nan, ShareOfWorkload: nan}
				rows[k] = r
			}
			return r
		}
		add := func(dst *jsonnum.Float, v float64, keepMax bool) {
			if math.IsNaN(v) {
				return
			}
			switch {
			case !dst.Valid():
				*dst = jsonnum.Float(v)
			case keepMax:
				*dst = jsonnum.Float(math.Max(float64(*dst), v))
			default:
				*dst += jsonnum.Float(v)
			}
		}
		for _, s := range by[prom.RolePodCPUCores] {
			if s.Labels["pod"] != "" {
				add(&row(s.Labels).CPUCores, s.Mean(s0, s1, step), false)
			}
		}
		for _, s := range by[prom.RolePodCPULimitCores] {
			if s.Labels["pod"] != "" {
				if _, ok := rows[podKey(s.Labels)]; ok {
					add(&row(s.Labels).CPULimitCores, s.Mean(s0, s1, step), false)
				}
			}
		}
		for _, s := range by[prom.RoleCPUThrottleRatio] {
			if s.Labels["pod"] != "" {
				add(&row(s.Labels).ThrottleRatio, s.Mean(s0, s1, step), true)
			}
		}
		total := map[string]float64{}
		for _, r := range rows {
			if r.CPUCores.Valid() {
				total[r.Workload] += float64(r.CPUCores)
			}
		}
		keys := make([]string, 0, len(rows))
		for k, r := range rows {
			if r.CPUCores.Valid() && r.CPULimitCores.Valid() && r.CPULimitCores > 0 {
				r.CPUOfLimit = r.CPUCores / r.CPULimitCores
			}
			if t := total[r.Workload]; t > 0 && r.CPUCores.Valid() {
				r.ShareOfWorkload = jsonnum.Float(float64(r.CPUCores) / t)
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, *rows[k])
		}
	}
	return out
}
