package prom

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Role says how the attribution (Attribute) uses the series of a query.
type Role string

// The roles. Units are part of the contract: a custom query given a role
// must return that unit.
const (
	// RolePodCPUCores is CPU used per pod, cores (CPU seconds per second).
	RolePodCPUCores Role = "pod_cpu_cores"
	// RolePodCPULimitCores is the CPU limit per pod, cores.
	RolePodCPULimitCores Role = "pod_cpu_limit_cores"
	// RoleCPUThrottleRatio is throttled ÷ all CFS periods per container, a
	// 0–1 ratio.
	RoleCPUThrottleRatio Role = "cpu_throttle_ratio"
	// RolePodMemoryBytes is the memory working set per pod, bytes.
	RolePodMemoryBytes Role = "pod_memory_working_set_bytes"
	// RolePodMemoryLimitBytes is the memory limit per pod, bytes.
	RolePodMemoryLimitBytes Role = "pod_memory_limit_bytes"
	// RolePodNetworkTransmitMbps and RolePodNetworkReceiveMbps are network
	// throughput per pod, megabits (10⁶ bits) per second.
	RolePodNetworkTransmitMbps Role = "pod_network_transmit_mbps"
	RolePodNetworkReceiveMbps  Role = "pod_network_receive_mbps"
	// RoleRestarts is the restart counter per container (a count, read raw:
	// every increase inside the run is a restart).
	RoleRestarts Role = "restarts"
	// RoleOOMKilled is 1 while a container's last termination reason is
	// OOMKilled, else 0 or absent.
	RoleOOMKilled Role = "oom_killed"
	// RoleNodeCPURatio is the busy share of a node's CPU, a 0–1 ratio.
	RoleNodeCPURatio Role = "node_cpu_ratio"
	// RoleNodeNetworkTransmitMbps is a node's NIC transmit throughput,
	// megabits per second.
	RoleNodeNetworkTransmitMbps Role = "node_network_transmit_mbps"
	// RoleUtilisationRatio is any other utilisation, a 0–1 ratio (for
	// custom queries: a database's CPU, a connection pool's busy share).
	RoleUtilisationRatio Role = "utilisation_ratio"
	// RoleNone is kept in the export but not used by the attribution.
	RoleNone Role = ""
)

// Query is one PromQL query of a pull. "$window" in Expr is replaced by
// the rate window (e.g. "1m") before it is sent.
type Query struct {
	// Name names the query and its file (Name + ".json"); letters, digits,
	// '_' and '-'.
	Name string `yaml:"name" json:"name"`
	// Expr is the PromQL expression.
	Expr string `yaml:"expr" json:"expr"`
	// Role says how the series are used; see the Role constants.
	Role Role `yaml:"role" json:"role,omitempty"`
	// Unit is the unit of the values ("cores", "bytes", "ratio", "Mbps",
	// "count").
	Unit string `yaml:"unit" json:"unit,omitempty"`
	// Counter marks a raw counter (a *_total series without rate()): its
	// values are turned into per-second rates, resets handled (Rate),
	// before use.
	Counter bool `yaml:"counter" json:"counter,omitempty"`
}

// Presets are the queries `prom pull` runs by default. Sources: cAdvisor
// (kubelet /metrics/cadvisor), kube-state-metrics v2 and node_exporter
// metric names; the expressions follow the research note
// shared/research/prometheus-formats.md §6.
var Presets = []Query{
	{Name: "pod_cpu_cores", Role: RolePodCPUCores, Unit: "cores",
		Expr: `sum by (namespace, pod) (rate(container_cpu_usage_seconds_total{container!="", container!="POD"}[$window]))`},
	{Name: "pod_cpu_limit_cores", Role: RolePodCPULimitCores, Unit: "cores",
		Expr: `sum by (namespace, pod) (kube_pod_container_resource_limits{resource="cpu"})`},
	{Name: "cpu_throttle_ratio", Role: RoleCPUThrottleRatio, Unit: "ratio",
		Expr: `sum by (namespace, pod, container) (rate(container_cpu_cfs_throttled_periods_total{container!=""}[$window])) / sum by (namespace, pod, container) (rate(container_cpu_cfs_periods_total{container!=""}[$window]))`},
	{Name: "pod_memory_working_set_bytes", Role: RolePodMemoryBytes, Unit: "bytes",
		Expr: `sum by (namespace, pod) (container_memory_working_set_bytes{container!="", container!="POD"})`},
	{Name: "pod_memory_limit_bytes", Role: RolePodMemoryLimitBytes, Unit: "bytes",
		Expr: `sum by (namespace, pod) (kube_pod_container_resource_limits{resource="memory"})`},
	{Name: "pod_network_transmit_mbps", Role: RolePodNetworkTransmitMbps, Unit: "Mbps",
		Expr: `sum by (namespace, pod) (rate(container_network_transmit_bytes_total{pod!="", interface!="lo"}[$window])) * 8 / 1e6`},
	{Name: "pod_network_receive_mbps", Role: RolePodNetworkReceiveMbps, Unit: "Mbps",
		Expr: `sum by (namespace, pod) (rate(container_network_receive_bytes_total{pod!="", interface!="lo"}[$window])) * 8 / 1e6`},
	{Name: "restarts", Role: RoleRestarts, Unit: "count",
		Expr: `sum by (namespace, pod, container) (kube_pod_container_status_restarts_total)`},
	{Name: "oom_killed", Role: RoleOOMKilled, Unit: "count",
		Expr: `sum by (namespace, pod, container) (kube_pod_container_status_last_terminated_reason{reason="OOMKilled"})`},
	{Name: "node_cpu_ratio", Role: RoleNodeCPURatio, Unit: "ratio",
		Expr: `1 - avg by (instance) (rate(node_cpu_seconds_total{mode="idle"}[$window]))`},
	{Name: "node_network_transmit_mbps", Role: RoleNodeNetworkTransmitMbps, Unit: "Mbps",
		Expr: `sum by (instance) (rate(node_network_transmit_bytes_total{device!~"lo|veth.*|cali.*|eni.*|docker0"}[$window])) * 8 / 1e6`},
}

