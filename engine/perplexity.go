package engine

import (
	"context"
	"fmt"
	"math"
)

// PerplexityResult is llama-perplexity's estimate over a text.
type PerplexityResult struct {
	Chunks    int
	Running   []float64 // PPL after each chunk (llama-perplexity's "[i]value")
	PPL       float64
	PlusMinus float64 // standard error of the PPL estimate
	Tokens    int     // tokens scored
	// Partial is set when the computation was cancelled: the figures cover
	// the Chunks finished before that.
	Partial bool
}

// Perplexity scores tokens the way llama.cpp's perplexity tool does:
// consecutive chunks of n tokens, each evaluated from an empty cache with its
// first token replaced by BOS (when the vocabulary adds one), and only the
// second half of each chunk scored, so every scored token has at least n/2
// tokens of context. onChunk (may be nil) sees the running value. When ctx
// is cancelled it stops after the current chunk and returns the estimate over
// the chunks done (Partial set; nil if none was) with ctx.Err().
func (m *Model) Perplexity(ctx context.Context, tokens []int32, n int, onChunk func(i int, ppl float64)) (*PerplexityResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n < 4 {
		return nil, fmt.Errorf("engine: perplexity context %d is too small", n)
	}
	if n > m.ctx {
		return nil, fmt.Errorf("%w: perplexity context %d exceeds the model context %d", ErrContextFull, n, m.ctx)
	}
	chunks := len(tokens) / n
	if chunks == 0 {
		return nil, fmt.Errorf("engine: need at least %d tokens for one chunk of %d, the text has %d", n, n, len(tokens))
	}
	res := &PerplexityResult{Chunks: chunks}
	vocab := m.Config.Vocab
	first := n / 2
	chunk := make([]int32, n)
	var nll, nll2 float64
	count := 0
	for c := 0; c < chunks; c++ {
		copy(chunk, tokens[c*n:(c+1)*n])
		if m.Tokenizer.AddBOS() {
			chunk[0] = m.Tokenizer.BOS()
		}
		if err := ctx.Err(); err != nil {
			return res.partial(c, count, nll, nll2), err
		}
		m.reset()
		logits, err := m.evalSeq(ctx, m.seq, chunk, true)
		if err != nil {
			if ctx.Err() != nil {
				return res.partial(c, count, nll, nll2), err
			}
			return nil, err
		}
		for j := first; j < n-1; j++ {
			v := -logSoftmaxAt(logits[j*vocab:(j+1)*vocab], int(chunk[j+1]))
			nll += v
			nll2 += v * v
			count++
		}
		res.Running = append(res.Running, math.Exp(nll/float64(count)))
		if onChunk != nil {
			onChunk(c, res.Running[c])
		}
	}
	res.estimate(count, nll, nll2)
	return res, nil
}

// estimate sets PPL and its error from the sums over count scored tokens.
func (res *PerplexityResult) estimate(count int, nll, nll2 float64) {
	mean := nll / float64(count)
	res.PPL = math.Exp(mean)
	if v := nll2/float64(count) - mean*mean; v > 0 && count > 1 {
		res.PlusMinus = math.Sqrt(v/float64(count-1)) * res.PPL
	}
	res.Tokens = count
}

// partial is the estimate over the first done chunks, or nil if none.
func (res *PerplexityResult) partial(done, count int, nll, nll2 float64) *PerplexityResult {
	if done == 0 || count == 0 {
		return nil
	}
	res.Chunks, res.Partial = done, true
	res.estimate(count, nll, nll2)
	return res
}

// logSoftmaxAt returns log(softmax(logits)[i]) computed stably in float64.
func logSoftmaxAt(logits []float32, i int) float64 {
	mx := math.Inf(-1)
	for _, l := range logits {
		mx = math.Max(mx, float64(l))
	}
	var sum float64
	for _, l := range logits {
		sum += math.Exp(float64(l) - mx)
	}
	return float64(logits[i]) - mx - math.Log(sum)
}
