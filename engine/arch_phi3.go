package engine

import (
	"fmt"

	"github.com/gollm/gollm/kernels"
)

// phi3 (Phi-3, Phi-3.5, Phi-4 mini): llama's block with one fused
// q/k/v projection (attn_qkv: [q; k; v] rows) and one fused gate/up
// projection (ffn_up: 2 x FFN rows, the gate first), NeoX RoPE, the
// queries scaled before attention (llama.cpp scales Q as its own op), and
// for the long-context models RoPE frequency factors: rope_factors_long
// when the context exceeds the trained original context
// (rope.scaling.original_context_length), else rope_factors_short, as
// llama.cpp chooses. Phi-3's sliding window is ignored, as llama.cpp does.
func init() {
	register(Arch{Name: "phi3", load: loadPhi3, describe: func(l *loader, c *Config) []string {
		lines := []string{"fused q/k/v and gate/up projections"}
		if l.has("rope_factors_long.weight") {
			lines = append(lines, fmt.Sprintf("RoPE factors long/short, long past the original context %d",
				l.f.Uint(c.Arch+".rope.scaling.original_context_length", uint64(c.ContextLen))))
		}
		return lines
	}})
}

type phi3Model struct {
	layers []phi3Layer
	attn   attnParams
}

type phi3Layer struct {
	attnNorm []float32 // [Dim]
	attn     attnWeights
	ffnNorm  []float32 // [Dim]
	ffn      ffnWeights
}

func loadPhi3(l *loader, c *Config, env loadEnv) (family, error) {
	f := &phi3Model{layers: make([]phi3Layer, c.Layers)}
	qkvRows := c.QDim() + c.KVDim() + c.VDim()
	var qkvOut, guOut []float32 // shared by the layers: one runs at a time
	for i := range f.layers {
		p, ly := layerPrefix(i), &f.layers[i]
		ly.attnNorm = l.vector(p+"attn_norm.weight", c.Dim)
		if l.has(p + "attn_qkv.weight") {
			ly.attn.wqkv = l.mat(p+"attn_qkv.weight", qkvRows, c.Dim, OpQKV)
			ly.attn.wo = l.mat(p+"attn_output.weight", c.Dim, c.Heads*c.HeadDimV, OpAttnOut)
			if qkvOut == nil {
				qkvOut = make([]float32, env.batch*qkvRows)
			}
			ly.attn.qkvOut = qkvOut
		} else {
			ly.attn = l.attn(p, c, attnOptional{})
		}
		ly.ffnNorm = l.vector(p+"ffn_norm.weight", c.Dim)
		if l.has(p + "ffn_gate.weight") {
			ly.ffn = l.ffn(p, c)
		} else {
			ly.ffn.gateUp = l.mat(p+"ffn_up.weight", 2*c.FFN, c.Dim, OpFFNUpGate)
			ly.ffn.down = l.mat(p+"ffn_down.weight", c.Dim, c.FFN, OpFFNDown)
			if guOut == nil {
				guOut = make([]float32, env.batch*2*c.FFN)
			}
			ly.ffn.guOut = guOut
		}
	}
	factors := l.optionalVector("rope_factors_short.weight", c.RopeDim/2)
	origCtx := int(l.f.Uint(c.Arch+".rope.scaling.original_context_length", uint64(c.ContextLen)))
	if env.ctx > origCtx && l.has("rope_factors_long.weight") {
		factors = l.vector("rope_factors_long.weight", c.RopeDim/2)
	}
	if l.err != nil {
		return nil, l.err
	}
	rope, err := newRope(c, RopeNeoX, c.RopeBase, c.RopeScale, factors, env)
	if err != nil {
		return nil, err
	}
	f.attn = stdAttn(c, rope)
	f.attn.qScale, f.attn.scale = f.attn.scale, 1
	return f, nil
}

func (f *phi3Model) forward(m *Model, phase Phase, p *pass) []float32 {
	ntok := len(p.tokens)
	x := m.beginPass(phase, p, 0)
	xn := m.state.xn[:len(x)]
	for l := range f.layers {
		ly := &f.layers[l]
		// x += Wo · attention(rope(q), rope(k), v), [q; k; v] = Wqkv·norm(x)
		m.norm(l, OpAttnNorm, xn, x, ly.attnNorm, ntok)
		kernels.Add(x, m.attention(l, &ly.attn, &f.attn, xn, p))
		// x += Wdown · (silu(g) * u), [g; u] = Wup·norm(x)
		m.norm(l, OpFFNNorm, xn, x, ly.ffnNorm, ntok)
		kernels.Add(x, m.ffn(l, &ly.ffn, actSiLU, xn, ntok))
	}
	return m.logits(p, x, 0)
}
