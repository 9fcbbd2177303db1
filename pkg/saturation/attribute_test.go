package saturation

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/prom"
)

func TestWorkloads(t *testing.T) {
	ls := func(kv ...string) Series {
		m := map[string]string{"namespace": "arena"}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return Series{Labels: m}
	}
	got := Workloads([]Series{
		ls("pod", "api-7d9f8c6b5-x2kq9"), ls("pod", "game-0"), ls("pod", "game-12"),
		ls("pod", "node-exporter-x2kq9"), ls("pod", "db"),
		ls("pod", "game-a"), ls("pod", "game-b"), // no generated suffix: the shared prefix
		ls("pod", "cache-blue", "deployment", "cache"), ls("pod", "zz-1x", "created_by_name", "worker-5c9d8f7b6"),
	})
	for pod, want := range map[string]string{
		"api-7d9f8c6b5-x2kq9": "api", "game-0": "game", "game-12": "game", "node-exporter-x2kq9": "node-exporter",
		"db": "db", "game-a": "game", "game-b": "game", "cache-blue": "cache", "zz-1x": "worker",
	} {
		if g := got["arena/"+pod]; g != "arena/"+want {
			t.Errorf("workload of %s = %q, want arena/%s", pod, g, want)
		}
	}
}

// Pods game-a and game-b (no generated suffix) with 0.99 and 0.01 cores
// (set by hand) are one workload; game-a's share 0.99 is above 1.5 × an
// even share (0.75), so the workload is imbalanced at both levels, the
// ceiling level included, and the per-pod table has both pods at both
// levels with their CPU of a 2-core limit.
func TestImbalanceGameAB(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var a, b, la, lb Series
	a.Labels = map[string]string{"namespace": "arena", "pod": "game-a"}
	b.Labels = map[string]string{"namespace": "arena", "pod": "game-b"}
	la.Labels, lb.Labels = a.Labels, b.Labels
	for s := 0; s <= 120; s += 15 {
		tt := t0.Add(time.Duration(s) * time.Second).UnixNano()
		a.Points = append(a.Points, prom.Point{TimeNS: tt, Value: 0.99})
		b.Points = append(b.Points, prom.Point{TimeNS: tt, Value: 0.01})
		la.Points = append(la.Points, prom.Point{TimeNS: tt, Value: 2})
		lb.Points = append(lb.Points, prom.Point{TimeNS: tt, Value: 2})
	}
	e := &prom.Export{Manifest: prom.Manifest{Version: 1, StepS: 15, Queries: []prom.Entry{
		{Query: prom.Query{Name: "pod_cpu_cores", Role: prom.RolePodCPUCores}},
		{Query: prom.Query{Name: "pod_cpu_limit_cores", Role: prom.RolePodCPULimitCores}},
	}}, Data: []*prom.Data{{Series: []Series{a, b}}, {Series: []Series{la, lb}}}}
	levels := []Level{
		{Kind: "hold", Start: t0.Add(15 * time.Second), End: t0.Add(60 * time.Second), Offered: 100, CompletedRPS: 100},
		{Kind: "hold", Start: t0.Add(60 * time.Second), End: t0.Add(105 * time.Second), Offered: 200, CompletedRPS: 180},
	}
	at, err := Attribute(e, levels, 1, t0, t0.Add(2*time.Minute), AttributeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(at.Imbalance) != 1 || at.Imbalance[0].Group != "arena/game" || at.Imbalance[0].Busiest != "arena/game-a" || math.Abs(float64(at.Imbalance[0].Share)-0.99) > 1e-9 {
		t.Fatalf("imbalance at the ceiling = %+v, want arena/game with game-a at 0.99", at.Imbalance)
	}
	if len(at.ImbalanceByLevel) != 2 || len(at.ImbalanceByLevel[0].Groups) != 1 {
		t.Errorf("imbalance by level = %+v, want arena/game at both levels", at.ImbalanceByLevel)
	}
	if len(at.Pods) != 4 {
		t.Fatalf("pod table %+v, want 2 pods × 2 levels", at.Pods)
	}
	if p := at.Pods[0]; p.Pod != "arena/game-a" || p.Workload != "arena/game" || math.Abs(float64(p.CPUOfLimit)-0.495) > 1e-9 || math.Abs(float64(p.ShareOfWorkload)-0.99) > 1e-9 {
		t.Errorf("row 0 = %+v, want game-a at 0.99/2 = 0.495 of its limit, 0.99 of the workload", p)
	}
	if s := strings.Join(at.Summary(), "\n"); !strings.Contains(s, "Imbalance: arena/game-a carried 99 % of arena/game's CPU (0.99 of 1.00 cores; arena/game-b 0.01).") {
		t.Errorf("summary:\n%s", s)
	}
}

// TestSummaryWithoutResources: an attribution that measured no resource
// at the ceiling level (Busiest empty: an export of other series) says
// that what saturated is not known, not that nothing saturated and the
// load generator is to blame; one that measured resources below the
// threshold still says nothing reached it, naming the busiest.
func TestSummaryWithoutResources(t *testing.T) {
	at := time.Date(2026, 11, 30, 2, 8, 40, 0, time.UTC)
	none := strings.Join((&Attribution{SaturatedRatio: 0.9, CeilingLevelStart: at}).Summary(), "\n")
	if !strings.Contains(none, "What saturated (ceiling level from 02:08:40Z): not known") || strings.Contains(none, "suspect the load generator") {
		t.Errorf("no resources: %q", none)
	}
	low := strings.Join((&Attribution{SaturatedRatio: 0.9, CeilingLevelStart: at, Busiest: "node/a cpu", BusiestUtilisation: 0.42}).Summary(), "\n")
	if !strings.Contains(low, "nothing at or above 90 % (busiest: node/a cpu at 42.0 %): suspect the load generator") {
		t.Errorf("resources below the threshold: %q", low)
	}
}
