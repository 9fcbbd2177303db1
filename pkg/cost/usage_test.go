package cost

import (
	"math"
	"os"
	"reflect"
	"testing"
)

func TestParseUsageWorkedExample(t *testing.T) {
	data, err := os.ReadFile("../../testdata/cost/worked-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	u, err := ParseUsage(data, "worked-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if u.Region != "us-west-2" || u.RegionLine != 3 || len(u.Items) != 5 {
		t.Fatalf("region %q line %d, %d items; want us-west-2, line 3, 5 items", u.Region, u.RegionLine, len(u.Items))
	}
	c := u.Items[4]
	want := Item{Name: "compute", Kind: KindCompute, Line: 9, VCPU: 3.3, MemoryGiB: 5.7, Method: MethodFargateRatio, Instance: "t3.xlarge", Arch: "x86_64", Exponent: 1}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("item 5 = %+v\nwant %+v", c, want)
	}
	if s := u.Items[0]; s.GBPerHour != 144.5 || s.CrossZoneFraction != 1 || s.Line != 5 {
		t.Errorf("item 1 = %+v, want 144.5 GB/h, fraction 1, line 5", s)
	}
}

// TestParseUsageUnits: Mbps × 0.45 and bytes/s × 3600/10^9 give GB per hour
// (322 Mbps ≈ 145 GB/h, research note §1).
func TestParseUsageUnits(t *testing.T) {
	u, err := ParseUsage([]byte(`region: us-west-2
items:
  - {name: a, kind: transfer-cross-az, mbps: 322}
  - {name: b, kind: nat-gb, bytes_per_second: 40250000}
`), "u.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := u.Items[0].GBPerHour; math.Abs(got-144.9) > 1e-9 {
		t.Errorf("322 Mbps = %g GB/h, want 144.9", got)
	}
	if got := u.Items[1].GBPerHour; math.Abs(got-144.9) > 1e-9 {
		t.Errorf("40,250,000 B/s = %g GB/h, want 144.9", got)
	}
}

