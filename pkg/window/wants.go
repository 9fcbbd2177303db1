package window

// Wants reports which samples of metric Add uses: every one (all), or
// only those whose value is not 0 (nonZero, the failed-rate metric's);
// when neither, Add ignores the metric's samples and a caller holding
// rows by metric (a columnar batch) may skip them. For an Aggregator
// choosing among candidate metrics it is the union over the candidates
// still in the running, so the answer stays true of later samples.
func (a *Aggregator) Wants(metric string) (all, nonZero bool) {
	if a.subs != nil {
		for _, b := range a.subs {
			if b == nil {
				break
			}
			al, nz := b.Wants(metric)
			all, nonZero = all || al, nonZero || nz
		}
		return all, nonZero && !all
	}
	if metric == a.opt.Metric {
		return true, false
	}
	return false, metric == a.failedMetric
}
