package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/gollm/gollm/sampler"
)

// Request is one generation.
type Request struct {
	Prompt       string
	ParseSpecial bool // control-token texts in the prompt become their ids
	MaxTokens    int  // tokens to generate; <= 0: until end of generation or the context is full
	Sampler      *sampler.Sampler
	Stop         []string     // stop strings (may span tokens); not included in the output
	OnText       func(string) // called with text as it becomes final (never half a UTF-8 rune)
}

// Stop reasons.
const (
	StopEOG     = "eog"     // the model emitted an end-of-generation token
	StopLength  = "length"  // MaxTokens reached
	StopString  = "stop"    // a stop string matched
	StopContext = "context" // the context window is full
)

// Result is what a generation produced and how long each part took.
type Result struct {
	PromptTokens []int32
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

// PrefillTPS is prompt tokens per second of prefill.
func (r *Result) PrefillTPS() float64 { return rate(len(r.PromptTokens), r.Stats.Prefill) }

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

// Generate tokenizes the prompt, prefills it into a fresh cache and samples
// until an end-of-generation token, a stop string, MaxTokens or a full
// context. Text streams through OnText as it is produced.
func (m *Model) Generate(req Request) (*Result, error) {
	results, err := m.GenerateN(req, []*sampler.Sampler{req.Sampler}, nil)
	if err != nil {
		return nil, err
	}
	return results[0], nil
}

// GenerateN produces len(samplers) completions of one prompt at once: the
// prompt is prefilled once, its KV blocks are shared by every completion
// (copy-on-write forks), and each decode step runs all unfinished
// completions through the weights together. onText, when not nil, receives
// (completion index, text) as text becomes final. req.Sampler and
// req.OnText are ignored.
func (m *Model) GenerateN(req Request, samplers []*sampler.Sampler, onText func(i int, s string)) ([]*Result, error) {
	start := time.Now()
	n := len(samplers)
	if n == 0 || n > m.state.batch {
		return nil, fmt.Errorf("engine: %d parallel completions, the batch holds 1 to %d (raise -b)", n, m.state.batch)
	}
	for _, smp := range samplers {
		if smp == nil {
			return nil, fmt.Errorf("engine: Generate needs a sampler")
		}
	}
	if onText == nil && req.OnText != nil {
		onText = func(_ int, s string) { req.OnText(s) }
	}
	prompt := m.Tokenizer.Encode(req.Prompt, true, req.ParseSpecial)
	tokenize := time.Since(start)
	if len(prompt) == 0 {
		return nil, fmt.Errorf("engine: the prompt is empty and the model adds no BOS token")
	}
	if len(prompt) >= m.ctx {
		return nil, fmt.Errorf("%w: %d prompt tokens, context %d (raise -c)", ErrPromptTooLong, len(prompt), m.ctx)
	}
	m.Reset()
	prefillStart := time.Now()
	logits, err := m.Eval(prompt, false)
	if err != nil {
		return nil, err
	}
	prefill := time.Since(prefillStart)

	comps := make([]*completion, n)
	seqs := make([]SeqID, n)
	for i, smp := range samplers {
		seqs[i] = m.seq
		if i > 0 {
			if seqs[i], err = m.Fork(m.seq); err != nil {
				return nil, err
			}
		}
		i := i
		var emit func(string)
		if onText != nil {
			emit = func(s string) { onText(i, s) }
		}
		comps[i] = newCompletion(m, req, smp, prompt, emit)
		comps[i].res.Stats.Tokenize, comps[i].res.Stats.Prefill = tokenize, prefill
	}

	// Every completion samples its first token from the prompt's logits.
	vocab := m.Config.Vocab
	rows := make([]float32, vocab)
	copy(rows, logits)
	active := make([]int, 0, n)
	next := make([]int32, 0, n)
	batch := make([]SeqID, 0, n)
	phase := Prefill
	for {
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
			if !c.done && m.SeqLen(seqs[i]) >= m.ctx {
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
		if logits, err = m.DecodeSeqs(batch, next); err != nil {
			return nil, err
		}
	}
	results := make([]*Result, n)
	for i, c := range comps {
		results[i] = c.finish(start)
		if i > 0 {
			m.FreeSeq(seqs[i])
		}
	}
	return results, nil
}
