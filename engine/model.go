package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/kernels"
	"github.com/gollm/gollm/kvcache"
	"github.com/gollm/gollm/quant"
	"github.com/gollm/gollm/tokenizer"
)

// Options configure loading.
type Options struct {
	Threads int    // worker threads including the caller; <= 0: physical cores
	Context int    // context window of one sequence in tokens; <= 0: min(trained context, 4096)
	Batch   int    // tokens per forward pass; <= 0: 512 (llama.cpp's default micro-batch)
	Timers  bool   // per-op timers on
	KVType  string // KV cache storage: "f16" (default), "q8_0" or "f32"
	KVBlock int    // positions per KV cache block; <= 0: 16
	// KVPositions caps the positions the cache holds over all sequences;
	// <= 0: 4 x Context. Memory is taken on demand, so a large cap costs
	// nothing until it is used.
	KVPositions int
	// Pack says when the packed weight copies the fast kernels read are
	// made: PackAtLoad (default, ""), PackBackground or PackLazy (see
	// packing.go).
	Pack string
}

// ParseKVType maps a KV cache type name (f16, q8_0, f32) to a storage type.
func ParseKVType(s string) (ggml.Type, error) {
	switch strings.ToLower(s) {
	case "", "f16":
		return ggml.F16, nil
	case "q8_0":
		return ggml.Q8_0, nil
	case "f32":
		return ggml.F32, nil
	}
	return 0, fmt.Errorf("engine: unknown KV cache type %q (have f16, q8_0, f32)", s)
}

// Model is a loaded model with its tokenizer, worker pool, KV cache and
// activation buffers.
//
// Concurrency: the methods that run the model or touch its KV cache (Eval,
// EvalSeq, DecodeSeqs, Generate, GenerateN, Perplexity, Reset and the
// sequence methods) take the model's lock, so calls from several goroutines
// are safe but run one at a time; the others wait (Generate's wait is not
// bounded by its context). One model has one set of activation buffers and
// one worker pool: to serve several clients at once, batch them through
// one goroutine (the scheduler) rather than calling Generate concurrently.
// Generate uses the default sequence only; sequences made with NewSeq or
// Fork are the caller's and survive it. The exported fields are read-only
// after Load, except Timers, whose reports are valid between calls.
type Model struct {
	Config    Config
	Arch      *Arch
	Weights   *Weights
	Tokenizer *tokenizer.Tokenizer
	File      *gguf.File
	Timers    *Timers
	LoadTime  time.Duration

	mu        sync.Mutex // serializes the model's users (see the type's doc)
	seqTokens []int32    // the token ids held by the default sequence, in order
	pool      *kernels.Pool
	family    family // the architecture's layers and forward pass
	cache     *kvcache.Cache
	seq       kvcache.SeqID // the sequence Eval and Generate use
	state     *runState
	ctx       int // context window of one sequence

	embedDequant func(src []byte, dst []float32)

	packer   *kernels.Packer // background packing, or nil
	packTime time.Duration   // how long packing took, once known
}

// Load opens a GGUF file and prepares it for inference. Weights stay in the
// mapping: loading costs O(metadata), not O(weights).
func Load(path string, opt Options) (*Model, error) {
	start := time.Now()
	f, err := gguf.Open(path)
	if err != nil {
		return nil, err
	}
	m, err := newModel(f, opt)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m.LoadTime = time.Since(start)
	return m, nil
}

