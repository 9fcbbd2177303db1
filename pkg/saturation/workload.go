package saturation

import (
	"regexp"
	"sort"
	"strings"
)

var (
	// Generated names use Kubernetes' SafeEncodeString alphabet (no vowels,
	// no 0, 1, 3: k8s.io/apimachinery/pkg/util/rand), so "node-exporter" is
	// not taken for a hash.
	rsSuffix  = regexp.MustCompile(`-[bcdfghjklmnpqrstvwxz2456789]{6,10}-[bcdfghjklmnpqrstvwxz2456789]{5}$`) // Deployment: <name>-<rs hash>-<pod hash>
	rsHash    = regexp.MustCompile(`-[bcdfghjklmnpqrstvwxz2456789]{6,10}$`)                                  // ReplicaSet: <deployment>-<hash>
	dsSuffix  = regexp.MustCompile(`-[bcdfghjklmnpqrstvwxz2456789]{5}$`)                                     // DaemonSet, Job: <name>-<hash>
	ordSuffix = regexp.MustCompile(`-[0-9]+$`)                                                               // StatefulSet: <name>-<ordinal>
)

// workloadName strips the generated suffix of a pod name:
// "api-7d9f8c6b5-x2kq9" → "api", "game-1" → "game"; "" when the name has
// no generated suffix.
func workloadName(pod string) string {
	for _, re := range []*regexp.Regexp{rsSuffix, ordSuffix, dsSuffix} {
		if loc := re.FindStringIndex(pod); loc != nil && loc[0] > 0 {
			return pod[:loc[0]]
		}
	}
	return ""
}

// ownerLabels are labels that name a pod's owner, in order of preference:
// kube-state-metrics' kube_pod_owner (owner_name), the created_by_name of
// kube_pod_info, and the labels that relabelling configs commonly add.
var ownerLabels = []string{"deployment", "statefulset", "daemonset", "owner_name", "created_by_name", "replicaset", "workload", "app_kubernetes_io_name", "app"}

// Workloads maps every pod of the series ("namespace/pod") to its workload
// ("namespace/name"): the owner named by a label where a series has one
// (deployment, statefulset, daemonset, owner_name, created_by_name,
// replicaset without its hash, workload, app), else the name without its
// generated suffix (ReplicaSet hash + pod hash, StatefulSet ordinal,
// DaemonSet hash), else the longest prefix ending before a '-' that the
// pod shares with other pods of the namespace that have no owner either:
// pods game-a and game-b are one workload, game.
func Workloads(series []Series) map[string]string {
	out := map[string]string{}
	var unowned []string
	for _, s := range series {
		pod := s.Labels["pod"]
		if pod == "" {
			continue
		}
		k := podKey(s.Labels)
		if _, done := out[k]; done {
			continue
		}
		ns := s.Labels["namespace"]
		owner := ""
		for _, l := range ownerLabels {
			if v := s.Labels[l]; v != "" {
				owner = v
				if l == "replicaset" || l == "owner_name" || l == "created_by_name" {
					if loc := rsHash.FindStringIndex(v); loc != nil && loc[0] > 0 {
						owner = v[:loc[0]]
					}
				}
				break
			}
		}
		if owner == "" {
			owner = workloadName(pod)
		}
		if owner == "" {
			out[k] = ""
			unowned = append(unowned, k)
			continue
		}
		out[k] = ns + "/" + owner
	}
	// Pods with no owner and no generated suffix: group by the longest
	// '-'-prefix shared with another such pod of the namespace.
	sort.Strings(unowned)
	for _, k := range unowned {
		ns, pod, _ := strings.Cut(k, "/")
		best := ""
		for _, o := range unowned {
			ons, opod, _ := strings.Cut(o, "/")
			if o == k || ons != ns {
				continue
			}
			if p := sharedPrefix(pod, opod); len(p) > len(best) {
				best = p
			}
		}
		if best == "" {
			best = pod
		}
		out[k] = ns + "/" + best
	}
	return out
}

// sharedPrefix is the longest common prefix of a and b that ends just
// before a '-' in both ("game-a", "game-b" → "game"), or "".
func sharedPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for i := n; i > 0; i-- {
		if (i == len(a) || a[i] == '-') && (i == len(b) || b[i] == '-') && i < max(len(a), len(b)) {
			if i <= n {
				return a[:i]
			}
		}
	}
	return ""
}
