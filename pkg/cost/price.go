package cost

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// OpenCost's default AWS per-unit prices, used only for their ratio by
// MethodOpenCostRatio (opencost/opencost configs/aws.json at commit
// 5f65333: CPU 0.031611 USD per vCPU-hour, RAM 0.004237 USD per GiB-hour).
const (
	openCostCPUUSDPerHour = 0.031611
	openCostRAMUSDPerHour = 0.004237
)

// Options control pricing. The zero value prices the usage file as it is.
type Options struct {
	// Region overrides the usage file's region when not empty.
	Region string
	// WhatIf scales named items.
	WhatIf []WhatIf
	// Projection, when not nil, scales every item from load From to load To
	// by its growth exponent.
	Projection *Projection
	// HoursPerMonth is the duty per month, hours; 0 means the catalogue's
	// (730).
	HoursPerMonth float64
	// RunHours is the duration of the load test itself, hours; 0 leaves the
	// run's cost out.
	RunHours float64
	// Window is the range usage series were averaged over
	// (Usage.ResolveSeries), echoed in the report; nil when none.
	Window *Window
}

// WhatIf scales the usage of the item Name by Factor (0.09 = 91 % less).
type WhatIf struct {
	Name   string  `json:"name"`
	Factor float64 `json:"factor"`
}

// ParseWhatIf reads "NAME=FACTOR" (the last '=' splits, so names may hold
// '='). The factor may be written with a multiplication sign, "NAME=×0.09"
// (also x, X or *), to say it scales the usage rather than sets a price.
// It returns an error for a missing name or a factor that is not a finite
// number ≥ 0.
func ParseWhatIf(s string) (WhatIf, error) {
	i := strings.LastIndex(s, "=")
	if i < 0 || strings.TrimSpace(s[:i]) == "" {
		return WhatIf{}, fmt.Errorf("--what-if %q: want NAME=FACTOR, e.g. 'snapshots to Redis=0.09'", s)
	}
	v := strings.TrimSpace(s[i+1:])
	for _, p := range []string{"×", "x", "X", "*"} {
		if strings.HasPrefix(v, p) {
			v = strings.TrimSpace(v[len(p):])
			break
		}
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return WhatIf{}, fmt.Errorf("--what-if %q: factor %q: want a finite number ≥ 0", s, s[i+1:])
	}
	return WhatIf{Name: strings.TrimSpace(s[:i]), Factor: f}, nil
}

// Projection prices a bigger (or smaller) load: each item's scaling usage
// is multiplied by (To/From)^exponent, the power law of a growth exponent
// (research/methods.md, growth-exponent fitting).
type Projection struct {
	From float64 `json:"from"`
	To   float64 `json:"to"`
}

// ParseProjection reads "FROM:TO", two positive numbers such as
// "30000:100000".
func ParseProjection(s string) (Projection, error) {
	a, b, ok := strings.Cut(s, ":")
	if ok {
		from, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
		to, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
		if err1 == nil && err2 == nil && from > 0 && to > 0 && !math.IsInf(from, 0) && !math.IsInf(to, 0) {
			return Projection{From: from, To: to}, nil
		}
	}
	return Projection{}, fmt.Errorf("--project %q: want FROM:TO, two positive loads such as 30000:100000", s)
}

