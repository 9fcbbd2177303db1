package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const costTD = "../../testdata/cost/"

// TestCostJSONContract checks the JSON contract of issue 8 on its worked
// example: {"region", "items": [{"name", "kind", "usage", "unit",
// "unit_price_usd", "usd_per_hour"}], "total_usd_per_hour", "warnings"};
// total 4.663476 (issue: $4.66), with the what-if 2.033576 ($2.03).
func TestCostJSONContract(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		total float64
	}{
		{nil, 4.663476},
		{[]string{"--what-if", "snapshots to Redis=0.09"}, 2.033576},
	} {
		out, errs, code := runCLI(t, "", append([]string{"cost", "--region", "us-west-2", "--usage", costTD + "worked-example.yaml", "--format", "json"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var got struct {
			Region string `json:"region"`
			Items  []struct {
				Name         string   `json:"name"`
				Kind         string   `json:"kind"`
				Usage        *float64 `json:"usage"`
				Unit         string   `json:"unit"`
				UnitPriceUSD *float64 `json:"unit_price_usd"`
				USDPerHour   *float64 `json:"usd_per_hour"`
			} `json:"items"`
			Total    float64   `json:"total_usd_per_hour"`
			Warnings *[]string `json:"warnings"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if got.Region != "us-west-2" || len(got.Items) != 5 || got.Warnings == nil {
			t.Errorf("region %q, %d items, warnings %v: want us-west-2, 5, a list", got.Region, len(got.Items), got.Warnings)
		}
		for _, it := range got.Items {
			if it.Name == "" || it.Kind == "" || it.Usage == nil || it.Unit == "" || it.UnitPriceUSD == nil || it.USDPerHour == nil {
				t.Errorf("item lacks a contract field: %+v", it)
			}
		}
		if math.Abs(got.Total-tc.total) > 1e-6 {
			t.Errorf("%v: total %.6f, want %.6f", tc.args, got.Total, tc.total)
		}
	}
}

// TestCostTable compares the table, markdown and CSV renderings of the
// worked example with golden files in testdata/cost (rewrite with -update).
func TestCostTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"cost_table.golden", []string{"--run-duration", "6m"}},
		{"cost_whatif.md.golden", []string{"--what-if", "snapshots to Redis=0.09", "-f", "markdown"}},
		{"cost.csv.golden", []string{"-f", "csv"}},
	} {
		out, errs, code := runCLI(t, "", append([]string{"cost", "--usage", costTD + "worked-example.yaml"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		path := filepath.Join(costTD, tc.name)
		if *update {
			if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if out != string(want) {
			t.Errorf("%s differs (run with -update after checking):\n--- got\n%s\n--- want\n%s", tc.name, out, want)
		}
	}
}

// TestCostOfferFile: --offer-file supplies the eu-west-1 t3.xlarge price the
// catalogue lacks (0.1824/h in the hand-written fixture): 0.825 of it =
// 0.15048 USD/h; the Fargate ratio used by fargate-ratio is unverified
// there, and the output says so.
func TestCostOfferFile(t *testing.T) {
	dir := t.TempDir()
	usage := filepath.Join(dir, "u.yaml")
	if err := os.WriteFile(usage, []byte("region: eu-west-1\nitems:\n  - {name: c, kind: compute, vcpu: 3.3, memory_gib: 5.7, method: instance, instance: t3.xlarge}\n  - {name: r, kind: compute, vcpu: 3.3, memory_gib: 5.7, method: fargate-ratio, instance: t3.xlarge}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := runCLI(t, "", "cost", "--usage", usage)
	if code != 2 || !strings.Contains(errs, "u.yaml:3: item \"c\": no EC2 price for t3.xlarge in eu-west-1") {
		t.Errorf("without the offer file: exit %d, %q; want 2 and the missing price named at line 3", code, errs)
	}
	out, errs, code := runCLI(t, "", "cost", "--usage", usage, "--offer-file", costTD+"offer-ec2-eu-west-1.json", "-f", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Items []struct {
			USDPerHour float64 `json:"usd_per_hour"`
			Status     string  `json:"price_status"`
		} `json:"items"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if math.Abs(rep.Items[0].USDPerHour-0.15048) > 1e-9 || rep.Items[0].Status != "verified" || rep.Items[1].Status != "unverified" {
		t.Errorf("items %+v: want 0.15048 verified, then an unverified split", rep.Items)
	}
	w := strings.Join(rep.Warnings, "\n")
	if !strings.Contains(w, "unverified price: ec2:t3.xlarge split by fargate.linux_x86.vcpu_hour / fargate.linux_x86.gb_hour in eu-west-1") ||
		!strings.Contains(w, "offer-ec2-eu-west-1.json (AmazonEC2, published 2026-11-15T00:00:00Z) set 3 prices for eu-west-1") {
		t.Errorf("warnings:\n%s\nwant the unverified split and the offer file named", w)
	}
}

func TestCostUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--what-if", "snapshots"}, `--what-if "snapshots": want NAME=FACTOR`},
		{[]string{"--project", "3"}, `--project "3": want FROM:TO`},
		{[]string{"--hours-per-month", "0"}, `--hours-per-month 0: want hours in (0, 744]`},
		{[]string{"--region", "xx-1"}, `worked-example.yaml: unknown region "xx-1"`},
		{[]string{"-f", "yaml"}, `unknown --format "yaml"`},
	} {
		_, errs, code := runCLI(t, "", append([]string{"cost", "--usage", costTD + "worked-example.yaml"}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestCostFromPrometheus: usage priced from Prometheus-shaped series
// averaged over a window: --window 03:02:03Z–03:08:03Z gives the worked
// example's $4.66/h ($2.03/h with the what-if); --run averages over the
// peak hold of the k6 run (run.csv.gz: a 15 it/s hold from 03:02:00Z to
// the run's end, whose first second knee leaves out as a transition and
// whose last second, 03:08:03Z, as the run's partial one: 03:02:01Z to
// 03:08:03Z),
// and gives what --window gives over that hold. The output names the
// window and the points averaged per item.
func TestCostFromPrometheus(t *testing.T) {
	usage := costTD + "prom/usage.yaml"
	type report struct {
		Total  float64 `json:"total_usd_per_hour"`
		Window struct {
			Start, End, Source string
		} `json:"window"`
		Items []struct {
			Series []struct {
				Points int `json:"points"`
			} `json:"series"`
		} `json:"items"`
	}
	price := func(args ...string) report {
		t.Helper()
		out, errs, code := runCLI(t, "", append([]string{"cost", "--usage", usage, "-f", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		var rep report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return rep
	}
	for _, tc := range []struct {
		args  []string
		total float64
	}{
		{[]string{"--window", "2026-11-30T03:02:03Z/2026-11-30T03:08:03Z"}, 4.663476},
		{[]string{"--window", "1796007723/1796008083", "--what-if", "snapshots to Redis=0.09"}, 2.033576},
	} {
		rep := price(tc.args...)
		if math.Abs(rep.Total-tc.total) > 1e-6 {
			t.Errorf("%v: total %.6f, want %.6f", tc.args, rep.Total, tc.total)
		}
		if rep.Window.Start != "2026-11-30T03:02:03Z" || rep.Window.End != "2026-11-30T03:08:03Z" {
			t.Errorf("%v: window %+v, want 03:02:03Z to 03:08:03Z", tc.args, rep.Window)
		}
		if len(rep.Items) != 5 || len(rep.Items[2].Series) != 1 || rep.Items[2].Series[0].Points != 24 || rep.Items[0].Series[0].Points != 25 {
			t.Errorf("%v: items %+v: want 25 points per gauge, 24 rates of the counter", tc.args, rep.Items)
		}
	}
	for _, whatIf := range [][]string{nil, {"--what-if", "snapshots to Redis=0.09"}} {
		run := price(append([]string{"--run", costTD + "prom/run.csv.gz"}, whatIf...)...)
		if run.Window.Start != "2026-11-30T03:02:01Z" || run.Window.End != "2026-11-30T03:08:03Z" {
			t.Errorf("--run %v: window %+v, want 03:02:01Z to 03:08:03Z", whatIf, run.Window)
		}
		win := price(append([]string{"--window", "1796007721/1796008083"}, whatIf...)...)
		if math.Abs(run.Total-win.Total) > 1e-9 || !(math.Abs(run.Total-4.66) < 0.02 || math.Abs(run.Total-2.03) < 0.02) {
			t.Errorf("--run %v: total %.6f, --window over the hold %.6f (want equal, near the worked example's)", whatIf, run.Total, win.Total)
		}
	}
	out, errs, code := runCLI(t, "", "cost", "--usage", usage, "--run", costTD+"prom/run.csv.gz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"total $4.66 per hour",
		"usage series averaged over 2026-11-30T03:02:01Z to 2026-11-30T03:08:03Z (peak hold of " + costTD + "prom/run.csv.gz (completed 15.0 req/s, offered 15 iterations/s), 6m2s)",
		`snapshots to Redis: gb_per_hour = sum(` + costTD + `prom/snapshots.json{pod=~"game-.*"}) mean 40138889 bytes_per_second over 25 points of 3 series`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestCostSeriesErrors(t *testing.T) {
	usage := costTD + "prom/usage.yaml"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, `usage.yaml:11: item "snapshots to Redis" takes its usage from a series: give --window START/END or --run FILE (k6 output) to average it over`},
		{[]string{"--window", "2026-11-30T03:02:03Z"}, `--window "2026-11-30T03:02:03Z": want START/END, each RFC 3339 (2026-11-30T02:07:00Z) or Unix seconds`},
		{[]string{"--window", "1796008083/1796007723"}, `--window "1796008083/1796007723": end is not after start`},
		{[]string{"--window", "1796007723/1796008083", "--run", "x.csv"}, `--window and --run both given: want one averaging window`},
		{[]string{"--window", "2026-12-01T00:00:00Z/2026-12-01T01:00:00Z"}, `usage.yaml:11: item "snapshots to Redis": series ` + costTD + `prom/snapshots.json: no point in the window 2026-12-01T00:00:00Z to 2026-12-01T01:00:00Z: the 3 series matching {pod=~"game-.*"} have points from 2026-11-30T02:58:03Z to 2026-11-30T03:12:03Z`},
	} {
		_, errs, code := runCLI(t, "", append([]string{"cost", "--usage", usage}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestCostRefusesOverflowAndMultiDoc: a usage of 1e308 (before: a total of
// +Inf USD a month, exit 0) and a usage file of two YAML documents (before:
// the second silently ignored) are input errors naming the file, the line
// and the item: exit 2, nothing on stdout.
func TestCostRefusesOverflowAndMultiDoc(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ yaml, want string }{
		{"region: us-west-2\nitems:\n  - {name: big, kind: transfer-cross-az, gb_per_hour: 1e308}\n",
			`u.yaml:3: item "big": gb_per_hour: 1e308: want at most 1e+15 (a larger usage is a typo, and its cost would overflow)`},
		{"region: us-west-2\nitems:\n  - {name: a, kind: nlb-lcu, nlcu: 1}\n---\nregion: us-east-1\nitems:\n  - {name: b, kind: nlb-lcu, nlcu: 2}\n",
			`u.yaml:4: a second YAML document (after ---): want one usage document; put all the items in one items list`},
	} {
		path := filepath.Join(dir, "u.yaml")
		if err := os.WriteFile(path, []byte(c.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := runCLI(t, "", "cost", "--usage", path)
		if want := "ldanalyze: " + filepath.Join(dir, c.want) + "\n"; code != 2 || out != "" || errOut != want {
			t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, %q", code, out, errOut, want)
		}
	}
	path := filepath.Join(dir, "u.yaml")
	if err := os.WriteFile(path, []byte("region: us-west-2\nitems:\n  - {name: big, kind: transfer-cross-az, gb_per_hour: 1e15}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "", "cost", "--usage", path, "--what-if", "big=1e300")
	if want := "ldanalyze: " + path + `:3: item "big": its cost is not a finite number of USD per hour (usage +Inf GB): want a smaller usage` + "\n"; code != 2 || out != "" || errOut != want {
		t.Errorf("what-if: exit %d, stdout %q, stderr %q; want 2, nothing, %q", code, out, errOut, want)
	}
}
