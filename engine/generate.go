package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gollm/gollm/sampler"
)

// Request is one generation.
type Request struct {
	Prompt string
	// Tokens is the prompt as token ids. When not nil it is used as is and
	// Prompt is ignored (no BOS is added: the ids are the whole prompt).
	Tokens       []int32
	ParseSpecial bool // control-token texts in Prompt become their ids
	MaxTokens    int  // tokens to generate; <= 0: until end of generation or the context is full
	// Sampler draws the tokens; nil samples greedily.
	Sampler *sampler.Sampler
	Stop    []string // stop strings (may span tokens); not included in the output
	// IgnoreEOS keeps generating past end-of-generation tokens: their
	// logits are set to -Inf before sampling, as llama.cpp's --ignore-eos.
	IgnoreEOS bool
	// ReuseCache keeps the longest common prefix of the prompt and the
	// tokens already in the model's default sequence (a previous Generate's
	// prompt and output) and prefills only the rest: a chat's next turn
	// costs its new tokens only. Result.CachedTokens says how many were
	// kept. Without it the default sequence is emptied first.
	ReuseCache bool
	// OnText is called with text as it becomes final (never half a UTF-8
	// rune); returning false stops the generation (StopInterrupted).
	OnText func(string) bool
}

// Stop reasons.
const (
	StopEOG         = "eog"         // the model emitted an end-of-generation token
	StopLength      = "length"      // MaxTokens reached
	StopString      = "stop"        // a stop string matched
	StopContext     = "context"     // the context window is full
	StopInterrupted = "interrupted" // the context was cancelled or OnText returned false
)

// Result is what a generation produced and how long each part took.
type Result struct {
	PromptTokens []int32
	CachedTokens int     // prompt tokens reused from the cache (ReuseCache), not prefilled
	Tokens       []int32 // generated ids (an end-of-generation token included)
	Text         string
	StopReason   string
	Stats        Stats
}

// Stats are the timings of one request; see the README for definitions.
type Stats struct {
	Tokenize time.Duration // text to ids
	Prefill  time.Duration // the forward passes over the prompt
	TTFT     time.Duration // request start to the first sampled token
	Decode   time.Duration // first to last generated token
	Total    time.Duration // request start to the end
	ITL      []time.Duration
}

// PrefillTPS is prompt tokens prefilled per second of prefill (tokens
// reused from the cache are not counted).
func (r *Result) PrefillTPS() float64 {
	return rate(len(r.PromptTokens)-r.CachedTokens, r.Stats.Prefill)
}

// DecodeTPS is generated tokens after the first per second between the first
// and the last token (what llama-bench's tg figure measures).
func (r *Result) DecodeTPS() float64 { return rate(len(r.Tokens)-1, r.Stats.Decode) }

// EndToEndTPS is generated tokens per second of the whole request.
func (r *Result) EndToEndTPS() float64 { return rate(len(r.Tokens), r.Stats.Total) }

