package cost

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ldanalyze/ldanalyze/internal/readcap"
)

// Size caps of an offer file, bytes. A region's offer file is hundreds of
// MB (AmazonEC2) and is streamed; the all-regions file of an offer is
// bigger than MaxOfferBytes: give the region's file. No single product or
// term of a real file comes near MaxOfferValueBytes, which bounds the
// memory the decoder takes for one value.
const (
	MaxOfferBytes      = 4 << 30
	MaxOfferValueBytes = 16 << 20
)

// Offer is what an AWS Price List bulk offer file says about one region:
// the on-demand prices it holds that the catalogue knows how to use.
//
// Offer files come from
// https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/<OfferCode>/current/<region>/index.json
// (offer codes AmazonEC2, AWSDataTransfer, AWSELB, AmazonECS). Their shape:
// products (SKU → productFamily, attributes) and terms.OnDemand (SKU →
// term → priceDimensions with unit, beginRange, endRange and pricePerUnit
// USD as a string). Prices read from one are Verified, with source
// "offer-file:<offerCode>@<publicationDate>".
type Offer struct {
	// File is the file name; OfferCode, Version and PublicationDate are the
	// file's header fields.
	File            string
	OfferCode       string
	Version         string
	PublicationDate string
	// Region is the region code the prices were selected for.
	Region string
	// Prices by catalogue key (Key… constants).
	Prices map[string]Price
	// Instances by EC2 type (on-demand, Linux, shared tenancy, no
	// pre-installed software, capacity status Used).
	Instances map[string]Instance
	// Warnings are caveats met while reading (conflicting SKUs for one key).
	Warnings []string
}

// offerProduct is the part of a product the reader uses.
type offerProduct struct {
	SKU           string            `json:"sku"`
	ProductFamily string            `json:"productFamily"`
	Attributes    map[string]string `json:"attributes"`
}

type offerTerm struct {
	EffectiveDate   string                    `json:"effectiveDate"`
	PriceDimensions map[string]offerDimension `json:"priceDimensions"`
}

type offerDimension struct {
	Unit         string            `json:"unit"`
	Description  string            `json:"description"`
	BeginRange   string            `json:"beginRange"`
	EndRange     string            `json:"endRange"`
	PricePerUnit map[string]string `json:"pricePerUnit"`
}

// offerMatch is a product classified for the catalogue.
type offerMatch struct {
	key       string // catalogue key, or "ec2:<type>"
	instance  string
	vcpu, mem float64
}

// ReadOfferFile reads the offer file at path with ReadOffer; when the JSON
// is malformed the error gives the line of the fault.
func ReadOfferFile(path, region string) (*Offer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	o, err := ReadOffer(f, path, region)
	var ie *InputError
	if errors.As(err, &ie) && ie.Line == 0 && ie.offset > 0 {
		if _, serr := f.Seek(0, io.SeekStart); serr == nil {
			ie.Line = lineAt(f, ie.offset)
		}
	}
	return o, err
}

// lineAt counts the 1-based line of byte offset in r.
func lineAt(r io.Reader, offset int64) int {
	br := bufio.NewReader(io.LimitReader(r, offset))
	line := 1
	for {
		b, err := br.ReadByte()
		if err != nil {
			return line
		}
		if b == '\n' {
			line++
		}
	}
}

// ReadOffer streams an AWS Price List offer file (JSON) from rd and keeps
// the on-demand prices of region. Products are decoded one at a time, so
// memory grows with the matching SKUs, not the file. name is used in
// errors. It returns an *InputError for malformed JSON or a price that is
// not a number, and an error when the file holds no usable price for the
// region.
//
// Classification (research note §4, after OpenCost's populatePricing):
// usagetype suffixes DataTransfer-Regional-Bytes (inter-AZ, each
// direction), DataTransfer-Out-Bytes (internet egress, tiered),
// LoadBalancerUsage and LCUUsage (by productFamily Load Balancer-Application
// or -Network), NatGateway-Hours, NatGateway-Bytes, Fargate-vCPU-Hours:perCPU,
// Fargate-GB-Hours (and the ARM- variants); EC2 rows with a BoxUsage
// usagetype, operatingSystem Linux, tenancy Shared, preInstalledSw NA,
// capacitystatus Used. The region is matched on attributes.regionCode
// (fromRegionCode for transfer).
//
// A file longer than MaxOfferBytes, or one JSON value in it longer than
// MaxOfferValueBytes, is an error naming the cap and the file.
func ReadOffer(rd io.Reader, name, region string) (*Offer, error) {
	return readOffer(rd, name, region, MaxOfferBytes, MaxOfferValueBytes)
}

