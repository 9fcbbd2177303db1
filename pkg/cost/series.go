package cost

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/prom"
	"gopkg.in/yaml.v3"
)

// The units a usage series may be in (SeriesRef.Unit). Each fills one
// quantity of its item (see seriesUnits); the mean over the window is
// converted once, by the factor named beside the unit.
const (
	// UnitBytesPerSecond is a transfer rate in bytes per second
	// (rate(container_network_transmit_bytes_total[...])); GB per hour =
	// mean × GBPerHourPerBytePerSecond (3600 / 10^9).
	UnitBytesPerSecond = "bytes_per_second"
	// UnitMbps is a transfer rate in megabits (10^6 bits) per second; GB
	// per hour = mean × GBPerHourPerMbps (0.45).
	UnitMbps = "mbps"
	// UnitGBPerHour is a transfer rate already in GB (10^9 bytes) per hour.
	UnitGBPerHour = "gb_per_hour"
	// UnitCounterBytes is a raw byte counter (a *_total series without
	// rate()): per-second rates are taken point to point, counter resets
	// handled (prom.Rate), then converted as bytes per second.
	UnitCounterBytes = "counter_bytes"
	// UnitCores is CPU in cores (CPU seconds per second, as
	// rate(container_cpu_usage_seconds_total[...])); one core is one vCPU.
	UnitCores = "cores"
	// UnitCounterCPUSeconds is a raw CPU-seconds counter
	// (container_cpu_usage_seconds_total); its rate is cores.
	UnitCounterCPUSeconds = "counter_cpu_seconds"
	// UnitBytes is memory in bytes (container_memory_working_set_bytes);
	// GiB = mean / 2^30.
	UnitBytes = "bytes"
	// UnitGiB is memory in GiB (2^30 bytes).
	UnitGiB = "gib"
	// UnitNLCU and UnitLCU are load-balancer capacity units used per hour
	// (e.g. CloudWatch ConsumedLCUs exported to Prometheus).
	UnitNLCU = "nlcu"
	UnitLCU  = "lcu"
)

// The aggregations of the series a SeriesRef matches, applied at each
// timestamp before the mean over the window.
const (
	AggSum = "sum"
	AggAvg = "avg"
	AggMax = "max"
)

// seriesUnit says which quantity a unit fills (the name of the item's
// numeric field), the factor from the unit to that field's unit and
// whether the series is a counter whose rate is taken.
type seriesUnit struct {
	field   string
	factor  float64
	counter bool
}

// seriesUnits are the units of SeriesRef.Unit.
var seriesUnits = map[string]seriesUnit{
	UnitBytesPerSecond:    {"gb_per_hour", GBPerHourPerBytePerSecond, false},
	UnitMbps:              {"gb_per_hour", GBPerHourPerMbps, false},
	UnitGBPerHour:         {"gb_per_hour", 1, false},
	UnitCounterBytes:      {"gb_per_hour", GBPerHourPerBytePerSecond, true},
	UnitCores:             {"vcpu", 1, false},
	UnitCounterCPUSeconds: {"vcpu", 1, true},
	UnitBytes:             {"memory_gib", 1.0 / (1 << 30), false},
	UnitGiB:               {"memory_gib", 1, false},
	UnitNLCU:              {"nlcu", 1, false},
	UnitLCU:               {"lcu", 1, false},
}

// SeriesUnits lists the units a usage series may be in.
var SeriesUnits = []string{UnitBytesPerSecond, UnitMbps, UnitGBPerHour, UnitCounterBytes, UnitCores, UnitCounterCPUSeconds, UnitBytes, UnitGiB, UnitNLCU, UnitLCU}

