package over

// Wants reports whether Add counts samples of metric (one of the Trends
// the Counter was made for); when not, a caller holding rows by metric (a
// columnar batch) may skip them.
func (c *Counter) Wants(metric string) bool { return c.metrics[metric] != nil }
