package bench

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// Expected values are numpy.percentile(..., method="linear") and
// statistics.stdev (n-1) results.
func TestPercentile(t *testing.T) {
	ten := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	cases := []struct {
		data []float64
		p    float64
		want float64
	}{
		{ten, 50, 5.5},
		{ten, 90, 9.1},
		{ten, 99, 9.91},
		{ten, 0, 1},
		{ten, 100, 10},
		{[]float64{1, 2, 3, 4}, 90, 3.7},
		{[]float64{1, 2, 3, 4}, 25, 1.75},
		{[]float64{15, 20, 35, 40, 50}, 40, 29},
		{[]float64{7}, 99, 7},
		{nil, 50, 0},
	}
	for _, c := range cases {
		if got := Percentile(c.data, c.p); !near(got, c.want) {
			t.Errorf("Percentile(%v, %v) = %v, want %v", c.data, c.p, got, c.want)
		}
	}
}

func TestMeanStddevMedian(t *testing.T) {
	xs := []float64{2, 4, 4, 4, 5, 5, 7, 9}
	mean, sd := MeanStddev(xs)
	if !near(mean, 5) || !near(sd, math.Sqrt(32.0/7)) {
		t.Errorf("MeanStddev = %v, %v; want 5, %v", mean, sd, math.Sqrt(32.0/7))
	}
	if _, sd := MeanStddev([]float64{3}); sd != 0 {
		t.Errorf("stddev of one value = %v, want 0", sd)
	}
	// A large offset must not cost the deviation its digits.
	_, sd = MeanStddev([]float64{1e9 + 1, 1e9 + 2, 1e9 + 3})
	if !near(sd, 1) {
		t.Errorf("stddev around 1e9 = %v, want 1", sd)
	}
	unsorted := []float64{9, 1, 5, 3}
	if m := Median(unsorted); m != 4 {
		t.Errorf("Median(%v) = %v, want 4", unsorted, m)
	}
	if unsorted[0] != 9 {
		t.Error("Median sorted its input")
	}
	if m := Median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("odd median = %v, want 2", m)
	}
	s := Summarize([]float64{10, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	if s.N != 10 || !near(s.P90, 9.1) || !near(s.P50, 5.5) || s.Min != 1 || s.Max != 10 || !near(s.Mean, 5.5) ||
		!near(s.Stddev, 3.0276503540974917) {
		t.Errorf("Summarize = %+v", s)
	}
}