// valueCap counts the bytes the JSON decoder reads since the last mark
// (the start of the value it decodes) and fails past max.
type valueCap struct {
	r       io.Reader
	n, mark int64
	max     int64
	name    string
}

func (v *valueCap) Read(p []byte) (int, error) {
	if v.n-v.mark > v.max {
		return 0, &InputError{File: v.name, Msg: fmt.Sprintf("a JSON value at byte %d is larger than %s: not an AWS Price List offer file", v.mark, readcap.Size(v.max))}
	}
	n, err := v.r.Read(p)
	v.n += int64(n)
	return n, err
}

// readOffer is ReadOffer with its caps.
func readOffer(rd io.Reader, name, region string, maxBytes, maxValue int64) (*Offer, error) {
	o := &Offer{File: name, Region: region, Prices: map[string]Price{}, Instances: map[string]Instance{}}
	if _, ok := rd.(io.ByteReader); !ok {
		// A file is read in large blocks; a reader in memory (or already
		// buffered) as it is: 64 KiB per call was most of the time of a
		// small offer.
		rd = bufio.NewReaderSize(rd, 1<<16)
	}
	vc := &valueCap{r: readcap.NewReader(rd, maxBytes, name, "an AWS Price List offer file for one region"), max: maxValue, name: name}
	dec := json.NewDecoder(vc)
	// mark starts the next value's count at what the decoder has read.
	mark := func() { vc.mark = dec.InputOffset() }
	fail := func(err error) (*Offer, error) {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		var tl *readcap.TooLargeError
		var ce *InputError
		switch {
		case errors.As(err, &tl):
			return nil, tl
		case errors.As(err, &ce):
			return nil, ce
		}
		ie := &InputError{File: name, Msg: err.Error(), offset: dec.InputOffset()}
		switch {
		case errors.As(err, &se):
			ie.offset = se.Offset
		case errors.As(err, &te):
			ie.offset = te.Offset
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			ie.Msg = "unexpected end of file: want a complete offer file"
		}
		return nil, ie
	}
	matches := map[string]offerMatch{}
	productsSeen := false
	terms := map[string][]offerDimension{} // SKU → dimensions of its on-demand terms
	effective := ""
	if err := expectDelim(dec, '{'); err != nil {
		return fail(err)
	}
	for dec.More() {
		mark()
		key, err := stringToken(dec)
		if err != nil {
			return fail(err)
		}
		mark()
		switch key {
		case "offerCode":
			err = dec.Decode(&o.OfferCode)
		case "version":
			err = dec.Decode(&o.Version)
		case "publicationDate":
			err = dec.Decode(&o.PublicationDate)
		case "products":
			productsSeen = true
			err = eachKey(dec, func(sku string) error {
				mark()
				var p offerProduct
				if err := dec.Decode(&p); err != nil {
					return err
				}
				if m, ok := classify(p, region); ok {
					matches[sku] = m
				}
				return nil
			})
		case "terms":
			err = eachKey(dec, func(termType string) error {
				if termType != "OnDemand" {
					return skipValue(dec, mark)
				}
				return eachKey(dec, func(sku string) error {
					mark()
					if productsSeen {
						if _, ok := matches[sku]; !ok {
							return skipValue(dec, mark)
						}
					}
					var ts map[string]offerTerm
					if err := dec.Decode(&ts); err != nil {
						return err
					}
					for _, tk := range slices.Sorted(maps.Keys(ts)) {
						t := ts[tk]
						if effective == "" {
							effective = t.EffectiveDate
						}
						for _, dk := range slices.Sorted(maps.Keys(t.PriceDimensions)) {
							terms[sku] = append(terms[sku], t.PriceDimensions[dk])
						}
					}
					return nil
				})
			})
		default:
			err = skipValue(dec, mark)
		}
		if err != nil {
			return fail(err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return fail(err)
	}
	source := fmt.Sprintf("offer-file:%s@%s", o.OfferCode, o.PublicationDate)
	asOf := o.PublicationDate
	if asOf == "" {
		asOf = effective
	}
	skus := make([]string, 0, len(matches))
	for sku := range matches {
		skus = append(skus, sku)
	}
	sort.Strings(skus)
	for _, sku := range skus {
		m := matches[sku]
		dims := terms[sku]
		if len(dims) == 0 {
			continue
		}
		p, err := offerPrice(m.key, dims, source, asOf)
		if err != nil {
			return nil, &InputError{File: name, Msg: fmt.Sprintf("product %s: %v", sku, err)}
		}
		if m.instance != "" {
			if prev, ok := o.Instances[m.instance]; ok {
				if prev.Price.USD != p.USD {
					o.Warnings = append(o.Warnings, fmt.Sprintf("%s: %s has several on-demand Linux prices (%g and %g USD per hour); kept %g", name, m.instance, prev.Price.USD, p.USD, prev.Price.USD))
				}
				continue
			}
			o.Instances[m.instance] = Instance{Type: m.instance, VCPU: m.vcpu, MemoryGiB: m.mem, Price: p}
			continue
		}
		if prev, ok := o.Prices[m.key]; ok {
			if prev.USD != p.USD {
				o.Warnings = append(o.Warnings, fmt.Sprintf("%s: several SKUs for %s (%g and %g USD per %s); kept %g", name, m.key, prev.USD, p.USD, p.Unit, prev.USD))
			}
			continue
		}
		o.Prices[m.key] = p
	}
	if len(o.Prices) == 0 && len(o.Instances) == 0 {
		return nil, &InputError{File: name, Msg: fmt.Sprintf("no on-demand price for region %s that ldanalyze uses (offer %q): want an AmazonEC2, AWSDataTransfer, AWSELB or AmazonECS offer file for that region", region, o.OfferCode)}
	}
	return o, nil
}

// offerPrice turns the dimensions of one SKU into a Price: one dimension
// is a flat price; several with ranges are tiers (GB per month).
func offerPrice(key string, dims []offerDimension, source, asOf string) (Price, error) {
	p := Price{Key: key, Unit: dims[0].Unit, Status: Verified, Source: source, AsOf: asOf}
	var tiers []Tier
	for _, d := range dims {
		s, ok := d.PricePerUnit["USD"]
		if !ok {
			return p, fmt.Errorf("price dimension %q has no USD price", d.Description)
		}
		usd, err := strconv.ParseFloat(s, 64)
		if err != nil || !(usd >= 0) || math.IsInf(usd, 0) {
			return p, fmt.Errorf("price %q: want a finite number ≥ 0", s)
		}
		from := 0.0
		if d.BeginRange != "" {
			if from, err = strconv.ParseFloat(d.BeginRange, 64); err != nil {
				return p, fmt.Errorf("beginRange %q: want a number", d.BeginRange)
			}
		}
		to := math.Inf(1)
		if d.EndRange != "" && d.EndRange != "Inf" {
			if to, err = strconv.ParseFloat(d.EndRange, 64); err != nil {
				return p, fmt.Errorf("endRange %q: want a number or Inf", d.EndRange)
			}
		}
		tiers = append(tiers, Tier{FromGBMonth: from, ToGBMonth: to, USDPerGB: usd, Status: Verified})
	}
	if len(tiers) == 1 || key != KeyInternetEgress {
		// Flat prices take the band that starts at zero (there is one).
		sort.Slice(tiers, func(i, j int) bool { return tiers[i].FromGBMonth < tiers[j].FromGBMonth })
		p.USD = tiers[0].USDPerGB
		return p, nil
	}
	if err := checkTiers(tiers); err != nil {
		return p, err
	}
	p.setTiers(tiers)
	if tiers[0].USDPerGB == 0 {
		p.FreeGBMonth = tiers[0].ToGBMonth
	}
	return p, nil
}

// usageSuffix reports whether usagetype ut is suffix, with or without a
// region prefix ("USW2-NatGateway-Hours", "NatGateway-Hours").
func usageSuffix(ut, suffix string) bool {
	return ut == suffix || strings.HasSuffix(ut, "-"+suffix)
}

// classify maps a product to a catalogue key, or reports false.
func classify(p offerProduct, region string) (offerMatch, bool) {
	a := p.Attributes
	rc := a["regionCode"]
	if rc == "" {
		rc = a["fromRegionCode"]
	}
	if rc != region {
		return offerMatch{}, false
	}
	ut := a["usagetype"]
	switch {
	case usageSuffix(ut, "DataTransfer-Regional-Bytes"):
		return offerMatch{key: KeyInterAZ}, true
	case usageSuffix(ut, "DataTransfer-Out-Bytes"):
		if tt := a["toLocationType"]; tt != "" && tt != "Other" {
			return offerMatch{}, false
		}
		return offerMatch{key: KeyInternetEgress}, true
	case usageSuffix(ut, "NatGateway-Hours"):
		return offerMatch{key: KeyNATHour}, true
	case usageSuffix(ut, "NatGateway-Bytes"):
		return offerMatch{key: KeyNATGB}, true
	case usageSuffix(ut, "Fargate-vCPU-Hours:perCPU"):
		return offerMatch{key: KeyFargateX86VCPU}, true
	case usageSuffix(ut, "Fargate-GB-Hours"):
		return offerMatch{key: KeyFargateX86GB}, true
	case usageSuffix(ut, "Fargate-ARM-vCPU-Hours:perCPU"):
		return offerMatch{key: KeyFargateARMVCPU}, true
	case usageSuffix(ut, "Fargate-ARM-GB-Hours"):
		return offerMatch{key: KeyFargateARMGB}, true
	case usageSuffix(ut, "LoadBalancerUsage"), usageSuffix(ut, "LCUUsage"):
		hour := usageSuffix(ut, "LoadBalancerUsage")
		switch p.ProductFamily {
		case "Load Balancer-Application":
			if hour {
				return offerMatch{key: KeyALBHour}, true
			}
			return offerMatch{key: KeyALBLCU}, true
		case "Load Balancer-Network":
			if hour {
				return offerMatch{key: KeyNLBHour}, true
			}
			return offerMatch{key: KeyNLBNLCU}, true
		}
	case strings.Contains(ut, "BoxUsage"):
		if a["operatingSystem"] != "Linux" || a["tenancy"] != "Shared" || a["preInstalledSw"] != "NA" ||
			a["capacitystatus"] != "Used" || (a["marketoption"] != "" && a["marketoption"] != "OnDemand") ||
			a["instanceType"] == "" {
			return offerMatch{}, false
		}
		vcpu, err1 := strconv.ParseFloat(a["vcpu"], 64)
		mem, err2 := parseGiB(a["memory"])
		if err1 != nil || err2 != nil || !(vcpu > 0) || !(mem > 0) || math.IsInf(vcpu, 0) || math.IsInf(mem, 0) {
			return offerMatch{}, false
		}
		return offerMatch{key: "ec2:" + a["instanceType"], instance: a["instanceType"], vcpu: vcpu, mem: mem}, true
	}
	return offerMatch{}, false
}

// parseGiB reads an offer file's memory attribute, e.g. "16 GiB" or
// "1,952 GiB".
func parseGiB(s string) (float64, error) {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "GiB"))
	return strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
}

