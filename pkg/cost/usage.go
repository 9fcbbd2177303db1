package cost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ldanalyze/ldanalyze/internal/readcap"
)

// The pricing kinds of a usage item.
const (
	// KindCrossAZ is traffic between availability zones, priced on both
	// sides: GB × 2 × KeyInterAZ.
	KindCrossAZ = "transfer-cross-az"
	// KindInternetOut is traffic to the internet: GB × KeyInternetEgress
	// (first paid tier per hour; tiers on the month's volume per month).
	KindInternetOut = "transfer-internet-out"
	// KindCrossRegion is traffic to another region: GB × KeyInterRegion.
	KindCrossRegion = "transfer-cross-region"
	// KindNLB is a Network Load Balancer: NLCU × KeyNLBNLCU, plus hours ×
	// KeyNLBHour when hours is given.
	KindNLB = "nlb-lcu"
	// KindALB is an Application Load Balancer: LCU × KeyALBLCU, plus hours ×
	// KeyALBHour when hours is given.
	KindALB = "alb-lcu"
	// KindNAT is a NAT gateway: GB × KeyNATGB, plus hours × KeyNATHour when
	// hours is given.
	KindNAT = "nat-gb"
	// KindCompute is vCPU and memory priced by a Method.
	KindCompute = "compute"
	// KindFixedHourly is a fixed charge: hours × usd_per_hour, or hours ×
	// a catalogue price named by price (e.g. the EKS cluster fee).
	KindFixedHourly = "fixed-hourly"
)

// Kinds lists the pricing kinds in the order the docs give them.
var Kinds = []string{KindCrossAZ, KindInternetOut, KindCrossRegion, KindNLB, KindALB, KindNAT, KindCompute, KindFixedHourly}

// The compute pricing methods.
const (
	// MethodFargateRatio splits an EC2 instance's hourly price into a vCPU
	// and a GiB price in the ratio of Fargate's vCPU-hour to GB-hour prices
	// (OpenCost's node split with Fargate as the ratio source; it is how the
	// worked example priced its compute).
	MethodFargateRatio = "fargate-ratio"
	// MethodOpenCostRatio is the same split with OpenCost's default AWS
	// ratio (configs/aws.json: CPU 0.031611, RAM 0.004237 USD per hour).
	MethodOpenCostRatio = "opencost-ratio"
	// MethodFargate prices vCPU and GiB at Fargate's own prices.
	MethodFargate = "fargate"
	// MethodInstance prices whole instances: hours × the instance price, or,
	// without hours, the share of one instance the work needs,
	// max(vCPU/instance vCPU, GiB/instance GiB).
	MethodInstance = "instance"
)

// Methods lists the compute methods.
var Methods = []string{MethodFargateRatio, MethodOpenCostRatio, MethodFargate, MethodInstance}

// Transfer-rate conversions to GB (10^9 bytes, as AWS bills transfer) per
// hour.
const (
	// GBPerHourPerMbps converts megabits per second to GB per hour:
	// 10^6 bit/s × 3600 s / 8 bit/byte / 10^9 = 0.45 (the worked example's
	// conversion).
	GBPerHourPerMbps = 0.45
	// GBPerHourPerBytePerSecond converts bytes per second to GB per hour:
	// 3600 / 10^9.
	GBPerHourPerBytePerSecond = 3600 / 1e9
)

// Usage is a usage file: the region and the line items to price.
type Usage struct {
	// File is the file name the usage was read from (used in errors).
	File string
	// Region is the region code; RegionLine the line it was given on (0 if
	// absent).
	Region     string
	RegionLine int
	// Items are the line items in file order.
	Items []Item
}

