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
	cand  []candidate // vocab-sized candidate array, reused by every Sample
	work  []float32   // vocab-sized copy of the row when penalties apply
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
	if s.pen.active() {
		s.work = make([]float32, vocabSize)
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
	src := logits[:n]
	if s.pen.active() {
		// Penalties touch at most a window of ids, but must not write to the
		// caller's row: work on a copy (a plain memmove).
		src = s.work[:n]
		copy(src, logits)
		s.pen.applyLogits(src)
	}

	if s.cfg.Temperature <= 0 {
		return argmaxLogits(src)
	}

	var c []candidate
	sorted := false
	if s.cfg.TopK > 0 {
		// Select straight from the float row: only k candidates are ever
		// materialized, which is what keeps a 150k vocabulary cheap.
		c = topKFromLogits(src, s.cfg.TopK, s.cand)
		sorted = true
	} else {
		c = candidatesFromLogits(src, s.cand)
	}
	if s.cfg.TopP > 0 && s.cfg.TopP < 1 {
		c = topP(c, sorted, s.cfg.TopP)
		sorted = true
	}
	if s.cfg.MinP > 0 {
		c = minP(c, sorted, s.cfg.MinP)
	}
	temperature(c, s.cfg.Temperature)
	return s.draw(c)
}

// argmaxLogits returns the id of the highest logit, the lowest id among ties.
// NaN never compares greater, so it never wins; a row of only NaN/-Inf
// yields 0.
func argmaxLogits(l []float32) int32 {
	best, bestV := 0, float32(math.Inf(-1))
	for i := 0; i < len(l); i++ {
		// Shaped as an early continue: this form compiles to a tight loop,
		// the plain if-assign one to a register shuffle twice as slow.
		v := l[i]
		if v <= bestV || v != v {
			continue
		}
		best, bestV = i, v
	}
	return int32(best)
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
