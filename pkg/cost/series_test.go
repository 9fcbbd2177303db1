package cost

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

const promTD = "../../testdata/cost/prom/"

// peakWindow is the six-minute peak of the Prometheus fixtures (and the
// peak hold of testdata/cost/prom/run.csv.gz).
var peakWindow = Window{Start: time.Date(2026, 11, 30, 3, 2, 3, 0, time.UTC), End: time.Date(2026, 11, 30, 3, 8, 3, 0, time.UTC), Source: "--window"}

// promUsage parses testdata/cost/prom/usage.yaml and averages its series
// over w.
func promUsage(t *testing.T, w *Window) (*Usage, error) {
	t.Helper()
	data, err := os.ReadFile(promTD + "usage.yaml")
	if err != nil {
		t.Fatal(err)
	}
	u, err := ParseUsage(data, "usage.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = u.ResolveSeries(promTD, w)
	return u, err
}

// TestWorkedExampleFromSeries: issue 8's worked example from
// Prometheus-shaped inputs (gen_prom.py): the window means give 144.5 GB/h
// (bytes/s summed over game-0..2), 15.2 GB/h (33.78 Mbps × 0.45), 9.2 GB/h
// (a byte counter's rate, reset included), 18 NLCU, 3.3 vCPU and 5.7 GiB,
// hence $4.66/h, and $2.03/h with snapshots × 0.09 (the figures).
func TestWorkedExampleFromSeries(t *testing.T) {
	u, err := promUsage(t, &peakWindow)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		gb, nlcu, vcpu, gib float64
		points              []int
	}{
		{gb: 144.5, points: []int{25}},
		{gb: 15.2, points: []int{25}},
		{gb: 9.2, points: []int{24}},
		{nlcu: 18, points: []int{25}},
		{vcpu: 3.3, gib: 5.7, points: []int{25, 25}},
	}
	for i, w := range want {
		it := u.Items[i]
		near(t, it.Name+" GB/h", it.GBPerHour, w.gb, 1e-9)
		near(t, it.Name+" NLCU", it.NLCU, w.nlcu, 1e-9)
		near(t, it.Name+" vCPU", it.VCPU, w.vcpu, 1e-9)
		near(t, it.Name+" GiB", it.MemoryGiB, w.gib, 1e-9)
		if len(it.SeriesUses) != len(w.points) {
			t.Fatalf("%s: %d series uses, want %d", it.Name, len(it.SeriesUses), len(w.points))
		}
		for j, p := range w.points {
			if got := it.SeriesUses[j].Points; got != p {
				t.Errorf("%s: %d points averaged, want %d", it.Name, got, p)
			}
		}
	}
	if s := u.Items[0].SeriesUses[0]; s.Series != 3 || s.Match != `{pod=~"game-.*"}` || s.Agg != AggSum {
		t.Errorf("snapshots: %+v; want 3 series of {pod=~\"game-.*\"} summed", s)
	}
	if s := u.Items[2].SeriesUses[0]; s.MeanUnit != UnitBytesPerSecond {
		t.Errorf("counter mean unit %q, want bytes_per_second", s.MeanUnit)
	}
	c := mustCatalog(t)
	rep, err := Compute(c, u, Options{Window: &peakWindow})
	if err != nil {
		t.Fatal(err)
	}
	if cents(rep.TotalUSDPerHour) != 4.66 || rep.Window == nil || len(rep.Items[4].Series) != 2 {
		t.Errorf("total %.6f, window %v, compute series %d: want $4.66, the window, 2", rep.TotalUSDPerHour, rep.Window, len(rep.Items[4].Series))
	}
	near(t, "total", rep.TotalUSDPerHour, 4.663476, 1e-6)
	rep, err = Compute(c, u, Options{WhatIf: []WhatIf{{Name: "snapshots to Redis", Factor: 0.09}}})
	if err != nil {
		t.Fatal(err)
	}
	if cents(rep.TotalUSDPerHour) != 2.03 {
		t.Errorf("what-if total %.6f, want $2.03", rep.TotalUSDPerHour)
	}
}

// TestSeriesWindowMatters: the values outside the window are ×0.5 before
// and ×2 after it, so a window shifted by a minute changes the usage.
func TestSeriesWindowMatters(t *testing.T) {
	w := Window{Start: peakWindow.Start.Add(time.Minute), End: peakWindow.End.Add(time.Minute)}
	u, err := promUsage(t, &w)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(u.Items[3].NLCU-18) < 0.5 {
		t.Errorf("NLCU %g over a shifted window: want the after-peak values (36) to count", u.Items[3].NLCU)
	}
}