var queryName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

var knownRoles = map[Role]bool{
	RolePodCPUCores: true, RolePodCPULimitCores: true, RoleCPUThrottleRatio: true, RolePodMemoryBytes: true,
	RolePodMemoryLimitBytes: true, RolePodNetworkTransmitMbps: true, RolePodNetworkReceiveMbps: true,
	RoleRestarts: true, RoleOOMKilled: true, RoleNodeCPURatio: true, RoleNodeNetworkTransmitMbps: true,
	RoleUtilisationRatio: true, RoleNone: true,
}

// QueryFile is the YAML file of custom queries:
//
//	queries:
//	  - name: db_cpu
//	    expr: 1 - avg by (instance) (rate(node_cpu_seconds_total{mode="idle", instance=~"db.*"}[$window]))
//	    role: utilisation_ratio
//	    unit: ratio
//	  - name: requests_total
//	    expr: sum by (pod) (http_requests_total)
//	    counter: true
type QueryFile struct {
	// Presets false drops the preset queries; by default the custom
	// queries are added to them.
	Presets *bool   `yaml:"presets"`
	Queries []Query `yaml:"queries"`
}

// MaxQueryFileBytes caps a query YAML file, 1 MiB.
const MaxQueryFileBytes = 1 << 20

// ReadQueries reads a QueryFile from r (file names it in errors) and
// returns the queries to run: the presets (unless "presets: false") plus
// the file's queries, a custom query replacing a preset of the same name.
func ReadQueries(r io.Reader, file string) ([]Query, error) {
	buf, err := io.ReadAll(io.LimitReader(r, MaxQueryFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(buf) > MaxQueryFileBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes (the cap MaxQueryFileBytes)", file, MaxQueryFileBytes)
	}
	dec := yaml.NewDecoder(bytes.NewReader(buf))
	dec.KnownFields(true)
	var qf QueryFile
	if err := dec.Decode(&qf); err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var out []Query
	if qf.Presets == nil || *qf.Presets {
		out = append(out, Presets...)
	}
	seen := map[string]bool{}
	for i, q := range qf.Queries {
		if err := q.check(); err != nil {
			return nil, fmt.Errorf("%s: queries[%d]: %w", file, i, err)
		}
		if seen[q.Name] {
			return nil, fmt.Errorf("%s: queries[%d]: name %q given twice", file, i, q.Name)
		}
		seen[q.Name] = true
		replaced := false
		for j := range out {
			if out[j].Name == q.Name {
				out[j], replaced = q, true
			}
		}
		if !replaced {
			out = append(out, q)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no queries (presets: false and an empty queries list)", file)
	}
	return out, nil
}

func (q Query) check() error {
	if !queryName.MatchString(q.Name) {
		return fmt.Errorf("name %q: want letters, digits, '_' or '-'", q.Name)
	}
	if strings.TrimSpace(q.Expr) == "" {
		return fmt.Errorf("%s: empty expr", q.Name)
	}
	if !knownRoles[q.Role] {
		return fmt.Errorf("%s: unknown role %q", q.Name, q.Role)
	}
	return nil
}

// expand replaces $window in the expression by the rate window.
func (q Query) expand(window string) string {
	return strings.ReplaceAll(q.Expr, "$window", window)
}
