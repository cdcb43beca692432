package engine

import (
	"fmt"

	"github.com/gollm/gollm/kernels"
)

// Mixture-of-experts FFN (qwen3moe): a router picks, per token, the
// nUsed of nExp expert FFNs with the highest softmax probability; the
// token's output is their outputs weighted by those probabilities
// (renormalized to sum to 1 when the family does, as qwen3moe does).
//
// The expert tensors are 3-D in the file; each expert is a matrix viewing
// its slice (no copy), packed like a dense weight. A pass groups the
// tokens routed to each expert and multiplies them as one matmul per
// expert, so each chosen expert's weights are read once per pass and the
// experts no token chose are not read at all: decode reads nUsed experts.

// moeWeights are one layer's router and experts.
type moeWeights struct {
	router         *kernels.Matrix   // [nExp rows x Dim]
	gate, up, down []*kernels.Matrix // per expert: [ffn x Dim], [ffn x Dim], [Dim x ffn]
}

// moeParams are the shape of a mixture of experts.
type moeParams struct {
	nExp, nUsed, ffn int
	normWeights      bool // renormalize the chosen probabilities to sum to 1
}

func (mp moeParams) String() string {
	norm := ""
	if mp.normWeights {
		norm = ", weights renormalized"
	}
	return fmt.Sprintf("mixture of experts: %d experts, %d per token, expert FFN %d%s", mp.nExp, mp.nUsed, mp.ffn, norm)
}

// readMoEParams reads expert_count, expert_used_count and
// expert_feed_forward_length.
func readMoEParams(l *loader, c *Config, normWeights bool) (moeParams, error) {
	key := func(k string) string { return c.Arch + "." + k }
	mp := moeParams{
		nExp:        int(l.f.Uint(key("expert_count"), 0)),
		nUsed:       int(l.f.Uint(key("expert_used_count"), 0)),
		ffn:         int(l.f.Uint(key("expert_feed_forward_length"), uint64(c.FFN))),
		normWeights: normWeights,
	}
	if mp.nExp <= 0 || mp.nExp > 4096 || mp.nUsed <= 0 || mp.nUsed > mp.nExp || mp.ffn <= 0 || mp.ffn > 1<<20 {
		return mp, fmt.Errorf("%w: %s: expert_count %d, expert_used_count %d, expert_feed_forward_length %d out of range",
			ErrBadModel, c.Arch, mp.nExp, mp.nUsed, mp.ffn)
	}
	return mp, nil
}

// moe loads layer prefix p's router and experts.
func (l *loader) moe(p string, c *Config, mp moeParams) moeWeights {
	var w moeWeights
	w.router = l.mat(p+"ffn_gate_inp.weight", mp.nExp, c.Dim, OpFFNUpGate)
	w.gate = l.experts(p+"ffn_gate_exps.weight", mp.nExp, mp.ffn, c.Dim, mp.nUsed, OpFFNUpGate)
	w.up = l.experts(p+"ffn_up_exps.weight", mp.nExp, mp.ffn, c.Dim, mp.nUsed, OpFFNUpGate)
	w.down = l.experts(p+"ffn_down_exps.weight", mp.nExp, c.Dim, mp.ffn, mp.nUsed, OpFFNDown)
	return w
}

// moeState is the scratch of the MoE block, sized for a full batch.
type moeState struct {
	mp      moeParams
	probs   []float32 // [batch][nExp] router output, then probabilities
	sel     []int32   // [batch][nUsed] chosen experts, best first
	weights []float32 // [batch][nUsed] their weights
	count   []int     // [nExp+1] assignments per expert, then offsets
	order   []int32   // [batch*nUsed] assignments (token*nUsed+slot) grouped by expert
	xg      []float32 // [batch][Dim] the inputs of one expert's tokens
	g, u    []float32 // [batch][ffn]
	y       []float32 // [batch][Dim] one expert's outputs
	outs    []float32 // [batch*nUsed][Dim] every assignment's output
}

