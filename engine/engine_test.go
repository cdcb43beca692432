package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/sampler"
	"github.com/gollm/gollm/synth"
)

// tinyModel writes the synthetic "tiny" llama (random weights, Q4_0) and
// loads it: every test that needs a model but not llama.cpp's numbers uses
// it, so they run without ../shared.
func tinyModel(t testing.TB, typ string, opt Options) *Model {
	t.Helper()
	shape, err := synth.Lookup("tiny")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := synth.Write(path, shape, synth.Options{FileType: typ, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	m, err := Load(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func TestDecodeAllocatesNothing(t *testing.T) {
	for _, tc := range []struct{ typ, kv string }{{"Q4_0", "f16"}, {"Q4_K_M", "f16"}, {"F16", "f16"}, {"Q4_0", "q8_0"}, {"Q4_0", "f32"}} {
		typ := tc.typ
		t.Run(typ+"/kv="+tc.kv, func(t *testing.T) {
			m := tinyModel(t, typ, Options{Threads: 2, Context: 512, KVType: tc.kv})
			smp, err := sampler.New(sampler.Config{Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepeatPenalty: 1.1, PenaltyLastN: 64, Seed: 1}, m.Config.Vocab)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Eval([]int32{1, 2, 3, 4}, false); err != nil {
				t.Fatal(err)
			}
			tok := []int32{5}
			allocs := testing.AllocsPerRun(50, func() {
				logits, err := m.Eval(tok, false)
				if err != nil {
					t.Fatal(err)
				}
				tok[0] = smp.Sample(logits)
				smp.Accept(tok[0])
			})
			if allocs != 0 {
				t.Errorf("a decode step allocates %.1f times", allocs)
			}
		})
	}
}

func TestContextLimits(t *testing.T) {
	m := tinyModel(t, "Q8_0", Options{Threads: 1, Context: 16})
	if _, err := m.Eval(make([]int32, 17), false); !errors.Is(err, ErrContextFull) {
		t.Errorf("17 tokens in a context of 16: err %v, want ErrContextFull", err)
	}
	if _, err := m.Eval([]int32{int32(m.Config.Vocab)}, false); err == nil {
		t.Error("a token id past the vocabulary was accepted")
	}
	smp, err := sampler.New(sampler.Config{RepeatPenalty: 1}, m.Config.Vocab)
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Generate(context.Background(), Request{Prompt: strings.Repeat("hello world ", 20), Sampler: smp, MaxTokens: 4})
	if !errors.Is(err, ErrPromptTooLong) {
		t.Errorf("long prompt: err %v, want ErrPromptTooLong", err)
	}
	// Generation stops cleanly when the context fills up.
	res, err := m.Generate(context.Background(), Request{Prompt: "hi", Sampler: smp, MaxTokens: 100})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != StopContext && res.StopReason != StopEOG {
		t.Errorf("stop reason %q, want %q", res.StopReason, StopContext)
	}
	if len(res.PromptTokens)+len(res.Tokens) > 17 {
		t.Errorf("%d prompt + %d generated tokens in a context of 16", len(res.PromptTokens), len(res.Tokens))
	}
}

// TestBatchingInvariance: evaluating a prompt in one pass, in batches, or
// token by token gives the same last logits (the cache and positions are
// handled consistently).
func TestBatchingInvariance(t *testing.T) {
	prompt := []int32{1, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49}
	var ref []float32
	for _, batch := range []int{64, 3, 1} {
		m := tinyModel(t, "F32", Options{Threads: 2, Context: 64, Batch: batch})
		logits, err := m.Eval(prompt, false)
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = append([]float32(nil), logits...)
			continue
		}
		for i := range ref {
			if d := ref[i] - logits[i]; d > 1e-3 || d < -1e-3 {
				t.Fatalf("batch %d: logit %d = %v, batch 64 gave %v", batch, i, logits[i], ref[i])
			}
		}
	}
}

func TestGenerateStopString(t *testing.T) {
	m := tinyModel(t, "Q8_0", Options{Threads: 1, Context: 128})
	smp, err := sampler.New(sampler.Config{RepeatPenalty: 1}, m.Config.Vocab)
	if err != nil {
		t.Fatal(err)
	} // greedy
	full, err := m.Generate(context.Background(), Request{Prompt: "Once", Sampler: smp, MaxTokens: 24})
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Text) < 4 {
		t.Skipf("greedy text %q too short to cut", full.Text)
	}
	stop := full.Text[2:4]
	var streamed strings.Builder
	res, err := m.Generate(context.Background(), Request{Prompt: "Once", Sampler: smp, MaxTokens: 24, Stop: []string{stop},
		OnText: func(s string) bool { streamed.WriteString(s); return true }})
	if err != nil {
		t.Fatal(err)
	}
	want := full.Text[:strings.Index(full.Text, stop)]
	if res.Text != want || streamed.String() != want || res.StopReason != StopString {
		t.Errorf("stop %q: text %q streamed %q reason %q; want %q", stop, res.Text, streamed.String(), res.StopReason, want)
	}
	if len(res.Stats.ITL) != len(res.Tokens)-1 {
		t.Errorf("%d inter-token gaps for %d tokens", len(res.Stats.ITL), len(res.Tokens))
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(filepath.Join(dir, "missing.gguf"), Options{}); err == nil {
		t.Error("missing file loaded")
	}
	junk := filepath.Join(dir, "junk.gguf")
	os.WriteFile(junk, []byte("not a gguf file at all"), 0o644)
	if _, err := Load(junk, Options{}); !errors.Is(err, gguf.ErrBadMagic) {
		t.Errorf("junk: %v, want ErrBadMagic", err)
	}
	w := gguf.NewWriter()
	w.Set("general.architecture", "mamba")
	arch := filepath.Join(dir, "arch.gguf")
	if err := w.WriteFile(arch); err != nil {
		t.Fatal(err)
	}
	_, err := Load(arch, Options{})
	if !errors.Is(err, ErrUnknownArch) || !strings.Contains(err.Error(), "llama") {
		t.Errorf("unknown arch: %v", err)
	}
}
