package pipeline

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ldanalyze/ldanalyze/pkg/cost"
)

// CostOptions say what `cost` prices: a usage file, the AWS Price List
// offer files whose prices override the catalogue's, and the pricing
// options (cost.Options: region, what-ifs, projection, window).
type CostOptions struct {
	// UsagePath is the usage YAML file.
	UsagePath string
	// OfferFiles are AWS Price List offer files (JSON) read for the
	// region priced.
	OfferFiles []string
	// Price configures cost.Compute; Price.Window, when set, is the range
	// usage series are averaged over.
	Price cost.Options
}

// Cost reads the usage file (its exponent_from files and usage series
// relative to it), prices it with the embedded catalogue overridden by the
// offer files and returns the report; the offer files' notes are among its
// warnings. An error names the file and line at fault; a missing price
// also names the regions of the catalogue that have it.
func Cost(opt CostOptions) (*cost.Report, error) {
	u, err := cost.ReadUsageFile(opt.UsagePath)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(opt.UsagePath)
	if err := u.ResolveExponents(dir); err != nil {
		return nil, err
	}
	notes, err := u.ResolveSeries(dir, opt.Price.Window)
	if err != nil {
		return nil, err
	}
	region := opt.Price.Region
	if region == "" {
		region = u.Region
	}
	cat, offerNotes, err := Catalog(region, opt.OfferFiles)
	if err != nil {
		return nil, err
	}
	rep, err := cost.Compute(cat, u, opt.Price)
	if errors.Is(err, cost.ErrNotFinite) {
		return nil, err
	}
	if err != nil {
		return nil, missingPriceHint(err, cat, u, region)
	}
	rep.Warnings = append(append(rep.Warnings, notes...), offerNotes...)
	return rep, nil
}

// Catalog is the embedded on-demand catalogue with the prices of the offer
// files (read for region) put in, and a note per offer file.
func Catalog(region string, offerFiles []string) (*cost.Catalog, []string, error) {
	cat, err := cost.DefaultCatalog()
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	for _, path := range offerFiles {
		o, err := cost.ReadOfferFile(path, region)
		if err != nil {
			return nil, nil, err
		}
		keys := cat.Override(o)
		notes = append(notes, o.Warnings...)
		notes = append(notes, fmt.Sprintf("offer file %s (%s, published %s) set %d prices for %s", path, o.OfferCode, o.PublicationDate, len(keys), region))
	}
	return cat, notes, nil
}

// missingPriceHint adds to a pricing error of region the regions of the
// catalogue that price the instance types the usage names and the region
// lacks, and how to list what the region has.
func missingPriceHint(err error, cat *cost.Catalog, u *cost.Usage, region string) error {
	r, ok := cat.Regions[region]
	if !ok {
		return err
	}
	var hints []string
	for _, it := range u.Items {
		if it.Instance == "" {
			continue
		}
		if _, ok := r.Instances[it.Instance]; ok {
			continue
		}
		if has := cat.RegionsWithInstance(it.Instance); len(has) > 0 {
			hints = append(hints, fmt.Sprintf("the catalogue prices %s in %s", it.Instance, strings.Join(has, ", ")))
		} else {
			hints = append(hints, fmt.Sprintf("the catalogue prices %s in no region", it.Instance))
		}
	}
	hints = append(hints, fmt.Sprintf("`ldanalyze cost --region %s` lists what %s has (regions: %s)", region, region, strings.Join(cat.RegionCodes(), ", ")))
	return hintError{err: err, hint: strings.Join(hints, "; ")}
}

// hintError adds a hint to an error (Unwrap gives the error).
type hintError struct {
	err  error
	hint string
}

func (h hintError) Error() string { return strings.TrimSuffix(h.err.Error(), ".") + "; " + h.hint }
func (h hintError) Unwrap() error { return h.err }

// PeakWindow is the peak level of an analysed run (knee.Result.PeakLevel:
// the decision level with the highest completed_rps) as the window usage
// series are averaged over (`cost --run`). It returns an error when the
// run has no level with a completed rate.
func PeakWindow(an *Analysis) (*cost.Window, error) {
	res := an.Knee
	l, ok := res.PeakLevel()
	if !ok {
		return nil, fmt.Errorf("--run %s: no hold or ramp step with a completed rate: the run gives no peak to average usage over; give --window START/END", an.Name())
	}
	return &cost.Window{Start: l.Start, End: l.End,
		Source: fmt.Sprintf("peak %s of %s (completed %.1f req/s, offered %.4g %s)", res.LevelNoun(), an.Name(), float64(l.CompletedRPS), float64(l.Offered), res.OfferedUnit)}, nil
}
