package prom

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// rawMetric says how the series of one raw metric (a bare selector's
// answer, recognised by __name__) become the series of a role, the way
// the preset query of that role would have computed them.
type rawMetric struct {
	role Role
	// keep filters the series (a preset's label matchers).
	keep func(ls map[string]string) bool
	// rate turns counters into per-second rates first.
	rate bool
	// by are the labels summed by.
	by []string
	// scale multiplies the result (bytes/s → Mbps: 8 ÷ 10⁶).
	scale float64
}

func realContainer(ls map[string]string) bool {
	return ls["container"] != "" && ls["container"] != "POD"
}

var rawMetrics = map[string][]rawMetric{
	"container_cpu_usage_seconds_total": {{role: RolePodCPUCores, keep: realContainer, rate: true, by: []string{"namespace", "pod"}}},
	"kube_pod_container_resource_limits": {
		{role: RolePodCPULimitCores, keep: func(ls map[string]string) bool { return ls["resource"] == "cpu" }, by: []string{"namespace", "pod"}},
		{role: RolePodMemoryLimitBytes, keep: func(ls map[string]string) bool { return ls["resource"] == "memory" }, by: []string{"namespace", "pod"}},
	},
	"container_memory_working_set_bytes": {{role: RolePodMemoryBytes, keep: realContainer, by: []string{"namespace", "pod"}}},
	"container_network_transmit_bytes_total": {{role: RolePodNetworkTransmitMbps, keep: func(ls map[string]string) bool { return ls["pod"] != "" && ls["interface"] != "lo" },
		rate: true, by: []string{"namespace", "pod"}, scale: 8 / 1e6}},
	"container_network_receive_bytes_total": {{role: RolePodNetworkReceiveMbps, keep: func(ls map[string]string) bool { return ls["pod"] != "" && ls["interface"] != "lo" },
		rate: true, by: []string{"namespace", "pod"}, scale: 8 / 1e6}},
	"kube_pod_container_status_restarts_total": {{role: RoleRestarts, by: []string{"namespace", "pod", "container"}}},
	"kube_pod_container_status_last_terminated_reason": {{role: RoleOOMKilled, keep: func(ls map[string]string) bool { return ls["reason"] == "OOMKilled" },
		by: []string{"namespace", "pod", "container"}}},
	"node_network_transmit_bytes_total": {{role: RoleNodeNetworkTransmitMbps, keep: func(ls map[string]string) bool {
		d := ls["device"]
		return d != "lo" && d != "docker0" && !strings.HasPrefix(d, "veth") && !strings.HasPrefix(d, "cali") && !strings.HasPrefix(d, "eni")
	}, rate: true, by: []string{"instance"}, scale: 8 / 1e6}},
}

// sumBy sums series by the labels by, point by point at equal timestamps
// (query_range answers share their steps).
func sumBy(ss []Series, by []string, scale float64) []Series {
	type acc struct {
		labels map[string]string
		at     map[int64]float64
	}
	groups := map[string]*acc{}
	var keys []string
	for _, s := range ss {
		k, g := groupKey(s.Labels, by)
		a := groups[k]
		if a == nil {
			a = &acc{labels: g, at: map[int64]float64{}}
			groups[k] = a
			keys = append(keys, k)
		}
		for _, p := range s.Points {
			if !math.IsNaN(p.Value) {
				a.at[p.TimeNS] += p.Value
			}
		}
	}
	sort.Strings(keys)
	out := make([]Series, 0, len(keys))
	for _, k := range keys {
		a := groups[k]
		s := Series{Labels: a.labels}
		for t, v := range a.at {
			if scale != 0 {
				v *= scale
			}
			s.Points = append(s.Points, Point{TimeNS: t, Value: v})
		}
		sort.Slice(s.Points, func(i, j int) bool { return s.Points[i].TimeNS < s.Points[j].TimeNS })
		out = append(out, s)
	}
	return out
}

