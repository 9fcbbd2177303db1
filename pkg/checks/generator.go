package checks

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/internal/steps"
	"github.com/ldanalyze/ldanalyze/pkg/knee"
)

// Generator limits (issue 5): a load generator past either measured its own
// delay as the system's latency.
const (
	// GenThrottleFail: CFS throttled periods above this share of all
	// periods (container_cpu_cfs_throttled_periods_total ÷
	// container_cpu_cfs_periods_total), 0–1, fail the run.
	GenThrottleFail = 0.05
	// GenCPUFail: CPU used above this share of the pod's CPU limit, 0–1,
	// fails the run.
	GenCPUFail = 0.80
	// DefaultGeneratorPods is the default --generator-pod pattern.
	DefaultGeneratorPods = "k6.*"
)

// GeneratorData is the load generator's resource data, already narrowed
// to the generator's pods (pkg/pipeline builds it from a `prom pull`
// export; any other source of per-pod CPU figures can fill it). Times are
// Unix ns on the k6 clock.
type GeneratorData struct {
	// CPUCores is CPU used per generator pod, cores (CPU seconds per
	// second).
	CPUCores []PodSeries
	// CPULimitCores is the CPU limit per generator pod, cores.
	CPULimitCores []PodSeries
	// ThrottleRatio is throttled ÷ all CFS periods per container of a
	// generator pod, a 0–1 ratio.
	ThrottleRatio []PodSeries
	// StepNS is the series' sampling step, ns: the span a series' first
	// point stands for (a point at t covers (t − step, t]).
	StepNS int64
	// Pattern is the pod-name pattern the pods were chosen by.
	Pattern string
	// Pods are the generator pods, "namespace/pod", sorted.
	Pods []string
	// OtherPods are the source's pods that did not match, sorted (for the
	// hint when none matched).
	OtherPods []string
}

// PodSeries is one time series of a generator pod (or of one of its
// containers): points in time order, each point at t standing for
// (t − step, t], step being the distance to the previous point (the
// data's StepNS for the first), as a Prometheus range query's samples do.
type PodSeries struct {
	// Pod is "namespace/pod" ("pod" when the source has no namespace).
	Pod string
	// Container is the container's name, "" for a whole-pod series.
	Container string
	// Points are the series' points in time order.
	Points []Point
}

// Point is one point of a PodSeries: a time, Unix ns, and its value in the
// series' unit (cores, or a 0–1 ratio).
type Point = steps.Point

// GeneratorPods compiles a --generator-pod pattern. Like a PromQL
// `pod=~"…"` matcher it must match the whole pod name.
// The error names the pattern as given (not the anchored form compiled)
// and what is wanted.
func GeneratorPods(pattern string) (*regexp.Regexp, error) {
	if _, err := regexp.Compile(pattern); err != nil {
		msg := err.Error()
		var se *syntax.Error
		if errors.As(err, &se) {
			msg = string(se.Code) + " in " + strconv.Quote(se.Expr)
		}
		return nil, fmt.Errorf("--generator-pod %q: not a regular expression (%s): want a Go (RE2) regexp that matches the whole name of the load generator's pods, e.g. 'k6-.*'", pattern, msg)
	}
	return regexp.Compile(`^(?:` + pattern + `)$`)
}

// PodPattern is the --generator-pod pattern a regexp of GeneratorPods was
// compiled from.
func PodPattern(re *regexp.Regexp) string {
	return strings.TrimSuffix(strings.TrimPrefix(re.String(), "^(?:"), ")$")
}

// genSpan is a time range the generator is judged over, [A, B) ns; Offered
// is its load level's offered load (NaN for the whole run).
type genSpan struct {
	A, B    int64
	Offered float64
}

// genPeak is the worst value of one resource: the value, the pod and the
// span it was read over.
type genPeak struct {
	v    float64
	pod  string
	span genSpan
}

func (p *genPeak) take(v float64, pod string, sp genSpan) {
	if !math.IsNaN(v) && (math.IsNaN(p.v) || v > p.v) {
		p.v, p.pod, p.span = v, pod, sp
	}
}

