package sampler

// penalties is llama_sampler_penalties: a ring of the last n accepted tokens
// and a per-id count over that ring. Counts live in a dense array indexed by
// token id (vocab-sized, allocated once) instead of a map, so accepting and
// applying never allocate.
type penalties struct {
	repeat, freq, presence float32

	ring []int32 // capacity = window; empty when penalties are off
	head int     // index of the oldest entry once the ring is full
	size int

	counts []int32 // occurrences of each id inside the ring

	// stamp marks ids already penalized in the current apply pass, so a token
	// that appears several times in the ring is adjusted once.
	stamp []uint32
	gen   uint32
}

func newPenalties(cfg Config, vocab int) penalties {
	repeat := cfg.RepeatPenalty
	if repeat == 0 {
		repeat = 1 // the zero value: off
	}
	p := penalties{
		repeat:   repeat,
		freq:     cfg.FrequencyPenalty,
		presence: cfg.PresencePenalty,
	}
	if w := cfg.window(); w > 0 {
		p.ring = make([]int32, w)
		p.counts = make([]int32, vocab)
		p.stamp = make([]uint32, vocab)
	}
	return p
}

// active is false when applying would change nothing (llama.cpp's early out).
func (p *penalties) active() bool {
	return len(p.ring) > 0 && !(p.repeat == 1 && p.freq == 0 && p.presence == 0)
}

// accept pushes tok into the window, evicting the oldest token when full.
// Ids outside the vocabulary cannot be penalized and are ignored.
func (p *penalties) accept(tok int32) {
	if len(p.ring) == 0 || tok < 0 || int(tok) >= len(p.counts) {
		return
	}
	p.counts[tok]++
	if p.size == len(p.ring) {
		old := p.ring[p.head]
		p.counts[old]--
		p.ring[p.head] = tok
		p.head++
		if p.head == len(p.ring) {
			p.head = 0
		}
		return
	}
	p.ring[p.size] = tok // head stays 0 until the ring fills
	p.size++
}

func (p *penalties) reset() {
	for _, t := range p.ring[:p.size] {
		p.counts[t] = 0
	}
	p.head, p.size = 0, 0
}

// penalize is the per-token rule of llama_sampler_penalties_apply. The repeat
// penalty multiplies non-positive logits instead of dividing them, because
// dividing a negative logit would make a repeated token more likely.
func (p *penalties) penalize(logit float32, count int32) float32 {
	if logit <= 0 {
		logit *= p.repeat
	} else {
		logit /= p.repeat
	}
	var present float32
	if count > 0 {
		present = 1
	}
	return logit - (float32(count)*p.freq + present*p.presence)
}

// nextGen starts a new apply pass over the stamp array.
func (p *penalties) nextGen() uint32 {
	p.gen++
	if p.gen == 0 { // wrapped after 2^32 passes: old stamps would alias
		clear(p.stamp)
		p.gen = 1
	}
	return p.gen
}

// applyLogits penalizes a logit row indexed by id.
func (p *penalties) applyLogits(l []float32) {
	g := p.nextGen()
	for _, t := range p.ring[:p.size] {
		if int(t) >= len(l) || p.stamp[t] == g {
			continue
		}
		p.stamp[t] = g
		l[t] = p.penalize(l[t], p.counts[t])
	}
}