func rate(n int, d time.Duration) float64 {
	if n <= 0 || d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// ErrPromptTooLong is returned when the prompt alone does not fit the context.
var ErrPromptTooLong = errors.New("prompt longer than the context")

// Generate tokenizes the prompt, prefills it into the model's default
// sequence and samples until an end-of-generation token, a stop string,
// MaxTokens, a full context, or ctx is cancelled. Text streams through
// OnText as it is produced.
//
// When ctx is cancelled, generation stops within one token (or one prefill
// batch) and Generate returns what was made, with StopReason
// StopInterrupted, together with ctx.Err(). Other sequences of the model
// are left alone.
func (m *Model) Generate(ctx context.Context, req Request) (*Result, error) {
	var onText func(int, string) bool
	if req.OnText != nil {
		onText = func(_ int, s string) bool { return req.OnText(s) }
	}
	results, err := m.GenerateN(ctx, req, []*sampler.Sampler{req.Sampler}, onText)
	if len(results) == 0 {
		return nil, err
	}
	return results[0], err
}

// GenerateN produces len(samplers) completions of one prompt at once: the
// prompt is prefilled once, its KV blocks are shared by every completion
// (copy-on-write forks), and each decode step runs all unfinished
// completions through the weights together. A nil sampler samples greedily.
// onText, when not nil, receives (completion index, text) as text becomes
// final and stops that completion by returning false. req.Sampler and
// req.OnText are ignored. Cancellation works as for Generate: every
// completion is returned with what it made.
func (m *Model) GenerateN(ctx context.Context, req Request, samplers []*sampler.Sampler, onText func(i int, s string) bool) ([]*Result, error) {
	start := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(samplers)
	if n == 0 || n > m.state.batch {
		return nil, fmt.Errorf("engine: %d parallel completions, the batch holds 1 to %d", n, m.state.batch)
	}
	samplers = append([]*sampler.Sampler(nil), samplers...)
	for i, smp := range samplers {
		if smp == nil {
			greedy, err := sampler.New(sampler.Config{}, m.Config.Vocab)
			if err != nil {
				return nil, err
			}
			samplers[i] = greedy
		} else if smp.VocabSize() < m.Config.Vocab && smp.VocabSize() < m.Tokenizer.VocabSize() {
			return nil, fmt.Errorf("engine: sampler %d was built for %d tokens, the model has %d", i, smp.VocabSize(), m.Config.Vocab)
		}
	}
	prompt := req.Tokens
	if prompt == nil {
		prompt = m.Tokenizer.Encode(req.Prompt, true, req.ParseSpecial)
	}
	tokenize := time.Since(start)
	if len(prompt) == 0 {
		return nil, fmt.Errorf("engine: the prompt is empty and the model adds no BOS token")
	}
	if err := m.checkTokens(prompt); err != nil {
		return nil, err
	}
	if len(prompt) >= m.ctx {
		return nil, fmt.Errorf("%w: %d prompt tokens, context %d", ErrPromptTooLong, len(prompt), m.ctx)
	}
	if err := ctx.Err(); err != nil {
		return interruptedResults(n, prompt, 0, start), err
	}

	// The default sequence keeps the longest common prefix with what it
	// holds (ReuseCache) or starts empty. At least one token is prefilled,
	// since its logits give the first sampled token.
	keep := 0
	if req.ReuseCache {
		keep = commonPrefix(m.seqTokens, prompt)
		keep = min(keep, len(prompt)-1)
	}
	if err := m.truncateSeq(m.seq, keep); err != nil {
		return nil, err
	}
	prefillStart := time.Now()
	logits, err := m.evalSeq(ctx, m.seq, prompt[keep:], false)
	if err != nil {
		if ctx.Err() != nil {
			return interruptedResults(n, prompt, keep, start), err
		}
		return nil, err
	}
	prefill := time.Since(prefillStart)

	comps := make([]*completion, n)
	seqs := make([]SeqID, n)
	for i, smp := range samplers {
		seqs[i] = m.seq
		if i > 0 {
			if seqs[i], err = m.cache.Fork(m.seq); err != nil {
				for _, s := range seqs[1:i] {
					m.cache.Free(s)
				}
				return nil, err
			}
		}
		var emit func(string) bool
		if onText != nil {
			emit = func(s string) bool { return onText(i, s) }
		}
		comps[i] = newCompletion(m, req, smp, prompt, emit)
		comps[i].res.CachedTokens = keep
		comps[i].res.Stats.Tokenize, comps[i].res.Stats.Prefill = tokenize, prefill
	}
	defer func() {
		for _, s := range seqs[1:] {
			m.cache.Free(s)
		}
	}()

	// Every completion samples its first token from the prompt's logits.
	vocab := m.Config.Vocab
	rows := make([]float32, vocab)
	copy(rows, logits)
	active := make([]int, 0, n)
	next := make([]int32, 0, n)
	batch := make([]SeqID, 0, n)
	phase := Prefill
	var stopErr error
	for {
		if err := ctx.Err(); err != nil {
			stopErr = err
			for _, c := range comps {
				if !c.done {
					c.stop(StopInterrupted)
				}
			}
			break
		}
		active, next = active[:0], next[:0]
		for i, c := range comps {
			if c.done {
				continue
			}
			row := rows
			if phase == Decode {
				row = logits[c.row*vocab : (c.row+1)*vocab]
			}
			id := c.sample(row, phase, start)
			if !c.done && m.cache.Len(seqs[i]) >= m.ctx {
				c.stop(StopContext)
			}
			if !c.done {
				active, next = append(active, i), append(next, id)
			}
		}
		if len(active) == 0 {
			break
		}
		batch = batch[:0]
		for r, i := range active {
			batch = append(batch, seqs[i])
			comps[i].row = r
		}
		phase = Decode
		if logits, err = m.decodeSeqs(batch, next); err != nil {
			return nil, err
		}
	}
	results := make([]*Result, n)
	for i, c := range comps {
		results[i] = c.finish(start)
	}
	return results, stopErr
}

// interruptedResults are the results of a generation cancelled during its
// prefill: nothing generated.
func interruptedResults(n int, prompt []int32, cached int, start time.Time) []*Result {
	out := make([]*Result, n)
	for i := range out {
		out[i] = &Result{PromptTokens: prompt, CachedTokens: cached, StopReason: StopInterrupted,
			Stats: Stats{Total: time.Since(start)}}
	}
	return out
}

func commonPrefix(a, b []int32) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