// Item is one line item of a usage file. Quantities are per hour of the
// measured load.
type Item struct {
	// Name identifies the item in output and in --what-if.
	Name string
	// Kind is one of Kinds.
	Kind string
	// Line is the line of the item in the usage file.
	Line int
	// GBPerHour is transfer in GB (10^9 bytes) per hour; given as
	// gb_per_hour, mbps (× GBPerHourPerMbps) or bytes_per_second
	// (× GBPerHourPerBytePerSecond).
	GBPerHour float64
	// CrossZoneFraction is the share (0–1) of a transfer-cross-az flow that
	// actually crosses zones; 1 when not given.
	CrossZoneFraction float64
	// NLCU (nlb-lcu) and LCU (alb-lcu) are capacity units used per hour.
	NLCU, LCU float64
	// VCPU and MemoryGiB (GiB, 2^30 bytes) are the compute used.
	VCPU, MemoryGiB float64
	// Method is the compute pricing method (one of Methods), Instance the
	// EC2 type it refers to, Arch "x86_64" (default) or "arm64" for the
	// Fargate prices.
	Method, Instance, Arch string
	// Hours is resource-hours per hour: load balancers or NAT gateways whose
	// fixed hourly charge is added, whole instances for method instance,
	// units of a fixed-hourly charge (default 1 there, 0 elsewhere).
	Hours float64
	// USDPerHour is a fixed-hourly item's own price, USD per hour; PriceKey
	// names a catalogue price instead (a region key or a global one such as
	// "eks.cluster_hour.standard_support").
	USDPerHour float64
	PriceKey   string
	// Exponent is the growth exponent used by a projection: usage scales
	// by (N2/N1)^Exponent. Default 1 (linear), 0 for fixed-hourly.
	Exponent float64
	// ExponentFile names the JSON output of `ldanalyze scale --fit` whose
	// "exponent" becomes Exponent (see Usage.ResolveExponents); a relative
	// path is relative to the usage file.
	ExponentFile string
	// Series are the usages taken from Prometheus exports instead of
	// numbers (the series field): each fills the quantity its unit names
	// (GBPerHour, VCPU, MemoryGiB, NLCU or LCU) once Usage.ResolveSeries
	// has averaged it over a window; SeriesUses record what that gave.
	Series     []SeriesRef
	SeriesUses []SeriesUse
}

// resolved reports whether every series of it has been averaged.
func (it *Item) resolved() bool { return len(it.SeriesUses) == len(it.Series) }

// InputError is bad input in a named file: a usage file, an offer file or
// a flag. Line is 1-based; 0 when unknown.
type InputError struct {
	File string
	Line int
	Msg  string
	// offset is the byte offset of a JSON fault, turned into Line when the
	// file can be read again.
	offset int64
	// err is the sentinel the error wraps (ErrNotFinite), or nil.
	err error
}

// ErrNotFinite is wrapped by the error of Compute when a cost is not a
// finite number of USD (usages too large for float64 once priced).
var ErrNotFinite = errors.New("cost: not a finite number of USD")

// Unwrap returns the sentinel the error wraps, if any (ErrNotFinite).
func (e *InputError) Unwrap() error { return e.err }

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Size caps of the files a usage file brings in, bytes: usage files and
// the JSON of `scale --fit` are kilobytes, so a bigger file is not one.
const (
	// MaxUsageBytes bounds a usage file (thousands of items fit in it).
	MaxUsageBytes = 4 << 20
	// MaxExponentFileBytes bounds an exponent_from file.
	MaxExponentFileBytes = 16 << 20
)

