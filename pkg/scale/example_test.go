package scale_test

import (
	"fmt"

	"github.com/ldanalyze/ldanalyze/pkg/scale"
)

// The published case of issue 7: bytes sent to players in one game at 100,
// 250 and 500 players. The expected numbers are in methods.md §7.
func ExampleFit() {
	var pts scale.Points
	for _, s := range []string{"100=36MB", "250=382MB", "500=2645MB"} {
		if err := pts.AddString(s); err != nil {
			panic(err)
		}
	}
	p, err := scale.Fit(pts.X, pts.Y, 0.95)
	if err != nil {
		panic(err)
	}
	fmt.Printf("b = %.3f (95%% CI %.2f–%.2f), R² = %.4f\n", p.Exponent, p.ExponentLow, p.ExponentHigh, p.R2)
	for _, l := range p.Local {
		fmt.Printf("local %g→%g: %.2f\n", l.X0, l.X1, l.Exponent)
	}
	fmt.Println(p.Interpretation)
	pr, err := p.Project(1000)
	if err != nil {
		panic(err)
	}
	fmt.Printf("at 1000: %s (%s–%s)\n", pts.YUnit.Format(pr.Y), pts.YUnit.Format(pr.Low), pts.YUnit.Format(pr.High))
	// Output:
	// b = 2.665 (95% CI 1.90–3.43), R² = 0.9995
	// local 100→250: 2.58
	// local 250→500: 2.79
	// nearly cubic: close to something of size N sent to N members N times
	// at 1000: 16.25 GB (4.771 GB–55.35 GB)
}

// A selector in k6's threshold syntax names a metric, an optional tag
// filter and a statistic; its unit follows from the metric (k6's time
// trends are converted from ms to seconds).
func ExampleParseSelector() {
	for _, s := range []string{"data_received:total", "data_received:rate", "http_reqs:rate", "http_req_duration{name:order}:p(99.9)"} {
		sel, err := scale.ParseSelector(s)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: metric %s, %d tag filter(s), %s %g, unit %q\n", sel, sel.Metric, len(sel.Tags), sel.Stat, sel.Quantile, sel.Unit())
	}
	// Output:
	// data_received:total: metric data_received, 0 tag filter(s), total 0, unit "B"
	// data_received:rate: metric data_received, 0 tag filter(s), rate 0, unit "B/s"
	// http_reqs:rate: metric http_reqs, 0 tag filter(s), rate 0, unit "/s"
	// http_req_duration{name:order}:p(99.9): metric http_req_duration, 1 tag filter(s), quantile 0.999, unit "s"
}
