package knee

// A timeline coarser than a second (a run read from Prometheus at the
// store's step, timeline.Timeline.ResolutionNS) has per-second records
// that spread each step's counts over its seconds: they carry no noise of
// their own, so a change of the offered load between two steps would look
// significant at the scale of seconds, and a level narrower than a step,
// or cut across steps, would mix the steps' values. Its load schedule is
// therefore recovered at the resolution (segmentsAt) and its ramp steps
// are whole multiples of it (coarseStep). At 1-second resolution (k6's
// files) both are the identity.

// resolutionS is the timeline's resolution in whole seconds (at least 1).
func (a *analysis) resolutionS() int {
	return max(1, int((a.tl.ResolutionNS()+1e9-1)/1e9))
}

// coarseStep is a ramp-step width w (seconds) for the timeline's
// resolution r: w itself at r = 1, else at least two resolutions and a
// multiple of r.
func (a *analysis) coarseStep(w int) int {
	r := a.resolutionS()
	if r <= 1 {
		return w
	}
	return (max(w, 2*r) + r - 1) / r * r
}

// segmentsAt is segments on bins of res seconds (each the per-second mean
// of its seconds with data, a bin without any missing), the pieces mapped
// back to seconds (slopes per second). res ≤ 1 is segments itself.
func segmentsAt(x []float64, missing []bool, minLen int, cumulative bool, res int) []piece {
	if res <= 1 {
		return segments(x, missing, minLen, cumulative)
	}
	n := len(x)
	m := (n + res - 1) / res
	xb := make([]float64, m)
	var mb []bool
	for j := range m {
		cnt := 0.0
		for i := j * res; i < min(n, (j+1)*res); i++ {
			if missing != nil && missing[i] {
				continue
			}
			xb[j] += x[i]
			cnt++
		}
		if cnt == 0 {
			if mb == nil {
				mb = make([]bool, m)
			}
			mb[j] = true
			continue
		}
		xb[j] /= cnt
	}
	ps := segments(xb, mb, max(2, (minLen+res-1)/res), cumulative)
	for k := range ps {
		ps[k].i0 = min(n, ps[k].i0*res)
		ps[k].i1 = min(n, ps[k].i1*res)
		ps[k].slope /= float64(res)
		ps[k].slopeSE /= float64(res)
	}
	return ps
}