// TestParseUsageErrors: every bad input names the file, the line and what
// was expected.
func TestParseUsageErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "u.yaml: empty usage file: want a mapping with region and items"},
		{"- a\n- b\n", "u.yaml:1: want a mapping with region and items"},
		{"region: us-west-2\nitems: [\n", "u.yaml:2: did not find expected node content"},
		{"region: us-west-2\n  items: x\n", "u.yaml:2: mapping values are not allowed in this context"},
		{"region: us-west-2\n", "u.yaml:1: missing items: want a list of line items"},
		{"region: us-west-2\nitems: []\n", "u.yaml:2: items: want a non-empty list of line items"},
		{"region: us-west-2\nregoin: x\nitems: []\n", `u.yaml:2: unknown field "regoin": want region or items`},
		{"region: [a]\nitems: []\n", "u.yaml:1: region: want a region code such as us-west-2"},
		{"region: us-west-2\nitems:\n  - 5\n", "u.yaml:3: item: want a mapping such as {name: x, kind: transfer-cross-az, gb_per_hour: 1}"},
		{"region: us-west-2\nitems:\n  - {kind: nlb-lcu, nlcu: 1}\n", "u.yaml:3: item without name: want name: <text>"},
		{"region: us-west-2\nitems:\n  - {name: a, nlcu: 1}\n", `u.yaml:3: item "a" without kind: want kind: one of transfer-cross-az, transfer-internet-out, transfer-cross-region, nlb-lcu, alb-lcu, nat-gb, compute, fixed-hourly`},
		{"region: us-west-2\nitems:\n  - name: a\n    kind: s3-get\n", `u.yaml:4: item "a": unknown kind "s3-get": want one of transfer-cross-az, transfer-internet-out, transfer-cross-region, nlb-lcu, alb-lcu, nat-gb, compute, fixed-hourly`},
		{"region: us-west-2\nitems:\n  - {name: a, kind: nlb-lcu}\n", `u.yaml:3: item "a" (nlb-lcu) without nlcu: want nlcu: <NLCU per hour>`},
		{"region: us-west-2\nitems:\n  - name: a\n    kind: nlb-lcu\n    nlcu: -3\n", `u.yaml:5: item "a": nlcu: -3: want a number ≥ 0`},
		{"region: us-west-2\nitems:\n  - name: a\n    kind: nlb-lcu\n    nlcu: .nan\n", `u.yaml:5: item "a": nlcu: .nan: want a finite number`},
		{"region: us-west-2\nitems:\n  - name: a\n    kind: nlb-lcu\n    nlcu: lots\n", `u.yaml:5: item "a": nlcu: "lots" is not a number`},
		{"region: us-west-2\nitems:\n  - name: a\n    kind: nlb-lcu\n    nlcu: 1\n    gb_per_hour: 3\n", `u.yaml:6: item "a": field gb_per_hour does not apply to kind nlb-lcu: want nlcu, series, hours, exponent, exponent_from`},
		{"region: us-west-2\nitems:\n  - {name: a, kind: transfer-cross-az}\n", `u.yaml:3: item "a" (transfer-cross-az) without a transfer rate: want one of gb_per_hour, mbps, bytes_per_second, series`},
		{"region: us-west-2\nitems:\n  - {name: a, kind: transfer-cross-az, gb_per_hour: 1, mbps: 2}\n", `u.yaml:3: item "a": both gb_per_hour and mbps given: want one transfer rate`},
		{"region: us-west-2\nitems:\n  - {name: a, kind: transfer-cross-az, gb_per_hour: 1, cross_zone_fraction: 2}\n", `u.yaml:3: item "a": cross_zone_fraction 2: want a share from 0 to 1`},
		{"region: us-west-2\nitems:\n  - {name: a, kind: compute, vcpu: 1, memory_gib: 1}\n", `u.yaml:3: item "a" (compute) without method: want method: one of fargate-ratio, opencost-ratio, fargate, instance`},
		{"region: us-west-2\nitems:\n  - {name: a, kind: compute, vcpu: 1, memory_gib: 1, method: spot}\n", `u.yaml:3: item "a": unknown method "spot": want one of fargate-ratio, opencost-ratio, fargate, instance`},
		{"region: us-west-2\nitems:\n  - {name: a, kind: compute, vcpu: 1, memory_gib: 1, method: fargate-ratio}\n", `u.yaml:3: item "a" (compute, method fargate-ratio) without instance: want instance: <EC2 type such as t3.xlarge>`},
		{"region: us-west-2\nitems:\n  - {name: a, kind: compute, vcpu: 1, method: fargate}\n", `u.yaml:3: item "a" (compute) without memory_gib: want memory_gib: <GiB used>`},
		{"region: us-west-2\nitems:\n  - {name: a, kind: compute, vcpu: 1, memory_gib: 1, method: fargate, arch: sparc}\n", `u.yaml:3: item "a": unknown arch "sparc": want x86_64 or arm64`},
		{"region: us-west-2\nitems:\n  - {name: a, kind: fixed-hourly}\n", `u.yaml:3: item "a" (fixed-hourly): want exactly one of usd_per_hour: <USD per hour> or price: <catalogue key>`},
		{"region: us-west-2\nitems:\n  - {name: a, kind: nlb-lcu, nlcu: 1}\n  - {name: a, kind: nlb-lcu, nlcu: 2}\n", `u.yaml:4: duplicate item name "a" (first on line 3): names must be unique for --what-if`},
		{"region: us-west-2\nitems:\n  - {name: a, kind: nlb-lcu, nlcu: 1, nlcu: 2}\n", `u.yaml:3: field nlcu given twice`},
		// A usage whose cost overflows (before: +Inf USD per month, rc 0),
		// +Inf (before: "is not a number") and a second document (before:
		// silently ignored).
		{"region: us-west-2\nitems:\n  - {name: big, kind: transfer-cross-az, gb_per_hour: 1e308}\n", `u.yaml:3: item "big": gb_per_hour: 1e308: want at most 1e+15 (a larger usage is a typo, and its cost would overflow)`},
		{"region: us-west-2\nitems:\n  - {name: inf, kind: transfer-cross-az, gb_per_hour: +Inf}\n", `u.yaml:3: item "inf": gb_per_hour: +Inf: want a finite number`},
		{"region: us-west-2\nitems:\n  - {name: a, kind: nlb-lcu, nlcu: 1}\n---\nregion: us-east-1\nitems:\n  - {name: b, kind: nlb-lcu, nlcu: 2}\n", `u.yaml:4: a second YAML document (after ---): want one usage document; put all the items in one items list`},
		{"region: us-west-2\nitems:\n  - {name: a, kind: nlb-lcu, nlcu: 1}\n---\n- [\n", `u.yaml:5: did not find expected node content`},
	} {
		_, err := ParseUsage([]byte(tc.in), "u.yaml")
		if err == nil || err.Error() != tc.want {
			t.Errorf("ParseUsage(%q)\n got error %v\nwant %s", tc.in, err, tc.want)
		}
	}
}

// TestResolveExponents: exponent_from takes "exponent" from a scale --fit
// JSON (here 1.62, typed by hand) relative to the usage file.
func TestResolveExponents(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/fit.json", []byte(`{"exponent": 1.62, "r2": 0.99, "warnings": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/bad.json", []byte(`{"r2": 0.99}`), 0o644); err != nil {
		t.Fatal(err)
	}
	u, err := ParseUsage([]byte("region: us-west-2\nitems:\n  - {name: a, kind: transfer-cross-az, gb_per_hour: 1, exponent_from: fit.json}\n"), "u.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := u.ResolveExponents(dir); err != nil || u.Items[0].Exponent != 1.62 {
		t.Errorf("exponent %g, %v; want 1.62", u.Items[0].Exponent, err)
	}
	u.Items[0].ExponentFile = "bad.json"
	err = u.ResolveExponents(dir)
	want := `u.yaml:3: item "a": exponent_from ` + dir + `/bad.json: want the JSON of "ldanalyze scale --fit" with a finite "exponent"`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	if _, err := ParseUsage([]byte("region: us-west-2\nitems:\n  - {name: a, kind: nlb-lcu, nlcu: 1, exponent: 1, exponent_from: f}\n"), "u.yaml"); err == nil ||
		err.Error() != `u.yaml:3: item "a": both exponent and exponent_from given: want one` {
		t.Errorf("error %v", err)
	}
}