// TestSeriesAgg: sum, avg and max across the matching series at each
// timestamp, then the mean over the window.
func TestSeriesAgg(t *testing.T) {
	// In the window game-0 = 1 + k·0.1, game-1 = 1.2 + k·0.05, game-2 =
	// 1.1 + k·0.02 cores, k = -2..2 repeating: sums 3.3, averages 1.1, and
	// game-1 is the highest at every k (1.1 … 1.3), mean 1.2.
	for _, tc := range []struct {
		agg  string
		want float64
	}{{"sum", 3.3}, {"avg", 1.1}, {"max", 1.2}} {
		u, err := ParseUsage([]byte("region: us-west-2\nitems:\n  - {name: c, kind: compute, method: fargate, memory_gib: 1, series: {file: cpu.json, unit: cores, match: {pod: game-.*}, agg: "+tc.agg+"}}\n"), "u.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := u.ResolveSeries(promTD, &peakWindow); err != nil {
			t.Fatal(err)
		}
		near(t, tc.agg, u.Items[0].VCPU, tc.want, 1e-9)
	}
}

func TestParseWindow(t *testing.T) {
	for _, s := range []string{"2026-11-30T03:02:03Z/2026-11-30T03:08:03Z", "1796007723/1796008083", "2026-11-30T04:02:03+01:00/1796008083.0"} {
		w, err := ParseWindow(s)
		if err != nil || !w.Start.Equal(peakWindow.Start) || !w.End.Equal(peakWindow.End) {
			t.Errorf("ParseWindow(%q) = %v, %v; want %v", s, w, err, peakWindow)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"2026-11-30T03:02:03Z", `--window "2026-11-30T03:02:03Z": want START/END, each RFC 3339 (2026-11-30T02:07:00Z) or Unix seconds`},
		{"yesterday/1796008083", `--window "yesterday/1796008083": start: "yesterday": want an RFC 3339 time or Unix seconds`},
		{"1796007723/NaN", `--window "1796007723/NaN": end: "NaN": want an RFC 3339 time or Unix seconds`},
		{"1796008083/1796007723", `--window "1796008083/1796007723": end is not after start`},
	} {
		if _, err := ParseWindow(tc.in); err == nil || err.Error() != tc.want {
			t.Errorf("ParseWindow(%q): %v\nwant %s", tc.in, err, tc.want)
		}
	}
}