// ratio is a ÷ b per label set (both rates), a 0–1 ratio where b > 0.
func ratio(a, b []Series, by []string) []Series {
	bs := map[string]Series{}
	for _, s := range b {
		k, _ := groupKey(s.Labels, by)
		bs[k] = s
	}
	var out []Series
	for _, s := range a {
		k, _ := groupKey(s.Labels, by)
		d, ok := bs[k]
		if !ok {
			continue
		}
		at := map[int64]float64{}
		for _, p := range d.Points {
			at[p.TimeNS] = p.Value
		}
		r := Series{Labels: s.Labels}
		for _, p := range s.Points {
			if v, ok := at[p.TimeNS]; ok && v > 0 {
				r.Points = append(r.Points, Point{TimeNS: p.TimeNS, Value: p.Value / v})
			}
		}
		out = append(out, r)
	}
	return out
}

func rates(ss []Series) []Series {
	out := make([]Series, len(ss))
	for i, s := range ss {
		out[i] = Series{Labels: s.Labels, Points: Rate(s.Points)}
	}
	return out
}

// Recognize builds an export from API answers without a manifest: a
// response named like a preset query (pod_cpu_cores.json) takes that
// query's role; series of raw metrics (container_cpu_usage_seconds_total,
// kube_pod_container_resource_limits, container_memory_working_set_bytes,
// the cAdvisor network and CFS counters, kube-state-metrics restarts and
// OOM reasons, node_cpu_seconds_total, node_network_transmit_bytes_total)
// are computed into the presets' shapes here (rates of counters, sums by
// pod, throttled ÷ all periods, 1 − idle); anything else is kept with no
// role (k6_* series, other metrics). The step is the median spacing of the
// points.
func Recognize(rs []Response) *Export {
	e := &Export{Manifest: Manifest{Version: 1}}
	presets := map[string]Query{}
	for _, q := range Presets {
		presets[q.Name] = q
	}
	byName := map[string][]Series{}
	var names []string
	add := func(q Query, ss []Series, warns []string) {
		e.Manifest.Queries = append(e.Manifest.Queries, Entry{Query: q, File: q.Name, Series: len(ss)})
		d := &Data{Format: "api", ResultType: "matrix", Series: ss, Warnings: warns}
		e.Data = append(e.Data, d)
	}
	for _, r := range rs {
		if q, ok := presets[r.Name]; ok && r.Section != "raw_samples" {
			add(q, r.Data.Series, r.Data.Warnings)
			continue
		}
		for _, s := range r.Data.Series {
			n := s.Name()
			if _, seen := byName[n]; !seen {
				names = append(names, n)
			}
			byName[n] = append(byName[n], s)
		}
	}
	sort.Strings(names)
	used := map[string]bool{}
	for _, n := range names {
		for _, m := range rawMetrics[n] {
			var ss []Series
			for _, s := range byName[n] {
				if m.keep == nil || m.keep(s.Labels) {
					ss = append(ss, s)
				}
			}
			if len(ss) == 0 {
				continue
			}
			if m.rate {
				ss = rates(ss)
			}
			add(Query{Name: string(m.role), Role: m.role, Expr: n + " (recognised)"}, sumBy(ss, m.by, m.scale), nil)
			used[n] = true
		}
	}
	if th, all := byName["container_cpu_cfs_throttled_periods_total"], byName["container_cpu_cfs_periods_total"]; len(th) > 0 && len(all) > 0 {
		by := []string{"namespace", "pod", "container"}
		add(Query{Name: string(RoleCPUThrottleRatio), Role: RoleCPUThrottleRatio, Expr: "container_cpu_cfs_throttled_periods_total ÷ container_cpu_cfs_periods_total (recognised)"},
			ratio(sumBy(rates(th), by, 0), sumBy(rates(all), by, 0), by), nil)
		used["container_cpu_cfs_throttled_periods_total"], used["container_cpu_cfs_periods_total"] = true, true
	}
	if cpu := byName["node_cpu_seconds_total"]; len(cpu) > 0 {
		var idle []Series
		for _, s := range cpu {
			if s.Labels["mode"] == "idle" {
				idle = append(idle, s)
			}
		}
		// 1 − avg by (instance) (rate(idle)): the busy share.
		sums := sumBy(rates(idle), []string{"instance"}, 0)
		count := map[string]float64{}
		for _, s := range idle {
			count[s.Labels["instance"]]++
		}
		for i := range sums {
			n := count[sums[i].Labels["instance"]]
			for j := range sums[i].Points {
				sums[i].Points[j].Value = 1 - sums[i].Points[j].Value/n
			}
		}
		add(Query{Name: string(RoleNodeCPURatio), Role: RoleNodeCPURatio, Expr: "1 − avg by (instance) (rate(node_cpu_seconds_total{mode=\"idle\"})) (recognised)"}, sums, nil)
		used["node_cpu_seconds_total"] = true
	}
	var rest []Series
	for _, n := range names {
		if !used[n] {
			rest = append(rest, byName[n]...)
		}
	}
	if len(rest) > 0 {
		add(Query{Name: "other", Role: RoleNone, Expr: "series not used by the attribution"}, rest, nil)
	}
	var all []Series
	for _, d := range e.Data {
		all = append(all, d.Series...)
	}
	e.Manifest.StepS = medianStep(all).Seconds()
	if f, l, ok := Span(all); ok {
		e.Manifest.Start, e.Manifest.End = unixUTC(f), unixUTC(l)
	}
	return e
}

