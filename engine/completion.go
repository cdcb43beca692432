package engine

import (
	"math"
	"strings"
	"time"

	"github.com/gollm/gollm/sampler"
	"github.com/gollm/gollm/tokenizer"
)

// completion is the state of one generated continuation: its sampler,
// streaming detokenizer, stop-string matcher, tokens, text and timings.
type completion struct {
	m         *Model
	res       *Result
	smp       *sampler.Sampler
	stream    *tokenizer.StreamDecoder
	stops     *sampler.StopMatcher
	text      strings.Builder
	onText    func(string) bool
	eog       []int32 // end-of-generation ids masked out (IgnoreEOS), or nil
	maxTokens int
	done      bool
	row       int // its row in the last batched decode's logits
	first     time.Time
	last      time.Time
}

func newCompletion(m *Model, req Request, smp *sampler.Sampler, prompt []int32, onText func(string) bool) *completion {
	c := &completion{m: m, smp: smp, stream: m.Tokenizer.NewStreamDecoder(),
		stops: sampler.NewStopMatcher(req.Stop), onText: onText, maxTokens: req.MaxTokens,
		res: &Result{PromptTokens: prompt}}
	if req.IgnoreEOS {
		c.eog = m.Tokenizer.EOGTokens()
	}
	if req.MaxTokens > 0 {
		c.res.Tokens = make([]int32, 0, req.MaxTokens)
		c.res.Stats.ITL = make([]time.Duration, 0, req.MaxTokens)
	}
	smp.Reset()
	for _, id := range prompt {
		smp.Accept(id)
	}
	return c
}

// sample draws the next token from logits (an engine buffer it may mask),
// records it and decides whether the completion is done.
func (c *completion) sample(logits []float32, phase Phase, start time.Time) int32 {
	t := c.m.Timers
	t.phase = phase
	// The sampling op also covers the token's bookkeeping (detokenizing,
	// stop strings, the callback), so the ops add up to the decode time.
	t.mark(-1, OpSampling)
	defer t.stop()
	for _, id := range c.eog {
		if int(id) < len(logits) {
			logits[id] = float32(math.Inf(-1))
		}
	}
	id := c.smp.Sample(logits)
	c.smp.Accept(id)
	now := time.Now()
	if len(c.res.Tokens) == 0 {
		c.first = now
		c.res.Stats.TTFT = now.Sub(start)
	} else {
		c.res.Stats.ITL = append(c.res.Stats.ITL, now.Sub(c.last))
	}
	c.last = now
	c.res.Tokens = append(c.res.Tokens, id)

	if c.eog == nil && c.m.Tokenizer.IsEOG(id) {
		c.stop(StopEOG)
		return id
	}
	out, stopped := c.stops.Push(c.stream.Add(id))
	if !c.emit(out) {
		c.stop(StopInterrupted)
		return id
	}
	switch {
	case stopped:
		c.res.StopReason, c.done = StopString, true
	case c.maxTokens > 0 && len(c.res.Tokens) >= c.maxTokens:
		c.stop(StopLength)
	}
	return id
}

// stop ends the completion, flushing text held back for stop strings.
func (c *completion) stop(reason string) {
	c.res.StopReason, c.done = reason, true
	out, _ := c.stops.Push(c.stream.Flush())
	c.emit(out)
	c.emit(c.stops.Flush())
}

// emit records final text and passes it on; false means the receiver asked
// to stop.
func (c *completion) emit(s string) bool {
	if s == "" {
		return true
	}
	c.text.WriteString(s)
	if c.onText != nil {
		return c.onText(s)
	}
	return true
}

func (c *completion) finish(start time.Time) *Result {
	c.res.Stats.Decode = c.last.Sub(c.first)
	c.res.Stats.Total = time.Since(start)
	c.res.Text = c.text.String()
	return c.res
}
