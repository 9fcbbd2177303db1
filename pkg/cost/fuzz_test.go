package cost

import (
	"bytes"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Seeds are small on purpose. The fuzzer minimizes every new input it
// keeps, in time quadratic in the input's length, for up to
// -fuzzminimizetime (60 s by default) during which it runs nothing else:
// seeded with the 7 KB offer fixtures and the 554-byte worked example,
// FuzzReadOffer and FuzzParseUsage ran 4–6 inputs a minute (issue 21).
// The fixtures are read whole by the table tests instead.

// finite reports whether v is a finite number ≥ 0.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 }

// FuzzParseUsage: a parsed usage file has only finite, non-negative
// usage, known kinds, methods and architectures, unique non-empty names,
// shares within 0–1 and item lines that exist in the input.
func FuzzParseUsage(f *testing.F) {
	for _, s := range []string{
		"region: us-west-2\nitems:\n  - {name: a, kind: transfer-cross-az, gb_per_hour: 1.5, cross_zone_fraction: 0.5}\n",
		"items:\n  - {name: c, kind: compute, vcpu: 2, memory_gib: 4, method: fargate-ratio, instance: t3.xlarge}\n  - {name: f, kind: fixed-hourly, price: eks.x}\n",
		"items:\n  - {name: n, kind: nlb-lcu, nlcu: 1e400}\n",
		"items: [{name: x, kind: fixed-hourly, usd_per_hour: .inf}]",
		"items:\n  - name: s\n    kind: nat-gb\n    series: {file: x.json, unit: bytes_per_second, match: {pod: a.*}}\n",
		"items:\n  - {name: i, kind: compute, method: instance, instance: m5.large, hours: 2, exponent: 1.6}\n  - {name: e, kind: transfer-internet-out, mbps: 8}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		u, err := ParseUsage(data, "fuzz.yaml")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		// YAML breaks lines at \n, \r\n and a lone \r.
		nl := bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
		lines := bytes.Count(nl, []byte("\n")) + bytes.Count(nl, []byte("\r")) + 1
		seen := map[string]bool{}
		for _, it := range u.Items {
			for _, v := range []float64{it.GBPerHour, it.NLCU, it.LCU, it.VCPU, it.MemoryGiB, it.Hours, it.USDPerHour, it.Exponent, it.CrossZoneFraction} {
				if !finite(v) {
					t.Fatalf("item %q has usage %g", it.Name, v)
				}
			}
			if it.CrossZoneFraction > 1 || !slices.Contains(Kinds, it.Kind) || it.Name == "" || seen[it.Name] || it.Line < 1 || it.Line > lines {
				t.Fatalf("item %+v (names so far %v, %d lines)", it, seen, lines)
			}
			if it.Kind == KindCompute && (!slices.Contains(Methods, it.Method) || it.Arch != "x86_64" && it.Arch != "arm64") {
				t.Fatalf("compute item %+v", it)
			}
			seen[it.Name] = true
		}
	})
}

// smallOffer is an EC2 offer of one Linux instance, its on-demand term
// and a reserved one.
const smallOffer = `{"offerCode":"AmazonEC2","products":{"A":{"sku":"A","attributes":{"instanceType":"t3.xlarge","vcpu":"4","memory":"16 GiB","tenancy":"Shared","operatingSystem":"Linux","usagetype":"BoxUsage:t3.xlarge","capacitystatus":"Used","preInstalledSw":"NA","regionCode":"eu-west-1"}}},
"terms":{"OnDemand":{"A":{"T":{"priceDimensions":{"D":{"unit":"Hrs","pricePerUnit":{"USD":"0.1824"}}}}}},"Reserved":{"A":{}}}}`

// smallTransfer is a data-transfer offer with tiered egress, terms first.
const smallTransfer = `{"terms":{"OnDemand":{"E":{"T":{"priceDimensions":{"1":{"beginRange":"0","endRange":"100","pricePerUnit":{"USD":"0"}},"2":{"beginRange":"100","endRange":"Inf","pricePerUnit":{"USD":"0.09"}}}}}}},
"products":{"E":{"attributes":{"usagetype":"DataTransfer-Out-Bytes","fromRegionCode":"us-west-2"}}}}`

