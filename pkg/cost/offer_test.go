package cost

import (
	"math"
	"os"
	"strings"
	"testing"
)

// TestReadOfferDataTransfer reads the hand-written AWSDataTransfer fixture
// (testdata/cost/README.md): inter-AZ 0.01/GB, internet egress 0–100 GB
// free then 0.09 / 0.085 / 0.07 / 0.05; the inter-region and us-east-1 rows
// are not taken.
func TestReadOfferDataTransfer(t *testing.T) {
	o, err := ReadOfferFile("../../testdata/cost/offer-datatransfer-us-west-2.json", "us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	if o.OfferCode != "AWSDataTransfer" || o.PublicationDate != "2026-11-01T00:00:00Z" {
		t.Errorf("header %q %q", o.OfferCode, o.PublicationDate)
	}
	if len(o.Prices) != 2 || len(o.Instances) != 0 {
		t.Fatalf("prices %v, instances %v: want inter-AZ and internet egress only", o.Prices, o.Instances)
	}
	az := o.Prices[KeyInterAZ]
	if az.USD != 0.01 || az.Unit != "GB" || az.Status != Verified || az.Source != "offer-file:AWSDataTransfer@2026-11-01T00:00:00Z" {
		t.Errorf("inter-AZ = %+v", az)
	}
	eg := o.Prices[KeyInternetEgress]
	if eg.USD != 0.09 || eg.FreeGBMonth != 100 || len(eg.Tiers) != 5 {
		t.Fatalf("egress = %+v: want 0.09 (first paid tier), 100 GB free, 5 bands", eg)
	}
	// 60,000 GB in a month with the fixture's bands, by hand:
	// 100 × 0 + 10,140 × 0.09 + 40,960 × 0.085 + 8,800 × 0.07
	// = 0 + 912.60 + 3,481.60 + 616.00 = 5,010.20.
	got, status := eg.TieredCost(60000)
	if math.Abs(got-5010.20) > 1e-6 || status != Verified {
		t.Errorf("60,000 GB = %.4f (%s), want 5010.20 (verified)", got, status)
	}
	if !math.IsInf(eg.Tiers[4].ToGBMonth, 1) {
		t.Errorf("last band ends at %g, want +Inf (endRange \"Inf\")", eg.Tiers[4].ToGBMonth)
	}
}