// SeriesRef is a usage taken from a Prometheus export instead of a number:
//
//	series: {file: snapshots.json, unit: bytes_per_second, match: {pod: "game-.*"}, agg: sum}
//
// The matching series are aggregated at each timestamp (Agg) and the
// result is averaged over the window (Usage.ResolveSeries); the mean,
// converted once from Unit, fills the item's quantity that Unit names.
type SeriesRef struct {
	// File is the export: a file in any format prom.ReadFile reads
	// (Prometheus API JSON, Grafana CSV, VictoriaMetrics JSON lines,
	// Prometheus text), or a `prom pull` directory with Query naming one
	// of its queries. A relative path is relative to the usage file.
	File string
	// Query names the query of a `prom pull` directory (its manifest
	// entry's name); only with a directory.
	Query string
	// Unit is one of SeriesUnits.
	Unit string
	// Match maps label names to RE2 patterns, anchored at both ends as
	// PromQL's =~ is; a series missing a label has it as "". No matcher
	// takes every series of the file.
	Match map[string]*regexp.Regexp
	// Agg is sum (default), avg or max across the matching series.
	Agg string
	// Line is the line of the series mapping in the usage file.
	Line int
	// field is the item field the series fills (see seriesUnits).
	field string
}

// matchText is the matcher as PromQL would write it: {pod=~"game-.*"}.
func (s SeriesRef) matchText() string {
	if len(s.Match) == 0 {
		return "{}"
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range s.Match {
			if !yield(k) {
				return
			}
		}
	})
	parts := make([]string, len(names))
	for i, k := range names {
		re := strings.TrimSuffix(strings.TrimPrefix(s.Match[k].String(), "^(?:"), ")$")
		parts[i] = fmt.Sprintf("%s=~%q", k, re)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// SeriesUse is what averaging one series reference gave: reported per item
// so that the reader sees where each usage came from.
type SeriesUse struct {
	// Field is the usage the series filled: gb_per_hour, vcpu, memory_gib,
	// nlcu or lcu.
	Field string `json:"field"`
	// File is the export read (as resolved against the usage file), Query
	// the query of a `prom pull` directory.
	File  string `json:"file"`
	Query string `json:"query,omitempty"`
	// Match is the label matcher in PromQL form, Agg the aggregation.
	Match string `json:"match"`
	Agg   string `json:"agg"`
	// Unit is the series' unit; Mean its mean over the window in
	// MeanUnit (Unit, or for a counter the unit of its rate); Value the
	// mean converted to Field's unit.
	Unit     string  `json:"unit"`
	Mean     float64 `json:"mean"`
	MeanUnit string  `json:"mean_unit"`
	Value    float64 `json:"value"`
	// Series is how many series matched; Points how many aggregated points
	// (timestamps) in the window were averaged.
	Series int `json:"series"`
	Points int `json:"points"`
}

// Window is the time range usage series are averaged over.
type Window struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Source says where it came from: "--window", or the peak hold of a k6
	// run.
	Source string `json:"source"`
}

func (w Window) String() string {
	return fmt.Sprintf("%s to %s", w.Start.UTC().Format(time.RFC3339), w.End.UTC().Format(time.RFC3339))
}

// ParseWindow reads "START/END", each an RFC 3339 time
// (2026-11-30T02:07:00Z) or Unix seconds (1796004420, fractions allowed).
// END must be after START.
func ParseWindow(s string) (Window, error) {
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		return Window{}, fmt.Errorf("--window %q: want START/END, each RFC 3339 (2026-11-30T02:07:00Z) or Unix seconds", s)
	}
	start, err := parseInstant(a)
	if err != nil {
		return Window{}, fmt.Errorf("--window %q: start: %v", s, err)
	}
	end, err := parseInstant(b)
	if err != nil {
		return Window{}, fmt.Errorf("--window %q: end: %v", s, err)
	}
	if !end.After(start) {
		return Window{}, fmt.Errorf("--window %q: end is not after start", s)
	}
	return Window{Start: start, End: end, Source: "--window"}, nil
}

