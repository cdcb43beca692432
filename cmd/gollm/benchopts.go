package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/gollm/gollm/bench"
	"github.com/gollm/gollm/engine"
	"github.com/spf13/cobra"
)

// bench takes the model options of the other commands (load.go's
// modelFlags), under the same names, but as lists where llama-bench takes
// lists: every combination is loaded and benchmarked in turn, one row per
// test, the varying parameter in its own column.

// benchModelFlags are bench's model-loading options.
type benchModelFlags struct {
	threads  []string
	ctx      int
	batches  []string
	ubatches []string
	kvTypes  []string
	kvTypesK []string
	kvTypesV []string
	kvBlocks []string
	kvSize   int
	pack     string
	ngl      []string
	flash    []string
	mmap     []string
}

func (f *benchModelFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.threads, "threads", "t", []string{"0"}, "thread counts, list (0: physical cores)")
	fl.IntVarP(&f.ctx, "ctx-size", "c", 0, "context window in tokens (0: what the longest test needs)")
	fl.StringArrayVarP(&f.batches, "batch-size", "b", nil, "prompt tokens per forward pass, list (0: the engine's default, 512)")
	fl.StringArrayVar(&f.ubatches, "ubatch-size", nil, "llama.cpp's physical batch (-ub), list: tokens per forward pass; with -b the smaller applies")
	fl.StringArrayVar(&f.kvTypes, "kv-type", nil, "KV cache storage, list: f16 (default), q8_0, f32")
	fl.StringArrayVar(&f.kvTypesK, "cache-type-k", nil, "llama.cpp's -ctk: KV cache storage, list (gollm stores K and V alike)")
	fl.StringArrayVar(&f.kvTypesV, "cache-type-v", nil, "llama.cpp's -ctv: KV cache storage, the same list as -ctk")
	fl.StringArrayVar(&f.kvBlocks, "kv-block", nil, "positions per KV cache block, list (default 16)")
	fl.IntVar(&f.kvSize, "kv-size", 0, "positions the KV cache may hold over all sequences (0: what the tests need)")
	fl.StringVar(&f.pack, "pack", engine.PackAtLoad, "when to repack weights for the fast kernels: load, background or lazy (the timed runs start once packing is done)")
	fl.StringArrayVar(&f.ngl, "n-gpu-layers", nil, "llama-bench's -ngl: accepted; gollm runs every layer on the CPU")
	fl.StringArrayVar(&f.flash, "flash-attn", nil, "llama-bench's -fa on|off|auto (or 1|0): accepted; gollm's attention is always a fused (flash-style) kernel")
	fl.StringArrayVar(&f.mmap, "mmap", nil, "llama-bench's -mmp 0|1: accepted; gollm always memory-maps the model")
}

// benchLoad is one combination of the load options: one engine.Load.
type benchLoad struct {
	threads int
	batch   int // tokens per pass; 0: the engine's default
	kvType  string
	kvBlock int
}

// label names the options that differ from the defaults, for progress lines.
func (l benchLoad) label() string {
	s := fmt.Sprintf("t=%d", l.threads)
	if l.batch > 0 {
		s += fmt.Sprintf(" ub=%d", l.batch)
	}
	if l.kvType != "f16" {
		s += " ctk=" + l.kvType
	}
	if l.kvBlock != 16 {
		s += fmt.Sprintf(" kv-block=%d", l.kvBlock)
	}
	return s
}

// loads checks the options and expands them into their combinations, in
// llama-bench's order (batch, KV type, then threads innermost). warn gets
// the notices for llama.cpp's GPU flags.
func (f *benchModelFlags) loads(warn io.Writer) ([]benchLoad, error) {
	threads, err := intList("-t", f.threads, 0)
	if err != nil {
		return nil, err
	}
	if len(threads) == 0 {
		threads = []int{0}
	}
	if f.ctx < 0 || f.kvSize < 0 {
		return nil, usageErr("-c and --kv-size must not be negative")
	}
	batches, err := f.batchList()
	if err != nil {
		return nil, err
	}
	kvTypes, err := f.kvTypeList()
	if err != nil {
		return nil, err
	}
	blocks, err := intList("--kv-block", f.kvBlocks, 1)
	if err != nil {
		return nil, err
	}
	if len(blocks) == 0 {
		blocks = []int{16}
	}
	if _, err := engine.ParsePackMode(f.pack); err != nil {
		return nil, usageErr("%v", err)
	}
	if err := f.gpuNotices(warn); err != nil {
		return nil, err
	}
	if n := slices.Max(threads); n > runtime.NumCPU() {
		fmt.Fprintf(warn, "gollm: warning: -t %d is more threads than this machine's %d CPUs; they will share cores\n", n, runtime.NumCPU())
	}
	var out []benchLoad
	for _, b := range batches {
		for _, kv := range kvTypes {
			for _, bl := range blocks {
				for _, t := range threads {
					out = append(out, benchLoad{threads: t, batch: b, kvType: kv, kvBlock: bl})
				}
			}
		}
	}
	return out, nil
}