// Report is a priced usage file: the one result model every renderer reads.
type Report struct {
	// Region is the region code, RegionName its AWS location name.
	Region     string `json:"region"`
	RegionName string `json:"region_name"`
	// CatalogueDate is the date the embedded catalogue was compiled.
	CatalogueDate string `json:"catalogue_date"`
	// Items are the priced line items in usage-file order.
	Items []Line `json:"items"`
	// TotalUSDPerHour is the sum of the items, USD per hour.
	TotalUSDPerHour float64 `json:"total_usd_per_hour"`
	// HoursPerMonth is the duty the monthly figures assume, hours.
	HoursPerMonth float64 `json:"hours_per_month"`
	// TotalUSDPerMonth is the sum of the items' monthly cost, USD per month
	// (internet egress with tiers applied to the month's volume).
	TotalUSDPerMonth float64 `json:"total_usd_per_month"`
	// Dominant names the item with the highest cost per hour;
	// DominantSharePct is its share of the total, percent (0–100).
	Dominant         string  `json:"dominant"`
	DominantSharePct float64 `json:"dominant_share_pct"`
	// RunHours and RunUSD are the load test's own duration, hours, and
	// cost at TotalUSDPerHour, USD; zero when no duration was given.
	RunHours float64 `json:"run_hours,omitempty"`
	RunUSD   float64 `json:"run_usd,omitempty"`
	// Window is the range the usage series were averaged over; absent
	// when every usage was a number.
	Window *Window `json:"window,omitempty"`
	// WhatIf and Projection echo the scaling applied.
	WhatIf     []WhatIf    `json:"what_if,omitempty"`
	Projection *Projection `json:"projection,omitempty"`
	// Warnings name every unverified price used, and other caveats.
	Warnings []string `json:"warnings"`
}

// Line is one priced item.
type Line struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Usage, Unit and UnitPriceUSD are the item's first component: usage
	// per hour in Unit ("GB", "NLCU", "vCPU", ...) and USD per Unit. Items
	// with several components (compute: vCPU and GiB; a load balancer with
	// its hours) list all of them in Components; UsageText and PriceText
	// spell them out.
	Usage        float64 `json:"usage"`
	Unit         string  `json:"unit"`
	UnitPriceUSD float64 `json:"unit_price_usd"`
	UsageText    string  `json:"usage_text"`
	PriceText    string  `json:"price_text"`
	// USDPerHour is the item's cost, USD per hour; SharePct its share of
	// the total, percent.
	USDPerHour float64 `json:"usd_per_hour"`
	SharePct   float64 `json:"share_pct"`
	// USDPerMonth is the item's cost per month at the report's duty, USD.
	USDPerMonth float64 `json:"usd_per_month"`
	// Factor is the what-if × projection factor applied to the usage
	// (1 = as measured).
	Factor float64 `json:"factor"`
	// Status is the worst status among the prices used; Source lists their
	// sources.
	Status Status `json:"price_status"`
	Source string `json:"price_source"`
	// Components are the priced parts of the item.
	Components []Component `json:"components"`
	// Line is the item's line in the usage file.
	Line int `json:"line"`
	// Series are the usage series averaged for the item (file, matcher,
	// mean, points averaged); absent for numeric usage.
	Series []SeriesUse `json:"series,omitempty"`
}

// Component is one priced quantity: Usage Units per hour at UnitPriceUSD
// USD per Unit.
type Component struct {
	What         string  `json:"what"`
	Usage        float64 `json:"usage"`
	Unit         string  `json:"unit"`
	UnitPriceUSD float64 `json:"unit_price_usd"`
	USDPerHour   float64 `json:"usd_per_hour"`
	// PriceKey is the catalogue key the price comes from (or the formula,
	// for a derived price).
	PriceKey string `json:"price_key"`
	Status   Status `json:"price_status"`
	Source   string `json:"price_source"`
	AsOf     string `json:"as_of,omitempty"`
	// scales says whether what-if and projection factors apply (fixed
	// hourly charges of load balancers and NAT gateways do not scale).
	scales bool
	// tiered marks internet egress, priced per month with its tiers.
	tiered *Price
}

