package report

import "math"

// downsample reduces the points (x ascending) to at most n with
// largest-triangle-three-buckets (S. Steinarsson, "Downsampling Time Series
// for Visual Representation", MSc thesis, University of Iceland, 2013):
// keep the first and last point and, from each of n−2 equal buckets, the
// point that spans the largest triangle with the point kept before it and
// the mean of the next bucket. Peaks survive, unlike with averaging. Points
// are returned unchanged when there are no more than n, or n < 3.
func downsample(xs, ys []float64, n int) ([]float64, []float64) {
	if len(xs) <= n || n < 3 {
		return xs, ys
	}
	ox, oy := make([]float64, 0, n), make([]float64, 0, n)
	ox, oy = append(ox, xs[0]), append(oy, ys[0])
	every := float64(len(xs)-2) / float64(n-2)
	a := 0
	for i := 0; i < n-2; i++ {
		lo := int(float64(i)*every) + 1
		hi := int(float64(i+1)*every) + 1
		nlo, nhi := hi, min(int(float64(i+2)*every)+1, len(xs))
		if i == n-3 {
			nlo, nhi = len(xs)-1, len(xs)
		}
		var mx, my float64
		for j := nlo; j < nhi; j++ {
			mx += xs[j]
			my += ys[j]
		}
		mx /= float64(nhi - nlo)
		my /= float64(nhi - nlo)
		best, area := lo, -1.0
		for j := lo; j < hi; j++ {
			ar := math.Abs((xs[a]-mx)*(ys[j]-ys[a]) - (xs[a]-xs[j])*(my-ys[a]))
			if ar > area {
				best, area = j, ar
			}
		}
		ox, oy = append(ox, xs[best]), append(oy, ys[best])
		a = best
	}
	return append(ox, xs[len(xs)-1]), append(oy, ys[len(ys)-1])
}
