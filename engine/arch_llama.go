package engine

import "github.com/gollm/gollm/kernels"

// llama covers Llama 2/3, TinyLlama, Mistral and SmolLM: they all ship as
// general.architecture = "llama" with the normal (adjacent-pair) RoPE. Its
// block (pre-norm attention and SwiGLU FFN, each added to the residual
// stream) is also qwen2's and qwen3's, which differ in the tensors they
// require.
func init() {
	register(Arch{Name: "llama", load: loadLlama(RopeNormal, attnOptional{})})
}

type llamaModel struct {
	layers []llamaLayer
	attn   attnParams
}

type llamaLayer struct {
	attnNorm []float32 // [Dim]
	attn     attnWeights
	ffnNorm  []float32 // [Dim]
	ffn      ffnWeights
}

// loadLlama returns the loader of a llama-block family whose optional
// attention tensors req says are required.
func loadLlama(style RopeStyle, req attnOptional) func(*loader, *Config, loadEnv) (family, error) {
	return func(l *loader, c *Config, env loadEnv) (family, error) {
		f := &llamaModel{layers: make([]llamaLayer, c.Layers)}
		freqs := l.optionalVector("rope_freqs.weight", c.RopeDim/2) // Llama 3.1+
		for i := range f.layers {
			p, ly := layerPrefix(i), &f.layers[i]
			ly.attnNorm = l.vector(p+"attn_norm.weight", c.Dim)
			ly.attn = l.attn(p, c, req)
			ly.ffnNorm = l.vector(p+"ffn_norm.weight", c.Dim)
			ly.ffn = l.ffn(p, c)
		}
		if l.err != nil {
			return nil, l.err
		}
		rope, err := newRope(c, style, c.RopeBase, c.RopeScale, freqs, env)
		if err != nil {
			return nil, err
		}
		f.attn = stdAttn(c, rope)
		return f, nil
	}
}

func (f *llamaModel) forward(m *Model, phase Phase, p *pass) []float32 {
	ntok := len(p.tokens)
	x := m.beginPass(phase, p, 0)
	xn := m.state.xn[:len(x)]
	for l := range f.layers {
		ly := &f.layers[l]
		// x += Wo · attention(rope(Wq·norm(x)), rope(Wk·norm(x)), Wv·norm(x))
		m.norm(l, OpAttnNorm, xn, x, ly.attnNorm, ntok)
		kernels.Add(x, m.attention(l, &ly.attn, &f.attn, xn, p))
		// x += Wdown · (silu(Wgate·norm(x)) * Wup·norm(x))
		m.norm(l, OpFFNNorm, xn, x, ly.ffnNorm, ntok)
		kernels.Add(x, m.ffn(l, &ly.ffn, actSiLU, xn, ntok))
	}
	return m.logits(p, x, 0)
}