// Compute prices u with the catalogue c. It returns an *InputError naming
// the usage file and line for an unknown region, a missing price or
// instance, a what-if naming no item; the report carries a warning for
// every unverified price used.
//
// Formulas (sources in the Key… and Kind… docs): transfer-cross-az =
// GB × fraction × 2 × inter-AZ (both sides billed); internet egress =
// GB × first paid tier per hour, the tiers applied to GB × hours per month
// for the month; NLB/ALB = units × unit-hour (+ hours × LB-hour); NAT =
// GB × per-GB (+ hours × gateway-hour); compute fargate-ratio: with
// r = Fargate vCPU-h / GB-h, GiB price = instance price / (vCPU·r + GiB),
// vCPU price = r · GiB price (OpenCost's node split, research note §5).
func Compute(c *Catalog, u *Usage, opt Options) (*Report, error) {
	region := u.Region
	regionLine := u.RegionLine
	rep := &Report{CatalogueDate: c.Generated, HoursPerMonth: opt.HoursPerMonth, WhatIf: opt.WhatIf, Projection: opt.Projection, Window: opt.Window, Warnings: []string{}}
	if opt.Region != "" {
		if region != "" && region != opt.Region {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("--region %s overrides region %s of %s:%d", opt.Region, region, u.File, regionLine))
		}
		region, regionLine = opt.Region, 0
	}
	if region == "" {
		return nil, &InputError{File: u.File, Msg: "no region: want region: <code> in the usage file or --region"}
	}
	r, err := c.Region(region)
	if err != nil {
		return nil, &InputError{File: u.File, Line: regionLine, Msg: err.Error()}
	}
	rep.Region, rep.RegionName = r.Code, r.Name
	if rep.HoursPerMonth <= 0 {
		rep.HoursPerMonth = c.HoursPerMonth
	}
	whatIf := map[string]float64{}
	for _, w := range opt.WhatIf {
		whatIf[w.Name] = w.Factor
	}
	for name := range whatIf {
		if !hasItem(u.Items, name) {
			return nil, &InputError{File: u.File, Msg: fmt.Sprintf("--what-if %q: no item of that name (items: %s)", name, itemNames(u.Items))}
		}
	}
	for _, it := range u.Items {
		if !it.resolved() {
			return nil, &InputError{File: u.File, Line: it.Line, Msg: fmt.Sprintf("item %q takes its usage from a series that was not averaged: call Usage.ResolveSeries with a window (--window or --run)", it.Name)}
		}
		comps, err := components(c, r, it)
		if err != nil {
			return nil, &InputError{File: u.File, Line: it.Line, Msg: fmt.Sprintf("item %q: %v", it.Name, err)}
		}
		factor := 1.0
		if f, ok := whatIf[it.Name]; ok {
			factor *= f
		}
		if p := opt.Projection; p != nil {
			factor *= math.Pow(p.To/p.From, it.Exponent)
		}
		l := Line{Name: it.Name, Kind: it.Kind, Factor: factor, Line: it.Line, Status: Verified, Series: it.SeriesUses}
		var sources, usages, prices []string
		for i := range comps {
			cp := &comps[i]
			if cp.scales {
				cp.Usage *= factor
			}
			cp.USDPerHour = cp.Usage * cp.UnitPriceUSD
			l.USDPerHour += cp.USDPerHour
			if cp.Status.rank() > l.Status.rank() {
				l.Status = cp.Status
			}
			if !slices.Contains(sources, cp.Source) {
				sources = append(sources, cp.Source)
			}
			usages = append(usages, fmt.Sprintf("%s %s", fmtNum(cp.Usage), cp.Unit))
			prices = append(prices, fmt.Sprintf("%s/%s", fmtNum(cp.UnitPriceUSD), cp.Unit))
			if cp.Status == Unverified {
				rep.Warnings = appendOnce(rep.Warnings, fmt.Sprintf("unverified price: %s in %s = %s USD per %s (source: %s); check it or pass --offer-file",
					cp.PriceKey, r.Code, fmtNum(cp.UnitPriceUSD), cp.Unit, cp.Source))
			}
		}
		if math.IsInf(l.USDPerHour, 0) || math.IsNaN(l.USDPerHour) {
			return nil, &InputError{File: u.File, Line: it.Line, Msg: fmt.Sprintf("item %q: its cost is not a finite number of USD per hour (usage %s): want a smaller usage", it.Name, strings.Join(usages, " + ")), err: ErrNotFinite}
		}
		l.Components = comps
		l.Usage, l.Unit, l.UnitPriceUSD = comps[0].Usage, comps[0].Unit, comps[0].UnitPriceUSD
		l.UsageText = strings.Join(usages, " + ")
		l.PriceText = strings.Join(prices, " + ")
		l.Source = strings.Join(sources, ", ")
		rep.Items = append(rep.Items, l)
		rep.TotalUSDPerHour += l.USDPerHour
	}
	rep.monthly()
	for _, l := range rep.Items {
		if math.IsInf(l.USDPerMonth, 0) || math.IsNaN(l.USDPerMonth) {
			return nil, &InputError{File: u.File, Line: l.Line, Msg: fmt.Sprintf("item %q: its cost is not a finite number of USD per month (usage %s per hour): want a smaller usage", l.Name, l.UsageText), err: ErrNotFinite}
		}
	}
	if math.IsInf(rep.TotalUSDPerHour, 0) || math.IsInf(rep.TotalUSDPerMonth, 0) {
		return nil, &InputError{File: u.File, Msg: "the total cost is not a finite number of USD: want smaller usages", err: ErrNotFinite}
	}
	if rep.TotalUSDPerHour > 0 {
		best := 0
		for i := range rep.Items {
			rep.Items[i].SharePct = 100 * rep.Items[i].USDPerHour / rep.TotalUSDPerHour
			if rep.Items[i].USDPerHour > rep.Items[best].USDPerHour {
				best = i
			}
		}
		rep.Dominant, rep.DominantSharePct = rep.Items[best].Name, rep.Items[best].SharePct
	}
	if opt.RunHours > 0 {
		rep.RunHours = opt.RunHours
		rep.RunUSD = opt.RunHours * rep.TotalUSDPerHour
	}
	return rep, nil
}

