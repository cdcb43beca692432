package loadgen

import (
	"math"
	"math/rand/v2"
	"time"
)

// Arrivals draws the gaps between request arrivals of an open-loop run:
// gamma-distributed with shape Burstiness and mean 1/Rate, as vLLM's bench
// serve does. Burstiness 1 is a Poisson process (exponential gaps); lower
// values are burstier (the same mean rate, a larger variance: the squared
// coefficient of variation of the gaps is 1/Burstiness), higher values more
// regular. A Rate of 0 or +Inf sends every request at once (closed loop).
//
// An Arrivals is not safe for concurrent use; the runner draws from one
// goroutine.
type Arrivals struct {
	Rate       float64 // requests per second
	Burstiness float64 // gamma shape; 0 means 1
	rng        *rand.Rand
}

// NewArrivals returns an arrival process seeded with seed: the same seed
// gives the same gaps.
func NewArrivals(rate, burstiness float64, seed uint64) *Arrivals {
	if burstiness <= 0 {
		burstiness = 1
	}
	return &Arrivals{Rate: rate, Burstiness: burstiness, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Open reports whether requests arrive at a finite rate.
func (a *Arrivals) Open() bool { return a.Rate > 0 && !math.IsInf(a.Rate, 1) }

// Next returns the gap before the next arrival (0 for a closed loop).
func (a *Arrivals) Next() time.Duration {
	if !a.Open() {
		return 0
	}
	theta := 1 / (a.Rate * a.Burstiness)
	return time.Duration(gamma(a.rng, a.Burstiness) * theta * float64(time.Second))
}

// gamma draws from Gamma(shape, 1) by Marsaglia and Tsang's method (2000);
// a shape below 1 is boosted by one and scaled back with U^(1/shape).
func gamma(r *rand.Rand, shape float64) float64 {
	if shape < 1 {
		u := r.Float64()
		for u == 0 {
			u = r.Float64()
		}
		return gamma(r, shape+1) * math.Pow(u, 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		var x, v float64
		for {
			x = r.NormFloat64()
			v = 1 + c*x
			if v > 0 {
				break
			}
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*x*x*x*x {
			return d * v
		}
		if u > 0 && math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
