package cost

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"sort"
)

//go:embed aws-ondemand.json
var embeddedCatalog []byte

// Status says how far a price can be trusted. The values come from the
// catalogue's "status_values" (see research/aws-pricing.md).
type Status string

// The price statuses, best first.
const (
	// Verified: read from a primary or generated-from-AWS source (an AWS
	// page, the AWS Price List, Karpenter's generated table), or stated by
	// the worked example for that region.
	Verified Status = "verified"
	// Secondary: a third-party page, code or fixture quoting AWS.
	Secondary Status = "secondary"
	// Inferred: derived by a stated rule (e.g. US-East/Oregon parity) from a
	// verified figure.
	Inferred Status = "inferred"
	// Unverified: a recalled figure with no source; reports that use one
	// carry a warning.
	Unverified Status = "unverified"
)

// rank orders statuses from best (0) to worst; unknown values rank worst.
func (s Status) rank() int {
	switch s {
	case Verified:
		return 0
	case Secondary:
		return 1
	case Inferred:
		return 2
	}
	return 3
}

// Catalogue keys of the per-region prices (the "items" of the embedded
// catalogue, schema ldanalyze-aws-pricing/v1).
const (
	// KeyInterAZ is inter-AZ transfer, USD per GB (10^9 bytes) in each
	// direction: AWS bills both the sending and the receiving side, so a GB
	// that crosses zones costs twice this.
	KeyInterAZ = "data_transfer.inter_az.per_gb_each_direction"
	// KeyInternetEgress is data transfer out to the internet, USD per GB,
	// tiered by GB per month (Price.Tiers).
	KeyInternetEgress = "data_transfer.internet_egress"
	// KeyInterRegion is data transfer to another AWS region, USD per GB,
	// charged once on the sending side.
	KeyInterRegion = "data_transfer.inter_region_out.per_gb"
	// KeyALBHour is the Application Load Balancer fixed charge, USD per
	// load-balancer hour.
	KeyALBHour = "alb.hour"
	// KeyALBLCU is the ALB capacity charge, USD per LCU-hour.
	KeyALBLCU = "alb.lcu_hour"
	// KeyNLBHour is the Network Load Balancer fixed charge, USD per
	// load-balancer hour.
	KeyNLBHour = "nlb.hour"
	// KeyNLBNLCU is the NLB capacity charge, USD per NLCU-hour.
	KeyNLBNLCU = "nlb.nlcu_hour"
	// KeyNATHour is the NAT gateway fixed charge, USD per gateway-hour.
	KeyNATHour = "nat_gateway.hour"
	// KeyNATGB is the NAT gateway processing charge, USD per GB, on top of
	// the data-transfer charges for the same bytes.
	KeyNATGB = "nat_gateway.per_gb_processed"
	// KeyFargateX86VCPU is Fargate Linux/x86, USD per vCPU-hour.
	KeyFargateX86VCPU = "fargate.linux_x86.vcpu_hour"
	// KeyFargateX86GB is Fargate Linux/x86 memory, USD per GB-hour (Fargate
	// memory is configured in GiB; AWS writes "GB").
	KeyFargateX86GB = "fargate.linux_x86.gb_hour"
	// KeyFargateARMVCPU is Fargate Linux/ARM (Graviton), USD per vCPU-hour.
	KeyFargateARMVCPU = "fargate.linux_arm.vcpu_hour"
	// KeyFargateARMGB is Fargate Linux/ARM memory, USD per GB-hour.
	KeyFargateARMGB = "fargate.linux_arm.gb_hour"
)

