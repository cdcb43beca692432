package engine

import (
	"fmt"

	"github.com/gollm/gollm/gguf"
)

// Config holds a model's hyper-parameters, all read from GGUF metadata.
type Config struct {
	Arch       string
	Dim        int     // embedding length (residual stream width)
	Layers     int     // transformer blocks
	Heads      int     // query heads
	KVHeads    int     // key/value heads (GQA when < Heads)
	HeadDim    int     // per-head width of q and k (attention.key_length)
	HeadDimV   int     // per-head width of v (attention.value_length)
	FFN        int     // feed-forward hidden width
	Vocab      int     // rows of token_embd
	ContextLen int     // trained context length
	NormEps    float32 // RMSNorm epsilon
	RopeBase   float32 // rope.freq_base
	RopeDim    int     // rotated dims per head (rope.dimension_count)
	RopeScale  float32 // 1/linear scaling factor (1 when unscaled)
}

// QDim is the width of the concatenated query heads.
func (c *Config) QDim() int { return c.Heads * c.HeadDim }

// KVDim is the width of the concatenated key heads of one position.
func (c *Config) KVDim() int { return c.KVHeads * c.HeadDim }

// VDim is the width of the concatenated value heads of one position.
func (c *Config) VDim() int { return c.KVHeads * c.HeadDimV }

// readConfig reads the hyper-parameters of architecture arch from f.
func readConfig(f *gguf.File, arch string) (Config, error) {
	key := func(k string) string { return arch + "." + k }
	c := Config{Arch: arch}
	c.Dim = int(f.Uint(key("embedding_length"), 0))
	c.Layers = int(f.Uint(key("block_count"), 0))
	c.Heads = int(f.Uint(key("attention.head_count"), 0))
	c.KVHeads = int(f.Uint(key("attention.head_count_kv"), uint64(c.Heads)))
	c.FFN = int(f.Uint(key("feed_forward_length"), 0))
	c.ContextLen = int(f.Uint(key("context_length"), 2048))
	c.NormEps = float32(f.Float(key("attention.layer_norm_rms_epsilon"), 1e-5))
	c.RopeBase = float32(f.Float(key("rope.freq_base"), 10000))
	c.RopeScale = 1
	if st := f.String(key("rope.scaling.type"), "none"); st == "linear" {
		if fac := f.Float(key("rope.scaling.factor"), 1); fac > 0 {
			c.RopeScale = float32(1 / fac)
		}
	}
	if c.Heads > 0 {
		c.HeadDim = int(f.Uint(key("attention.key_length"), uint64(c.Dim/c.Heads)))
		c.HeadDimV = int(f.Uint(key("attention.value_length"), uint64(c.HeadDim)))
	}
	c.RopeDim = int(f.Uint(key("rope.dimension_count"), uint64(c.HeadDim)))
	if toks, ok := f.Get("tokenizer.ggml.tokens"); ok {
		c.Vocab = toks.Len()
	}
	c.Vocab = int(f.Uint(key("vocab_size"), uint64(c.Vocab)))
	return c, c.validate()
}

// validate rejects hyper-parameters a forward pass cannot run with, so that a
// hostile file fails here with a message instead of panicking later.
func (c *Config) validate() error {
	const limit = 1 << 20
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrBadModel, c.Arch, fmt.Sprintf(format, args...))
	}
	for _, v := range []struct {
		name string
		val  int
	}{{"embedding_length", c.Dim}, {"block_count", c.Layers}, {"attention.head_count", c.Heads},
		{"attention.head_count_kv", c.KVHeads}, {"feed_forward_length", c.FFN}, {"key_length", c.HeadDim},
		{"value_length", c.HeadDimV}, {"vocab size", c.Vocab}, {"context_length", c.ContextLen}} {
		if v.val <= 0 || v.val > limit*16 {
			return bad("%s = %d is missing or out of range", v.name, v.val)
		}
	}
	if c.Heads%c.KVHeads != 0 {
		return bad("head_count %d is not a multiple of head_count_kv %d", c.Heads, c.KVHeads)
	}
	if c.RopeDim <= 0 || c.RopeDim > c.HeadDim || c.RopeDim%2 != 0 {
		return bad("rope.dimension_count %d must be even and at most the head size %d", c.RopeDim, c.HeadDim)
	}
	if !(c.NormEps > 0) || !(c.RopeBase > 0) {
		return bad("rms epsilon %g and rope.freq_base %g must be positive", c.NormEps, c.RopeBase)
	}
	return nil
}