// GeneratorCheck judges the load generator's health over the run [runA,
// runB) ns and each of its load levels (levels may be empty). For every
// generator pod it takes the time-weighted mean, per span, of its CPU
// throttle ratio (the worst container of the pod) and of its CPU used ÷
// its CPU limit; the worst pod at the worst span decides: a throttle ratio
// above GenThrottleFail (5 %) or a CPU share above GenCPUFail (80 %)
// fails the run — CFS throttling pauses the generator's threads for the
// rest of a 100 ms period, and a busy event loop delays the timing of
// responses, so both add the generator's own delay to the latency it
// reports (k6 docs, "Running large tests": keep the generator's CPU
// under 80 %). Levels are judged as well as the whole run because a
// generator usually saturates only at the highest load, where the knee
// is, which a whole-run mean dilutes. Without data the check is n/a with
// a hint.
func GeneratorCheck(g *GeneratorData, levels []knee.Level, runA, runB int64) Check {
	ch := Check{ID: IDGenerator, Evidence: Evidence{}}
	if g == nil {
		ch.Status = NA
		ch.Message = "no load-generator data: give --prom DIR (a `prom pull` export with the k6 pods' CPU, CPU limit and container_cpu_cfs_throttled_periods_total ÷ container_cpu_cfs_periods_total) to tell a throttled generator (> 5 % throttled periods or > 80 % of its CPU limit) from a slow system."
		return ch
	}
	ch.Evidence.add("generator_pods", float64(len(g.Pods)))
	if len(g.Pods) == 0 {
		ch.Status = NA
		seen := "none"
		if len(g.OtherPods) > 0 {
			seen = strings.Join(firstN(g.OtherPods, 8), ", ")
		}
		ch.Message = fmt.Sprintf("the Prometheus export has no pod matching --generator-pod %q (pods seen: %s): give the k6 pods' name pattern to judge the load generator.", g.Pattern, seen)
		return ch
	}
	spans := []genSpan{{runA, runB, math.NaN()}}
	for i := range levels {
		spans = append(spans, genSpan{levels[i].Start.UnixNano(), levels[i].End.UnixNano(), float64(levels[i].Offered)})
	}
	limits := map[string]PodSeries{}
	for _, s := range g.CPULimitCores {
		limits[s.Pod] = s
	}
	thrRun, thrPeak := genPeak{v: math.NaN()}, genPeak{v: math.NaN()}
	cpuRun, cpuPeak := genPeak{v: math.NaN()}, genPeak{v: math.NaN()}
	var peakCores, peakLimit float64 = math.NaN(), math.NaN()
	for k, sp := range spans {
		// The throttle ratio of a pod is its worst container's.
		perPod := map[string]float64{}
		for _, s := range g.ThrottleRatio {
			v := s.Mean(sp.A, sp.B, g.StepNS)
			if p, ok := perPod[s.Pod]; !math.IsNaN(v) && (!ok || math.IsNaN(p) || v > p) {
				perPod[s.Pod] = v
			}
		}
		for pod, v := range perPod {
			if k == 0 {
				thrRun.take(v, pod, sp)
			} else {
				thrPeak.take(v, pod, sp)
			}
		}
		for _, s := range g.CPUCores {
			pod := s.Pod
			lim, ok := limits[pod]
			if !ok {
				continue
			}
			cores, l := s.Mean(sp.A, sp.B, g.StepNS), lim.Mean(sp.A, sp.B, g.StepNS)
			if !(l > 0) {
				continue
			}
			if k == 0 {
				cpuRun.take(cores/l, pod, sp)
				continue
			}
			old := cpuPeak.v
			cpuPeak.take(cores/l, pod, sp)
			if cpuPeak.v != old {
				peakCores, peakLimit = cores, l
			}
		}
	}
	if len(spans) == 1 { // no levels: the run is the only span
		thrPeak, cpuPeak = thrRun, cpuRun
		for _, s := range g.CPUCores {
			if s.Pod == cpuRun.pod {
				peakCores = s.Mean(runA, runB, g.StepNS)
				peakLimit = limits[cpuRun.pod].Mean(runA, runB, g.StepNS)
			}
		}
	}
	ch.Evidence.add("throttle_ratio_run", thrRun.v)
	ch.Evidence.add("throttle_ratio_peak", thrPeak.v)
	ch.Evidence.add("throttle_peak_offered", thrPeak.span.Offered)
	ch.Evidence.add("throttle_peak_start_s", spanStart(thrPeak, runA))
	ch.Evidence.add("cpu_share_run", cpuRun.v)
	ch.Evidence.add("cpu_share_peak", cpuPeak.v)
	ch.Evidence.add("cpu_cores_peak", peakCores)
	ch.Evidence.add("cpu_limit_cores", peakLimit)
	ch.Evidence.add("cpu_peak_offered", cpuPeak.span.Offered)
	ch.Evidence.add("cpu_peak_start_s", spanStart(cpuPeak, runA))
	if math.IsNaN(thrPeak.v) && math.IsNaN(cpuPeak.v) {
		ch.Status = NA
		ch.Message = fmt.Sprintf("%d generator pod(s) matched %q but the export has no CPU throttle ratio, nor CPU with a CPU limit, inside the run (%s to %s): pull with the presets pod_cpu_cores, pod_cpu_limit_cores and cpu_throttle_ratio over the run's time range.",
			len(g.Pods), g.Pattern, time.Unix(0, runA).UTC().Format(time.RFC3339), time.Unix(0, runB).UTC().Format(time.RFC3339))
		return ch
	}
	var why []string
	if thrPeak.v > GenThrottleFail {
		why = append(why, fmt.Sprintf("%s was CPU-throttled in %s of its CFS periods %s (%s over the run)", thrPeak.pod, fmtPct(thrPeak.v), where(thrPeak), fmtPct(thrRun.v)))
	}
	if cpuPeak.v > GenCPUFail {
		why = append(why, fmt.Sprintf("%s used %s of its CPU limit (%s of %s cores) %s", cpuPeak.pod, fmtPct(cpuPeak.v), fmtNum(peakCores), fmtNum(peakLimit), where(cpuPeak)))
	}
	if len(why) > 0 {
		ch.Status = Fail
		ch.Message = fmt.Sprintf("the load generator was short of CPU: %s (limits %s throttled, %s of the limit): its own delay is in the latency it reported — raise the k6 pods' CPU limit or spread the load over more pods, and rerun.",
			strings.Join(why, "; "), fmtPct(GenThrottleFail), fmtPct(GenCPUFail))
		return ch
	}
	var parts []string
	if !math.IsNaN(thrPeak.v) {
		parts = append(parts, fmt.Sprintf("throttled at most %s of CFS periods (%s)", fmtPct(thrPeak.v), thrPeak.pod))
	} else {
		parts = append(parts, "throttling not measured")
	}
	if !math.IsNaN(cpuPeak.v) {
		parts = append(parts, fmt.Sprintf("at most %s of its CPU limit (%s)", fmtPct(cpuPeak.v), cpuPeak.pod))
	} else {
		parts = append(parts, "CPU share of the limit not measured")
	}
	ch.Status = OK
	ch.Message = fmt.Sprintf("%d generator pod(s) matching %q, %s: the generator had CPU to spare.", len(g.Pods), g.Pattern, strings.Join(parts, ", "))
	return ch
}

