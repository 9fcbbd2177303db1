package cost

import (
	"fmt"
	"os"
	"testing"
)

// TestCatalogSources: every price of the embedded catalogue names a source
// the catalogue describes and one of the four statuses.
func TestCatalogSources(t *testing.T) {
	c := mustCatalog(t)
	if c.Generated != "2026-11-30" || c.HoursPerMonth != 730 {
		t.Errorf("generated %q, %g h/month; want 2026-11-30, 730", c.Generated, c.HoursPerMonth)
	}
	check := func(where string, p Price) {
		if _, ok := c.Sources[p.Source]; !ok {
			t.Errorf("%s %s: source %q is not in sources", where, p.Key, p.Source)
		}
		switch p.Status {
		case Verified, Secondary, Inferred, Unverified:
		default:
			t.Errorf("%s %s: status %q", where, p.Key, p.Status)
		}
		if !(p.USD >= 0) {
			t.Errorf("%s %s: price %g", where, p.Key, p.USD)
		}
	}
	for _, p := range c.Global {
		check("global", p)
	}
	if len(c.Regions) != 7 {
		t.Errorf("%d regions, want 7", len(c.Regions))
	}
	for code, r := range c.Regions {
		for _, k := range []string{KeyInterAZ, KeyInternetEgress, KeyInterRegion, KeyALBHour, KeyALBLCU, KeyNLBHour, KeyNLBNLCU, KeyNATHour, KeyNATGB, KeyFargateX86VCPU, KeyFargateX86GB, KeyFargateARMVCPU, KeyFargateARMGB} {
			p, err := r.Price(k)
			if err != nil {
				t.Error(err)
				continue
			}
			check(code, p)
		}
		for _, in := range r.Instances {
			check(code, in.Price)
		}
	}
}

// TestCatalogWorkedExamplePrices: the us-west-2 figures the worked example
// states (research note §1) are in the catalogue as verified, source "post".
func TestCatalogWorkedExamplePrices(t *testing.T) {
	r, err := mustCatalog(t).Region("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]float64{KeyInterAZ: 0.01, KeyInternetEgress: 0.09, KeyNLBNLCU: 0.006} {
		p := r.Prices[key]
		if p.USD != want || p.Status != Verified || p.Source != "post" {
			t.Errorf("%s = %+v, want %g verified from the post", key, p, want)
		}
	}
	in, err := r.Instance("t3.xlarge")
	if err != nil || in.Price.USD != 0.1664 || in.VCPU != 4 || in.MemoryGiB != 16 || in.Price.Status != Verified {
		t.Errorf("t3.xlarge = %+v, %v; want 0.1664/h, 4 vCPU, 16 GiB, verified", in, err)
	}
}

func TestParseCatalogErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{`, "c.json: unexpected end of JSON input"},
		{`{"schema": "v0"}`, `c.json: schema "v0": want ldanalyze-aws-pricing/v1`},
		{`{"schema": "ldanalyze-aws-pricing/v1", "regions": {"x": {"items": {"k": {"price_usd": 1}}}}}`, "c.json: region x: k: price without source or status"},
		{`{"schema": "ldanalyze-aws-pricing/v1", "regions": {"x": {"items": {"k": {"status": "verified", "source": "s"}}}}}`, "c.json: region x: k: price without price_usd"},
	} {
		_, err := ParseCatalog([]byte(tc.in), "c.json")
		if err == nil || err.Error() != tc.want {
			t.Errorf("ParseCatalog(%q) error %v, want %s", tc.in, err, tc.want)
		}
	}
}

// ExampleCompute prices the worked example of issue 8 and its what-if.
func ExampleCompute() {
	data, err := os.ReadFile("../../testdata/cost/worked-example.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	u, err := ParseUsage(data, "worked-example.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	cat, err := DefaultCatalog()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, opt := range []Options{{}, {WhatIf: []WhatIf{{Name: "snapshots to Redis", Factor: 0.09}}}} {
		rep, err := Compute(cat, u, opt)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, l := range rep.Items {
			fmt.Printf("%-27s %-24s $%.2f/h\n", l.Name, l.UsageText, l.USDPerHour)
		}
		fmt.Printf("total $%.2f/h, dominant %s\n", rep.TotalUSDPerHour, rep.Dominant)
	}
	// Output:
	// snapshots to Redis          144.5 GB                 $2.89/h
	// sent to phones              15.2 GB                  $1.37/h
	// load balancer to game pods  9.2 GB                   $0.18/h
	// network load balancer       18 NLCU-h                $0.11/h
	// compute                     3.3 vCPU-h + 5.7 GiB-h   $0.11/h
	// total $4.66/h, dominant snapshots to Redis
	// snapshots to Redis          13.005 GB                $0.26/h
	// sent to phones              15.2 GB                  $1.37/h
	// load balancer to game pods  9.2 GB                   $0.18/h
	// network load balancer       18 NLCU-h                $0.11/h
	// compute                     3.3 vCPU-h + 5.7 GiB-h   $0.11/h
	// total $2.03/h, dominant sent to phones
}