// Price is one catalogue price: USD per Unit, with where it comes from.
type Price struct {
	// Key is the catalogue key, e.g. KeyNLBNLCU, or "ec2:<type>" for an
	// instance.
	Key string `json:"key"`
	// USD is the price in US dollars per Unit. For a tiered price it is the
	// first paid tier's price (what an hourly figure uses).
	USD float64 `json:"price_usd"`
	// Unit is what is bought: "GB", "NLCU-hour", "vCPU-hour",
	// "instance-hour", ...
	Unit string `json:"unit"`
	// Status says how far the figure can be trusted.
	Status Status `json:"status"`
	// Source is a source id of the catalogue ("post", "karpenter", ...) or
	// "offer-file:<offerCode>@<publicationDate>".
	Source string `json:"source"`
	// AsOf is the date the source gives for the figure, as written there.
	AsOf string `json:"as_of"`
	// Note is the catalogue's remark on the figure, if any.
	Note string `json:"note,omitempty"`
	// Tiers are the monthly volume tiers of a tiered price (internet
	// egress); nil for a flat price.
	Tiers []Tier `json:"tiers,omitempty"`
	// FreeGBMonth is the volume per month AWS does not charge (aggregated
	// across regions), GB per month. It is informational: TieredCost does
	// not deduct it, except where the tiers themselves start with a
	// zero-priced band (as an offer file's may).
	FreeGBMonth float64 `json:"free_gb_month,omitempty"`
}

// Tier is one band of a tiered price: GB per month from FromGBMonth up to
// ToGBMonth (math.Inf(1) for the last band) cost USDPerGB each.
type Tier struct {
	FromGBMonth float64 `json:"from_gb_month"`
	ToGBMonth   float64 `json:"to_gb_month"`
	USDPerGB    float64 `json:"price_usd"`
	Status      Status  `json:"status"`
}

// Instance is an EC2 on-demand Linux instance type, shared tenancy.
type Instance struct {
	// Type is the instance type, e.g. "t3.xlarge".
	Type string `json:"type"`
	// VCPU is the number of vCPUs; MemoryGiB the memory in GiB (2^30 bytes).
	VCPU      float64 `json:"vcpu"`
	MemoryGiB float64 `json:"memory_gib"`
	// Price is USD per instance-hour.
	Price Price `json:"price"`
}

// Region holds the prices of one AWS region.
type Region struct {
	// Code is the region code, e.g. "us-west-2"; Name its AWS location
	// name, e.g. "US West (Oregon)".
	Code string
	Name string
	// Prices by catalogue key (Key… constants).
	Prices map[string]Price
	// Instances by type.
	Instances map[string]Instance
	// EC2Note explains an empty Instances table.
	EC2Note string
}

// Source describes a price source id.
type Source struct {
	Title  string `json:"title"`
	Kind   string `json:"kind"`
	Commit string `json:"commit,omitempty"`
	AsOf   string `json:"as_of"`
}

// Catalog is a dated on-demand price catalogue for several regions.
type Catalog struct {
	// Generated is the date the catalogue was compiled (YYYY-MM-DD).
	Generated string
	// HoursPerMonth is the catalogue's month, hours (730, as AWS and
	// OpenCost use).
	HoursPerMonth float64
	// Global holds prices that do not depend on the region (EKS).
	Global map[string]Price
	// Sources by id.
	Sources map[string]Source
	// Regions by code.
	Regions map[string]*Region
}

// DefaultCatalog returns a fresh copy of the embedded catalogue (compiled
// 2026-11-30 from research/aws-pricing.md; every price names its source and
// status). Changing the returned value does not change later calls.
func DefaultCatalog() (*Catalog, error) {
	return ParseCatalog(embeddedCatalog, "embedded aws-ondemand.json")
}

// catalogJSON mirrors the ldanalyze-aws-pricing/v1 file.
type catalogJSON struct {
	Schema        string                `json:"schema"`
	Generated     string                `json:"generated"`
	HoursPerMonth float64               `json:"hours_per_month"`
	Global        map[string]itemJSON   `json:"global"`
	Sources       map[string]Source     `json:"sources"`
	Regions       map[string]regionJSON `json:"regions"`
}

type regionJSON struct {
	Name    string                  `json:"name"`
	Items   map[string]itemJSON     `json:"items"`
	EC2     map[string]instanceJSON `json:"ec2_linux_ondemand"`
	EC2Note string                  `json:"ec2_note"`
}

type itemJSON struct {
	Unit   string     `json:"unit"`
	Price  *float64   `json:"price_usd"`
	Status Status     `json:"status"`
	Source string     `json:"source"`
	AsOf   string     `json:"as_of"`
	Note   string     `json:"note"`
	Tiers  []tierJSON `json:"tiers"`
	Free   float64    `json:"free_gb_month_all_regions"`
}

