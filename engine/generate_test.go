package engine

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/gollm/gollm/sampler"
)

// Two goroutines generating on one model serialize on its lock: no panic,
// and each gets what it gets alone.
func TestGenerateConcurrentCallers(t *testing.T) {
	m := tinyModel(t, "Q8_0", Options{Threads: 2, Context: 64})
	prompts := []string{"Once upon a time", "hello world"}
	want := make([][]int32, len(prompts))
	for i, p := range prompts {
		res, err := m.Generate(context.Background(), Request{Prompt: p, MaxTokens: 8, IgnoreEOS: true})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = res.Tokens
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < 3; r++ {
				i := (g + r) % len(prompts)
				res, err := m.Generate(context.Background(), Request{Prompt: prompts[i], MaxTokens: 8, IgnoreEOS: true})
				if err != nil {
					t.Error(err)
					return
				}
				if !slices.Equal(res.Tokens, want[i]) {
					t.Errorf("goroutine %d prompt %d: tokens %v, alone %v", g, i, res.Tokens, want[i])
				}
			}
		}()
	}
	// A sequence of the caller's own survives the others' Generate calls.
	seq := m.NewSeq()
	if _, err := m.EvalSeq(seq, []int32{1, 2, 3}, false); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if n := m.SeqLen(seq); n != 3 {
		t.Errorf("caller's sequence has %d positions after concurrent Generate calls, want 3", n)
	}
}

// Cancelling the context stops within a token and returns the partial
// result with ctx.Err(); OnText returning false stops too.
func TestGenerateCancel(t *testing.T) {
	m := tinyModel(t, "Q8_0", Options{Threads: 2, Context: 128})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pieces := 0
	res, err := m.Generate(ctx, Request{Prompt: "Once", MaxTokens: 100, IgnoreEOS: true, OnText: func(s string) bool {
		pieces++
		if pieces == 3 {
			cancel()
		}
		return true
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res == nil || res.StopReason != StopInterrupted {
		t.Fatalf("result %+v, want a partial result stopped as %q", res, StopInterrupted)
	}
	if n := len(res.Tokens); n < 3 || n > 5 {
		t.Errorf("%d tokens after cancelling at the third piece of text, want 3-5", n)
	}

	res, err = m.Generate(context.Background(), Request{Prompt: "Once", MaxTokens: 100, IgnoreEOS: true,
		OnText: func(string) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != StopInterrupted || len(res.Tokens) > 2 {
		t.Errorf("OnText false: stop %q after %d tokens, want %q after 1-2", res.StopReason, len(res.Tokens), StopInterrupted)
	}

	// Already cancelled: nothing runs, and the result says so.
	res, err = m.Generate(ctx, Request{Prompt: "Once", MaxTokens: 4})
	if !errors.Is(err, context.Canceled) || res == nil || res.StopReason != StopInterrupted || len(res.Tokens) != 0 {
		t.Errorf("cancelled context: %+v, err %v", res, err)
	}
}

// ReuseCache prefills only what differs from the cached tokens and gives
// the same tokens as a fresh run.
func TestGenerateReuseCache(t *testing.T) {
	m := tinyModel(t, "Q8_0", Options{Threads: 2, Context: 128})
	first, err := m.Generate(context.Background(), Request{Prompt: "Once upon a time", MaxTokens: 6, IgnoreEOS: true})
	if err != nil {
		t.Fatal(err)
	}
	// The next "turn": the whole history plus new text.
	prompt := append(append(slices.Clone(first.PromptTokens), first.Tokens...), m.Tokenizer.Encode(" there was", false, false)...)
	fresh, err := m.Generate(context.Background(), Request{Tokens: prompt, MaxTokens: 6, IgnoreEOS: true})
	if err != nil {
		t.Fatal(err)
	}
	if fresh.CachedTokens != 0 {
		t.Errorf("without ReuseCache %d tokens were reused", fresh.CachedTokens)
	}
	if _, err := m.Generate(context.Background(), Request{Prompt: "Once upon a time", MaxTokens: 6, IgnoreEOS: true}); err != nil {
		t.Fatal(err)
	}
	reused, err := m.Generate(context.Background(), Request{Tokens: prompt, MaxTokens: 6, IgnoreEOS: true, ReuseCache: true})
	if err != nil {
		t.Fatal(err)
	}
	// The last generated token was sampled but never fed to the model.
	wantCached := len(first.PromptTokens) + len(first.Tokens) - 1
	if reused.CachedTokens != wantCached {
		t.Errorf("reused %d cached tokens, want %d", reused.CachedTokens, wantCached)
	}
	if !slices.Equal(reused.Tokens, fresh.Tokens) {
		t.Errorf("with the cache: %v, fresh: %v", reused.Tokens, fresh.Tokens)
	}
}

// A nil sampler is greedy; IgnoreEOS masks the end-of-generation tokens.
func TestGenerateDefaults(t *testing.T) {
	m := tinyModel(t, "Q8_0", Options{Threads: 2, Context: 64})
	greedySmp, err := sampler.New(sampler.Config{}, m.Config.Vocab)
	if err != nil {
		t.Fatal(err)
	}
	a, err := m.Generate(context.Background(), Request{Prompt: "Once", MaxTokens: 10, Sampler: greedySmp})
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Generate(context.Background(), Request{Prompt: "Once", MaxTokens: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Tokens, b.Tokens) {
		t.Errorf("nil sampler %v, greedy %v", b.Tokens, a.Tokens)
	}
	c, err := m.Generate(context.Background(), Request{Prompt: "Once", MaxTokens: 30, IgnoreEOS: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Tokens) != 30 || c.StopReason != StopLength {
		t.Errorf("IgnoreEOS: %d tokens, stop %q", len(c.Tokens), c.StopReason)
	}
	for _, id := range c.Tokens {
		if m.Tokenizer.IsEOG(id) {
			t.Errorf("IgnoreEOS sampled end-of-generation token %d", id)
		}
	}
}