// parseInstant reads an RFC 3339 time or Unix seconds.
func parseInstant(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > 1e11 {
		return time.Time{}, fmt.Errorf("%q: want an RFC 3339 time or Unix seconds", s)
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC(), nil
}

// parseSeriesRefs reads an item's series field: one mapping or a list of
// them (compute takes vcpu and memory_gib from two series).
func parseSeriesRefs(v *yaml.Node, file, item string, allowed []string) ([]SeriesRef, error) {
	nodes := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		nodes = v.Content
		if len(nodes) == 0 {
			return nil, &InputError{File: file, Line: v.Line, Msg: fmt.Sprintf("item %q: series: want a mapping {file: ..., unit: ...} or a list of them", item)}
		}
	}
	var out []SeriesRef
	seen := map[string]int{}
	for _, n := range nodes {
		s, err := parseSeriesRef(n, file, item, allowed)
		if err != nil {
			return nil, err
		}
		if prev, ok := seen[s.field]; ok {
			return nil, &InputError{File: file, Line: s.Line, Msg: fmt.Sprintf("item %q: two series give %s (the other on line %d): want one", item, s.field, prev)}
		}
		seen[s.field] = s.Line
		out = append(out, s)
	}
	return out, nil
}

func parseSeriesRef(n *yaml.Node, file, item string, allowed []string) (SeriesRef, error) {
	bad := func(line int, format string, a ...any) (SeriesRef, error) {
		return SeriesRef{}, &InputError{File: file, Line: line, Msg: fmt.Sprintf("item %q: series: ", item) + fmt.Sprintf(format, a...)}
	}
	if n.Kind != yaml.MappingNode {
		return bad(n.Line, "want a mapping {file: ..., unit: ..., match: {label: regexp}, agg: sum|avg|max}")
	}
	s := SeriesRef{Line: n.Line, Agg: AggSum}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if seen[k.Value] {
			return bad(k.Line, "field %s given twice", k.Value)
		}
		seen[k.Value] = true
		scalar := func() (string, error) {
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				return "", &InputError{File: file, Line: v.Line, Msg: fmt.Sprintf("item %q: series: %s: want a non-empty string", item, k.Value)}
			}
			return v.Value, nil
		}
		var err error
		switch k.Value {
		case "file":
			s.File, err = scalar()
		case "query":
			s.Query, err = scalar()
		case "unit":
			if s.Unit, err = scalar(); err == nil {
				if _, ok := seriesUnits[s.Unit]; !ok {
					return bad(v.Line, "unknown unit %q: want one of %s", s.Unit, strings.Join(SeriesUnits, ", "))
				}
			}
		case "agg":
			if s.Agg, err = scalar(); err == nil && s.Agg != AggSum && s.Agg != AggAvg && s.Agg != AggMax {
				return bad(v.Line, "unknown agg %q: want sum, avg or max", s.Agg)
			}
		case "match":
			if v.Kind != yaml.MappingNode {
				return bad(v.Line, "match: want a mapping of label names to regular expressions, e.g. {pod: \"game-.*\"}")
			}
			s.Match = map[string]*regexp.Regexp{}
			for j := 0; j+1 < len(v.Content); j += 2 {
				lk, lv := v.Content[j], v.Content[j+1]
				if lv.Kind != yaml.ScalarNode {
					return bad(lv.Line, "match: %s: want a regular expression", lk.Value)
				}
				re, rerr := regexp.Compile("^(?:" + lv.Value + ")$")
				if rerr != nil {
					return bad(lv.Line, "match: %s: %q is not a regular expression (RE2): %v", lk.Value, lv.Value, rerr)
				}
				s.Match[lk.Value] = re
			}
		default:
			return bad(k.Line, "unknown field %q: want file, query, unit, match, agg", k.Value)
		}
		if err != nil {
			return SeriesRef{}, err
		}
	}
	if s.File == "" {
		return bad(n.Line, "without file: want file: <Prometheus export, relative to the usage file>")
	}
	if s.Unit == "" {
		return bad(n.Line, "without unit: want unit: one of %s", strings.Join(SeriesUnits, ", "))
	}
	s.field = seriesUnits[s.Unit].field
	if !slices.Contains(allowed, s.field) {
		var fit []string
		for _, u := range SeriesUnits {
			if slices.Contains(allowed, seriesUnits[u].field) {
				fit = append(fit, u)
			}
		}
		want := "no series (this kind takes no usage series)"
		if len(fit) > 0 {
			want = strings.Join(fit, ", ")
		}
		return bad(n.Line, "unit %s gives %s, which this kind does not take: want %s", s.Unit, s.field, want)
	}
	return s, nil
}