// TestOfferOverridesCatalogue: the EC2 offer for eu-west-1 supplies the
// t3.xlarge price the catalogue lacks there (0.1824/h in the fixture;
// Windows 0.3296 and Dedicated 0.2006 rows are skipped, so is the Reserved
// 0.114) and the NAT gateway prices, now verified.
func TestOfferOverridesCatalogue(t *testing.T) {
	o, err := ReadOfferFile("../../testdata/cost/offer-ec2-eu-west-1.json", "eu-west-1")
	if err != nil {
		t.Fatal(err)
	}
	in, ok := o.Instances["t3.xlarge"]
	if !ok || in.Price.USD != 0.1824 || in.VCPU != 4 || in.MemoryGiB != 16 || in.Price.Unit != "Hrs" {
		t.Fatalf("t3.xlarge = %+v, want 0.1824/h, 4 vCPU, 16 GiB", in)
	}
	if len(o.Instances) != 1 || len(o.Prices) != 2 || len(o.Warnings) != 0 {
		t.Errorf("instances %d, prices %d, warnings %q: want 1, 2 (NAT hour and GB), none", len(o.Instances), len(o.Prices), o.Warnings)
	}
	c := mustCatalog(t)
	keys := c.Override(o)
	if want := "ec2:t3.xlarge nat_gateway.hour nat_gateway.per_gb_processed"; strings.Join(keys, " ") != want {
		t.Errorf("overridden %q, want %q", keys, want)
	}
	u, err := ParseUsage([]byte(`region: eu-west-1
items:
  - {name: compute, kind: compute, vcpu: 3.3, memory_gib: 5.7, method: instance, instance: t3.xlarge}
  - {name: nat, kind: nat-gb, gb_per_hour: 10, hours: 1}
`), "u.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Compute(c, u, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// max(3.3/4, 5.7/16) = 0.825 of 0.1824 = 0.15048; NAT 10 × 0.048 + 0.048 = 0.528.
	near(t, "compute", rep.Items[0].USDPerHour, 0.15048, 1e-12)
	near(t, "nat", rep.Items[1].USDPerHour, 0.528, 1e-12)
	for _, l := range rep.Items {
		if l.Status != Verified || l.Source != "offer-file:AmazonEC2@2026-11-15T00:00:00Z" {
			t.Errorf("%s: status %s source %s, want verified from the offer file", l.Name, l.Status, l.Source)
		}
	}
	if len(rep.Warnings) != 0 {
		t.Errorf("warnings %q, want none", rep.Warnings)
	}
	// The catalogue's own NAT price for eu-west-1 (0.048, unverified) is
	// gone; the fresh default catalogue still has it.
	if p := mustCatalog(t).Regions["eu-west-1"].Prices[KeyNATHour]; p.Status != Unverified {
		t.Errorf("default catalogue changed: %+v", p)
	}
}

// TestReadOfferTermsFirst: terms before products (the order is not fixed
// by JSON) still join.
func TestReadOfferTermsFirst(t *testing.T) {
	const in = `{"offerCode":"AWSELB","publicationDate":"2026-10-01T00:00:00Z",
"terms":{"OnDemand":{"NLCU":{"NLCU.JRTCKXETXF":{"effectiveDate":"2026-10-01T00:00:00Z","priceDimensions":{"NLCU.JRTCKXETXF.6YS6EN2CT7":{"unit":"LCU-Hrs","beginRange":"0","endRange":"Inf","pricePerUnit":{"USD":"0.0060000000"}}}}}}},
"products":{"NLCU":{"sku":"NLCU","productFamily":"Load Balancer-Network","attributes":{"regionCode":"us-west-2","usagetype":"USW2-LCUUsage"}},
"ALBH":{"sku":"ALBH","productFamily":"Load Balancer-Application","attributes":{"regionCode":"us-west-2","usagetype":"USW2-LoadBalancerUsage"}}}}`
	o, err := ReadOffer(strings.NewReader(in), "elb.json", "us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	if p := o.Prices[KeyNLBNLCU]; p.USD != 0.006 || p.Unit != "LCU-Hrs" {
		t.Errorf("NLCU = %+v, want 0.006 per LCU-Hrs", p)
	}
	if _, ok := o.Prices[KeyALBHour]; ok || len(o.Prices) != 1 {
		t.Errorf("prices %v: want only the NLCU (the ALB hour has no term)", o.Prices)
	}
}

func TestReadOfferErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"offerCode":"AmazonEC2","products":{}, "terms":{}}`,
			`x.json: no on-demand price for region us-west-2 that ldanalyze uses (offer "AmazonEC2"): want an AmazonEC2, AWSDataTransfer, AWSELB or AmazonECS offer file for that region`},
		{`[1, 2]`, `x.json: found [: want "{"`},
		{`{"products": {"A": {"sku": 5}}}`, `x.json: json: cannot unmarshal number into Go struct field offerProduct.sku of type string`},
		{"{\"products\": {\n\"A\": {\"sku\": \"A\",, }}}", `x.json: invalid character ',' looking for beginning of object key string`},
		{`{"products": {`, `x.json: unexpected end of file: want a complete offer file`},
		{`{"products":{"N":{"productFamily":"NAT Gateway","attributes":{"regionCode":"us-west-2","usagetype":"USW2-NatGateway-Hours"}}},
"terms":{"OnDemand":{"N":{"N.T":{"priceDimensions":{"N.T.R":{"unit":"Hrs","pricePerUnit":{"USD":"free"}}}}}}}}`,
			`x.json: product N: price "free": want a finite number ≥ 0`},
	} {
		_, err := ReadOffer(strings.NewReader(tc.in), "x.json", "us-west-2")
		if err == nil || err.Error() != tc.want {
			t.Errorf("ReadOffer(%.40q)\n got error %v\nwant %s", tc.in, err, tc.want)
		}
	}
}

// TestReadOfferFileLine: a syntax error in a file names its line.
func TestReadOfferFileLine(t *testing.T) {
	path := t.TempDir() + "/bad.json"
	if err := os.WriteFile(path, []byte("{\n\"offerCode\": \"AmazonEC2\",\n\"products\": {\n  \"A\": {\"sku\": \"A\",, }\n}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadOfferFile(path, "us-west-2")
	want := path + ":4: invalid character ',' looking for beginning of object key string"
	if err == nil || err.Error() != want {
		t.Errorf("got error %v\nwant %s", err, want)
	}
}