// monthly fills USDPerMonth: hourly cost × hours per month, except
// internet egress, whose tiers apply to the month's volume summed over all
// internet items (AWS counts the tiers per account); each such item gets
// its pro-rata share.
func (rep *Report) monthly() {
	var egressGB float64
	var egress *Price
	for _, l := range rep.Items {
		for _, cp := range l.Components {
			if cp.tiered != nil {
				egressGB += cp.Usage * rep.HoursPerMonth
				egress = cp.tiered
			}
		}
	}
	var egressUSD float64
	if egress != nil {
		var worst Status
		egressUSD, worst = egress.TieredCost(egressGB)
		if worst == Unverified {
			rep.Warnings = appendOnce(rep.Warnings, fmt.Sprintf("unverified price: the monthly internet egress of %s GB reaches a tier of %s with an unverified price", fmtNum(egressGB), egress.Key))
		}
	}
	for i := range rep.Items {
		l := &rep.Items[i]
		l.USDPerMonth = 0
		for _, cp := range l.Components {
			if cp.tiered != nil && egressGB > 0 {
				l.USDPerMonth += egressUSD * cp.Usage * rep.HoursPerMonth / egressGB
				continue
			}
			l.USDPerMonth += cp.USDPerHour * rep.HoursPerMonth
		}
		rep.TotalUSDPerMonth += l.USDPerMonth
	}
}

