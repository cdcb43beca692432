package scheduler

import (
	"context"
	"math"
	"time"

	"github.com/gollm/gollm/engine"
	"github.com/gollm/gollm/sampler"
	"github.com/gollm/gollm/tokenizer"
)

// job is one request inside the scheduler: its tokens so far (prompt then
// generated), its sequence in the KV cache while it has one, and its
// sampler and text state. Only the scheduler goroutine touches it.
type job struct {
	req  Request
	ctx  context.Context
	out  *Stream
	hist []int32 // prompt + generated tokens

	hasSeq bool
	seq    engine.SeqID
	kv     int      // positions of hist in the cache
	hashes []uint64 // prefix-cache chain hashes of hist's full blocks, as far as computed
	shared int      // blocks of hashes registered in the prefix cache

	smp     *sampler.Sampler
	dec     *tokenizer.StreamDecoder
	stops   *sampler.StopMatcher
	masked  []float32 // logits with end-of-generation tokens removed (IgnoreEOS)
	stats   Stats
	done    bool
	chunk   int  // tokens of hist in the current step's entry
	logitRw int  // its row in the step's logits, -1 for none
	started bool // admitted at least once
}

// remaining is the tokens of hist not yet in the cache.
func (j *job) remaining() int { return len(j.hist) - j.kv }

// sample draws the next token from the logits of hist's last token and
// delivers it, finishing the request when it is done.
func (s *Scheduler) sample(j *job, logits []float32, now time.Time) {
	tok := s.model.Tokenizer
	row := logits
	if j.req.IgnoreEOS {
		copy(j.masked, logits)
		for _, id := range s.eog {
			j.masked[id] = float32(math.Inf(-1))
		}
		row = j.masked
	}
	id := j.smp.Sample(row)
	j.smp.Accept(id)
	j.hist = append(j.hist, id)
	j.stats.GeneratedTokens++
	if j.stats.FirstToken.IsZero() {
		j.stats.FirstToken = now
	}
	t := Token{ID: id, Time: now}
	if j.req.Logprobs {
		t.Piece = string(tok.Piece(id))
		t.Logprob, t.Top = logprobs(tok, logits, id, j.req.TopLogprobs)
	}
	if j.req.KeepLogits {
		t.Logits = append([]float32(nil), logits...)
	}
	if tok.IsEOG(id) && !j.req.IgnoreEOS {
		j.out.push(&t, "")
		s.finish(j, FinishStop, nil, true)
		return
	}
	text, stopped := j.stops.Push(j.dec.Add(id))
	j.out.push(&t, text)
	switch {
	case stopped:
		s.finish(j, FinishStop, nil, false)
	case j.req.MaxTokens > 0 && j.stats.GeneratedTokens >= j.req.MaxTokens:
		s.finish(j, FinishLength, nil, true)
	case len(j.hist) >= s.model.ContextSize():
		s.finish(j, FinishLength, nil, true)
	}
}

// logprobs returns the log-probability of id under the softmax of the raw
// logits, and the top n alternatives.
func logprobs(tok *tokenizer.Tokenizer, logits []float32, id int32, n int) (float32, []TopLogprob) {
	mx := float32(math.Inf(-1))
	for _, l := range logits {
		mx = max(mx, l)
	}
	var sum float64
	for _, l := range logits {
		sum += math.Exp(float64(l - mx))
	}
	lse := float64(mx) + math.Log(sum)
	lp := func(i int32) float32 { return float32(float64(logits[i]) - lse) }
	if n <= 0 {
		return lp(id), nil
	}
	top := make([]TopLogprob, 0, n)
	for i, l := range logits {
		if len(top) == n && l <= logits[top[n-1].ID] {
			continue
		}
		k := len(top)
		if k < n {
			top = append(top, TopLogprob{})
		} else {
			k = n - 1
		}
		for k > 0 && logits[top[k-1].ID] < l {
			top[k] = top[k-1]
			k--
		}
		top[k] = TopLogprob{ID: int32(i)}
	}
	for k := range top {
		top[k].Piece, top[k].Logprob = string(tok.Piece(top[k].ID)), lp(top[k].ID)
	}
	return lp(id), top
}
