package scheduler

import (
	"context"
	"errors"
	"github.com/gollm/gollm/internal/shared"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/gollm/gollm/engine"
	"github.com/gollm/gollm/sampler"
)

func loadShared(t testing.TB, name string, opt engine.Options) *engine.Model {
	t.Helper()
	path := shared.Dir(t, "models", name)
	m, err := engine.Load(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func newSched(t testing.TB, m *engine.Model, cfg Config) *Scheduler {
	t.Helper()
	s, err := New(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type result struct {
	tokens []int32
	logits [][]float32
	text   string
	finish string
	stats  Stats
	err    error
}

func collect(ctx context.Context, st *Stream) result {
	var r result
	for {
		u, err := st.Recv(ctx)
		if err != nil {
			r.err = err
			return r
		}
		for _, t := range u.Tokens {
			r.tokens = append(r.tokens, t.ID)
			r.logits = append(r.logits, t.Logits)
		}
		r.text += u.Text
		if u.Done {
			r.finish, r.stats, r.err = u.Finish, u.Stats, u.Err
			return r
		}
	}
}

// runAll submits every request at once and collects the results.
func runAll(t *testing.T, s *Scheduler, reqs []Request) []result {
	t.Helper()
	streams := make([]*Stream, len(reqs))
	for i, r := range reqs {
		st, err := s.Submit(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		streams[i] = st
	}
	out := make([]result, len(reqs))
	for i, st := range streams {
		out[i] = collect(context.Background(), st)
		if out[i].err != nil {
			t.Fatalf("request %d: %v", i, out[i].err)
		}
	}
	return out
}

func sameResults(t *testing.T, what string, want, got []result) {
	t.Helper()
	for i := range want {
		if len(want[i].tokens) != len(got[i].tokens) {
			t.Fatalf("%s: request %d: %d tokens, alone %d", what, i, len(got[i].tokens), len(want[i].tokens))
		}
		for k := range want[i].tokens {
			if want[i].tokens[k] != got[i].tokens[k] {
				t.Fatalf("%s: request %d token %d: %d, alone %d", what, i, k, got[i].tokens[k], want[i].tokens[k])
			}
			if want[i].logits[k] == nil {
				continue
			}
			for v := range want[i].logits[k] {
				if math.Float32bits(want[i].logits[k][v]) != math.Float32bits(got[i].logits[k][v]) {
					t.Fatalf("%s: request %d token %d: logit %d is %v, alone %v", what, i, k, v, got[i].logits[k][v], want[i].logits[k][v])
				}
			}
		}
	}
}

// determinismRequests: 16 prompts of 3 to 300 tokens (past the fast
// attention threshold), the first 12 greedy with logits kept, the last 4
// sampled with seeds.
func determinismRequests(vocab int) []Request {
	r := rand.New(rand.NewPCG(1, 2))
	reqs := make([]Request, 16)
	for i := range reqs {
		n := []int{3, 40, 300, 17, 64, 90, 5, 270, 33, 128, 7, 12, 200, 50, 9, 100}[i]
		p := make([]int32, n)
		p[0] = 1
		for k := 1; k < n; k++ {
			p[k] = int32(3 + r.IntN(vocab-3))
		}
		reqs[i] = Request{Prompt: p, MaxTokens: 6, IgnoreEOS: true, KeepLogits: true}
		if i >= 12 {
			reqs[i].Sampling = sampler.Config{Temperature: 0.9, TopK: 40, Seed: uint64(i)}
		}
	}
	return reqs
}

// TestDeterministic: each of 16 requests gives the same tokens and logits
// (bit for bit) alone, among all 16 at once, with its prompt in chunks of
// a small token budget, and served from the prefix cache.
func TestDeterministic(t *testing.T) {
	// stories260K is F32 and tiny-Q4_K_M has Q4_K (both sum a lone token
	// in another order than a longer pass; every token takes the
	// multi-token one here), gemma3 has sliding windows, qwen3moe routes
	// tokens to experts (an F32 router; Q4_K experts: each expert's token
	// group in the four-token order too).
	models := []string{"tiny-Q4_K_M.gguf", "stories260K.gguf", "tiny-gemma3-Q4_K_M.gguf", "tiny-qwen3moe-Q8_0.gguf", "tiny-qwen3moe-Q4_K_M.gguf"}
	if slowBuild {
		models = models[1:2] // the 4-layer models take minutes there
	}
	for _, name := range models {
		t.Run(name, func(t *testing.T) {
			m := loadShared(t, name, engine.Options{Threads: 2, Context: 512, Batch: 512, KVPositions: 16 * 512})
			reqs := determinismRequests(m.Config.Vocab)
			if slowBuild {
				reqs = append(reqs[:8], reqs[12:]...) // both prompts past 256 positions and the seeded ones
			}

			s := newSched(t, m, Config{NoPrefixCache: true})
			alone := make([]result, len(reqs))
			for i := range reqs {
				alone[i] = runAll(t, s, reqs[i:i+1])[0]
			}
			sameResults(t, "all at once", alone, runAll(t, s, reqs))
			s.Close()

			s = newSched(t, m, Config{NoPrefixCache: true, BatchTokens: 24})
			sameResults(t, "chunked prefill (24-token passes)", alone, runAll(t, s, reqs))
			s.Close()

			s = newSched(t, m, Config{})
			defer s.Close()
			sameResults(t, "prefix cache, cold", alone, runAll(t, s, reqs))
			warm := runAll(t, s, reqs)
			sameResults(t, "prefix cache, warm", alone, warm)
			cached := 0
			for _, r := range warm {
				cached += r.stats.CachedTokens
			}
			if cached == 0 {
				t.Fatal("no prompt tokens came from the prefix cache on the second run")
			}
		})
	}
}

// TestPreemption: with a KV cache too small for every request at once,
// the youngest are preempted and resumed, with the output they have alone.
func TestPreemption(t *testing.T) {
	m := loadShared(t, "stories260K.gguf", engine.Options{Threads: 2, Context: 128, Batch: 128, KVPositions: 128, KVBlock: 16})
	var reqs []Request
	for i := 0; i < 4; i++ {
		reqs = append(reqs, Request{Prompt: m.Tokenizer.Encode([]string{"Once upon a time", "Lily had a", "The dog", "One day, a little"}[i], true, false),
			MaxTokens: 70, IgnoreEOS: true, KeepLogits: true})
	}
	s := newSched(t, m, Config{NoPrefixCache: true})
	var alone []result
	for i := range reqs {
		alone = append(alone, runAll(t, s, reqs[i:i+1])[0])
	}
	got := runAll(t, s, reqs)
	sameResults(t, "with preemption", alone, got)
	pre := 0
	for _, r := range got {
		pre += r.stats.Preemptions
	}
	if pre == 0 {
		t.Fatal("no request was preempted")
	}
	s.Close()
	if used, _, _ := m.KVCache().Blocks(); used != 0 {
		t.Fatalf("%d blocks in use after Close", used)
	}
}

// TestManyClientsCancel: 32 clients, some cancelling mid-generation; all
// end, and no block stays in use.
func TestManyClientsCancel(t *testing.T) {
	m := loadShared(t, "stories260K.gguf", engine.Options{Threads: 2, Context: 256, Batch: 64, KVPositions: 1024})
	s := newSched(t, m, Config{MaxRunning: 8, MaxQueue: 64})
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			prompt := m.Tokenizer.Encode("Once upon a time there was a", true, false)
			st, err := s.Submit(ctx, Request{Prompt: prompt, MaxTokens: 40, IgnoreEOS: true, Sampling: sampler.Config{Temperature: 1, Seed: uint64(i)}})
			if err != nil {
				errs <- err
				return
			}
			if i%3 == 0 {
				time.AfterFunc(time.Duration(i)*time.Millisecond, cancel)
			}
			r := collect(context.Background(), st)
			switch {
			case i%3 != 0 && r.err != nil:
				errs <- r.err
			case r.err != nil && !errors.Is(r.err, context.Canceled):
				errs <- r.err
			case r.err == nil && r.finish != FinishLength:
				errs <- errors.New("finish " + r.finish)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Idle: the only blocks in use are the prefix cache's.
	deadline := time.Now().Add(5 * time.Second)
	for s.Load().Running+s.Load().Waiting > 0 || s.Load().KVUsage != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("scheduler not idle: %+v", s.Load())
		}
		time.Sleep(time.Millisecond)
	}
	s.Close()
	if used, _, _ := m.KVCache().Blocks(); used != 0 {
		t.Fatalf("%d blocks in use after Close", used)
	}
}

func TestSubmitErrors(t *testing.T) {
	m := loadShared(t, "stories260K.gguf", engine.Options{Threads: 1, Context: 64})
	s := newSched(t, m, Config{MaxRunning: 1, MaxQueue: 1})
	ctx := context.Background()
	long := make([]int32, 64)
	for _, c := range []struct {
		req  Request
		want error
	}{
		{Request{}, ErrBadRequest},
		{Request{Prompt: long}, ErrPromptTooLong},
		{Request{Prompt: []int32{1, 99999}}, ErrBadRequest},
		{Request{Prompt: []int32{1}, Sampling: sampler.Config{TopP: 2}}, ErrBadRequest},
		{Request{Prompt: []int32{1}, TopLogprobs: 21}, ErrBadRequest},
	} {
		if _, err := s.Submit(ctx, c.req); !errors.Is(err, c.want) {
			t.Errorf("%+v: err %v, want %v", c.req, err, c.want)
		}
	}
	full := false
	var streams []*Stream
	for i := 0; i < 3; i++ {
		st, err := s.Submit(ctx, Request{Prompt: []int32{1, 5}, MaxTokens: 50, IgnoreEOS: true})
		if errors.Is(err, ErrQueueFull) {
			full = true
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		streams = append(streams, st)
	}
	if !full {
		t.Error("three requests with one running and a queue of one: none refused")
	}
	s.Close()
	for _, st := range streams {
		if r := collect(ctx, st); r.err != nil && !errors.Is(r.err, ErrClosed) {
			t.Errorf("after Close: %v", r.err)
		}
	}
	if _, err := s.Submit(ctx, Request{Prompt: []int32{1}}); !errors.Is(err, ErrClosed) {
		t.Errorf("Submit after Close: %v", err)
	}
}
