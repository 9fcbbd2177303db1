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

// gridPhase is the index, in the per-second series whose index 0 is the
// main span's second first (of the seconds analysed), of a second that
// starts a resolution bin: the grid is that of the run's first sample (a
// source's first step starts there).
func (a *analysis) gridPhase(first int) int {
	r := int64(a.resolutionS())
	origin := floorDiv(a.tl.StartNS(), 1e9)
	return int(((origin-(a.p.start+int64(first)))%r + r) % r)
}

func floorDiv(x, y int64) int64 {
	q := x / y
	if x%y != 0 && (x < 0) != (y < 0) {
		q--
	}
	return q
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

// coarseTail is the shortest tail of a ramp that is a step of its own,
// seconds: t itself at 1 s resolution, else at least two resolutions (a
// shorter one joins the step before it).
func (a *analysis) coarseTail(t int) int {
	if r := a.resolutionS(); r > 1 {
		return max(t, 2*r)
	}
	return t
}

// segmentsAt is segments on bins of res seconds aligned to the
// resolution's grid (the first bin starts at index phase of x, the seconds
// before it a bin of their own), each bin the per-second mean of its
// seconds with data (a bin without any missing), the pieces mapped back
// to seconds (slopes per second). res ≤ 1 is segments itself.
func segmentsAt(x []float64, missing []bool, minLen int, cumulative bool, res, phase int) []piece {
	if res <= 1 {
		return segments(x, missing, minLen, cumulative)
	}
	n := len(x)
	phase = ((phase % res) + res) % res
	var starts []int // the first second of each bin
	if phase > 0 {
		starts = append(starts, 0)
	}
	for i := phase; i < n; i += res {
		starts = append(starts, i)
	}
	m := len(starts)
	xb := make([]float64, m)
	var mb []bool
	for j, lo := range starts {
		hi := n
		if j+1 < m {
			hi = starts[j+1]
		}
		cnt := 0.0
		for i := lo; i < hi; i++ {
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
	at := func(j int) int {
		if j >= m {
			return n
		}
		return starts[j]
	}
	for k := range ps {
		ps[k].i0, ps[k].i1 = at(ps[k].i0), at(ps[k].i1)
		ps[k].slope /= float64(res)
		ps[k].slopeSE /= float64(res)
	}
	return ps
}