// ReadUsageFile reads and parses the usage file at path (ParseUsage). A
// file larger than MaxUsageBytes is an error naming the cap and the file.
func ReadUsageFile(path string) (*Usage, error) {
	data, err := readcap.ReadFile(path, MaxUsageBytes, "a usage file (YAML)")
	if err != nil {
		return nil, err
	}
	return ParseUsage(data, path)
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// ParseUsage reads a usage file (YAML; see the package doc for the shape).
// file names the input in errors. Every error is an *InputError naming the
// line and what was expected: bad YAML, an unknown or missing field, an
// unknown kind or method, a negative, infinite or NaN number, a duplicate
// name.
func ParseUsage(data []byte, file string) (*Usage, error) {
	yamlErr := func(err error) error {
		msg := err.Error()
		if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
			line, _ := strconv.Atoi(m[1])
			return &InputError{File: file, Line: line, Msg: m[2]}
		}
		return &InputError{File: file, Msg: msg}
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, yamlErr(err)
	}
	// One document: a second (after ---) would be silently ignored.
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, yamlErr(err)
	default:
		return nil, &InputError{File: file, Line: docLine(data, next.Line), Msg: "a second YAML document (after ---): want one usage document; put all the items in one items list"}
	}
	if len(doc.Content) == 0 {
		return nil, &InputError{File: file, Msg: "empty usage file: want a mapping with region and items"}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &InputError{File: file, Line: root.Line, Msg: "want a mapping with region and items"}
	}
	u := &Usage{File: file}
	var items *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "region":
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				return nil, &InputError{File: file, Line: v.Line, Msg: "region: want a region code such as us-west-2"}
			}
			u.Region, u.RegionLine = v.Value, v.Line
		case "items":
			items = v
		default:
			return nil, &InputError{File: file, Line: k.Line, Msg: fmt.Sprintf("unknown field %q: want region or items", k.Value)}
		}
	}
	if items == nil {
		return nil, &InputError{File: file, Line: root.Line, Msg: "missing items: want a list of line items"}
	}
	if items.Kind != yaml.SequenceNode || len(items.Content) == 0 {
		return nil, &InputError{File: file, Line: items.Line, Msg: "items: want a non-empty list of line items"}
	}
	seen := map[string]int{}
	for _, n := range items.Content {
		it, err := parseItem(n, file)
		if err != nil {
			return nil, err
		}
		if prev, ok := seen[it.Name]; ok {
			return nil, &InputError{File: file, Line: it.Line, Msg: fmt.Sprintf("duplicate item name %q (first on line %d): names must be unique for --what-if", it.Name, prev)}
		}
		seen[it.Name] = it.Line
		u.Items = append(u.Items, it)
	}
	return u, nil
}

// docLine is the line of the "---" that starts the document whose first
// content is on line (1-based), or line when there is none before it.
func docLine(data []byte, line int) int {
	lines := strings.Split(string(data), "\n")
	for i := min(line, len(lines)) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "---") {
			return i + 1
		}
	}
	return line
}

// fieldsByKind lists the usage fields each kind accepts beyond name, kind
// and exponent.
var fieldsByKind = map[string][]string{
	KindCrossAZ:     {"gb_per_hour", "mbps", "bytes_per_second", "series", "cross_zone_fraction"},
	KindInternetOut: {"gb_per_hour", "mbps", "bytes_per_second", "series"},
	KindCrossRegion: {"gb_per_hour", "mbps", "bytes_per_second", "series"},
	KindNLB:         {"nlcu", "series", "hours"},
	KindALB:         {"lcu", "series", "hours"},
	KindNAT:         {"gb_per_hour", "mbps", "bytes_per_second", "series", "hours"},
	KindCompute:     {"vcpu", "memory_gib", "series", "method", "instance", "arch", "hours"},
	KindFixedHourly: {"usd_per_hour", "price", "hours"},
}

