package loadgen

import (
	"math"
	"slices"
)

// Stats summarises one metric's samples the way vLLM's bench serve does
// (numpy): mean, population standard deviation, and percentiles by linear
// interpolation between the closest ranks.
type Stats struct {
	N      int
	Mean   float64
	Std    float64
	Median float64
	P50    float64
	P90    float64
	P95    float64
	P99    float64
	Min    float64
	Max    float64
}

// Percentiles are the percentiles every metric reports (vLLM's names).
var Percentiles = []float64{50, 90, 95, 99}

// StatsOf computes Stats of xs; xs is not modified. No samples give a zero
// Stats with N == 0.
func StatsOf(xs []float64) Stats {
	if len(xs) == 0 {
		return Stats{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	mean := sum / float64(len(s))
	var sq float64
	for _, x := range s {
		sq += (x - mean) * (x - mean)
	}
	st := Stats{
		N:    len(s),
		Mean: mean,
		Std:  math.Sqrt(sq / float64(len(s))),
		Min:  s[0],
		Max:  s[len(s)-1],
	}
	st.P50 = Percentile(s, 50)
	st.Median = st.P50
	st.P90 = Percentile(s, 90)
	st.P95 = Percentile(s, 95)
	st.P99 = Percentile(s, 99)
	return st
}

// Percentile returns the p-th percentile (0..100) of sorted samples with
// numpy's default "linear" method: rank p/100*(n-1), interpolated.
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	r := p / 100 * float64(n-1)
	lo := int(math.Floor(r))
	if lo >= n-1 {
		return sorted[n-1]
	}
	f := r - float64(lo)
	return sorted[lo] + f*(sorted[lo+1]-sorted[lo])
}