// spanStart is the start of the peak's span in seconds since runA (NaN
// when there is no peak).
func spanStart(p genPeak, runA int64) float64 {
	if math.IsNaN(p.v) {
		return math.NaN()
	}
	return float64(p.span.A-runA) / 1e9
}

func where(p genPeak) string {
	if math.IsNaN(p.span.Offered) {
		return "over the run"
	}
	return fmt.Sprintf("at the level from %s (offered %s)", time.Unix(0, p.span.A).UTC().Format("15:04:05Z"), fmtNum(p.span.Offered))
}

func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(slices.Clone(s[:n]), fmt.Sprintf("… %d more", len(s)-n))
}

// WithGenerator replaces the generator check of list (from Evaluate) by
// GeneratorCheck on g over res's run and load levels, for callers that read
// the Prometheus export after Evaluate (knee). A nil g or res leaves the
// list as it is.
func WithGenerator(list []Check, g *GeneratorData, res *knee.Result) []Check {
	if g == nil || res == nil {
		return list
	}
	// Whole seconds, as Evaluate's run span: k6 CSV timestamps are whole
	// seconds and the samples of the last one cover it all.
	ch := GeneratorCheck(g, levelsOf(res), secOf(res.Start.UnixNano())*1e9, (secOf(res.End.UnixNano())+1)*1e9)
	for i := range list {
		if list[i].ID == IDGenerator {
			list[i] = ch
		}
	}
	return list
}

// Mean is the time-weighted mean of the series over [startNS, endNS)
// (steps.Mean): each point at t stands for (t − step, t], step being the
// distance to the previous point (defStepNS for the first; 1 s when that
// is not positive). NaN and ±Inf points are skipped; the result is NaN
// when no finite point overlaps the span. Times in ns since the epoch.
func (s PodSeries) Mean(startNS, endNS, defStepNS int64) float64 {
	return steps.Mean(s.Points, startNS, endNS, defStepNS)
}