// ReadExport reads what a user has: a directory written by `prom pull`
// (with manifest.json), a directory of Prometheus API JSON files (.json,
// .json.gz) without one, or one such file (a single response, or an
// object of responses as the k6-v2 corpus export has). Without a
// manifest the series are recognised by __name__ and labels (Recognize).
func ReadExport(path string) (*Export, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		if _, err := os.Stat(filepath.Join(path, ManifestFile)); err == nil {
			return ReadDir(path)
		}
		ents, err := os.ReadDir(path)
		if err != nil {
			return nil, err
		}
		var rs []Response
		for _, ent := range ents {
			n := ent.Name()
			if ent.IsDir() || !(strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".json.gz")) {
				continue
			}
			r, err := readResponsesFile(filepath.Join(path, n))
			if err != nil {
				return nil, err
			}
			rs = append(rs, r...)
		}
		if len(rs) == 0 {
			return nil, fmt.Errorf("%s: no %s and no .json or .json.gz file: give a directory written by `ldanalyze prom pull` or of Prometheus API JSON answers", path, ManifestFile)
		}
		return Recognize(rs), nil
	}
	rs, err := readResponsesFile(path)
	if err != nil {
		return nil, err
	}
	return Recognize(rs), nil
}

// readResponsesFile reads a file of API responses, gunzipping it when its
// first bytes say gzip.
func readResponsesFile(path string) ([]Response, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadResponsesAuto(f, path)
}

// medianStep is the median spacing of consecutive points, 15 s when
// there are none.
func medianStep(ss []Series) time.Duration {
	var gaps []int64
	for _, s := range ss {
		for i := 1; i < len(s.Points); i++ {
			if g := s.Points[i].TimeNS - s.Points[i-1].TimeNS; g > 0 {
				gaps = append(gaps, g)
			}
		}
	}
	if len(gaps) == 0 {
		return 15 * time.Second
	}
	sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
	return time.Duration(gaps[len(gaps)/2])
}

func unixUTC(ns int64) time.Time { return time.Unix(0, ns).UTC() }

// ReadResponsesAuto is ReadResponses on r, gunzipped first when its first
// bytes say gzip.
func ReadResponsesAuto(r io.Reader, file string) ([]Response, error) {
	in, done, err := Gunzip(r, file)
	if err != nil {
		return nil, err
	}
	defer done()
	return ReadResponses(in, file)
}

// Gunzip returns r gunzipped when its first bytes say gzip, else r (both
// buffered), and the function that releases the decompressor. file names
// r in errors.
func Gunzip(r io.Reader, file string) (io.Reader, func() error, error) {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(2); bytes.Equal(head, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", file, err)
		}
		return zr, zr.Close, nil
	}
	return br, func() error { return nil }, nil
}

// OpenInput opens path, or stdin for "-" (its Close leaves stdin open),
// gunzipped when its first bytes say gzip; Close releases both.
func OpenInput(path string, stdin io.Reader) (io.ReadCloser, error) {
	var f io.ReadCloser = io.NopCloser(stdin)
	if path != "-" {
		var err error
		if f, err = os.Open(path); err != nil {
			return nil, err
		}
	}
	r, done, err := Gunzip(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	return readCloser{r, func() error { done(); return f.Close() }}, nil
}

// readCloser is a reader with its own Close.
type readCloser struct {
	io.Reader
	close func() error
}

func (r readCloser) Close() error { return r.close() }