func parseItem(n *yaml.Node, file string) (Item, error) {
	bad := func(line int, format string, a ...any) (Item, error) {
		return Item{}, &InputError{File: file, Line: line, Msg: fmt.Sprintf(format, a...)}
	}
	if n.Kind != yaml.MappingNode {
		return bad(n.Line, "item: want a mapping such as {name: x, kind: transfer-cross-az, gb_per_hour: 1}")
	}
	it := Item{Line: n.Line}
	fields := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if _, dup := fields[k.Value]; dup {
			return bad(k.Line, "field %s given twice", k.Value)
		}
		fields[k.Value] = v
	}
	str := func(key string) (string, int, error) {
		v, ok := fields[key]
		if !ok {
			return "", 0, nil
		}
		if v.Kind != yaml.ScalarNode || v.Value == "" {
			return "", v.Line, &InputError{File: file, Line: v.Line, Msg: key + ": want a non-empty string"}
		}
		return v.Value, v.Line, nil
	}
	var err error
	if it.Name, _, err = str("name"); err != nil {
		return Item{}, err
	}
	if it.Name == "" {
		return bad(n.Line, "item without name: want name: <text>")
	}
	var kindLine int
	if it.Kind, kindLine, err = str("kind"); err != nil {
		return Item{}, err
	}
	if it.Kind == "" {
		return bad(n.Line, "item %q without kind: want kind: one of %s", it.Name, strings.Join(Kinds, ", "))
	}
	allowed, ok := fieldsByKind[it.Kind]
	if !ok {
		return bad(kindLine, "item %q: unknown kind %q: want one of %s", it.Name, it.Kind, strings.Join(Kinds, ", "))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if k == "name" || k == "kind" || k == "exponent" || k == "exponent_from" || slices.Contains(allowed, k) {
			continue
		}
		return bad(n.Content[i].Line, "item %q: field %s does not apply to kind %s: want %s, exponent, exponent_from", it.Name, k, it.Kind, strings.Join(allowed, ", "))
	}
	fromSeries := map[string]bool{}
	if v, ok := fields["series"]; ok {
		if it.Series, err = parseSeriesRefs(v, file, it.Name, allowed); err != nil {
			return Item{}, err
		}
		for _, s := range it.Series {
			fromSeries[s.field] = true
		}
	}
	num := func(key string, dst *float64) (bool, error) {
		v, ok := fields[key]
		if !ok {
			return false, nil
		}
		f, err := parseNumber(v)
		if err != nil {
			return true, &InputError{File: file, Line: v.Line, Msg: fmt.Sprintf("item %q: %s: %v", it.Name, key, err)}
		}
		*dst = f
		return true, nil
	}
	// need reads a required non-negative number.
	need := func(key, what string, dst *float64) error {
		got, err := num(key, dst)
		if err == nil && got && fromSeries[key] {
			err = &InputError{File: file, Line: n.Line, Msg: fmt.Sprintf("item %q: both %s and a series giving %s: want one", it.Name, key, key)}
		}
		if err == nil && !got && !fromSeries[key] {
			err = &InputError{File: file, Line: n.Line, Msg: fmt.Sprintf("item %q (%s) without %s: want %s: <%s>", it.Name, it.Kind, key, key, what)}
		}
		return err
	}
	it.Exponent = 1
	if it.Kind == KindFixedHourly {
		it.Exponent, it.Hours = 0, 1
	}
	gotExp, err := num("exponent", &it.Exponent)
	if err != nil {
		return Item{}, err
	}
	var fline int
	if it.ExponentFile, fline, err = str("exponent_from"); err != nil {
		return Item{}, err
	}
	if gotExp && it.ExponentFile != "" {
		return bad(fline, "item %q: both exponent and exponent_from given: want one", it.Name)
	}
	if _, err := num("hours", &it.Hours); err != nil {
		return Item{}, err
	}
	switch it.Kind {
	case KindCrossAZ, KindInternetOut, KindCrossRegion, KindNAT:
		var gb, mbps, bps float64
		var given []string
		for _, f := range []struct {
			key string
			dst *float64
		}{{"gb_per_hour", &gb}, {"mbps", &mbps}, {"bytes_per_second", &bps}} {
			got, err := num(f.key, f.dst)
			if err != nil {
				return Item{}, err
			}
			if got {
				given = append(given, f.key)
			}
		}
		if fromSeries["gb_per_hour"] {
			given = append(given, "series")
		}
		switch len(given) {
		case 0:
			return bad(n.Line, "item %q (%s) without a transfer rate: want one of gb_per_hour, mbps, bytes_per_second, series", it.Name, it.Kind)
		case 1:
		default:
			return bad(n.Line, "item %q: both %s and %s given: want one transfer rate", it.Name, given[0], given[1])
		}
		it.GBPerHour = gb + mbps*GBPerHourPerMbps + bps*GBPerHourPerBytePerSecond
		it.CrossZoneFraction = 1
		if got, err := num("cross_zone_fraction", &it.CrossZoneFraction); err != nil {
			return Item{}, err
		} else if got && it.CrossZoneFraction > 1 {
			v := fields["cross_zone_fraction"]
			return bad(v.Line, "item %q: cross_zone_fraction %g: want a share from 0 to 1", it.Name, it.CrossZoneFraction)
		}
	case KindNLB:
		if err := need("nlcu", "NLCU per hour", &it.NLCU); err != nil {
			return Item{}, err
		}
	case KindALB:
		if err := need("lcu", "LCU per hour", &it.LCU); err != nil {
			return Item{}, err
		}
	case KindCompute:
		var mline int
		if it.Method, mline, err = str("method"); err != nil {
			return Item{}, err
		}
		if it.Method == "" {
			return bad(n.Line, "item %q (compute) without method: want method: one of %s", it.Name, strings.Join(Methods, ", "))
		}
		if !slices.Contains(Methods, it.Method) {
			return bad(mline, "item %q: unknown method %q: want one of %s", it.Name, it.Method, strings.Join(Methods, ", "))
		}
		if it.Instance, _, err = str("instance"); err != nil {
			return Item{}, err
		}
		var aline int
		if it.Arch, aline, err = str("arch"); err != nil {
			return Item{}, err
		}
		switch it.Arch {
		case "":
			it.Arch = "x86_64"
		case "x86_64", "arm64":
		default:
			return bad(aline, "item %q: unknown arch %q: want x86_64 or arm64", it.Name, it.Arch)
		}
		if it.Method != MethodFargate && it.Instance == "" {
			return bad(n.Line, "item %q (compute, method %s) without instance: want instance: <EC2 type such as t3.xlarge>", it.Name, it.Method)
		}
		if it.Method == MethodInstance && it.Hours > 0 {
			break
		}
		if err := need("vcpu", "vCPUs used", &it.VCPU); err != nil {
			return Item{}, err
		}
		if err := need("memory_gib", "GiB used", &it.MemoryGiB); err != nil {
			return Item{}, err
		}
	case KindFixedHourly:
		got, err := num("usd_per_hour", &it.USDPerHour)
		if err != nil {
			return Item{}, err
		}
		if it.PriceKey, _, err = str("price"); err != nil {
			return Item{}, err
		}
		if got == (it.PriceKey != "") {
			return bad(n.Line, "item %q (fixed-hourly): want exactly one of usd_per_hour: <USD per hour> or price: <catalogue key>", it.Name)
		}
	}
	return it, nil
}