type tierJSON struct {
	From   float64  `json:"from_gb_month"`
	To     *float64 `json:"to_gb_month"`
	Price  float64  `json:"price_usd"`
	Status Status   `json:"status"`
}

type instanceJSON struct {
	itemJSON
	VCPU      float64 `json:"vcpu"`
	MemoryGiB float64 `json:"memory_gib"`
}

// ParseCatalog reads a catalogue in the ldanalyze-aws-pricing/v1 JSON
// schema; name is used in errors. It returns an error for malformed JSON, a
// wrong schema, or a price without a value, source or status.
func ParseCatalog(data []byte, name string) (*Catalog, error) {
	var cj catalogJSON
	if err := json.Unmarshal(data, &cj); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if cj.Schema != "ldanalyze-aws-pricing/v1" {
		return nil, fmt.Errorf("%s: schema %q: want ldanalyze-aws-pricing/v1", name, cj.Schema)
	}
	c := &Catalog{
		Generated:     cj.Generated,
		HoursPerMonth: cj.HoursPerMonth,
		Global:        map[string]Price{},
		Sources:       cj.Sources,
		Regions:       map[string]*Region{},
	}
	if c.HoursPerMonth <= 0 {
		c.HoursPerMonth = 730
	}
	for k, it := range cj.Global {
		p, err := it.price(k)
		if err != nil {
			return nil, fmt.Errorf("%s: global: %w", name, err)
		}
		c.Global[k] = p
	}
	for code, rj := range cj.Regions {
		r := &Region{Code: code, Name: rj.Name, Prices: map[string]Price{}, Instances: map[string]Instance{}, EC2Note: rj.EC2Note}
		for k, it := range rj.Items {
			p, err := it.price(k)
			if err != nil {
				return nil, fmt.Errorf("%s: region %s: %w", name, code, err)
			}
			r.Prices[k] = p
		}
		for typ, ij := range rj.EC2 {
			p, err := ij.price("ec2:" + typ)
			if err != nil {
				return nil, fmt.Errorf("%s: region %s: %w", name, code, err)
			}
			if ij.VCPU <= 0 || ij.MemoryGiB <= 0 {
				return nil, fmt.Errorf("%s: region %s: ec2 %s: vcpu and memory_gib must be positive", name, code, typ)
			}
			r.Instances[typ] = Instance{Type: typ, VCPU: ij.VCPU, MemoryGiB: ij.MemoryGiB, Price: p}
		}
		c.Regions[code] = r
	}
	return c, nil
}

func (it itemJSON) price(key string) (Price, error) {
	p := Price{Key: key, Unit: it.Unit, Status: it.Status, Source: it.Source, AsOf: it.AsOf, Note: it.Note, FreeGBMonth: it.Free}
	if p.Source == "" || (p.Status == "" && len(it.Tiers) == 0) {
		return p, fmt.Errorf("%s: price without source or status", key)
	}
	if len(it.Tiers) > 0 {
		for _, t := range it.Tiers {
			if t.Status == "" {
				return p, fmt.Errorf("%s: tier from %g GB without status", key, t.From)
			}
			to := math.Inf(1)
			if t.To != nil {
				to = *t.To
			}
			p.Tiers = append(p.Tiers, Tier{FromGBMonth: t.From, ToGBMonth: to, USDPerGB: t.Price, Status: t.Status})
		}
		if err := checkTiers(p.Tiers); err != nil {
			return p, fmt.Errorf("%s: %w", key, err)
		}
		p.setTiers(p.Tiers)
		return p, nil
	}
	if it.Price == nil {
		return p, fmt.Errorf("%s: price without price_usd", key)
	}
	if *it.Price < 0 {
		return p, fmt.Errorf("%s: price_usd %g: want a price ≥ 0", key, *it.Price)
	}
	p.USD = *it.Price
	return p, nil
}