// Override puts the offer's prices into the catalogue region they were read
// for (creating the region if the catalogue lacks it) and returns the keys
// it replaced or added, sorted.
func (c *Catalog) Override(o *Offer) []string {
	r, ok := c.Regions[o.Region]
	if !ok {
		r = &Region{Code: o.Region, Name: o.Region, Prices: map[string]Price{}, Instances: map[string]Instance{}}
		c.Regions[o.Region] = r
	}
	var keys []string
	for k, p := range o.Prices {
		r.Prices[k] = p
		keys = append(keys, k)
	}
	for t, in := range o.Instances {
		r.Instances[t] = in
		keys = append(keys, in.Price.Key)
	}
	sort.Strings(keys)
	return keys
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("found %v: want %q", t, string(want))
	}
	return nil
}

func stringToken(dec *json.Decoder) (string, error) {
	t, err := dec.Token()
	if err != nil {
		return "", err
	}
	s, ok := t.(string)
	if !ok {
		return "", fmt.Errorf("found %v: want an object key", t)
	}
	return s, nil
}

// eachKey reads an object, calling fn for each key with the decoder
// positioned at its value; fn must consume the value.
func eachKey(dec *json.Decoder, fn func(key string) error) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		k, err := stringToken(dec)
		if err != nil {
			return err
		}
		if err := fn(k); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

// skipValue consumes one JSON value token by token, without keeping it;
// mark is called before each token (each counts alone against the value
// cap).
func skipValue(dec *json.Decoder, mark func()) error {
	depth := 0
	for {
		mark()
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}
