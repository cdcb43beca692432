package server

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gollm/gollm/scheduler"
)

// choice is one completion in flight: n per prompt.
type choice struct {
	index   int
	prompt  int // index of its prompt
	stream  *scheduler.Stream
	lastTok time.Time

	text   strings.Builder
	tokens []scheduler.Token
	finish string
	stats  scheduler.Stats
	done   bool
}

// submit queues n choices of each prompt; choice i of prompt p has index
// p*n+i and the seed seed+index, so that a seeded request is reproducible
// and its choices differ.
func (s *Server) submit(ctx context.Context, b *Backend, prompts [][]int32, n int, base scheduler.Request, seed uint64, param string) ([]*choice, error) {
	if len(prompts)*n > s.cfg.MaxN {
		return nil, badParam("n", "%d prompts x n=%d choices exceed the limit of %d per request", len(prompts), n, s.cfg.MaxN)
	}
	ctxLen := b.Model.ContextSize()
	for _, p := range prompts {
		if len(p) == 0 {
			return nil, badParam(param, "the prompt is empty")
		}
		if len(p) >= ctxLen {
			e := badParam(param, "the prompt has %d tokens, the context holds %d (the prompt must leave room for at least one generated token)", len(p), ctxLen)
			e.Code, e.NPromptTokens, e.NCtx = "context_length_exceeded", len(p), ctxLen
			return nil, e
		}
	}
	var out []*choice
	for pi, p := range prompts {
		for i := 0; i < n; i++ {
			req := base
			req.Prompt = p
			idx := pi*n + i
			req.Sampling.Seed = seed + uint64(idx)
			st, err := b.Sched.Submit(ctx, req)
			if err != nil {
				return nil, err
			}
			out = append(out, &choice{index: idx, prompt: pi, stream: st})
		}
	}
	return out, nil
}

// recv returns the choice's next output, recording metrics.
func (s *Server) recv(ctx context.Context, c *choice) (scheduler.Update, error) {
	u, err := c.stream.Recv(ctx)
	if err != nil {
		return u, err
	}
	for _, t := range u.Tokens {
		if !c.lastTok.IsZero() {
			s.metrics.itl(t.Time.Sub(c.lastTok))
		}
		c.lastTok = t.Time
	}
	if u.Done {
		c.done, c.finish, c.stats = true, u.Finish, u.Stats
		s.metrics.finished(&u)
	}
	return u, nil
}

// collect runs every choice to its end, accumulating text and tokens.
func (s *Server) collect(ctx context.Context, cs []*choice, keepTokens bool) error {
	for _, c := range cs {
		for !c.done {
			u, err := s.recv(ctx, c)
			if err != nil {
				return err
			}
			c.text.WriteString(u.Text)
			if keepTokens {
				c.tokens = append(c.tokens, u.Tokens...)
			}
			if u.Done && u.Err != nil {
				return u.Err
			}
		}
	}
	return nil
}

// choiceUpdate is one choice's output for the streaming loop.
type choiceUpdate struct {
	c   *choice
	u   scheduler.Update
	err error
}

// fanIn starts one reader per choice and returns their merged updates;
// the channel closes when every reader has returned (its choice done, or
// ctx ended: then the last updates may be dropped).
func (s *Server) fanIn(ctx context.Context, cs []*choice) <-chan choiceUpdate {
	ch := make(chan choiceUpdate, len(cs))
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Add(1)
		go func(c *choice) {
			defer wg.Done()
			for {
				u, err := s.recv(ctx, c)
				select {
				case ch <- choiceUpdate{c, u, err}:
				case <-ctx.Done():
					return
				}
				if err != nil || u.Done {
					return
				}
			}
		}(c)
	}
	go func() {
		wg.Wait()
		close(ch)
	}()
	return ch
}

// timings is llama-server's timings object plus queue and TTFT.
type timings struct {
	CacheN              int     `json:"cache_n"`
	PromptN             int     `json:"prompt_n"`
	PromptMS            float64 `json:"prompt_ms"`
	PromptPerTokenMS    float64 `json:"prompt_per_token_ms"`
	PromptPerSecond     float64 `json:"prompt_per_second"`
	PredictedN          int     `json:"predicted_n"`
	PredictedMS         float64 `json:"predicted_ms"`
	PredictedPerTokenMS float64 `json:"predicted_per_token_ms"`
	PredictedPerSecond  float64 `json:"predicted_per_second"`
	QueueMS             float64 `json:"queue_ms"`
	TTFTMS              float64 `json:"ttft_ms"`
}

func makeTimings(st *scheduler.Stats) *timings {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	t := &timings{
		CacheN: st.CachedTokens, PromptN: st.PromptTokens - st.CachedTokens, PromptMS: ms(st.Prefill()),
		PredictedN: st.GeneratedTokens, PredictedMS: ms(st.Decode()),
		QueueMS: ms(st.Queue()), TTFTMS: ms(st.TTFT()),
	}
	if t.PromptN > 0 && t.PromptMS > 0 {
		t.PromptPerTokenMS, t.PromptPerSecond = t.PromptMS/float64(t.PromptN), float64(t.PromptN)*1000/t.PromptMS
	}
	if t.PredictedN > 1 && t.PredictedMS > 0 {
		// The first token ends the prompt's pass: the decode time covers
		// the n-1 tokens after it.
		t.PredictedPerTokenMS = t.PredictedMS / float64(t.PredictedN-1)
		t.PredictedPerSecond = float64(t.PredictedN-1) * 1000 / t.PredictedMS
	}
	return t
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	PromptDetails    struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// usageOf sums the choices' counts; a prompt shared by n choices counts once.
func usageOf(cs []*choice) *usage {
	u := &usage{}
	seen := map[int]bool{}
	for _, c := range cs {
		if !seen[c.prompt] {
			seen[c.prompt] = true
			u.PromptTokens += c.stats.PromptTokens
			u.PromptDetails.CachedTokens += c.stats.CachedTokens
		}
		u.CompletionTokens += c.stats.GeneratedTokens
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

func newID(prefix string) string {
	var b [12]byte
	for i := range b {
		b[i] = byte(rand.Uint32())
	}
	return prefix + hex.EncodeToString(b[:])
}

// sseWriter writes server-sent events, each under a write deadline so that
// a client that stops reading is dropped instead of holding its requests.
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	started bool
}

func newSSE(w http.ResponseWriter, timeout time.Duration) *sseWriter {
	return &sseWriter{w: w, rc: http.NewResponseController(w), timeout: timeout}
}

func (e *sseWriter) start() {
	if e.started {
		return
	}
	e.started = true
	h := e.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	e.w.WriteHeader(http.StatusOK)
}

func (e *sseWriter) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return e.raw(b)
}

func (e *sseWriter) raw(b []byte) error {
	e.start()
	e.rc.SetWriteDeadline(time.Now().Add(e.timeout))
	buf := make([]byte, 0, len(b)+8)
	buf = append(append(append(buf, "data: "...), b...), "\n\n"...)
	if _, err := e.w.Write(buf); err != nil {
		return err
	}
	return e.rc.Flush()
}

// streamError reports an error after the stream started as an event with a
// top-level error (what OpenAI's clients turn into an error).
func (e *sseWriter) streamError(err error) {
	ae := toAPIError(err)
	e.send(map[string]any{"error": ae})
}

// isCancel reports whether err is the client going away.
func isCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