// components prices one item before scaling.
func components(c *Catalog, r *Region, it Item) ([]Component, error) {
	flat := func(what, key string, usage float64, mult float64, unit string, scales bool) (Component, error) {
		p, err := r.Price(key)
		if err != nil {
			return Component{}, err
		}
		cp := Component{What: what, Usage: usage, Unit: unit, UnitPriceUSD: mult * p.USD, PriceKey: key, Status: p.Status, Source: p.Source, AsOf: p.AsOf, scales: scales}
		if mult != 1 {
			cp.PriceKey = fmt.Sprintf("%g × %s", mult, key)
		}
		return cp, nil
	}
	var out []Component
	add := func(cp Component, err error) error {
		if err == nil {
			out = append(out, cp)
		}
		return err
	}
	var err error
	switch it.Kind {
	case KindCrossAZ:
		err = add(flat("cross-AZ transfer, billed on both sides", KeyInterAZ, it.GBPerHour*it.CrossZoneFraction, 2, "GB", true))
	case KindInternetOut:
		var cp Component
		cp, err = flat("internet egress (first paid tier per hour)", KeyInternetEgress, it.GBPerHour, 1, "GB", true)
		if err == nil {
			p := r.Prices[KeyInternetEgress]
			cp.tiered = &p
			out = append(out, cp)
		}
	case KindCrossRegion:
		err = add(flat("inter-region transfer, sending side", KeyInterRegion, it.GBPerHour, 1, "GB", true))
	case KindNLB:
		err = add(flat("NLB capacity units", KeyNLBNLCU, it.NLCU, 1, "NLCU-h", true))
		if err == nil && it.Hours > 0 {
			err = add(flat("NLB hours", KeyNLBHour, it.Hours, 1, "LB-h", false))
		}
	case KindALB:
		err = add(flat("ALB capacity units", KeyALBLCU, it.LCU, 1, "LCU-h", true))
		if err == nil && it.Hours > 0 {
			err = add(flat("ALB hours", KeyALBHour, it.Hours, 1, "LB-h", false))
		}
	case KindNAT:
		err = add(flat("NAT gateway data processed", KeyNATGB, it.GBPerHour, 1, "GB", true))
		if err == nil && it.Hours > 0 {
			err = add(flat("NAT gateway hours", KeyNATHour, it.Hours, 1, "gateway-h", false))
		}
	case KindCompute:
		out, err = computeComponents(r, it)
	case KindFixedHourly:
		if it.PriceKey == "" {
			out = append(out, Component{What: "fixed charge", Usage: it.Hours, Unit: "h", UnitPriceUSD: it.USDPerHour, PriceKey: "usage file", Status: Verified, Source: "usage file", scales: true})
			break
		}
		p, ok := r.Prices[it.PriceKey]
		if !ok {
			p, ok = c.Global[it.PriceKey]
		}
		if !ok {
			return nil, fmt.Errorf("no catalogue price %q: want a key of the region (%s) or a global key (%s)", it.PriceKey, strings.Join(slices.Sorted(maps.Keys(r.Prices)), ", "), strings.Join(slices.Sorted(maps.Keys(c.Global)), ", "))
		}
		if p.Tiers != nil {
			return nil, fmt.Errorf("price %q is tiered per GB: use kind %s", it.PriceKey, KindInternetOut)
		}
		out = append(out, Component{What: "fixed charge", Usage: it.Hours, Unit: p.Unit, UnitPriceUSD: p.USD, PriceKey: it.PriceKey, Status: p.Status, Source: p.Source, AsOf: p.AsOf, scales: true})
	default:
		return nil, fmt.Errorf("unknown kind %q: want one of %s", it.Kind, strings.Join(Kinds, ", "))
	}
	return out, err
}

// fargateKeys returns the Fargate vCPU-hour and GB-hour keys for arch.
func fargateKeys(arch string) (vcpu, gb string) {
	if arch == "arm64" {
		return KeyFargateARMVCPU, KeyFargateARMGB
	}
	return KeyFargateX86VCPU, KeyFargateX86GB
}