func newMoEState(c *Config, mp moeParams, batch int) *moeState {
	return &moeState{
		mp:      mp,
		probs:   make([]float32, batch*mp.nExp),
		sel:     make([]int32, batch*mp.nUsed),
		weights: make([]float32, batch*mp.nUsed),
		count:   make([]int, mp.nExp+1),
		order:   make([]int32, batch*mp.nUsed),
		xg:      make([]float32, batch*c.Dim),
		g:       make([]float32, max(batch, mp.nUsed)*mp.ffn), // decode: one row per chosen expert
		u:       make([]float32, max(batch, mp.nUsed)*mp.ffn),
		y:       make([]float32, batch*c.Dim),
		outs:    make([]float32, batch*mp.nUsed*c.Dim),
	}
}

// moe is the mixture-of-experts FFN sub-block of layer l. It returns
// [ntok][Dim] (the state's tmp buffer) for the caller to add to the
// residual stream.
func (m *Model) moe(l int, w *moeWeights, ms *moeState, xn []float32, ntok int) []float32 {
	c, t := &m.Config, m.Timers
	mp, dim := ms.mp, c.Dim

	// Router: probabilities, top nUsed, their weights (llama.cpp's
	// build_moe_ffn with softmax gating).
	t.mark(l, OpFFNUpGate)
	probs := ms.probs[:ntok*mp.nExp]
	m.matmul(probs, w.router, xn, ntok, dim)
	for i := 0; i < ntok; i++ {
		route(probs[i*mp.nExp:(i+1)*mp.nExp], ms.sel[i*mp.nUsed:(i+1)*mp.nUsed],
			ms.weights[i*mp.nUsed:(i+1)*mp.nUsed], mp.normWeights)
	}

	if ntok == 1 {
		m.moeDecode(l, w, ms, xn)
	} else {
		m.moeGrouped(l, w, ms, xn, ntok)
	}

	// Each token's output: its experts' outputs times their weights,
	// summed in rank order (llama.cpp multiplies, then adds the views one
	// by one).
	out := m.state.tmp[:ntok*dim]
	for i := 0; i < ntok; i++ {
		o := out[i*dim : (i+1)*dim]
		for s := 0; s < mp.nUsed; s++ {
			a := i*mp.nUsed + s
			y, wt := ms.outs[a*dim:(a+1)*dim], ms.weights[a]
			if s == 0 {
				for d := range o {
					o[d] = y[d] * wt
				}
				continue
			}
			for d := range o {
				o[d] += y[d] * wt
			}
		}
	}
	return out
}

// moeDecode runs the chosen experts of a single token into ms.outs: their
// gate and up products share the token's quantized input, so two experts'
// four matrices go to the pool as one job (the same bits as one by one).
func (m *Model) moeDecode(l int, w *moeWeights, ms *moeState, xn []float32) {
	mp, dim, t := ms.mp, m.Config.Dim, m.Timers
	sel := ms.sel[:mp.nUsed]
	t.mark(l, OpFFNUpGate)
	at := vecDotType(w.gate[0].Type)
	if vecDotType(w.up[0].Type) != at {
		for s, e := range sel {
			m.matmul3(ms.g[s*mp.ffn:(s+1)*mp.ffn], w.gate[e], ms.u[s*mp.ffn:(s+1)*mp.ffn], w.up[e], nil, nil, xn, 1, dim)
		}
	} else {
		m.state.memo.reset()
		a := m.state.scratch.Quantize(m.pool, w.gate[0].Type, xn, 1, dim)
		var outs [4][]float32
		var ws [4]*kernels.Matrix
		for s0 := 0; s0 < len(sel); s0 += 2 {
			n := 0
			for s := s0; s < min(s0+2, len(sel)); s++ {
				e := sel[s]
				outs[n], ws[n] = ms.g[s*mp.ffn:(s+1)*mp.ffn], w.gate[e]
				outs[n+1], ws[n+1] = ms.u[s*mp.ffn:(s+1)*mp.ffn], w.up[e]
				n += 2
			}
			m.pool.MatMulN(outs[:n], ws[:n], a)
		}
	}
	t.mark(l, OpFFNAct)
	g := ms.g[:mp.nUsed*mp.ffn]
	m.gluRows(actSiLU, g, ms.u, mp.ffn, mp.nUsed)
	t.mark(l, OpFFNDown)
	for s, e := range sel {
		m.matmul(ms.outs[s*dim:(s+1)*dim], w.down[e], g[s*mp.ffn:(s+1)*mp.ffn], 1, mp.ffn)
	}
}

