package engine

import (
	"fmt"
	"math"
	"time"

	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/kernels"
	"github.com/gollm/gollm/quant"
	"github.com/gollm/gollm/tokenizer"
)

// Options configure loading.
type Options struct {
	Threads int  // worker threads including the caller; <= 0: physical cores
	Context int  // context window in tokens; <= 0: min(trained context, 4096)
	Batch   int  // tokens per forward pass during prefill; <= 0: 64
	Timers  bool // per-op timers on
}

// Model is a loaded model with its tokenizer, worker pool, KV cache and
// activation buffers: one sequence at a time.
type Model struct {
	Config    Config
	Arch      *Arch
	Weights   *Weights
	Tokenizer *tokenizer.Tokenizer
	File      *gguf.File
	Timers    *Timers
	LoadTime  time.Duration

	pool      *kernels.Pool
	rope      *kernels.RoPE
	cache     KVCache
	state     *runState
	attnScale float32
	ctx       int // context window
	n         int // positions in the cache

	embedDequant func(src []byte, dst []float32)
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
	w, err := loadWeights(f, arch, &cfg)
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
	ctx := opt.Context
	if ctx <= 0 {
		ctx = min(cfg.ContextLen, 4096)
	}
	batch := opt.Batch
	if batch <= 0 {
		batch = 64
	}
	batch = min(batch, ctx)
	m := &Model{
		Config: cfg, Arch: arch, Weights: w, Tokenizer: tok, File: f,
		Timers:       newTimers(cfg.Layers),
		pool:         kernels.NewPool(opt.Threads),
		cache:        newFlatCache(cfg.Layers, ctx, cfg.KVDim(), cfg.VDim()),
		state:        newRunState(&cfg, batch),
		attnScale:    float32(1 / math.Sqrt(float64(cfg.HeadDim))),
		ctx:          ctx,
		embedDequant: embTraits.Dequantize,
	}
	m.Timers.Enabled = opt.Timers
	m.rope, err = kernels.NewRoPEScaled(cfg.HeadDim, cfg.RopeDim, cfg.RopeBase, cfg.RopeScale,
		w.RopeFreqs, arch.Rope == RopeNeoX, ctx)
	if err != nil {
		m.pool.Close()
		return nil, fmt.Errorf("%w: %v", ErrBadModel, err)
	}
	return m, nil
}

// Close releases the worker pool and the file mapping.
func (m *Model) Close() error {
	m.pool.Close()
	return m.File.Close()
}

// Threads is the number of threads the pool runs.
func (m *Model) Threads() int { return m.pool.Threads() }

// ContextSize is the context window in tokens.
func (m *Model) ContextSize() int { return m.ctx }

// Pos is the number of positions already in the cache.
func (m *Model) Pos() int { return m.n }

// Reset empties the KV cache; the next Eval starts at position 0.
func (m *Model) Reset() {
	m.n = 0
	m.cache.Reset()
}

// WeightBytesPerToken is the weight data one decode step streams.
func (m *Model) WeightBytesPerToken() int64 { return m.Weights.weightBytes() }

// Eval appends tokens to the sequence and returns the logits of the last one
// ([Vocab]) or, with all, of every token ([len(tokens)][Vocab]). The returned
// slice is only valid until the next call. Long inputs run in batches.
func (m *Model) Eval(tokens []int32, all bool) ([]float32, error) {
	if len(tokens) == 0 {
		return nil, fmt.Errorf("engine: no tokens to evaluate")
	}
	if m.n+len(tokens) > m.ctx {
		return nil, fmt.Errorf("%w: %d tokens at position %d do not fit in a context of %d (raise -c)", ErrContextFull, len(tokens), m.n, m.ctx)
	}
	for _, id := range tokens {
		if id < 0 || int(id) >= m.Config.Vocab {
			return nil, fmt.Errorf("engine: token id %d outside the vocabulary [0, %d)", id, m.Config.Vocab)
		}
	}
	phase := Decode
	if len(tokens) > 1 {
		phase = Prefill
	}
	var allLogits []float32
	if all {
		allLogits = make([]float32, len(tokens)*m.Config.Vocab)
	}
	var logits []float32
	for i := 0; i < len(tokens); i += m.state.batch {
		part := tokens[i:min(i+m.state.batch, len(tokens))]
		logits = m.forward(phase, part, m.n, all)
		m.n += len(part)
		if all {
			copy(allLogits[i*m.Config.Vocab:], logits)
		}
	}
	if all {
		return allLogits, nil
	}
	return logits, nil
}

// KVCacheBytes is the memory the KV cache reserves for the whole context.
func (m *Model) KVCacheBytes() int64 {
	c := &m.Config
	return int64(c.Layers) * int64(m.ctx) * int64(c.KVDim()+c.VDim()) * 2
}