// computeComponents prices vCPU and GiB by it.Method.
func computeComponents(r *Region, it Item) ([]Component, error) {
	vk, gk := fargateKeys(it.Arch)
	switch it.Method {
	case MethodFargate:
		pv, err := r.Price(vk)
		if err != nil {
			return nil, err
		}
		pg, err := r.Price(gk)
		if err != nil {
			return nil, err
		}
		return []Component{
			{What: "vCPU at Fargate price", Usage: it.VCPU, Unit: "vCPU-h", UnitPriceUSD: pv.USD, PriceKey: vk, Status: pv.Status, Source: pv.Source, AsOf: pv.AsOf, scales: true},
			{What: "memory at Fargate price", Usage: it.MemoryGiB, Unit: "GiB-h", UnitPriceUSD: pg.USD, PriceKey: gk, Status: pg.Status, Source: pg.Source, AsOf: pg.AsOf, scales: true},
		}, nil
	case MethodInstance:
		in, err := r.Instance(it.Instance)
		if err != nil {
			return nil, err
		}
		n := it.Hours
		what := "whole instances"
		if n == 0 {
			n = math.Max(it.VCPU/in.VCPU, it.MemoryGiB/in.MemoryGiB)
			what = fmt.Sprintf("share of one %s: max(vCPU %s/%s, GiB %s/%s)", in.Type, fmtNum(it.VCPU), fmtNum(in.VCPU), fmtNum(it.MemoryGiB), fmtNum(in.MemoryGiB))
		}
		return []Component{{What: what, Usage: n, Unit: in.Type + "-h", UnitPriceUSD: in.Price.USD, PriceKey: in.Price.Key, Status: in.Price.Status, Source: in.Price.Source, AsOf: in.Price.AsOf, scales: true}}, nil
	case MethodFargateRatio, MethodOpenCostRatio:
		in, err := r.Instance(it.Instance)
		if err != nil {
			return nil, err
		}
		ratio, ratioKey := openCostCPUUSDPerHour/openCostRAMUSDPerHour, "opencost configs/aws.json ratio"
		status, source := in.Price.Status, in.Price.Source
		if it.Method == MethodFargateRatio {
			pv, err := r.Price(vk)
			if err != nil {
				return nil, err
			}
			pg, err := r.Price(gk)
			if err != nil {
				return nil, err
			}
			ratio, ratioKey = pv.USD/pg.USD, vk+" / "+gk
			for _, p := range []Price{pv, pg} {
				if p.Status.rank() > status.rank() {
					status = p.Status
				}
				if !strings.Contains(source, p.Source) {
					source += ", " + p.Source
				}
			}
		} else {
			source += ", opencost-aws"
		}
		vcpuUSD, gibUSD := SplitInstancePrice(in.Price.USD, in.VCPU, in.MemoryGiB, ratio)
		key := fmt.Sprintf("%s split by %s", in.Price.Key, ratioKey)
		return []Component{
			{What: "vCPU, " + it.Method + " split of " + in.Type, Usage: it.VCPU, Unit: "vCPU-h", UnitPriceUSD: vcpuUSD, PriceKey: key, Status: status, Source: source, AsOf: in.Price.AsOf, scales: true},
			{What: "memory, " + it.Method + " split of " + in.Type, Usage: it.MemoryGiB, Unit: "GiB-h", UnitPriceUSD: gibUSD, PriceKey: key, Status: status, Source: source, AsOf: in.Price.AsOf, scales: true},
		}, nil
	}
	return nil, fmt.Errorf("unknown method %q: want one of %s", it.Method, strings.Join(Methods, ", "))
}

// SplitInstancePrice splits an instance's price, USD per hour, into a price
// per vCPU-hour and per GiB-hour whose ratio is ratio (vCPU price / GiB
// price) and which add up to the instance price over its vcpu and memGiB:
//
//	gibUSD  = instanceUSD / (vcpu·ratio + memGiB)
//	vcpuUSD = ratio · gibUSD
//
// This is OpenCost's node split (pkg/costmodel/costmodel.go, research note
// §5). For t3.xlarge (0.1664 USD/h, 4 vCPU, 16 GiB) at Fargate's ratio
// 0.04048/0.004445 it gives 0.028904 and 0.0031739 USD per hour, the
// worked example's ≈ 0.0289 and 0.00317.
func SplitInstancePrice(instanceUSD, vcpu, memGiB, ratio float64) (vcpuUSD, gibUSD float64) {
	gibUSD = instanceUSD / (vcpu*ratio + memGiB)
	return ratio * gibUSD, gibUSD
}

func hasItem(items []Item, name string) bool {
	for _, it := range items {
		if it.Name == name {
			return true
		}
	}
	return false
}

func itemNames(items []Item) string {
	names := make([]string, len(items))
	for i, it := range items {
		names[i] = strconv.Quote(it.Name)
	}
	return strings.Join(names, ", ")
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// fmtNum formats a number with 5 significant digits (whole numbers from
// 10^5 up), without trailing zeros.
func fmtNum(f float64) string {
	if math.Abs(f) >= 1e5 {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'g', 5, 64)
}
