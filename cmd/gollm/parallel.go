package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/gollm/gollm/engine"
	"github.com/gollm/gollm/sampler"
)

// parallelResult is the --json output of generate --parallel N.
type parallelResult struct {
	Completions []*generateResult `json:"completions"`
	Parallel    int               `json:"parallel"`
	// SystemTPS is all generated tokens after each completion's first, over
	// the wall time of the decode phase: what one pass over the weights
	// serving N sequences buys.
	SystemTPS float64 `json:"system_tps"`
	DecodeMS  float64 `json:"decode_ms"`
}

// runParallel generates g.parallel completions of one prompt together: the
// prompt is prefilled once and its KV blocks are shared; completion i uses
// the seed + i.
func runParallel(ctx context.Context, g *generateFlags, m *engine.Model, req engine.Request, cfg sampler.Config) error {
	samplers := make([]*sampler.Sampler, g.parallel)
	for i := range samplers {
		c := cfg
		c.Seed = cfg.Seed + uint64(i)
		s, err := sampler.New(c, m.Config.Vocab)
		if err != nil {
			return usageErr("%v", err)
		}
		samplers[i] = s
	}
	results, genErr := m.GenerateN(ctx, req, samplers, nil)
	if len(results) == 0 {
		return genErr
	}
	var decode time.Duration
	tokens := 0
	out := parallelResult{Parallel: g.parallel}
	for _, r := range results {
		decode = max(decode, r.Stats.Decode)
		tokens += len(r.Tokens) - 1
		out.Completions = append(out.Completions, generateJSON(m, r, cfg.Seed+uint64(len(out.Completions))))
	}
	if decode > 0 {
		out.SystemTPS = float64(tokens) / decode.Seconds()
	}
	out.DecodeMS = ms(decode)
	if g.json {
		if err := writeJSON(os.Stdout, out); err != nil {
			return err
		}
		return parallelErr(genErr)
	}
	for i, r := range results {
		fmt.Printf("--- completion %d (%d tokens, %s)\n%s\n", i, len(r.Tokens), r.StopReason, r.Text)
	}
	r0 := results[0]
	fmt.Fprintf(os.Stderr, "load:     %.1f ms\n", ms(m.LoadTime))
	fmt.Fprintf(os.Stderr, "prompt:   %d tokens (prefilled once, shared), prefill %.1f ms (%.1f tok/s), TTFT %.1f ms\n",
		len(r0.PromptTokens), ms(r0.Stats.Prefill), r0.PrefillTPS(), ms(r0.Stats.TTFT))
	fmt.Fprintf(os.Stderr, "generate: %d completions, %d tokens after the first ones in %.1f ms: %.2f tok/s system, %.2f tok/s per sequence, %d threads\n",
		g.parallel, tokens, ms(decode), out.SystemTPS, out.SystemTPS/float64(g.parallel), m.Threads())
	fmt.Fprintf(os.Stderr, "seeds:    %d to %d (completion i uses seed + i)\n", cfg.Seed, cfg.Seed+uint64(g.parallel)-1)
	return parallelErr(genErr)
}

func parallelErr(err error) error {
	if interrupted(err) {
		return errInterrupted
	}
	return err
}
