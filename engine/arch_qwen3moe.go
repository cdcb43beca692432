package engine

import "github.com/gollm/gollm/kernels"

// qwen3moe (Qwen3-30B-A3B, Qwen3-235B-A22B): qwen3's attention (per-head
// q/k norms, NeoX RoPE) and a mixture-of-experts FFN in every layer
// (moe.go): softmax router, top expert_used_count of expert_count experts,
// their weights renormalized to sum to 1 (norm_topk_prob), no shared
// expert.
func init() {
	register(Arch{Name: "qwen3moe", load: loadQwen3MoE, describe: func(l *loader, c *Config) []string {
		mp, err := readMoEParams(l, c, true)
		if err != nil {
			return []string{err.Error()}
		}
		return []string{mp.String()}
	}})
}

type qwen3moeModel struct {
	layers []qwen3moeLayer
	attn   attnParams
	moe    *moeState
}

type qwen3moeLayer struct {
	attnNorm []float32 // [Dim]
	attn     attnWeights
	ffnNorm  []float32 // [Dim]
	moe      moeWeights
}

func loadQwen3MoE(l *loader, c *Config, env loadEnv) (family, error) {
	mp, err := readMoEParams(l, c, true)
	if err != nil {
		return nil, err
	}
	f := &qwen3moeModel{layers: make([]qwen3moeLayer, c.Layers)}
	for i := range f.layers {
		p, ly := layerPrefix(i), &f.layers[i]
		ly.attnNorm = l.vector(p+"attn_norm.weight", c.Dim)
		ly.attn = l.attn(p, c, attnOptional{qkNorm: true})
		ly.ffnNorm = l.vector(p+"ffn_norm.weight", c.Dim)
		ly.moe = l.moe(p, c, mp)
	}
	if l.err != nil {
		return nil, l.err
	}
	rope, err := newRope(c, RopeNeoX, c.RopeBase, c.RopeScale, nil, env)
	if err != nil {
		return nil, err
	}
	f.attn = stdAttn(c, rope)
	f.moe = newMoEState(c, mp, env.batch)
	return f, nil
}

func (f *qwen3moeModel) forward(m *Model, phase Phase, p *pass) []float32 {
	ntok := len(p.tokens)
	x := m.beginPass(phase, p, 0)
	xn := m.state.xn[:len(x)]
	for l := range f.layers {
		ly := &f.layers[l]
		// x += Wo · attention(...norm(x)...)
		m.norm(l, OpAttnNorm, xn, x, ly.attnNorm, ntok)
		kernels.Add(x, m.attention(l, &ly.attn, &f.attn, xn, p))
		// x += Σ_chosen experts weight_e · FFN_e(norm(x))
		m.norm(l, OpFFNNorm, xn, x, ly.ffnNorm, ntok)
		kernels.Add(x, m.moe(l, &ly.moe, f.moe, xn, ntok))
	}
	return m.logits(p, x, 0)
}
