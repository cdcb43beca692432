package bench

import (
	"math"
	"slices"
	"time"
)

// Summary describes a sample of numbers.
type Summary struct {
	N      int     `json:"n"`
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"` // sample standard deviation (n-1), 0 for n < 2
	Median float64 `json:"median"`
	P50    float64 `json:"p50"`
	P90    float64 `json:"p90"`
	P99    float64 `json:"p99"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// Summarize computes the summary of xs (which it does not modify). An empty
// sample gives the zero Summary.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	mean, sd := MeanStddev(s)
	return Summary{
		N: len(s), Mean: mean, Stddev: sd,
		Median: Percentile(s, 50), P50: Percentile(s, 50), P90: Percentile(s, 90), P99: Percentile(s, 99),
		Min: s[0], Max: s[len(s)-1],
	}
}

// MeanStddev returns the mean and the sample standard deviation (divisor
// n-1, as llama-bench reports it); the deviation of fewer than two values
// is 0.
func MeanStddev(xs []float64) (mean, stddev float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	// Two passes: the one-pass sum-of-squares formula loses digits when the
	// spread is small next to the mean, which is the usual case for timings.
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

// Median is the 50th percentile of xs (which it does not modify).
func Median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return Percentile(s, 50)
}

// Percentile returns the p-th percentile (0..100) of sorted by linear
// interpolation between the closest ranks: rank h = (n-1)p/100, the value
// sorted[floor h] + (h - floor h)(sorted[floor h + 1] - sorted[floor h]).
// This is numpy's default ("linear", Hyndman-Fan type 7), so p50 of an even
// count is the mean of the middle two. An empty input gives 0.
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	p = min(max(p, 0), 100)
	h := float64(n-1) * p / 100
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return sorted[n-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// Millis converts durations to float milliseconds.
func Millis(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = ms(d)
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// Rate is n per second of d, 0 when either is not positive.
func Rate(n int, d time.Duration) float64 {
	if n <= 0 || d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}
