package sampler

import (
	"fmt"
	"math"
)

// Sampler picks tokens from logit rows. It is not safe for concurrent use;
// give each sequence its own.
type Sampler struct {
	cfg   Config
	vocab int
	cand  []candidate // vocab-sized work array, reused by every Sample
	pen   penalties
	rng   mt19937
}

// New checks cfg and preallocates every buffer Sample needs for a vocabulary
// of vocabSize tokens.
func New(cfg Config, vocabSize int) (*Sampler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if vocabSize <= 0 || vocabSize > math.MaxInt32 {
		return nil, fmt.Errorf("%w: vocabulary size %d out of range", ErrInvalidConfig, vocabSize)
	}
	s := &Sampler{
		cfg:   cfg,
		vocab: vocabSize,
		cand:  make([]candidate, vocabSize),
		pen:   newPenalties(cfg, vocabSize),
	}
	s.rng.seed64(cfg.Seed)
	return s, nil
}

// Config returns the configuration the sampler was built with.
func (s *Sampler) Config() Config { return s.cfg }

// VocabSize returns the vocabulary size given to New.
func (s *Sampler) VocabSize() int { return s.vocab }

// Sample returns the next token for one row of logits. It runs llama.cpp's
// common chain: penalties, top-k, top-p, min-p, temperature, then a draw
// from the softmax of what is left (or the argmax when Temperature <= 0).
//
// The caller's logits are only read. NaN logits count as -Inf, and -Inf
// tokens are never drawn unless every logit is -Inf/NaN (then the lowest id
// is returned). A row longer than the vocabulary is truncated to it, a
// shorter one samples among its own ids only, and an empty row returns -1.
// Sample does not accept the token: call Accept with the token actually
// used so the penalties see it.
func (s *Sampler) Sample(logits []float32) int32 {
	n := min(len(logits), s.vocab)
	if n == 0 {
		return -1
	}
	c := s.cand[:n]
	negInf := float32(math.Inf(-1))
	for i, l := range logits[:n] {
		if l != l { // NaN
			l = negInf
		}
		c[i] = candidate{id: int32(i), logit: l}
	}
	if s.pen.active() {
		s.pen.applyCandidates(c) // must run while c is still in id order
	}

	if s.cfg.Temperature <= 0 {
		return argmax(c)
	}

	sorted := false
	if s.cfg.TopK > 0 {
		c = topK(c, s.cfg.TopK)
		sorted = true
	}
	if s.cfg.TopP < 1 {
		c = topP(c, sorted, s.cfg.TopP)
		sorted = true
	}
	if s.cfg.MinP > 0 {
		c = minP(c, sorted, s.cfg.MinP)
	}
	temperature(c, s.cfg.Temperature)
	return s.draw(c)
}

// argmax returns the id of the highest logit, the lowest id among ties.
func argmax(c []candidate) int32 {
	best := 0
	for i := 1; i < len(c); i++ {
		if c[i].logit > c[best].logit {
			best = i
		}
	}
	return c[best].id
}

// draw is llama_sampler_dist: one uniform double from the MT19937, scaled by
// the unnormalized softmax total and walked through the weights in the
// current candidate order. Matching the order and the arithmetic is what
// lets a shared seed pick the same token as llama.cpp.
func (s *Sampler) draw(c []candidate) int32 {
	if len(c) == 1 { // llama.cpp does not draw here either
		return c[0].id
	}
	m := maxLogit(c)
	if math.IsInf(float64(m), -1) { // nothing is possible: stay deterministic
		return lowestID(c)
	}
	var sum float64
	for i := range c {
		w := expWeight(c[i].logit, m)
		c[i].p = w
		sum += float64(w)
	}
	target := sum * s.rng.float64()
	var run float64
	for i := range c {
		w := c[i].p
		run += float64(w)
		// w > 0: a zero-weight token (a -Inf logit) is never picked, even
		// when the draw is exactly 0.
		if w > 0 && run >= target {
			return c[i].id
		}
	}
	// Rounding put the target past the running total: take the last token
	// that had any weight.
	for i := len(c) - 1; i >= 0; i-- {
		if c[i].p > 0 {
			return c[i].id
		}
	}
	return c[0].id
}

func lowestID(c []candidate) int32 {
	id := c[0].id
	for i := range c {
		id = min(id, c[i].id)
	}
	return id
}

// Accept records tok as generated (or as part of the prompt, if the prompt
// should be penalized too, as llama-cli does) for the penalty window.
func (s *Sampler) Accept(tok int32) { s.pen.accept(tok) }

// Reset clears the penalty history and restarts the random stream from the
// configured seed, so the same logits reproduce the same tokens.
func (s *Sampler) Reset() {
	s.pen.reset()
	s.rng.seed64(s.cfg.Seed)
}

// ApplyPenalties copies logits into dst (growing it if needed) and applies
// the repeat/frequency/presence penalties of the current history, exactly as
// Sample does first. It is there for callers that want the penalized row
// (logging, custom samplers) and for tests.
func (s *Sampler) ApplyPenalties(dst, logits []float32) []float32 {
	dst = append(dst[:0], logits...)
	if s.pen.active() {
		s.pen.applyLogits(dst)
	}
	return dst
}
