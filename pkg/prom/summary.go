package prom

import (
	"bufio"
	"io"
	"math"
	"sort"
)

// SeriesSummary is what listing a series needs: its labels, the number
// of points (floats and histograms), the first and last times (Unix ns)
// and the smallest and largest finite float values (NaN when none).
type SeriesSummary struct {
	// Section is the section of a file of several responses (ReadResponses),
	// "" otherwise.
	Section         string
	Labels          map[string]string
	Points          int
	FirstNS, LastNS int64
	Min, Max        float64
}

// Summaries reads r as Read does and summarises each series. Prometheus
// API JSON is streamed one series at a time (APIReader), so listing a
// file of any size takes the memory of its largest series, not of the
// file (a file of several responses, as the k6-v2 corpus export, too);
// other formats are read whole (Read). Series with equal label sets
// are merged; the result is sorted by label key.
func Summaries(r io.Reader, file string, opt GrafanaOptions) (sums []SeriesSummary, warnings []string, skipped []*SyntaxError, err error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, _ := br.Peek(4096)
	idx := map[string]int{}
	add := func(section string, s *Series) {
		k := section + "\x00" + s.Key()
		i, ok := idx[k]
		if !ok {
			i = len(sums)
			idx[k] = i
			sums = append(sums, SeriesSummary{Section: section, Labels: s.Labels, FirstNS: math.MaxInt64, LastNS: math.MinInt64, Min: math.NaN(), Max: math.NaN()})
		}
		sm := &sums[i]
		for _, p := range s.Points {
			sm.Points++
			sm.FirstNS, sm.LastNS = min(sm.FirstNS, p.TimeNS), max(sm.LastNS, p.TimeNS)
			if !math.IsNaN(p.Value) && !math.IsInf(p.Value, 0) {
				if math.IsNaN(sm.Min) || p.Value < sm.Min {
					sm.Min = p.Value
				}
				if math.IsNaN(sm.Max) || p.Value > sm.Max {
					sm.Max = p.Value
				}
			}
		}
		for _, h := range s.Histograms {
			sm.Points++
			sm.FirstNS, sm.LastNS = min(sm.FirstNS, h.TimeNS), max(sm.LastNS, h.TimeNS)
		}
	}
	if sniff(head) == "api" {
		rs, err := WalkResponses(br, file, func(section, _ string, s *Series) { add(section, s) })
		if err != nil {
			return nil, nil, nil, err
		}
		for _, r := range rs {
			warnings = append(warnings, r.Data.Warnings...)
			skipped = append(skipped, r.Data.Skipped...)
		}
	} else {
		d, err := Read(br, file, opt)
		if err != nil {
			return nil, nil, nil, err
		}
		for i := range d.Series {
			add("", &d.Series[i])
		}
		warnings, skipped = d.Warnings, d.Skipped
	}
	sort.SliceStable(sums, func(i, j int) bool {
		if sums[i].Section != sums[j].Section {
			return sums[i].Section < sums[j].Section
		}
		return LabelsKey(sums[i].Labels) < LabelsKey(sums[j].Labels)
	})
	return sums, warnings, skipped, nil
}