// ErrNoWindow is returned by ResolveSeries when an item takes its usage
// from a series and no window was given.
var ErrNoWindow = errors.New("no window to average usage series over")

// ResolveSeries averages the usage series of every item over w and fills
// the quantities they name; relative files are taken from dir (the usage
// file's directory). It returns caveats (records the readers skipped,
// server warnings). Errors are *InputError naming the usage file and the
// item's line: no window (w nil) while an item has a series, an unreadable
// file, no series matching, no point in the window (naming the file's
// range and the window).
//
// Averaging: at each timestamp the matching series' finite points are
// aggregated (sum, avg or max), and the mean of those aggregates over the
// window is the usage. A gauge's points count when Start ≤ t ≤ End; a
// counter's per-second rates (prom.Rate, a point standing for the interval
// that ends at it) when Start < t ≤ End, so that evenly spaced rates
// average to the counter's increase over the window ÷ its length.
func (u *Usage) ResolveSeries(dir string, w *Window) (warnings []string, err error) {
	type key struct{ path, query string }
	cache := map[key]*prom.Data{}
	for i := range u.Items {
		it := &u.Items[i]
		for j := range it.Series {
			ref := it.Series[j]
			if w == nil {
				return warnings, &InputError{File: u.File, Line: ref.Line, Msg: fmt.Sprintf("item %q takes its usage from a series: give --window START/END or --run FILE (k6 output) to average it over", it.Name)}
			}
			path := ref.File
			if !filepath.IsAbs(path) {
				path = filepath.Join(dir, path)
			}
			bad := func(format string, a ...any) error {
				return &InputError{File: u.File, Line: ref.Line, Msg: fmt.Sprintf("item %q: series %s: ", it.Name, path) + fmt.Sprintf(format, a...)}
			}
			k := key{path, ref.Query}
			d, ok := cache[k]
			if !ok {
				var notes []string
				d, notes, err = readSeriesFile(path, ref.Query)
				if err != nil && strings.HasPrefix(err.Error(), path+":") {
					// The reader named the file (and line) already.
					return warnings, &InputError{File: u.File, Line: ref.Line, Msg: fmt.Sprintf("item %q: series %v", it.Name, err)}
				}
				if err != nil {
					return warnings, bad("%v", err)
				}
				cache[k] = d
				warnings = append(warnings, notes...)
			}
			use, err := averageSeries(d.Series, ref, *w)
			if err != nil {
				return warnings, bad("%v", err)
			}
			use.File, use.Query = path, ref.Query
			switch ref.field {
			case "gb_per_hour":
				it.GBPerHour = use.Value
			case "vcpu":
				it.VCPU = use.Value
			case "memory_gib":
				it.MemoryGiB = use.Value
			case "nlcu":
				it.NLCU = use.Value
			case "lcu":
				it.LCU = use.Value
			}
			it.SeriesUses = append(it.SeriesUses, use)
		}
	}
	return warnings, nil
}

// readSeriesFile reads one export file, or the query of a `prom pull`
// directory, and returns its data and caveats.
func readSeriesFile(path, query string) (*prom.Data, []string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, unwrapPath(err)
	}
	var d *prom.Data
	if fi.IsDir() {
		exp, err := prom.ReadDir(path)
		if err != nil {
			return nil, nil, err
		}
		var names []string
		for i, e := range exp.Manifest.Queries {
			names = append(names, e.Name)
			if e.Name == query {
				d = exp.Data[i]
			}
		}
		if query == "" {
			return nil, nil, fmt.Errorf("a `prom pull` directory: want query: one of %s", strings.Join(names, ", "))
		}
		if d == nil {
			return nil, nil, fmt.Errorf("no query %q in %s: want one of %s", query, prom.ManifestFile, strings.Join(names, ", "))
		}
	} else {
		if query != "" {
			return nil, nil, fmt.Errorf("query %q given but the file is not a `prom pull` directory", query)
		}
		if d, err = prom.ReadFile(path, prom.GrafanaOptions{}); err != nil {
			return nil, nil, err
		}
	}
	var notes []string
	for _, s := range d.Warnings {
		notes = append(notes, fmt.Sprintf("%s: %s", path, s))
	}
	if n := len(d.Skipped); n > 0 {
		notes = append(notes, fmt.Sprintf("%s: skipped %d unreadable record(s); first: %v", path, n, d.Skipped[0]))
	}
	return d, notes, nil
}