// moeGrouped runs a pass of several tokens into ms.outs: the assignments
// grouped by expert, one gate/up and one down product per expert over its
// tokens.
func (m *Model) moeGrouped(l int, w *moeWeights, ms *moeState, xn []float32, ntok int) {
	mp, dim, t := ms.mp, m.Config.Dim, m.Timers
	// Group the assignments by expert (a counting sort, token order within
	// an expert).
	clear(ms.count)
	for _, e := range ms.sel[:ntok*mp.nUsed] {
		ms.count[e+1]++
	}
	for e := 1; e <= mp.nExp; e++ {
		ms.count[e] += ms.count[e-1]
	}
	for a, e := range ms.sel[:ntok*mp.nUsed] {
		ms.order[ms.count[e]] = int32(a)
		ms.count[e]++
	}
	// count[e] is now the end of expert e's run; it starts where e-1's ends.

	start := 0
	for e := 0; e < mp.nExp; e++ {
		end := ms.count[e]
		n := end - start
		if n == 0 {
			continue
		}
		run := ms.order[start:end]
		start = end
		// The expert's tokens, gathered. Under EvalBatch the group is padded
		// with copies of its last token to the pass's quantum, so that each
		// token's products take the same float order whatever number of
		// tokens the router sent this expert (batch invariance; see
		// EvalBatch).
		if q := m.state.quantum; m.state.invariant && q > 1 {
			n = (n + q - 1) / q * q
		}
		xg := ms.xg[:n*dim]
		for r, a := range run {
			tok := int(a) / mp.nUsed
			copy(xg[r*dim:(r+1)*dim], xn[tok*dim:(tok+1)*dim])
		}
		for r := len(run); r < n; r++ {
			copy(xg[r*dim:(r+1)*dim], xg[(r-1)*dim:r*dim])
		}
		t.mark(l, OpFFNUpGate)
		g, u := ms.g[:n*mp.ffn], ms.u[:n*mp.ffn]
		m.matmul3(g, w.gate[e], u, w.up[e], nil, nil, xg, n, dim)
		t.mark(l, OpFFNAct)
		m.gluRows(actSiLU, g, u, mp.ffn, n)
		t.mark(l, OpFFNDown)
		y := ms.y[:n*dim]
		m.matmul(y, w.down[e], g, n, mp.ffn)
		for r, a := range run {
			copy(ms.outs[int(a)*dim:(int(a)+1)*dim], y[r*dim:(r+1)*dim])
		}
	}
}

// route turns a token's router logits into probabilities (softmax, in
// place) and writes the len(sel) most probable experts, best first, and
// their weights: the probabilities, renormalized to sum to 1 when norm
// (the sum clamped below at 2^-14, as llama.cpp does).
func route(probs []float32, sel []int32, weights []float32, norm bool) {
	kernels.Softmax(probs)
	for s := range sel {
		best := -1
		for e, p := range probs {
			if best >= 0 && p <= probs[best] || chosen(sel[:s], e) {
				continue
			}
			best = e
		}
		sel[s], weights[s] = int32(best), probs[best]
	}
	if !norm {
		return
	}
	var sum float32
	for _, w := range weights {
		sum += w
	}
	sum = max(sum, 6.103515625e-5)
	for s := range weights {
		weights[s] /= sum
	}
}

func chosen(sel []int32, e int) bool {
	for _, s := range sel {
		if int(s) == e {
			return true
		}
	}
	return false
}
