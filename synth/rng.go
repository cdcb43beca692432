package synth

// rng is a small fast generator (splitmix64 seeding a xorshift*): weights
// only need to be random-looking and reproducible, and a 1B-weight model
// should generate in seconds.
type rng struct{ s uint64 }

func newRNG(seed, stream uint64) *rng {
	r := &rng{s: seed ^ (stream+1)*0x9e3779b97f4a7c15}
	for i := 0; i < 4; i++ {
		r.next()
	}
	if r.s == 0 {
		r.s = 1
	}
	return r
}

func (r *rng) next() uint64 {
	r.s ^= r.s >> 12
	r.s ^= r.s << 25
	r.s ^= r.s >> 27
	return r.s * 0x2545f4914f6cdd1d
}

// uniform fills dst with values uniform in [-a, a).
func (r *rng) uniform(dst []float32, a float64) {
	scale := float32(2*a) / (1 << 24)
	for i := range dst {
		dst[i] = float32(r.next()>>40)*scale - float32(a)
	}
}
