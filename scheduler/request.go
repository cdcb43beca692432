package scheduler

import (
	"context"
	"sync"
	"time"

	"github.com/gollm/gollm/sampler"
)

// Request is one completion to generate.
type Request struct {
	Prompt    []int32 // token ids, BOS included if the model wants one
	MaxTokens int     // tokens to generate; <= 0: until end of generation or a full context
	Sampling  sampler.Config
	Stop      []string // stop strings (may span tokens); not included in the text
	IgnoreEOS bool     // end-of-generation tokens are never sampled

	Logprobs    bool // each token carries its log-probability
	TopLogprobs int  // and the most likely alternatives (0-20)
	KeepLogits  bool // each token carries a copy of its logits row (tests, debugging)
}

// Finish reasons, as OpenAI names them.
const (
	FinishStop   = "stop"   // an end-of-generation token or a stop string
	FinishLength = "length" // MaxTokens, or the context is full
)

// Token is one generated token.
type Token struct {
	ID      int32
	Piece   string    // the token's own text (for logprobs)
	Time    time.Time // when it was sampled
	Logprob float32   // with Request.Logprobs
	Top     []TopLogprob
	Logits  []float32 // with Request.KeepLogits
}

// TopLogprob is one of the most likely tokens at a position.
type TopLogprob struct {
	ID      int32
	Piece   string
	Logprob float32
}

// Stats are a request's counts and timestamps.
type Stats struct {
	PromptTokens    int
	CachedTokens    int // prompt tokens served from the prefix cache
	GeneratedTokens int
	Preemptions     int
	Arrival         time.Time // Submit
	Scheduled       time.Time // first admitted to a forward pass
	FirstToken      time.Time
	End             time.Time
}

// Queue is the time from arrival to the first forward pass.
func (s *Stats) Queue() time.Duration { return sub(s.Scheduled, s.Arrival) }

// Prefill is the time from the first forward pass to the first token.
func (s *Stats) Prefill() time.Duration { return sub(s.FirstToken, s.Scheduled) }

// TTFT is the time from arrival to the first token.
func (s *Stats) TTFT() time.Duration { return sub(s.FirstToken, s.Arrival) }

// Decode is the time from the first token to the end.
func (s *Stats) Decode() time.Duration { return sub(s.End, s.FirstToken) }

// E2E is the time from arrival to the end.
func (s *Stats) E2E() time.Duration { return sub(s.End, s.Arrival) }

func sub(a, b time.Time) time.Duration {
	if a.IsZero() || b.IsZero() {
		return 0
	}
	return a.Sub(b)
}

// Update is what a Stream delivers: the tokens and final text produced
// since the previous Update, and at the end the outcome.
type Update struct {
	Tokens []Token
	Text   string // text that became final (stop strings held back until resolved)
	Done   bool
	Finish string // FinishStop or FinishLength when Done without Err
	Err    error  // the request failed or was cancelled
	Stats  Stats  // when Done
}

// Stream is the output of one request. The scheduler appends to it
// without ever waiting for the reader (a slow client cannot stall the
// batch); the reader collects with Recv.
type Stream struct {
	mu      sync.Mutex
	pending Update
	closed  bool
	notify  chan struct{} // 1-buffered: something was appended
}

func newStream() *Stream { return &Stream{notify: make(chan struct{}, 1)} }

// Recv waits until there is output and returns all of it. After the
// Update with Done it returns that Update's outcome again, with no
// tokens. It returns ctx's error if ctx ends first.
func (s *Stream) Recv(ctx context.Context) (Update, error) {
	for {
		s.mu.Lock()
		u := s.pending
		if len(u.Tokens) > 0 || u.Text != "" || u.Done {
			s.pending.Tokens, s.pending.Text = nil, ""
			s.mu.Unlock()
			return u, nil
		}
		s.mu.Unlock()
		select {
		case <-s.notify:
		case <-ctx.Done():
			return Update{}, ctx.Err()
		}
	}
}

func (s *Stream) push(tok *Token, text string) {
	s.mu.Lock()
	if tok != nil {
		s.pending.Tokens = append(s.pending.Tokens, *tok)
	}
	s.pending.Text += text
	s.mu.Unlock()
	s.wake()
}

func (s *Stream) finish(text, reason string, err error, st Stats) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.pending.Text += text
	s.pending.Done, s.pending.Finish, s.pending.Err, s.pending.Stats = true, reason, err, st
	s.mu.Unlock()
	s.wake()
}

func (s *Stream) wake() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}
