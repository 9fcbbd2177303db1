package present

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/ldanalyze/ldanalyze/internal/render"
	"github.com/ldanalyze/ldanalyze/pkg/cost"
)

// CostText renders a priced usage file: JSON as the report itself; table,
// markdown and CSV as one row per item plus the total, then (not for CSV)
// the summary lines (and, in markdown, the warnings).
func CostText(w io.Writer, f render.Format, rep *cost.Report) error {
	if f == render.JSON {
		return render.WriteJSON(w, rep)
	}
	usd := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	g := render.Grid{Header: []string{"item", "kind", "used per hour", "unit price (USD)", "USD/h", "share %", "USD/month", "price status", "price source"}, Drop: costDrop}
	for _, l := range rep.Items {
		g.Rows = append(g.Rows, []string{l.Name, l.Kind, l.UsageText, l.PriceText, usd(l.USDPerHour),
			strconv.FormatFloat(l.SharePct, 'f', 1, 64), strconv.FormatFloat(l.USDPerMonth, 'f', 2, 64), string(l.Status), l.Source})
	}
	g.Rows = append(g.Rows, []string{"total", "", "", "", usd(rep.TotalUSDPerHour), "100.0", strconv.FormatFloat(rep.TotalUSDPerMonth, 'f', 2, 64), "", ""})
	if err := g.Write(w, f); err != nil {
		return err
	}
	lines := []string{
		fmt.Sprintf("region %s (%s), on-demand prices of the catalogue dated %s", rep.Region, rep.RegionName, rep.CatalogueDate),
		fmt.Sprintf("total $%.2f per hour; dominant item: %s (%.1f%%)", rep.TotalUSDPerHour, rep.Dominant, rep.DominantSharePct),
		fmt.Sprintf("per month at %g h: $%.2f", rep.HoursPerMonth, rep.TotalUSDPerMonth),
	}
	if win := rep.Window; win != nil {
		lines = append(lines, fmt.Sprintf("usage series averaged over %s (%s, %s)", win, win.Source, win.End.Sub(win.Start)))
		for _, l := range rep.Items {
			for _, s := range l.Series {
				q := ""
				if s.Query != "" {
					q = " query " + s.Query
				}
				lines = append(lines, fmt.Sprintf("%s: %s = %s(%s%s%s) mean %s %s over %d points of %d series",
					l.Name, s.Field, s.Agg, s.File, q, s.Match, sig6(s.Mean), s.MeanUnit, s.Points, s.Series))
			}
		}
	}
	if rep.RunHours > 0 {
		lines = append(lines, fmt.Sprintf("the test run itself (%.3g h): $%.2f", rep.RunHours, rep.RunUSD))
	}
	for _, wi := range rep.WhatIf {
		lines = append(lines, fmt.Sprintf("what-if: %s × %g", wi.Name, wi.Factor))
	}
	if p := rep.Projection; p != nil {
		lines = append(lines, fmt.Sprintf("projected from load %g to %g by each item's growth exponent", p.From, p.To))
	}
	return Lines(w, f, lines, rep.Warnings)
}