// TestSeriesErrors: bad series references, in the usage file and at
// resolution, give errors naming the usage file, the line, the export and
// (for an empty window) both time ranges.
func TestSeriesErrors(t *testing.T) {
	const head = "region: us-west-2\nitems:\n"
	for _, tc := range []struct{ in, want string }{
		{head + "  - {name: a, kind: transfer-cross-az, series: {unit: mbps}}\n", `u.yaml:3: item "a": series: without file: want file: <Prometheus export, relative to the usage file>`},
		{head + "  - {name: a, kind: transfer-cross-az, series: {file: x.json}}\n", `u.yaml:3: item "a": series: without unit: want unit: one of bytes_per_second, mbps, gb_per_hour, counter_bytes, cores, counter_cpu_seconds, bytes, gib, nlcu, lcu`},
		{head + "  - {name: a, kind: transfer-cross-az, series: {file: x.json, unit: kbps}}\n", `u.yaml:3: item "a": series: unknown unit "kbps": want one of bytes_per_second, mbps, gb_per_hour, counter_bytes, cores, counter_cpu_seconds, bytes, gib, nlcu, lcu`},
		{head + "  - {name: a, kind: transfer-cross-az, series: {file: x.json, unit: cores}}\n", `u.yaml:3: item "a": series: unit cores gives vcpu, which this kind does not take: want bytes_per_second, mbps, gb_per_hour, counter_bytes`},
		{head + "  - {name: a, kind: nlb-lcu, series: {file: x.json, unit: nlcu, agg: median}}\n", `u.yaml:3: item "a": series: unknown agg "median": want sum, avg or max`},
		{head + "  - {name: a, kind: nlb-lcu, series: {file: x.json, unit: nlcu, match: {pod: \"game-(\"}}}\n", `u.yaml:3: item "a": series: match: pod: "game-(" is not a regular expression (RE2): error parsing regexp: missing closing ): ` + "`^(?:game-()$`"},
		{head + "  - {name: a, kind: nlb-lcu, series: {file: x.json, unit: nlcu, step: 15}}\n", `u.yaml:3: item "a": series: unknown field "step": want file, query, unit, match, agg`},
		{head + "  - {name: a, kind: nlb-lcu, nlcu: 3, series: {file: x.json, unit: nlcu}}\n", `u.yaml:3: item "a": both nlcu and a series giving nlcu: want one`},
		{head + "  - {name: a, kind: transfer-cross-az, mbps: 3, series: {file: x.json, unit: mbps}}\n", `u.yaml:3: item "a": both mbps and series given: want one transfer rate`},
		{head + "  - {name: a, kind: compute, method: fargate, series: [{file: x.json, unit: cores}, {file: y.json, unit: counter_cpu_seconds}]}\n", `u.yaml:3: item "a": two series give vcpu (the other on line 3): want one`},
		{head + "  - {name: a, kind: compute, method: fargate, series: {file: x.json, unit: cores}}\n", `u.yaml:3: item "a" (compute) without memory_gib: want memory_gib: <GiB used>`},
		{head + "  - {name: a, kind: fixed-hourly, usd_per_hour: 1, series: {file: x.json, unit: nlcu}}\n", `u.yaml:3: item "a": field series does not apply to kind fixed-hourly: want usd_per_hour, price, hours, exponent, exponent_from`},
	} {
		if _, err := ParseUsage([]byte(tc.in), "u.yaml"); err == nil || err.Error() != tc.want {
			t.Errorf("ParseUsage(%q)\n got %v\nwant %s", tc.in, err, tc.want)
		}
	}
	dir, _ := filepath.Abs(promTD)
	later := Window{Start: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC)}
	for _, tc := range []struct {
		series string
		w      *Window
		want   string
	}{
		{"{file: snapshots.json, unit: bytes_per_second}", nil, `u.yaml:3: item "a" takes its usage from a series: give --window START/END or --run FILE (k6 output) to average it over`},
		{"{file: nope.json, unit: bytes_per_second}", &peakWindow, `u.yaml:3: item "a": series ` + dir + `/nope.json: no such file or directory`},
		{"{file: snapshots.json, unit: bytes_per_second, match: {pod: web-.*}}", &peakWindow, `u.yaml:3: item "a": series ` + dir + `/snapshots.json: no series matches {pod=~"web-.*"} (4 series in the file)`},
		{"{file: snapshots.json, unit: bytes_per_second, match: {pod: game-.*}}", &later, `u.yaml:3: item "a": series ` + dir + `/snapshots.json: no point in the window 2026-12-01T00:00:00Z to 2026-12-01T01:00:00Z: the 3 series matching {pod=~"game-.*"} have points from 2026-11-30T02:58:03Z to 2026-11-30T03:12:03Z`},
		{"{file: lb_bytes.json, unit: counter_bytes}", &later, `u.yaml:3: item "a": series ` + dir + `/lb_bytes.json: no point in the window 2026-12-01T00:00:00Z to 2026-12-01T01:00:00Z: the 1 series matching {} have rates from 2026-11-30T02:58:18Z to 2026-11-30T03:12:03Z`},
		{"{file: usage.yaml, unit: bytes_per_second}", &peakWindow, `u.yaml:3: item "a": series ` + dir + `/usage.yaml:7: strconv.ParseFloat: parsing "us-west-2": invalid syntax while parsing: "region: us-west-2"`},
		{"{file: snapshots.json, query: x, unit: bytes_per_second}", &peakWindow, `u.yaml:3: item "a": series ` + dir + "/snapshots.json: query \"x\" given but the file is not a `prom pull` directory"},
	} {
		u, err := ParseUsage([]byte(head+"  - {name: a, kind: transfer-cross-az, series: "+tc.series+"}\n"), "u.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := u.ResolveSeries(dir, tc.w); err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.series, err, tc.want)
		}
	}
	// Pricing a usage whose series were never averaged is refused.
	u, _ := ParseUsage([]byte(head+"  - {name: a, kind: nlb-lcu, series: {file: nlb.json, unit: nlcu}}\n"), "u.yaml")
	if _, err := Compute(mustCatalog(t), u, Options{}); err == nil || err.Error() != `u.yaml:3: item "a" takes its usage from a series that was not averaged: call Usage.ResolveSeries with a window (--window or --run)` {
		t.Errorf("Compute of an unresolved series: %v", err)
	}
}
