package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/gollm/gollm/engine"
	"github.com/spf13/cobra"
)

// modelFlags are the flags every command that loads a model shares, with
// llama.cpp's spellings accepted beside gollm's.
type modelFlags struct {
	path    string
	threads int
	ctx     int
	batch   int
	ubatch  int
	kvType  string
	kvTypeK string
	kvTypeV string
	kvBlock int
	kvSize  int
	pack    string
	ngl     int
	flash   string
	cmd     *cobra.Command
}

func (f *modelFlags) register(cmd *cobra.Command) {
	f.cmd = cmd
	fl := cmd.Flags()
	fl.StringVarP(&f.path, "model", "m", "", "GGUF model file (required; a single positional argument also works)")
	fl.IntVarP(&f.threads, "threads", "t", 0, "threads (0: physical cores)")
	fl.IntVarP(&f.ctx, "ctx-size", "c", 0, "context window in tokens (0: min(trained, 4096))")
	fl.IntVarP(&f.batch, "batch-size", "b", 0, "prompt tokens per forward pass (0: the engine default, 512)")
	fl.IntVar(&f.ubatch, "ubatch-size", 0, "llama.cpp's physical batch (-ub): tokens per forward pass, as -b")
	fl.StringVar(&f.kvType, "kv-type", "f16", "KV cache storage: f16, q8_0 or f32")
	fl.StringVar(&f.kvTypeK, "cache-type-k", "", "llama.cpp's -ctk: KV cache storage (gollm stores K and V alike)")
	fl.StringVar(&f.kvTypeV, "cache-type-v", "", "llama.cpp's -ctv: KV cache storage (gollm stores K and V alike)")
	fl.IntVar(&f.kvBlock, "kv-block", 16, "positions per KV cache block")
	fl.IntVar(&f.kvSize, "kv-size", 0, "positions the KV cache may hold over all sequences (0: 4 x context); memory is taken as used")
	fl.StringVar(&f.pack, "pack", engine.PackAtLoad, "when to repack weights for the fast kernels: load (before load returns), background (in idle time; products read the unpacked weights meanwhile) or lazy (on first use)")
	fl.IntVar(&f.ngl, "n-gpu-layers", 0, "llama.cpp's -ngl: accepted; gollm runs every layer on the CPU")
	fl.StringVar(&f.flash, "flash-attn", "", "llama.cpp's -fa on|off|auto: accepted; gollm's attention is always a fused (flash-style) kernel")
}

// modelArgs accepts one positional argument as the model path when -m is
// not given (`gollm inspect model.gguf`).
func (f *modelFlags) modelArgs(cmd *cobra.Command, args []string) error {
	switch {
	case len(args) == 0:
		return nil
	case len(args) == 1 && f.path == "":
		f.path = args[0]
		return nil
	case len(args) == 1:
		return usageErr("unexpected argument %q: the model is already given with -m %s", args[0], f.path)
	}
	return usageErr("unexpected arguments %q (%s takes the model as -m FILE or one argument)", strings.Join(args, " "), cmd.CommandPath())
}

// options checks the flags and turns them into engine options; warn gets
// one line per legal-but-odd value.
func (f *modelFlags) options(timers bool, warn io.Writer) (engine.Options, error) {
	if f.path == "" {
		return engine.Options{}, usageErr("-m/--model is required")
	}
	if f.threads < 0 || f.ctx < 0 || f.batch < 0 || f.ubatch < 0 {
		return engine.Options{}, usageErr("-t, -c, -b and -ub must not be negative")
	}
	if f.kvSize < 0 {
		return engine.Options{}, usageErr("--kv-size must not be negative, got %d", f.kvSize)
	}
	if f.kvBlock <= 0 {
		return engine.Options{}, usageErr("--kv-block must be positive, got %d", f.kvBlock)
	}
	kv, err := f.kvCacheType()
	if err != nil {
		return engine.Options{}, err
	}
	if _, err := engine.ParsePackMode(f.pack); err != nil {
		return engine.Options{}, usageErr("%v", err)
	}
	if err := f.gpuNotices(warn); err != nil {
		return engine.Options{}, err
	}
	if f.threads > runtime.NumCPU() {
		fmt.Fprintf(warn, "gollm: warning: -t %d is more threads than this machine's %d CPUs; they will share cores\n", f.threads, runtime.NumCPU())
	}
	batch := f.batch
	if f.ubatch > 0 && (batch == 0 || f.ubatch < batch) {
		batch = f.ubatch
	}
	return engine.Options{Threads: f.threads, Context: f.ctx, Batch: batch, Timers: timers,
		KVType: kv, KVBlock: f.kvBlock, KVPositions: f.kvSize, Pack: f.pack}, nil
}

// kvCacheType reconciles --kv-type with llama.cpp's -ctk/-ctv.
func (f *modelFlags) kvCacheType() (string, error) {
	kv := f.kvType
	k, v := f.kvTypeK, f.kvTypeV
	if k != "" && v != "" && !strings.EqualFold(k, v) {
		return "", usageErr("-ctk %s and -ctv %s differ: gollm stores K and V in one type", k, v)
	}
	if k == "" {
		k = v
	}
	if k != "" {
		if f.cmd != nil && f.cmd.Flags().Changed("kv-type") && !strings.EqualFold(k, kv) {
			return "", usageErr("--kv-type %s and -ctk/-ctv %s differ", kv, k)
		}
		kv = k
	}
	if _, err := engine.ParseKVType(kv); err != nil {
		return "", usageErr("%v", err)
	}
	return strings.ToLower(kv), nil
}

// gpuNotices answers llama.cpp's GPU flags: accepted, with one line saying
// what gollm does instead.
func (f *modelFlags) gpuNotices(warn io.Writer) error {
	if f.cmd == nil {
		return nil
	}
	if f.cmd.Flags().Changed("n-gpu-layers") {
		if f.ngl < -1 {
			return usageErr("-ngl must be -1 or more, got %d", f.ngl)
		}
		fmt.Fprintln(warn, "gollm: note: -ngl is ignored: gollm runs every layer on the CPU")
	}
	if f.cmd.Flags().Changed("flash-attn") {
		switch strings.ToLower(f.flash) {
		case "on", "1", "true", "auto", "":
		case "off", "0", "false":
			fmt.Fprintln(warn, "gollm: note: -fa off is ignored: gollm's attention is always a fused (flash-style) kernel")
		default:
			return usageErr("-fa takes on, off or auto, got %q", f.flash)
		}
	}
	return nil
}

func (f *modelFlags) load(timers bool) (*engine.Model, error) {
	opt, err := f.options(timers, os.Stderr)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(f.path); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	m, err := engine.Load(f.path, opt)
	if err != nil {
		return nil, err
	}
	if f.ctx > m.Config.ContextLen {
		fmt.Fprintf(os.Stderr, "gollm: warning: -c %d is beyond the %d tokens the model was trained on; expect worse output past that\n", f.ctx, m.Config.ContextLen)
	}
	return m, nil
}

// pathArgs is modelArgs for commands that keep the model path in a plain
// string.
func pathArgs(path *string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		f := modelFlags{path: *path}
		err := f.modelArgs(cmd, args)
		*path = f.path
		return err
	}
}
