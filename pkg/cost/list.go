package cost

import "sort"

// RegionsWithPrice returns the codes of the regions whose prices include
// key (a Key… constant), sorted: where a price missing from one region
// can be found.
func (c *Catalog) RegionsWithPrice(key string) []string {
	var out []string
	for code, r := range c.Regions {
		if _, ok := r.Prices[key]; ok {
			out = append(out, code)
		}
	}
	sort.Strings(out)
	return out
}

// RegionsWithInstance returns the codes of the regions with an on-demand
// price for EC2 instance type typ, sorted.
func (c *Catalog) RegionsWithInstance(typ string) []string {
	var out []string
	for code, r := range c.Regions {
		if _, ok := r.Instances[typ]; ok {
			out = append(out, code)
		}
	}
	sort.Strings(out)
	return out
}

// PriceKeys returns the keys of the region's prices, sorted.
func (r *Region) PriceKeys() []string {
	out := make([]string, 0, len(r.Prices))
	for k := range r.Prices {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// InstanceTypes returns the region's EC2 instance types, sorted.
func (r *Region) InstanceTypes() []string {
	out := make([]string, 0, len(r.Instances))
	for k := range r.Instances {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