// unwrapPath drops the operation from an *os.PathError ("open x: no such
// file" → "no such file"): the caller names the path already.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// averageSeries aggregates the series that ref matches and averages them
// over w.
func averageSeries(all []prom.Series, ref SeriesRef, w Window) (SeriesUse, error) {
	unit := seriesUnits[ref.Unit]
	use := SeriesUse{Field: ref.field, Match: ref.matchText(), Agg: ref.Agg, Unit: ref.Unit, MeanUnit: ref.Unit}
	switch ref.Unit {
	case UnitCounterBytes:
		use.MeanUnit = UnitBytesPerSecond
	case UnitCounterCPUSeconds:
		use.MeanUnit = UnitCores
	}
	var matched []prom.Series
	for _, s := range all {
		if matches(s.Labels, ref.Match) {
			matched = append(matched, s)
		}
	}
	if len(matched) == 0 {
		return use, fmt.Errorf("no series matches %s (%d series in the file)", use.Match, len(all))
	}
	use.Series = len(matched)
	startNS, endNS := w.Start.UnixNano(), w.End.UnixNano()
	inWindow := func(t int64) bool { return t >= startNS && t <= endNS }
	if unit.counter {
		inWindow = func(t int64) bool { return t > startNS && t <= endNS }
	}
	var firstNS, lastNS int64
	seen := false
	byTime := map[int64][]float64{}
	for _, s := range matched {
		ps := s.Points
		if unit.counter {
			ps = prom.Rate(ps)
		}
		for _, p := range ps {
			if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
				continue
			}
			if !seen || p.TimeNS < firstNS {
				firstNS = p.TimeNS
			}
			if !seen || p.TimeNS > lastNS {
				lastNS = p.TimeNS
			}
			seen = true
			if inWindow(p.TimeNS) {
				byTime[p.TimeNS] = append(byTime[p.TimeNS], p.Value)
			}
		}
	}
	if len(byTime) == 0 {
		what := "points"
		if unit.counter {
			what = "rates"
		}
		covers := "no finite " + what
		if seen {
			covers = fmt.Sprintf("%s from %s to %s", what, time.Unix(0, firstNS).UTC().Format(time.RFC3339), time.Unix(0, lastNS).UTC().Format(time.RFC3339))
		}
		return use, fmt.Errorf("no point in the window %s: the %d series matching %s have %s", w, len(matched), use.Match, covers)
	}
	times := make([]int64, 0, len(byTime))
	for t := range byTime {
		times = append(times, t)
	}
	sort.Slice(times, func(a, b int) bool { return times[a] < times[b] })
	var sum float64
	for _, t := range times {
		vs := byTime[t]
		var v float64
		switch ref.Agg {
		case AggMax:
			v = slices.Max(vs)
		case AggAvg:
			for _, x := range vs {
				v += x
			}
			v /= float64(len(vs))
		default:
			for _, x := range vs {
				v += x
			}
		}
		sum += v
	}
	use.Points = len(times)
	use.Mean = sum / float64(len(times))
	use.Value = use.Mean * unit.factor
	if use.Value < 0 {
		return use, fmt.Errorf("mean %s %s over the window is negative: want a usage ≥ 0", fmtNum(use.Mean), ref.Unit)
	}
	return use, nil
}

// matches reports whether labels satisfy every matcher (a missing label is
// "").
func matches(labels map[string]string, m map[string]*regexp.Regexp) bool {
	for k, re := range m {
		if !re.MatchString(labels[k]) {
			return false
		}
	}
	return true
}
