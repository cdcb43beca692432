package main

import (
	"fmt"
	"os"

	"github.com/gollm/gollm/engine"
	"github.com/spf13/cobra"
)

// modelFlags are the flags every command that loads a model shares.
type modelFlags struct {
	path    string
	threads int
	ctx     int
	batch   int
	kvType  string
	kvBlock int
	kvSize  int
	pack    string
}

func (f *modelFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&f.path, "model", "m", "", "GGUF model file (required)")
	cmd.Flags().IntVarP(&f.threads, "threads", "t", 0, "threads (0: physical cores)")
	cmd.Flags().IntVarP(&f.ctx, "ctx-size", "c", 0, "context window in tokens (0: min(trained, 4096))")
	cmd.Flags().IntVarP(&f.batch, "batch-size", "b", 0, "prompt tokens per forward pass (0: the engine default, 512)")
	cmd.Flags().StringVar(&f.kvType, "kv-type", "f16", "KV cache storage: f16, q8_0 or f32")
	cmd.Flags().IntVar(&f.kvBlock, "kv-block", 16, "positions per KV cache block")
	cmd.Flags().IntVar(&f.kvSize, "kv-size", 0, "positions the KV cache may hold over all sequences (0: 4 x context); memory is taken as used")
	cmd.Flags().StringVar(&f.pack, "pack", engine.PackAtLoad, "when to repack weights for the fast kernels: load (before load returns), background (in idle time; products read the unpacked weights meanwhile) or lazy (on first use)")
}

func (f *modelFlags) load(timers bool) (*engine.Model, error) {
	if f.path == "" {
		return nil, usageErr("-m/--model is required")
	}
	if f.threads < 0 || f.ctx < 0 || f.batch < 0 {
		return nil, usageErr("-t, -c and -b must not be negative")
	}
	if f.kvSize < 0 {
		return nil, usageErr("--kv-size must not be negative, got %d", f.kvSize)
	}
	if f.kvBlock <= 0 {
		return nil, usageErr("--kv-block must be positive, got %d", f.kvBlock)
	}
	if _, err := engine.ParseKVType(f.kvType); err != nil {
		return nil, usageErr("%v", err)
	}
	if _, err := engine.ParsePackMode(f.pack); err != nil {
		return nil, usageErr("%v", err)
	}
	if _, err := os.Stat(f.path); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return engine.Load(f.path, engine.Options{Threads: f.threads, Context: f.ctx, Batch: f.batch, Timers: timers,
		KVType: f.kvType, KVBlock: f.kvBlock, KVPositions: f.kvSize, Pack: f.pack})
}

// promptFlags read a prompt from -p or --file.
type promptFlags struct {
	text string
	file string
}

func (p *promptFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&p.text, "prompt", "p", "", "prompt text")
	cmd.Flags().StringVarP(&p.file, "file", "f", "", "read the prompt from a file")
}

func (p *promptFlags) read(stdinOK bool) (string, error) {
	switch {
	case p.text != "" && p.file != "":
		return "", usageErr("give either -p or --file, not both")
	case p.file != "":
		b, err := os.ReadFile(p.file)
		if err != nil {
			return "", fmt.Errorf("prompt: %w", err)
		}
		return string(b), nil
	case p.text != "":
		return p.text, nil
	case stdinOK:
		b, err := readAllStdin()
		return string(b), err
	}
	return "", usageErr("a prompt is required (-p TEXT or --file F)")
}
