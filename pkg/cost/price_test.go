package cost

import (
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// workedExample prices testdata/cost/worked-example.yaml, the usage file of
// issue 8's worked example, with the embedded catalogue.
func workedExample(t *testing.T, opt Options) *Report {
	t.Helper()
	data, err := os.ReadFile("../../testdata/cost/worked-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	u, err := ParseUsage(data, "worked-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Compute(mustCatalog(t), u, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func mustCatalog(t testing.TB) *Catalog {
	t.Helper()
	c, err := DefaultCatalog()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func priceOf(t *testing.T, yaml string, opt Options) *Report {
	t.Helper()
	u, err := ParseUsage([]byte(yaml), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Compute(mustCatalog(t), u, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > tol {
		t.Errorf("%s = %.6f, want %.6f ± %g", what, got, want, tol)
	}
}

// cents rounds USD to the cent, as the worked example prints.
func cents(usd float64) float64 { return math.Round(usd*100) / 100 }

// TestWorkedExample reproduces the table of issue 8 (us-west-2, 30,000
// players): $2.89, $1.37, $0.18, $0.11, $0.11, total $4.66 per hour.
func TestWorkedExample(t *testing.T) {
	rep := workedExample(t, Options{})
	// The issue's figures, to the cent; the exact products are hand-checked:
	// 144.5×0.02 = 2.89, 15.2×0.09 = 1.368, 9.2×0.02 = 0.184, 18×0.006 =
	// 0.108, 3.3×0.028904 + 5.7×0.0031739 = 0.113476.
	want := []struct {
		name         string
		exact, issue float64
		status       Status
		unitPriceUSD float64
	}{
		{"snapshots to Redis", 2.89, 2.89, Verified, 0.02},
		{"sent to phones", 1.368, 1.37, Verified, 0.09},
		{"load balancer to game pods", 0.184, 0.18, Verified, 0.02},
		{"network load balancer", 0.108, 0.11, Verified, 0.006},
		{"compute", 0.113476, 0.11, Secondary, 0.028904},
	}
	if len(rep.Items) != len(want) {
		t.Fatalf("%d items, want %d", len(rep.Items), len(want))
	}
	for i, w := range want {
		l := rep.Items[i]
		if l.Name != w.name {
			t.Errorf("item %d = %q, want %q", i, l.Name, w.name)
		}
		near(t, w.name+" USD/h", l.USDPerHour, w.exact, 1e-6)
		near(t, w.name+" USD/h to the cent", cents(l.USDPerHour), w.issue, 1e-9)
		near(t, w.name+" unit price", l.UnitPriceUSD, w.unitPriceUSD, 1e-6)
		if l.Status != w.status {
			t.Errorf("%s status %s, want %s", w.name, l.Status, w.status)
		}
	}
	// Total: 2.89 + 1.368 + 0.184 + 0.108 + 0.113476 = 4.663476 (issue: $4.66;
	// acceptance contract: 4.6635 ± 0.2 %).
	near(t, "total", rep.TotalUSDPerHour, 4.663476, 1e-6)
	near(t, "total to the cent", cents(rep.TotalUSDPerHour), 4.66, 1e-9)
	if rep.Dominant != "snapshots to Redis" {
		t.Errorf("dominant = %q, want snapshots to Redis", rep.Dominant)
	}
	near(t, "dominant share % (2.89/4.663476)", rep.DominantSharePct, 61.9709, 1e-4)
	if len(rep.Warnings) != 0 {
		t.Errorf("warnings %q, want none (every price used is verified or secondary)", rep.Warnings)
	}
	// Per month at 730 h: hourly × 730 except egress, 15.2×730 = 11,096 GB
	// in the month: 10,240×0.09 + 856×0.085 = 921.60 + 72.76 = 994.36.
	near(t, "egress per month", rep.Items[1].USDPerMonth, 994.36, 1e-6)
	near(t, "total per month", rep.TotalUSDPerMonth, (4.663476-1.368)*730+994.36, 1e-3)
}

// TestWorkedExampleWhatIf: gzipped snapshots written at most every 2 s cut
// snapshot cost by factor 0.09 to $0.26/h, total $2.03/h (issue 8).
func TestWorkedExampleWhatIf(t *testing.T) {
	rep := workedExample(t, Options{WhatIf: []WhatIf{{Name: "snapshots to Redis", Factor: 0.09}}, RunHours: 0.1})
	l := rep.Items[0]
	near(t, "snapshots USD/h", l.USDPerHour, 2.89*0.09, 1e-9) // 0.2601
	near(t, "snapshots to the cent", cents(l.USDPerHour), 0.26, 1e-9)
	near(t, "snapshots usage GB/h", l.Usage, 144.5*0.09, 1e-9)
	// 4.663476 − 2.89 + 0.2601 = 2.033576 (issue: $2.03; acceptance 2.0336).
	near(t, "total", rep.TotalUSDPerHour, 2.033576, 1e-6)
	near(t, "total to the cent", cents(rep.TotalUSDPerHour), 2.03, 1e-9)
	if rep.Dominant != "sent to phones" {
		t.Errorf("dominant = %q, want sent to phones", rep.Dominant)
	}
	// Six minutes of peak cost 0.1 h × 2.033576.
	near(t, "run USD", rep.RunUSD, 0.2033576, 1e-6)
}

// TestSplitInstancePrice checks the fargate-ratio split by hand:
// r = 0.04048/0.004445 = 9.106862; GiB price = 0.1664/(4r+16) =
// 0.1664/52.427447 = 0.0031739; vCPU price = r × that = 0.0289044. The
// worked example states ≈ $0.0289/vCPU-h and $0.00317/GiB-h (research note
// §1 rounds the vCPU figure to 0.02891).
func TestSplitInstancePrice(t *testing.T) {
	v, g := SplitInstancePrice(0.1664, 4, 16, 0.04048/0.004445)
	near(t, "vCPU price", v, 0.0289044, 1e-7)
	near(t, "GiB price", g, 0.0031739, 1e-7)
	near(t, "vCPU price, issue's figure", v, 0.0289, 5e-5)
	near(t, "GiB price, issue's figure", g, 0.00317, 5e-6)
	// The parts add back to the instance price.
	near(t, "4 vCPU + 16 GiB", 4*v+16*g, 0.1664, 1e-12)
}

// TestComputeMethods prices the example's 3.3 vCPU and 5.7 GiB with every
// method (us-west-2 catalogue: t3.xlarge 0.1664/h, 4 vCPU, 16 GiB; Fargate
// x86 0.04048/vCPU-h, 0.004445/GB-h).
func TestComputeMethods(t *testing.T) {
	for _, tc := range []struct {
		method, extra string
		want          float64
		why           string
	}{
		{"fargate", "", 3.3*0.04048 + 5.7*0.004445, "Fargate prices: 0.133584 + 0.025337 = 0.158921"},
		{"fargate", ", arch: arm64", 3.3*0.03238 + 5.7*0.00356, "Fargate ARM (unverified in us-west-2): 0.106854 + 0.020292"},
		{"instance", ", instance: t3.xlarge", 0.825 * 0.1664, "share max(3.3/4, 5.7/16) = 0.825 of 0.1664 = 0.13728"},
		{"opencost-ratio", ", instance: t3.xlarge", 0.110058, "research note §5: 0.02708/vCPU-h, 0.00363/GiB-h, line 0.110"},
		{"fargate-ratio", ", instance: t3.xlarge", 0.113476, "the worked example"},
	} {
		rep := priceOf(t, "region: us-west-2\nitems:\n  - {name: c, kind: compute, vcpu: 3.3, memory_gib: 5.7, method: "+tc.method+tc.extra+"}\n", Options{})
		near(t, tc.method+tc.extra+" ("+tc.why+")", rep.TotalUSDPerHour, tc.want, 1e-5)
	}
	rep := priceOf(t, "region: us-west-2\nitems:\n  - {name: c, kind: compute, method: instance, instance: m5.large, hours: 3}\n", Options{})
	near(t, "3 m5.large (0.096/h, inferred)", rep.TotalUSDPerHour, 0.288, 1e-12)
	if rep.Items[0].Status != Inferred {
		t.Errorf("m5.large status %s, want inferred (US-East/Oregon parity)", rep.Items[0].Status)
	}
}

// TestKinds checks the other kinds' arithmetic by hand (us-west-2
// catalogue prices named in each case).
func TestKinds(t *testing.T) {
	for _, tc := range []struct {
		item string
		want float64
		why  string
	}{
		{"{name: x, kind: transfer-cross-az, gb_per_hour: 144.5, cross_zone_fraction: 0.5}", 1.445, "144.5 × 0.5 × 2 × 0.01"},
		{"{name: x, kind: transfer-cross-az, mbps: 322}", 2.898, "322 Mbps × 0.45 = 144.9 GB/h × 0.02"},
		{"{name: x, kind: transfer-internet-out, bytes_per_second: 1e6}", 0.324, "10^6 B/s = 3.6 GB/h × 0.09"},
		{"{name: x, kind: transfer-cross-region, gb_per_hour: 10}", 0.2, "10 × 0.02 (secondary)"},
		{"{name: x, kind: nlb-lcu, nlcu: 18, hours: 1}", 0.1305, "18 × 0.006 + 1 × 0.0225 (NLB hour unverified)"},
		{"{name: x, kind: alb-lcu, lcu: 10, hours: 2}", 0.125, "10 × 0.008 + 2 × 0.0225"},
		{"{name: x, kind: nat-gb, gb_per_hour: 100, hours: 3}", 4.635, "100 × 0.045 + 3 × 0.045"},
		{"{name: x, kind: fixed-hourly, usd_per_hour: 1.25}", 1.25, "given"},
		{"{name: x, kind: fixed-hourly, price: eks.cluster_hour.standard_support, hours: 2}", 0.2, "2 × 0.10 EKS (global)"},
	} {
		rep := priceOf(t, "region: us-west-2\nitems:\n  - "+tc.item+"\n", Options{})
		near(t, tc.item+" ("+tc.why+")", rep.TotalUSDPerHour, tc.want, 1e-9)
	}
}

// TestTieredCost checks the monthly egress tiers of the us-west-2
// catalogue (0.09 to 10,240 GB, 0.085 to 51,200, 0.07 to 153,600, then 0.05)
// against hand arithmetic.
func TestTieredCost(t *testing.T) {
	r, err := mustCatalog(t).Region("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	p := r.Prices[KeyInternetEgress]
	for _, tc := range []struct {
		gb, want float64
		status   Status
		why      string
	}{
		{0, 0, Verified, "nothing"},
		{1000, 90, Verified, "1,000 × 0.09"},
		{10240, 921.60, Verified, "10,240 × 0.09, the top of tier 1"},
		{11096, 994.36, Secondary, "921.60 + 856 × 0.085"},
		{60000, 5019.20, Unverified, "921.60 + 40,960 × 0.085 + 8,800 × 0.07 = 921.60 + 3,481.60 + 616.00"},
		{200000, 13891.20, Unverified, "921.60 + 3,481.60 + 102,400 × 0.07 + 46,400 × 0.05 = 921.60 + 3,481.60 + 7,168 + 2,320"},
	} {
		got, status := p.TieredCost(tc.gb)
		near(t, tc.why, got, tc.want, 1e-6)
		if status != tc.status {
			t.Errorf("%g GB: worst status %s, want %s", tc.gb, status, tc.status)
		}
	}
	// Through Compute: 60,000 GB in a 730 h month, split over two items
	// 2:1, and the unverified 0.07 tier is named in the warnings.
	gb := 60000.0 / 730
	rep := priceOf(t, "region: us-west-2\nitems:\n"+
		"  - {name: a, kind: transfer-internet-out, gb_per_hour: "+ftoa(gb*2/3)+"}\n"+
		"  - {name: b, kind: transfer-internet-out, gb_per_hour: "+ftoa(gb/3)+"}\n", Options{})
	near(t, "a per month", rep.Items[0].USDPerMonth, 5019.20*2/3, 1e-6)
	near(t, "b per month", rep.Items[1].USDPerMonth, 5019.20/3, 1e-6)
	near(t, "per hour at tier 1", rep.TotalUSDPerHour, gb*0.09, 1e-9)
	if !hasWarning(rep, "monthly internet egress") {
		t.Errorf("warnings %q: want the unverified egress tier named", rep.Warnings)
	}
}

// TestProjection: --project 30000:100000 scales linear items by 10/3,
// items with exponent 2 by (10/3)^2, and leaves fixed hourly charges.
func TestProjection(t *testing.T) {
	rep := priceOf(t, `region: us-west-2
items:
  - {name: linear, kind: transfer-cross-az, gb_per_hour: 100}
  - {name: square, kind: transfer-cross-az, gb_per_hour: 100, exponent: 2}
  - {name: nlb, kind: nlb-lcu, nlcu: 18, hours: 1}
  - {name: eks, kind: fixed-hourly, price: eks.cluster_hour.standard_support}
`, Options{Projection: &Projection{From: 30000, To: 100000}})
	k := 100000.0 / 30000
	near(t, "linear", rep.Items[0].USDPerHour, 2*k, 1e-9)            // 100 GB × 0.02 × 10/3
	near(t, "square", rep.Items[1].USDPerHour, 2*k*k, 1e-9)          // × (10/3)^2
	near(t, "nlb", rep.Items[2].USDPerHour, 18*k*0.006+0.0225, 1e-9) // NLCU scale, the LB hour does not
	near(t, "eks", rep.Items[3].USDPerHour, 0.10, 1e-12)             // fixed-hourly: exponent 0
	if !hasWarning(rep, "nlb.hour in us-west-2") {
		t.Errorf("warnings %q: want the unverified NLB hour named", rep.Warnings)
	}
}

func TestUnverifiedWarning(t *testing.T) {
	rep := priceOf(t, "region: eu-west-1\nitems:\n  - {name: lb, kind: nlb-lcu, nlcu: 18}\n", Options{})
	near(t, "eu-west-1 NLB", rep.TotalUSDPerHour, 0.108, 1e-12)
	if rep.Items[0].Status != Unverified {
		t.Errorf("status %s, want unverified", rep.Items[0].Status)
	}
	want := "unverified price: nlb.nlcu_hour in eu-west-1 = 0.006 USD per NLCU-h (source: memory); check it or pass --offer-file"
	if len(rep.Warnings) != 1 || rep.Warnings[0] != want {
		t.Errorf("warnings %q, want [%q]", rep.Warnings, want)
	}
}

func TestComputeErrors(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		opt  Options
		want string
	}{
		{"region: mars-1\nitems:\n  - {name: a, kind: nlb-lcu, nlcu: 1}\n", Options{},
			`test.yaml:1: unknown region "mars-1": want one of [ap-northeast-1 ap-southeast-1 eu-central-1 eu-west-1 us-east-1 us-east-2 us-west-2] (or add it with --offer-file)`},
		{"items:\n  - {name: a, kind: nlb-lcu, nlcu: 1}\n", Options{},
			`test.yaml: no region: want region: <code> in the usage file or --region`},
		{"region: eu-west-1\nitems:\n  - {name: a, kind: nlb-lcu, nlcu: 1}\n  - {name: c, kind: compute, vcpu: 1, memory_gib: 2, method: fargate-ratio, instance: t3.xlarge}\n", Options{},
			`test.yaml:4: item "c": no EC2 price for t3.xlarge in eu-west-1: No verified per-instance source for this region in the stored corpora; ingest an AWS offer file (AmazonEC2/current/<region>/index.json) instead.`},
		{"region: us-west-2\nitems:\n  - {name: c, kind: compute, vcpu: 1, memory_gib: 2, method: instance, instance: t9.huge}\n", Options{},
			`test.yaml:3: item "c": no EC2 price for instance type "t9.huge" in us-west-2 (add it with --offer-file AmazonEC2)`},
		{"region: us-west-2\nitems:\n  - {name: a, kind: nlb-lcu, nlcu: 1}\n", Options{WhatIf: []WhatIf{{Name: "b", Factor: 0.5}}},
			`test.yaml: --what-if "b": no item of that name (items: "a")`},
		{"region: us-west-2\nitems:\n  - {name: f, kind: fixed-hourly, price: nope}\n", Options{},
			`test.yaml:3: item "f": no catalogue price "nope": want a key of the region (alb.hour, alb.lcu_hour, data_transfer.inter_az.per_gb_each_direction, data_transfer.inter_region_out.per_gb, data_transfer.internet_egress, ebs.gp3.gb_month, ebs.gp3.iops_month_above_3000, ebs.gp3.mbps_month_above_125, fargate.linux_arm.gb_hour, fargate.linux_arm.vcpu_hour, fargate.linux_x86.gb_hour, fargate.linux_x86.vcpu_hour, nat_gateway.hour, nat_gateway.per_gb_processed, nlb.hour, nlb.nlcu_hour) or a global key (eks.cluster_hour.extended_support, eks.cluster_hour.standard_support)`},
		{"region: us-west-2\nitems:\n  - {name: a, kind: nlb-lcu, nlcu: 1}\n", Options{Region: "eu-north-9"},
			`test.yaml: unknown region "eu-north-9": want one of [ap-northeast-1 ap-southeast-1 eu-central-1 eu-west-1 us-east-1 us-east-2 us-west-2] (or add it with --offer-file)`},
	} {
		u, err := ParseUsage([]byte(tc.yaml), "test.yaml")
		if err != nil {
			t.Fatal(err)
		}
		_, err = Compute(mustCatalog(t), u, tc.opt)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Compute(%q)\n got error %v\nwant %s", tc.yaml, err, tc.want)
		}
	}
}

func TestParseWhatIfProjection(t *testing.T) {
	w, err := ParseWhatIf("a=b=0.5")
	if err != nil || w.Name != "a=b" || w.Factor != 0.5 {
		t.Errorf("ParseWhatIf(a=b=0.5) = %+v, %v; want name a=b, factor 0.5", w, err)
	}
	for _, s := range []string{"x", "=1", "x=-1", "x=NaN", "x=inf", "x=y"} {
		if _, err := ParseWhatIf(s); err == nil {
			t.Errorf("ParseWhatIf(%q): no error", s)
		}
	}
	p, err := ParseProjection("30000:100000")
	if err != nil || p.From != 30000 || p.To != 100000 {
		t.Errorf("ParseProjection = %+v, %v", p, err)
	}
	for _, s := range []string{"", "1", "0:5", "5:-1", "a:b", "1:inf"} {
		if _, err := ParseProjection(s); err == nil {
			t.Errorf("ParseProjection(%q): no error", s)
		}
	}
	_, err = ParseWhatIf("x=-1")
	if want := `--what-if "x=-1": factor "-1": want a finite number ≥ 0`; err == nil || err.Error() != want {
		t.Errorf("ParseWhatIf(x=-1) error %v, want %s", err, want)
	}
}

func hasWarning(rep *Report, sub string) bool {
	for _, w := range rep.Warnings {
		if strings.Contains(w, sub) {
			return true
		}
	}
	return false
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// TestParseWhatIf: NAME=FACTOR, the factor optionally after a
// multiplication sign (×, x, X or *); the last '=' splits; bad factors are
// refused with the value as written (exact messages).
func TestParseWhatIf(t *testing.T) {
	for _, c := range []struct {
		in, name string
		factor   float64
		err      string
	}{
		{"snapshots to Redis=0.09", "snapshots to Redis", 0.09, ""},
		{"snapshots to Redis=×0.09", "snapshots to Redis", 0.09, ""},
		{"a=b= x 2", "a=b", 2, ""},
		{"nat=*0", "nat", 0, ""},
		{"nat=X1.5", "nat", 1.5, ""},
		{"snapshots", "", 0, `--what-if "snapshots": want NAME=FACTOR, e.g. 'snapshots to Redis=0.09'`},
		{"=0.5", "", 0, `--what-if "=0.5": want NAME=FACTOR, e.g. 'snapshots to Redis=0.09'`},
		{"nat=×-1", "", 0, `--what-if "nat=×-1": factor "×-1": want a finite number ≥ 0`},
		{"nat=xNaN", "", 0, `--what-if "nat=xNaN": factor "xNaN": want a finite number ≥ 0`},
	} {
		w, err := ParseWhatIf(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || w.Name != c.name || w.Factor != c.factor {
			t.Errorf("%q: %+v, %v; want %s × %v", c.in, w, err, c.name, c.factor)
		}
	}
}

// TestComputeNotFinite: a usage within MaxQuantity that a --what-if factor
// takes past float64 is refused naming the item (before: +Inf USD, exit 0),
// and the error is ErrNotFinite.
func TestComputeNotFinite(t *testing.T) {
	cat, err := DefaultCatalog()
	if err != nil {
		t.Fatal(err)
	}
	u, err := ParseUsage([]byte("region: us-west-2\nitems:\n  - {name: big, kind: transfer-cross-az, gb_per_hour: 1e15}\n"), "u.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Compute(cat, u, Options{WhatIf: []WhatIf{{Name: "big", Factor: 1e300}}})
	if want := `u.yaml:3: item "big": its cost is not a finite number of USD per hour (usage +Inf GB): want a smaller usage`; err == nil || err.Error() != want || !errors.Is(err, ErrNotFinite) {
		t.Errorf("got %v, want %s (ErrNotFinite)", err, want)
	}
}