// batchList combines -b and -ub as the other commands do (the smaller
// applies: gollm has one batch, the tokens of a forward pass), without
// repeating a combination that comes to the same batch.
func (f *benchModelFlags) batchList() ([]int, error) {
	bs, err := intList("-b", f.batches, 0)
	if err != nil {
		return nil, err
	}
	ubs, err := intList("-ub", f.ubatches, 0)
	if err != nil {
		return nil, err
	}
	if len(bs) == 0 {
		bs = []int{0}
	}
	if len(ubs) == 0 {
		ubs = []int{0}
	}
	var out []int
	for _, b := range bs {
		for _, ub := range ubs {
			n := b
			if ub > 0 && (n == 0 || ub < n) {
				n = ub
			}
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out, nil
}

// kvTypeList reconciles --kv-type with llama.cpp's -ctk/-ctv lists: gollm
// stores K and V in one type, so -ctk and -ctv, when both given, must list
// the same types.
func (f *benchModelFlags) kvTypeList() ([]string, error) {
	kv := lowerList(f.kvTypes)
	k, v := lowerList(f.kvTypesK), lowerList(f.kvTypesV)
	if len(k) > 0 && len(v) > 0 && !slices.Equal(k, v) {
		return nil, usageErr("-ctk %s and -ctv %s differ: gollm stores K and V in one type (give the same list)",
			strings.Join(k, ","), strings.Join(v, ","))
	}
	if len(k) == 0 {
		k = v
	}
	if len(k) > 0 {
		if len(kv) > 0 && !slices.Equal(kv, k) {
			return nil, usageErr("--kv-type %s and -ctk/-ctv %s differ", strings.Join(kv, ","), strings.Join(k, ","))
		}
		kv = k
	}
	if len(kv) == 0 {
		kv = []string{"f16"}
	}
	var out []string
	for _, t := range kv {
		if _, err := engine.ParseKVType(t); err != nil {
			return nil, usageErr("%v", err)
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// gpuNotices checks llama-bench's GPU and loading flags, which change
// nothing in gollm, and says so in one line each; they add no rows.
func (f *benchModelFlags) gpuNotices(warn io.Writer) error {
	if len(f.ngl) > 0 {
		if _, err := intList("-ngl", f.ngl, -1); err != nil {
			return err
		}
		fmt.Fprintln(warn, "gollm: note: -ngl is ignored: gollm runs every layer on the CPU")
	}
	off := false
	for _, s := range lowerList(f.flash) {
		switch s {
		case "on", "1", "true", "auto", "-1":
		case "off", "0", "false":
			off = true
		default:
			return usageErr("-fa takes on, off or auto (or 1, 0), got %q", s)
		}
	}
	if off {
		fmt.Fprintln(warn, "gollm: note: -fa off is ignored: gollm's attention is always a fused (flash-style) kernel")
	}
	off = false
	for _, s := range splitList(f.mmap) {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return usageErr("-mmp takes 0 or 1, got %q", s)
		}
		off = off || !b
	}
	if off {
		fmt.Fprintln(warn, "gollm: note: -mmp 0 is ignored: gollm always memory-maps the model")
	}
	return nil
}

// options are the engine options of one combination: ctx and kv are the
// context and cache positions the tests need.
func (f *benchModelFlags) options(l benchLoad, ctx, kv int, timers bool) engine.Options {
	return engine.Options{Threads: l.threads, Context: ctx, Batch: l.batch, Timers: timers,
		KVType: l.kvType, KVBlock: l.kvBlock, KVPositions: kv, Pack: f.pack}
}

// context is the context window for tests: -c, which must hold the
// longest test, or what that test needs.
func (f *benchModelFlags) context(tests []bench.Test) (int, error) {
	need, longest := 1, ""
	for _, t := range tests {
		if c := t.Context(); c > need {
			need, longest = c, t.Name()
		}
	}
	if f.ctx == 0 {
		return need, nil
	}
	if f.ctx < need {
		return 0, usageErr("-c %d is smaller than the %d tokens test %s needs", f.ctx, need, longest)
	}
	return f.ctx, nil
}

// kvPositions is the cache size for tests in blocks of blockLen: --kv-size,
// which must hold the largest test, or what that test needs.
func (f *benchModelFlags) kvPositions(tests []bench.Test, blockLen int) (int, error) {
	need := 0
	for _, t := range tests {
		need = max(need, t.KVPositions(blockLen))
	}
	if f.kvSize == 0 {
		return need, nil
	}
	if f.kvSize < need {
		return 0, usageErr("--kv-size %d is smaller than the %d positions the tests need", f.kvSize, need)
	}
	return f.kvSize, nil
}

// lowerList is splitList in lower case.
func lowerList(vals []string) []string {
	out := splitList(vals)
	for i := range out {
		out[i] = strings.ToLower(out[i])
	}
	return out
}
