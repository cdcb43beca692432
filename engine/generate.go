package engine

import (
	"errors"
	"fmt"
	"strings"
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
	start := time.Now()
	if req.Sampler == nil {
		return nil, fmt.Errorf("engine: Generate needs a sampler")
	}
	tok := m.Tokenizer
	res := &Result{}
	res.PromptTokens = tok.Encode(req.Prompt, true, req.ParseSpecial)
	res.Stats.Tokenize = time.Since(start)
	if len(res.PromptTokens) == 0 {
		return nil, fmt.Errorf("engine: the prompt is empty and the model adds no BOS token")
	}
	if len(res.PromptTokens) >= m.ctx {
		return nil, fmt.Errorf("%w: %d prompt tokens, context %d (raise -c)", ErrPromptTooLong, len(res.PromptTokens), m.ctx)
	}
	m.Reset()
	req.Sampler.Reset()
	for _, id := range res.PromptTokens {
		req.Sampler.Accept(id)
	}

	prefillStart := time.Now()
	logits, err := m.Eval(res.PromptTokens, false)
	if err != nil {
		return nil, err
	}
	res.Stats.Prefill = time.Since(prefillStart)

	var text strings.Builder
	stream := tok.NewStreamDecoder()
	stops := sampler.NewStopMatcher(req.Stop)
	emit := func(s string) {
		if s == "" {
			return
		}
		text.WriteString(s)
		if req.OnText != nil {
			req.OnText(s)
		}
	}
	phase := Prefill
	var first, last time.Time
	for {
		m.Timers.phase = phase
		m.Timers.mark(-1, OpSampling)
		id := req.Sampler.Sample(logits)
		req.Sampler.Accept(id)
		m.Timers.stop()
		now := time.Now()
		if len(res.Tokens) == 0 {
			first = now
			res.Stats.TTFT = now.Sub(start)
		} else {
			res.Stats.ITL = append(res.Stats.ITL, now.Sub(last))
		}
		last = now
		res.Tokens = append(res.Tokens, id)

		if tok.IsEOG(id) {
			res.StopReason = StopEOG
			break
		}
		out, stopped := stops.Push(stream.Add(id))
		emit(out)
		if stopped {
			res.StopReason = StopString
			break
		}
		if req.MaxTokens > 0 && len(res.Tokens) >= req.MaxTokens {
			res.StopReason = StopLength
			break
		}
		if m.n >= m.ctx {
			res.StopReason = StopContext
			break
		}
		phase = Decode
		if logits, err = m.Eval(res.Tokens[len(res.Tokens)-1:], false); err != nil {
			return nil, err
		}
	}
	if res.StopReason != StopString {
		out, _ := stops.Push(stream.Flush())
		emit(out)
		emit(stops.Flush())
	}
	res.Stats.Decode = last.Sub(first)
	res.Stats.Total = time.Since(start)
	res.Text = text.String()
	return res, nil
}