// MaxQuantity bounds every number of a usage file (a quantity per hour,
// a price, hours, an exponent): a larger one is a typo, and its cost
// would overflow to +Inf USD.
const MaxQuantity = 1e15

// parseNumber reads a YAML scalar as a finite, non-negative number of at
// most MaxQuantity.
func parseNumber(v *yaml.Node) (float64, error) {
	if v.Kind != yaml.ScalarNode {
		return 0, errors.New("want a number")
	}
	var f float64
	if err := v.Decode(&f); err != nil {
		switch strings.ToLower(strings.TrimLeft(v.Value, "+-.")) {
		case "inf", "infinity", "nan":
			return 0, fmt.Errorf("%s: want a finite number", v.Value)
		}
		return 0, fmt.Errorf("%q is not a number", v.Value)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%s: want a finite number", v.Value)
	}
	if f < 0 {
		return 0, fmt.Errorf("%s: want a number ≥ 0", v.Value)
	}
	if f > MaxQuantity {
		return 0, fmt.Errorf("%s: want at most %g (a larger usage is a typo, and its cost would overflow)", v.Value, float64(MaxQuantity))
	}
	return f, nil
}

// ResolveExponents reads the growth exponent of every item with
// exponent_from: the "exponent" field of an `ldanalyze scale --fit --format
// json` output. Relative paths are taken from dir (the usage file's
// directory). Errors name the usage file and the item's line.
func (u *Usage) ResolveExponents(dir string) error {
	for i := range u.Items {
		it := &u.Items[i]
		if it.ExponentFile == "" {
			continue
		}
		path := it.ExponentFile
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		bad := func(msg string) error {
			return &InputError{File: u.File, Line: it.Line, Msg: fmt.Sprintf("item %q: exponent_from %s: %s", it.Name, path, msg)}
		}
		data, err := readcap.ReadFile(path, MaxExponentFileBytes, `the JSON of "ldanalyze scale --fit"`)
		if tl := (*readcap.TooLargeError)(nil); errors.As(err, &tl) {
			return bad("larger than " + readcap.Size(tl.Max) + ": not " + tl.What)
		}
		if err != nil {
			return bad(err.Error())
		}
		var fit struct {
			Exponent *float64 `json:"exponent"`
		}
		if err := json.Unmarshal(data, &fit); err != nil {
			return bad(err.Error())
		}
		if fit.Exponent == nil || math.IsNaN(*fit.Exponent) || math.IsInf(*fit.Exponent, 0) {
			return bad(`want the JSON of "ldanalyze scale --fit" with a finite "exponent"`)
		}
		it.Exponent = *fit.Exponent
	}
	return nil
}
