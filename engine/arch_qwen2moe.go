package engine

import (
	"fmt"
	"math"
	"strconv"

	"github.com/gollm/gollm/kernels"
)

// qwen2moe (Qwen1.5-MoE, Qwen2-57B-A14B): qwen2's attention (q/k/v biases,
// NeoX RoPE) and per layer a mixture of experts whose softmax weights are
// not renormalized, plus a shared expert every token runs, its output
// scaled by sigmoid(ffn_gate_inp_shexp · x) (llama.cpp's
// llm_build_qwen2moe).
func init() {
	register(Arch{Name: "qwen2moe", load: loadQwen2MoE, describe: func(l *loader, c *Config) []string {
		mp, err := readMoEParams(l, c, false)
		if err != nil {
			return []string{err.Error()}
		}
		return []string{mp.String(), "a shared expert of FFN " + strconv.Itoa(sharedFFN(l, c)) + " with a sigmoid gate"}
	}})
}

type qwen2moeModel struct {
	layers []qwen2moeLayer
	attn   attnParams
	moe    *moeState
	acc    []float32 // [batch][Dim] the experts' sum while the shared expert runs
	gates  []float32 // [batch] the shared expert's gate per token
}

type qwen2moeLayer struct {
	attnNorm  []float32 // [Dim]
	attn      attnWeights
	ffnNorm   []float32 // [Dim]
	experts   moeWeights
	sharedInp []float32 // [Dim] the shared expert's gate
	shared    ffnWeights
}

func sharedFFN(l *loader, c *Config) int {
	return int(l.f.Uint(c.Arch+".expert_shared_feed_forward_length", uint64(c.FFN)))
}

func loadQwen2MoE(l *loader, c *Config, env loadEnv) (family, error) {
	mp, err := readMoEParams(l, c, false)
	if err != nil {
		return nil, err
	}
	shFFN := sharedFFN(l, c)
	if shFFN <= 0 || shFFN > 1<<20 {
		return nil, fmt.Errorf("%w: %s: expert_shared_feed_forward_length %d out of range", ErrBadModel, c.Arch, shFFN)
	}
	f := &qwen2moeModel{layers: make([]qwen2moeLayer, c.Layers),
		acc: make([]float32, env.batch*c.Dim), gates: make([]float32, env.batch)}
	for i := range f.layers {
		p, ly := layerPrefix(i), &f.layers[i]
		ly.attnNorm = l.vector(p+"attn_norm.weight", c.Dim)
		ly.attn = l.attn(p, c, attnOptional{biases: true})
		ly.ffnNorm = l.vector(p+"ffn_norm.weight", c.Dim)
		ly.experts = l.moe(p, c, mp)
		ly.sharedInp = l.vector(p+"ffn_gate_inp_shexp.weight", c.Dim)
		ly.shared.gate = l.mat(p+"ffn_gate_shexp.weight", shFFN, c.Dim, OpFFNUpGate)
		ly.shared.up = l.mat(p+"ffn_up_shexp.weight", shFFN, c.Dim, OpFFNUpGate)
		ly.shared.down = l.mat(p+"ffn_down_shexp.weight", c.Dim, shFFN, OpFFNDown)
	}
	if l.err != nil {
		return nil, l.err
	}
	// The run state's gate/up buffers (sized by FFN, unused otherwise in
	// this family) hold the shared expert's.
	c.FFN = max(c.FFN, shFFN)
	rope, err := newRope(c, RopeNeoX, c.RopeBase, c.RopeScale, nil, env)
	if err != nil {
		return nil, err
	}
	f.attn = stdAttn(c, rope)
	f.moe = newMoEState(c, mp, env.batch)
	return f, nil
}

func (f *qwen2moeModel) forward(m *Model, phase Phase, p *pass) []float32 {
	dim := m.Config.Dim
	ntok := len(p.tokens)
	x := m.beginPass(phase, p, 0)
	xn := m.state.xn[:len(x)]
	acc := f.acc[:len(x)]
	for l := range f.layers {
		ly := &f.layers[l]
		// x += Wo · attention(...norm(x)...)
		m.norm(l, OpAttnNorm, xn, x, ly.attnNorm, ntok)
		kernels.Add(x, m.attention(l, &ly.attn, &f.attn, xn, p))
		// x += Σ_chosen weight_e · FFN_e(norm(x)) + sigmoid(g·norm(x)) · FFN_shared(norm(x))
		m.norm(l, OpFFNNorm, xn, x, ly.ffnNorm, ntok)
		copy(acc, m.moe(l, &ly.experts, f.moe, xn, ntok))
		for i := 0; i < ntok; i++ {
			g := kernels.Dot(ly.sharedInp, xn[i*dim:(i+1)*dim])
			f.gates[i] = float32(1 / (1 + math.Exp(-float64(g))))
		}
		sh := m.ffn(l, &ly.shared, actSiLU, xn, ntok)
		for i := 0; i < ntok; i++ {
			row := sh[i*dim : (i+1)*dim]
			kernels.Scale(row, f.gates[i])
		}
		kernels.Add(acc, sh)
		kernels.Add(x, acc)
	}
	return m.logits(p, x, 0)
}
