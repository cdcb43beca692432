package engine_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gollm/gollm/engine"
	"github.com/gollm/gollm/sampler"
	"github.com/gollm/gollm/synth"
)

// exampleModel writes a tiny random-weight model (synth's "tiny" shape, a
// few MB) into a temporary directory: a stand-in for a real GGUF file,
// whose output is gibberish but whose API is the same.
func exampleModel() (path string, cleanup func()) {
	dir, err := os.MkdirTemp("", "engine-example")
	if err != nil {
		log.Fatal(err)
	}
	shape, err := synth.Lookup("tiny")
	if err != nil {
		log.Fatal(err)
	}
	path = filepath.Join(dir, "tiny-Q8_0.gguf")
	if err := synth.Write(path, shape, synth.Options{FileType: "Q8_0", Seed: 1}); err != nil {
		log.Fatal(err)
	}
	return path, func() { os.RemoveAll(dir) }
}

// Load a model and generate greedily (a nil Sampler) under a context that
// bounds the time it may take.
func Example() {
	path, cleanup := exampleModel()
	defer cleanup()

	m, err := engine.Load(path, engine.Options{Threads: 2, Context: 256})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := engine.Request{Prompt: "Once upon a time", MaxTokens: 8, IgnoreEOS: true}
	res, err := m.Generate(ctx, req)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(res.Tokens), "tokens, stop:", res.StopReason)

	// Greedy decoding is deterministic: the same request, the same text.
	again, err := m.Generate(ctx, req)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("same text:", again.Text == res.Text)
	// Output:
	// 8 tokens, stop: length
	// same text: true
}

// Stream the text as it is made, with a seeded sampler, and stop from the
// callback; cancelling the context stops generation the same way (within
// one token, returning what was made with ctx.Err()).
func ExampleModel_Generate_streaming() {
	path, cleanup := exampleModel()
	defer cleanup()
	m, err := engine.Load(path, engine.Options{Context: 256})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()

	cfg := sampler.DefaultConfig()
	cfg.Seed = 7
	s, err := sampler.New(cfg, m.Config.Vocab)
	if err != nil {
		log.Fatal(err)
	}
	var streamed strings.Builder
	res, err := m.Generate(context.Background(), engine.Request{
		Prompt:    "Once upon a time",
		MaxTokens: 64,
		IgnoreEOS: true,
		Sampler:   s,
		OnText: func(text string) bool {
			streamed.WriteString(text) // print it here in a real program
			return streamed.Len() < 10 // enough: stop
		},
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		log.Fatal(err)
	}
	fmt.Println("stop:", res.StopReason, "streamed all of Text:", streamed.String() == res.Text)
	// Output: stop: interrupted streamed all of Text: true
}

// Load a model file and print a completion with llama.cpp's default
// sampling; Ctrl-C handling is a context away (signal.NotifyContext).
// (Compile-only: it needs a model file.)
func ExampleLoad() {
	m, err := engine.Load("stories260K.gguf", engine.Options{}) // all cores, context min(trained, 4096)
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	s, err := sampler.New(sampler.DefaultConfig(), m.Config.Vocab)
	if err != nil {
		log.Fatal(err)
	}
	res, err := m.Generate(context.Background(), engine.Request{Prompt: "Once upon a time", MaxTokens: 64, Sampler: s})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n(%.1f tok/s)\n", res.Text, res.DecodeTPS())
}