func newModel(f *gguf.File, opt Options) (*Model, error) {
	arch, err := LookupArch(f.Architecture())
	if err != nil {
		return nil, err
	}
	cfg, err := readConfig(f, arch.Name)
	if err != nil {
		return nil, err
	}
	ctx := opt.Context
	if ctx <= 0 {
		ctx = min(cfg.ContextLen, 4096)
	}
	batch := opt.Batch
	if batch <= 0 {
		batch = 512
	}
	batch = min(batch, ctx)
	fam, w, err := loadFamily(f, arch, &cfg, loadEnv{ctx: ctx, batch: batch})
	if err != nil {
		return nil, err
	}
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		return nil, err
	}
	if tok.VocabSize() > cfg.Vocab {
		return nil, fmt.Errorf("%w: tokenizer has %d tokens but the embedding only %d rows", ErrBadModel, tok.VocabSize(), cfg.Vocab)
	}
	embTraits, err := quant.Lookup(w.TokEmbd.Type)
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %w", "token_embd.weight", err)
	}
	kvType, err := ParseKVType(opt.KVType)
	if err != nil {
		return nil, err
	}
	packMode, err := ParsePackMode(opt.Pack)
	if err != nil {
		return nil, err
	}
	if kvType == ggml.Q8_0 && (cfg.HeadDim%32 != 0 || cfg.HeadDimV%32 != 0) {
		return nil, fmt.Errorf("engine: a q8_0 KV cache needs head sizes that are multiples of 32, this model has %d", cfg.HeadDim)
	}
	positions := opt.KVPositions
	if positions <= 0 {
		positions = 4 * ctx
	}
	cache, err := kvcache.New(kvcache.Config{Layers: cfg.Layers, KVDim: cfg.KVDim(), VDim: cfg.VDim(),
		BlockLen: opt.KVBlock, Type: kvType, MaxPositions: positions})
	if err != nil {
		return nil, err
	}
	m := &Model{
		Config: cfg, Arch: arch, Weights: w, Tokenizer: tok, File: f,
		Timers:       newTimers(cfg.Layers),
		pool:         kernels.NewPool(opt.Threads),
		family:       fam,
		cache:        cache,
		state:        newRunState(&cfg, batch),
		ctx:          ctx,
		embedDequant: embTraits.Dequantize,
	}
	m.seq = cache.NewSeq()
	m.seqTokens = make([]int32, 0, ctx) // the default sequence never holds more: no growth while decoding
	m.Timers.Enabled = opt.Timers
	m.startPacking(packMode)
	return m, nil
}

// Close releases the worker pool and the file mapping.
func (m *Model) Close() error {
	m.stopPacking()
	m.pool.Close()
	return m.File.Close()
}

// Threads is the number of threads the pool runs.
func (m *Model) Threads() int { return m.pool.Threads() }

// ContextSize is the context window in tokens.
func (m *Model) ContextSize() int { return m.ctx }

// Pos is the number of positions already in the default sequence.
func (m *Model) Pos() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cache.Len(m.seq)
}

// Reset empties the KV cache (every sequence); the next Eval starts at
// position 0 of a fresh default sequence.
func (m *Model) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reset()
}

func (m *Model) reset() {
	m.cache.Reset()
	m.seq = m.cache.NewSeq()
	m.seqTokens = m.seqTokens[:0]
}

// WeightBytesPerToken is the weight data one decode step streams.
func (m *Model) WeightBytesPerToken() int64 { return m.Weights.weightBytes() }

// WeightMemory is the memory the matrix multiplications read the weights
// from (packed copies where they exist), every expert's included: read-only,
// for probing the machine's read bandwidth on memory that is already
// resident (bench).
func (m *Model) WeightMemory() [][]byte {
	var out [][]byte
	for i := range m.Weights.Matrices {
		for _, mat := range m.Weights.Matrices[i].Mats {
			out = append(out, mat.StreamedData()...)
		}
	}
	return out
}

// KVCacheBytes is the memory the KV cache has taken so far.
func (m *Model) KVCacheBytes() int64 {
	_, reserved := m.cache.Bytes()
	return reserved
}

// KVCacheBytesPerToken is the cache memory one position of one sequence needs.
func (m *Model) KVCacheBytesPerToken() int64 {
	cfg := m.cache.Config()
	used, _ := ggml.RowBytes(cfg.Type, int64(m.Config.KVDim()))
	usedV, _ := ggml.RowBytes(cfg.Type, int64(m.Config.VDim()))
	return int64(m.Config.Layers) * (used + usedV)
}

// Eval appends tokens to the default sequence and returns the logits of the
// last one ([Vocab]) or, with all, of every token ([len(tokens)][Vocab]).
// The returned slice is only valid until the next call. Long inputs run in
// batches.
func (m *Model) Eval(tokens []int32, all bool) ([]float32, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.evalSeq(context.Background(), m.seq, tokens, all)
}

// EnableProfileLabels makes CPU profiles carry phase/layer/op labels, on
// the engine goroutine and inside the worker pool.
func (m *Model) EnableProfileLabels() {
	m.Timers.poolLabels = m.pool.SetLabels
	m.Timers.EnableLabels()
}