// sig6 formats a mean: 6 significant digits below a million, whole
// numbers above (no exponent for byte rates).
func sig6(v float64) string {
	if math.Abs(v) >= 1e6 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// PriceList is the JSON document of `cost` without --usage: the
// catalogue's prices for one region (Region set), or the regions it
// covers (Region empty). Prices are USD per Unit.
type PriceList struct {
	Region        string `json:"region,omitempty"`
	RegionName    string `json:"region_name,omitempty"`
	CatalogueDate string `json:"catalogue_date"`
	// HoursPerMonth is the catalogue's month, hours.
	HoursPerMonth float64 `json:"hours_per_month"`
	// Prices are the region's prices by catalogue key, Instances its EC2
	// on-demand Linux prices (EC2Note says why there are none), Global
	// the prices of every region.
	Prices    []PriceRow    `json:"prices,omitempty"`
	Instances []InstanceRow `json:"instances,omitempty"`
	EC2Note   string        `json:"ec2_note,omitempty"`
	Global    []PriceRow    `json:"global,omitempty"`
	// Sources are the price sources the rows name, by id.
	Sources map[string]cost.Source `json:"sources,omitempty"`
	// Regions are the regions the catalogue covers.
	Regions  []RegionRow `json:"regions"`
	Warnings []string    `json:"warnings"`
}

// PriceRow is one catalogue price: USD per Unit (the first paid tier's for
// a tiered price, whose tiers follow), its status, source id and date.
type PriceRow struct {
	Key    string      `json:"key"`
	Unit   string      `json:"unit"`
	USD    float64     `json:"price_usd"`
	Status cost.Status `json:"status"`
	Source string      `json:"source"`
	AsOf   string      `json:"as_of"`
	Note   string      `json:"note,omitempty"`
	Tiers  []TierRow   `json:"tiers,omitempty"`
}

// TierRow is a band of a tiered price, GB per month from From to To (nil:
// no upper bound), at USD per GB.
type TierRow struct {
	FromGBMonth float64     `json:"from_gb_month"`
	ToGBMonth   *float64    `json:"to_gb_month"`
	USDPerGB    float64     `json:"price_usd"`
	Status      cost.Status `json:"status"`
}

// InstanceRow is an EC2 instance type's on-demand Linux price, USD per
// instance-hour, with its vCPUs and memory (GiB).
type InstanceRow struct {
	Type      string      `json:"type"`
	VCPU      float64     `json:"vcpu"`
	MemoryGiB float64     `json:"memory_gib"`
	USD       float64     `json:"price_usd_per_hour"`
	Status    cost.Status `json:"status"`
	Source    string      `json:"source"`
	AsOf      string      `json:"as_of"`
}

// RegionRow is a region the catalogue covers and how many prices and EC2
// instance types it has there.
type RegionRow struct {
	Code      string `json:"code"`
	Name      string `json:"name"`
	Prices    int    `json:"prices"`
	Instances int    `json:"instance_types"`
}

// NewPriceList lists the catalogue's prices for region, or (region "") the
// regions it covers. It returns the catalogue's error for an unknown
// region, which lists the known ones.
func NewPriceList(cat *cost.Catalog, region string, warnings []string) (*PriceList, error) {
	d := &PriceList{CatalogueDate: cat.Generated, HoursPerMonth: cat.HoursPerMonth, Regions: []RegionRow{}, Warnings: append([]string{}, warnings...)}
	for _, code := range cat.RegionCodes() {
		r := cat.Regions[code]
		d.Regions = append(d.Regions, RegionRow{Code: code, Name: r.Name, Prices: len(r.Prices), Instances: len(r.Instances)})
	}
	if region == "" {
		return d, nil
	}
	r, err := cat.Region(region)
	if err != nil {
		return nil, err
	}
	d.Region, d.RegionName, d.EC2Note = r.Code, r.Name, r.EC2Note
	used := map[string]bool{}
	for _, k := range r.PriceKeys() {
		d.Prices = append(d.Prices, priceRow(r.Prices[k]))
		used[r.Prices[k].Source] = true
	}
	for _, t := range r.InstanceTypes() {
		in := r.Instances[t]
		d.Instances = append(d.Instances, InstanceRow{Type: t, VCPU: in.VCPU, MemoryGiB: in.MemoryGiB, USD: in.Price.USD,
			Status: in.Price.Status, Source: in.Price.Source, AsOf: in.Price.AsOf})
		used[in.Price.Source] = true
	}
	keys := make([]string, 0, len(cat.Global))
	for k := range cat.Global {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		d.Global = append(d.Global, priceRow(cat.Global[k]))
		used[cat.Global[k].Source] = true
	}
	d.Sources = map[string]cost.Source{}
	for id := range used {
		if s, ok := cat.Sources[id]; ok {
			d.Sources[id] = s
		}
	}
	return d, nil
}

func priceRow(p cost.Price) PriceRow {
	row := PriceRow{Key: p.Key, Unit: p.Unit, USD: p.USD, Status: p.Status, Source: p.Source, AsOf: p.AsOf, Note: p.Note}
	for _, t := range p.Tiers {
		tr := TierRow{FromGBMonth: t.FromGBMonth, USDPerGB: t.USDPerGB, Status: t.Status}
		if !math.IsInf(t.ToGBMonth, 1) {
			to := t.ToGBMonth
			tr.ToGBMonth = &to
		}
		row.Tiers = append(row.Tiers, tr)
	}
	return row
}

// Write renders the list: JSON as the document; CSV as one table of
// every price (region, global and EC2 rows); a table or markdown as
// tables of the region's prices, its instance types and the global
// prices, the sources, and the regions covered.
func (d *PriceList) Write(w io.Writer, f render.Format) error {
	switch f {
	case render.JSON:
		return render.WriteJSON(w, d)
	case render.CSV:
		return d.csvGrid().Write(w, f)
	}
	var b strings.Builder
	h := func(s string) {
		if f == render.Markdown {
			fmt.Fprintf(&b, "\n## %s\n\n", s)
		} else {
			fmt.Fprintf(&b, "\n%s\n", s)
		}
	}
	if d.Region == "" {
		fmt.Fprintf(&b, "The embedded AWS on-demand catalogue (compiled %s) covers %d regions:\n", d.CatalogueDate, len(d.Regions))
	} else {
		fmt.Fprintf(&b, "AWS on-demand prices for %s (%s), USD, from the embedded catalogue compiled %s; each price names its source, the source's date and how far it can be trusted (verified, secondary, inferred, unverified)\n",
			d.Region, d.RegionName, d.CatalogueDate)
		h("Prices in " + d.Region)
		if err := flush(w, &b); err != nil {
			return err
		}
		if err := priceGrid(d.Prices).Write(w, f); err != nil {
			return err
		}
		h("EC2 on-demand Linux instances in " + d.Region + " (USD per instance-hour)")
		if len(d.Instances) == 0 {
			fmt.Fprintf(&b, "none: %s\n", d.EC2Note)
		} else {
			if err := flush(w, &b); err != nil {
				return err
			}
			g := &render.Grid{Header: []string{"instance", "vCPU", "memory GiB", "USD/hour", "status", "source", "as of"}}
			for _, in := range d.Instances {
				g.Rows = append(g.Rows, []string{in.Type, Num(in.VCPU), Num(in.MemoryGiB), strconv.FormatFloat(in.USD, 'f', -1, 64), string(in.Status), in.Source, in.AsOf})
			}
			if err := g.Write(w, f); err != nil {
				return err
			}
		}
		if len(d.Global) > 0 {
			h("Prices of every region")
			if err := flush(w, &b); err != nil {
				return err
			}
			if err := priceGrid(d.Global).Write(w, f); err != nil {
				return err
			}
		}
		h("Sources")
		ids := make([]string, 0, len(d.Sources))
		for id := range d.Sources {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			s := d.Sources[id]
			fmt.Fprintf(&b, "%s%s: %s (%s, as of %s)\n", bulletOf(f), id, s.Title, s.Kind, s.AsOf)
		}
		h("Regions covered")
	}
	if err := flush(w, &b); err != nil {
		return err
	}
	g := &render.Grid{Header: []string{"region", "name", "prices", "EC2 instance types"}}
	for _, r := range d.Regions {
		g.Rows = append(g.Rows, []string{r.Code, r.Name, strconv.Itoa(r.Prices), strconv.Itoa(r.Instances)})
	}
	if err := g.Write(w, f); err != nil {
		return err
	}
	lines := []string{"list a region's prices: ldanalyze cost --region REGION; price a usage file: ldanalyze cost --usage FILE [--region REGION]"}
	return Lines(w, f, lines, d.Warnings)
}

func bulletOf(f render.Format) string {
	if f == render.Markdown {
		return "- "
	}
	return "  "
}

// priceGrid is a table of catalogue prices; a tiered price shows its
// bands in the note.
func priceGrid(ps []PriceRow) *render.Grid {
	g := &render.Grid{Header: []string{"item", "unit", "USD", "status", "source", "as of", "note"}, Drop: priceDrop}
	for _, p := range ps {
		note := p.Note
		if len(p.Tiers) > 0 {
			var bands []string
			for _, t := range p.Tiers {
				to := "∞"
				if t.ToGBMonth != nil {
					to = Num(*t.ToGBMonth)
				}
				bands = append(bands, fmt.Sprintf("%s–%s GB/month %s (%s)", Num(t.FromGBMonth), to, strconv.FormatFloat(t.USDPerGB, 'f', -1, 64), t.Status))
			}
			note = "tiers: " + strings.Join(bands, "; ")
		}
		g.Rows = append(g.Rows, []string{p.Key, p.Unit, strconv.FormatFloat(p.USD, 'f', -1, 64), string(p.Status), p.Source, p.AsOf, note})
	}
	return g
}

// csvGrid is every price of the list as one CSV table.
func (d *PriceList) csvGrid() *render.Grid {
	g := &render.Grid{Header: []string{"region", "key", "unit", "price_usd", "status", "source", "as_of", "vcpu", "memory_gib"}}
	if d.Region == "" {
		g = &render.Grid{Header: []string{"region", "name", "prices", "instance_types"}}
		for _, r := range d.Regions {
			g.Rows = append(g.Rows, []string{r.Code, r.Name, strconv.Itoa(r.Prices), strconv.Itoa(r.Instances)})
		}
		return g
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, p := range d.Prices {
		g.Rows = append(g.Rows, []string{d.Region, p.Key, p.Unit, num(p.USD), string(p.Status), p.Source, p.AsOf, "", ""})
	}
	for _, in := range d.Instances {
		g.Rows = append(g.Rows, []string{d.Region, "ec2:" + in.Type, "instance-hour", num(in.USD), string(in.Status), in.Source, in.AsOf, num(in.VCPU), num(in.MemoryGiB)})
	}
	for _, p := range d.Global {
		g.Rows = append(g.Rows, []string{"global", p.Key, p.Unit, num(p.USD), string(p.Status), p.Source, p.AsOf, "", ""})
	}
	return g
}
