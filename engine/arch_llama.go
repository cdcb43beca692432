package engine

import "github.com/gollm/gollm/kernels"

// llama covers Llama 2/3, TinyLlama, Mistral and SmolLM: they all ship as
// general.architecture = "llama" with the normal (adjacent-pair) RoPE. Its
// block (pre-norm attention and SwiGLU FFN, each added to the residual
// stream) is also qwen2's and qwen3's, which differ in the tensors they
// require. A llama file with experts (expert_count, 3-D ffn_*_exps
// tensors: Mixtral) has a mixture-of-experts FFN (moe.go) with its
// softmax weights renormalized, as llama.cpp runs it.
func init() {
	register(Arch{Name: "llama", load: loadLlama(RopeNormal, attnOptional{})})
}

type llamaModel struct {
	layers []llamaLayer
	attn   attnParams
	moe    *moeState // experts' scratch, or nil
}

type llamaLayer struct {
	attnNorm []float32 // [Dim]
	attn     attnWeights
	ffnNorm  []float32 // [Dim]
	ffn      ffnWeights
	experts  *moeWeights // instead of ffn in a mixture of experts
}

// loadLlama returns the loader of a llama-block family whose optional
// attention tensors req says are required.
func loadLlama(style RopeStyle, req attnOptional) func(*loader, *Config, loadEnv) (family, error) {
	return func(l *loader, c *Config, env loadEnv) (family, error) {
		f := &llamaModel{layers: make([]llamaLayer, c.Layers)}
		var mp moeParams
		if l.f.Uint(c.Arch+".expert_count", 0) > 0 {
			var err error
			if mp, err = readMoEParams(l, c, true); err != nil {
				return nil, err
			}
			mp.ffn = c.FFN // llama.cpp's llama experts are feed_forward_length wide
			f.moe = newMoEState(c, mp, env.batch)
		}
		freqs := l.optionalVector("rope_freqs.weight", c.RopeDim/2) // Llama 3.1+
		for i := range f.layers {
			p, ly := layerPrefix(i), &f.layers[i]
			ly.attnNorm = l.vector(p+"attn_norm.weight", c.Dim)
			ly.attn = l.attn(p, c, req)
			ly.ffnNorm = l.vector(p+"ffn_norm.weight", c.Dim)
			if f.moe != nil {
				e := l.moe(p, c, mp)
				ly.experts = &e
			} else {
				ly.ffn = l.ffn(p, c)
			}
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
		// x += Wdown · (silu(Wgate·norm(x)) * Wup·norm(x)), or the chosen
		// experts' weighted sum of that
		m.norm(l, OpFFNNorm, xn, x, ly.ffnNorm, ntok)
		if ly.experts != nil {
			kernels.Add(x, m.moe(l, ly.experts, f.moe, xn, ntok))
		} else {
			kernels.Add(x, m.ffn(l, &ly.ffn, actSiLU, xn, ntok))
		}
	}
	return m.logits(p, x, 0)
}