// FuzzReadOffer: reading an offer 7 bytes at a time gives the same offer
// (or the same error) as reading it whole (the decoder streams), and a
// read offer has finite, non-negative prices, tiers in order that do not
// overlap, and instances of positive size.
func FuzzReadOffer(f *testing.F) {
	f.Add([]byte(smallOffer), "eu-west-1")
	f.Add([]byte(smallTransfer), "us-west-2")
	f.Add([]byte(`{"products":{"A":{"sku":"A"}},"terms":{"OnDemand":{"A":{"t":{"priceDimensions":{"d":{"pricePerUnit":{"USD":"Inf"}}}}}}}}`), "")
	f.Fuzz(func(t *testing.T, data []byte, region string) {
		o, err := ReadOffer(bytes.NewReader(data), "fuzz.json", region)
		o1, err1 := ReadOffer(chunked{bytes.NewReader(data)}, "fuzz.json", region)
		if (err == nil) != (err1 == nil) || err != nil && err.Error() != err1.Error() || !reflect.DeepEqual(o, o1) {
			t.Fatalf("whole: %+v, %v\n7 bytes a read: %+v, %v", o, err, o1, err1)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for k, p := range o.Prices {
			checkPrice(t, k, p)
		}
		for typ, in := range o.Instances {
			checkPrice(t, typ, in.Price)
			if !finite(in.VCPU) || !finite(in.MemoryGiB) || in.VCPU == 0 || in.MemoryGiB == 0 {
				t.Fatalf("instance %s: %g vCPU, %g GiB", typ, in.VCPU, in.MemoryGiB)
			}
		}
	})
}

// chunked reads at most 7 bytes per Read call, so that reads end inside
// tokens (as iotest.OneByteReader, at a seventh of its cost in the
// instrumented fuzzing binary), and keeps ReadByte, so that ReadOffer
// reads it without a buffer of its own.
type chunked struct{ *bytes.Reader }

func (c chunked) Read(p []byte) (int, error) { return c.Reader.Read(p[:min(len(p), 7)]) }

// checkPrice fails t unless p is a finite price ≥ 0 whose tiers (if any)
// are in order, each from below its end, without overlap.
func checkPrice(t *testing.T, key string, p Price) {
	t.Helper()
	if !finite(p.USD) {
		t.Fatalf("%s: price %g", key, p.USD)
	}
	for i, tr := range p.Tiers {
		if !finite(tr.USDPerGB) || !finite(tr.FromGBMonth) || !(tr.ToGBMonth > tr.FromGBMonth) || i > 0 && p.Tiers[i-1].ToGBMonth > tr.FromGBMonth {
			t.Fatalf("%s: tiers %+v", key, p.Tiers)
		}
	}
}

// FuzzParseCatalog: a parsed catalogue's every price has a source and a
// status and passes checkPrice; every instance has a positive size; the
// month has hours. (The embedded catalogue, 30 KB, is checked by
// TestEmbeddedCatalogValid, not used as a seed.)
func FuzzParseCatalog(f *testing.F) {
	for _, c := range []string{
		`{"schema":"ldanalyze-aws-pricing/v1","global":{"eks":{"price_usd":0.1,"status":"verified","source":"s"}}}`,
		`{"schema":"ldanalyze-aws-pricing/v1","regions":{"r":{"items":{"e":{"source":"s","tiers":[{"to_gb_month":100,"price_usd":0,"status":"v"},{"from_gb_month":100,"price_usd":0.09,"status":"s"}]}}}}}`,
		`{"schema":"ldanalyze-aws-pricing/v1","regions":{"r":{"ec2_linux_ondemand":{"t":{"price_usd":0.1664,"status":"v","source":"s","vcpu":4,"memory_gib":16}}}}}`,
		`{"schema":"ldanalyze-aws-pricing/v1","hours_per_month":-1,"regions":{"r":{"items":{"a":{"price_usd":-1,"status":"x","source":"s"}}}}}`,
	} {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCatalog(data, "fuzz.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if !(c.HoursPerMonth > 0) {
			t.Fatalf("hours per month %g", c.HoursPerMonth)
		}
		check := func(k string, p Price) {
			checkPrice(t, k, p)
			if p.Source == "" || p.Status == "" {
				t.Fatalf("%s: no source or status: %+v", k, p)
			}
		}
		for k, p := range c.Global {
			check(k, p)
		}
		for _, r := range c.Regions {
			for k, p := range r.Prices {
				check(k, p)
			}
			for typ, in := range r.Instances {
				check(typ, in.Price)
				if !(in.VCPU > 0 && in.MemoryGiB > 0) {
					t.Fatalf("instance %s: %+v", typ, in)
				}
			}
		}
	})
}

