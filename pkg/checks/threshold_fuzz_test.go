package checks

import (
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// formatThreshold writes t in k6's syntax, tag values quoted.
func formatThreshold(t Threshold) string {
	m := t.Metric
	if len(t.Filter) > 0 {
		var parts []string
		for _, f := range t.Filter {
			parts = append(parts, f[0]+`:"`+f[1]+`"`)
		}
		m += "{" + strings.Join(parts, ",") + "}"
	}
	stat := t.Stat
	if stat == "p" {
		stat = "p(" + strconv.FormatFloat(t.Percentile, 'f', -1, 64) + ")"
	}
	return m + ":" + stat + t.Op + strconv.FormatFloat(t.Limit, 'g', -1, 64)
}

// FuzzParseThreshold: a parsed threshold has a metric, a known statistic
// (a percentile in [0, 100]), a known comparison and a finite limit, and
// its k6 form parses back to the same threshold.
func FuzzParseThreshold(f *testing.F) {
	for _, s := range []string{"http_req_failed:rate<0.01", "http_req_duration{name:order}:p(95)<500", `checks{scenario:"a b", group:'::x'}:rate>=0.99`,
		"iterations:count===100", "m{}:avg!=1e3", "m{a:{b}}:med<-1", " x : value > 2 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		th, err := ParseThreshold(s)
		if err != nil {
			return
		}
		if th.Metric == "" || !slices.Contains([]string{"avg", "min", "max", "med", "p", "rate", "count", "value"}, th.Stat) ||
			!slices.Contains([]string{"<", "<=", ">", ">=", "==", "!="}, th.Op) || th.Stat == "p" && !(th.Percentile >= 0 && th.Percentile <= 100) ||
			math.IsNaN(th.Limit) || math.IsInf(th.Limit, 0) {
			t.Fatalf("%q → %+v", s, th)
		}
		again, err := ParseThreshold(formatThreshold(th))
		th.Source, again.Source = "", ""
		if err != nil || !reflect.DeepEqual(again, th) {
			t.Fatalf("%q → %+v → %q → %+v, %v", s, th, formatThreshold(th), again, err)
		}
	})
}