// checkTiers sorts tiers by their start and checks that each is a band
// of GB per month from ≥ 0 up to more than its start, priced ≥ 0 (and
// finite), and that bands do not overlap (TieredCost would count a GB
// twice).
func checkTiers(tiers []Tier) error {
	sort.Slice(tiers, func(i, j int) bool { return tiers[i].FromGBMonth < tiers[j].FromGBMonth })
	for i, t := range tiers {
		switch {
		case !(t.FromGBMonth >= 0) || math.IsInf(t.FromGBMonth, 0):
			return fmt.Errorf("tier from %g GB per month: want a start ≥ 0", t.FromGBMonth)
		case !(t.ToGBMonth > t.FromGBMonth):
			return fmt.Errorf("tier from %g GB per month ends at %g: want an end after its start", t.FromGBMonth, t.ToGBMonth)
		case !(t.USDPerGB >= 0) || math.IsInf(t.USDPerGB, 0):
			return fmt.Errorf("tier from %g GB per month: price %g: want a finite price ≥ 0", t.FromGBMonth, t.USDPerGB)
		case i > 0 && tiers[i-1].ToGBMonth > t.FromGBMonth:
			return fmt.Errorf("tiers from %g and %g GB per month overlap", tiers[i-1].FromGBMonth, t.FromGBMonth)
		}
	}
	return nil
}

// setTiers sorts tiers into p and sets p.USD and p.Status from the first
// paid band (a zero-priced first band is a free allowance).
func (p *Price) setTiers(tiers []Tier) {
	sort.Slice(tiers, func(i, j int) bool { return tiers[i].FromGBMonth < tiers[j].FromGBMonth })
	p.Tiers = tiers
	p.USD, p.Status = tiers[0].USDPerGB, tiers[0].Status
	for _, t := range tiers {
		if t.USDPerGB > 0 {
			p.USD, p.Status = t.USDPerGB, t.Status
			break
		}
	}
}

// Region returns the prices of region code, or an error listing the
// regions the catalogue knows.
func (c *Catalog) Region(code string) (*Region, error) {
	if r, ok := c.Regions[code]; ok {
		return r, nil
	}
	return nil, fmt.Errorf("unknown region %q: want one of %v (or add it with --offer-file)", code, c.RegionCodes())
}

// RegionCodes returns the catalogue's region codes, sorted.
func (c *Catalog) RegionCodes() []string {
	codes := make([]string, 0, len(c.Regions))
	for k := range c.Regions {
		codes = append(codes, k)
	}
	sort.Strings(codes)
	return codes
}

// Price returns the price under key (a Key… constant) or an error naming
// the region and key.
func (r *Region) Price(key string) (Price, error) {
	if p, ok := r.Prices[key]; ok {
		return p, nil
	}
	return Price{}, fmt.Errorf("no price %s for %s in the catalogue (add it with --offer-file)", key, r.Code)
}

// Instance returns the on-demand Linux price of instance type typ, or an
// error naming the region (and the catalogue's note when it has none).
func (r *Region) Instance(typ string) (Instance, error) {
	if in, ok := r.Instances[typ]; ok {
		return in, nil
	}
	if len(r.Instances) == 0 {
		return Instance{}, fmt.Errorf("no EC2 price for %s in %s: %s", typ, r.Code, r.EC2Note)
	}
	return Instance{}, fmt.Errorf("no EC2 price for instance type %q in %s (add it with --offer-file AmazonEC2)", typ, r.Code)
}

// TieredCost prices gbPerMonth GB of transfer in one month with the tiers
// of p: each band's GB at the band's price, summed (USD per month). A flat
// price (no tiers) is gbPerMonth × p.USD. The free allowance is not
// deducted (it is shared by the whole account). It returns the worst
// status among the bands used.
func (p Price) TieredCost(gbPerMonth float64) (usd float64, worst Status) {
	if len(p.Tiers) == 0 {
		return gbPerMonth * p.USD, p.Status
	}
	worst = p.Tiers[0].Status
	for _, t := range p.Tiers {
		if gbPerMonth <= t.FromGBMonth {
			break
		}
		gb := math.Min(gbPerMonth, t.ToGBMonth) - t.FromGBMonth
		usd += gb * t.USDPerGB
		if t.Status.rank() > worst.rank() {
			worst = t.Status
		}
	}
	return usd, worst
}