// TestEmbeddedCatalogValid: the embedded catalogue passes the fuzz
// target's checks.
func TestEmbeddedCatalogValid(t *testing.T) {
	c, err := DefaultCatalog()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range c.Regions {
		for k, p := range r.Prices {
			checkPrice(t, r.Code+" "+k, p)
			n++
		}
	}
	if n == 0 {
		t.Error("no region price checked")
	}
}

// FuzzParseWhatIf: NAME=FACTOR parses back from its own form to the same
// value; the name is non-empty and trimmed, the factor finite and ≥ 0.
func FuzzParseWhatIf(f *testing.F) {
	for _, s := range []string{"snapshots to Redis=0.09", "a=b=1", " x = 2 ", "=1", "y=-1", "z=NaN", "n=1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseWhatIf(s)
		if err != nil {
			return
		}
		if !finite(w.Factor) || w.Name == "" || w.Name != strings.TrimSpace(w.Name) {
			t.Fatalf("%q → %+v", s, w)
		}
		again, err := ParseWhatIf(w.Name + "=" + strconv.FormatFloat(w.Factor, 'g', -1, 64))
		if err != nil || again != w {
			t.Fatalf("%q → %+v → %+v, %v", s, w, again, err)
		}
	})
}

// FuzzParseProjection: FROM:TO parses back to the same loads, both
// finite and positive.
func FuzzParseProjection(f *testing.F) {
	for _, s := range []string{"30000:100000", " 1.5 : 2e3 ", "0:1", "1:Inf", "a:b", "1:2:3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseProjection(s)
		if err != nil {
			return
		}
		if !finite(p.From) || !finite(p.To) || p.From == 0 || p.To == 0 {
			t.Fatalf("%q → %+v", s, p)
		}
		again, err := ParseProjection(strconv.FormatFloat(p.From, 'g', -1, 64) + ":" + strconv.FormatFloat(p.To, 'g', -1, 64))
		if err != nil || again != p {
			t.Fatalf("%q → %+v → %+v, %v", s, p, again, err)
		}
	})
}

// FuzzParseWindow: START/END parses back from its RFC 3339 form to the
// same instants; END is after START, both UTC.
func FuzzParseWindow(f *testing.F) {
	for _, s := range []string{"2026-11-30T02:07:00Z/2026-11-30T02:13:00Z", "1796004420/1796004780.5", "2026-11-30T02:07:00+01:00/1796004780", "5/4", "0.9999999999/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseWindow(s)
		if err != nil {
			return
		}
		if !w.End.After(w.Start) || w.Start.Location() != time.UTC || w.End.Location() != time.UTC {
			t.Fatalf("%q → %v", s, w)
		}
		again, err := ParseWindow(w.Start.Format(time.RFC3339Nano) + "/" + w.End.Format(time.RFC3339Nano))
		if err != nil || !again.Start.Equal(w.Start) || !again.End.Equal(w.End) {
			t.Fatalf("%q → %v → %v, %v", s, w, again, err)
		}
	})
}
