package engine

import (
	"fmt"
	"math"

	"github.com/gollm/gollm/kernels"
)

// The shared blocks the architectures' forward passes are written with.
// Each works on the ntok tokens of the current pass, marks its timed ops,
// and allocates nothing.

// beginPass starts a pass: the timers, then the token embeddings into the
// residual stream, each multiplied by scale when it is not 0 (gemma).
func (m *Model) beginPass(phase Phase, p *pass, scale float32) []float32 {
	dim := m.Config.Dim
	x := m.state.x[:len(p.tokens)*dim]
	m.Timers.begin(phase, len(p.tokens))
	m.Timers.mark(-1, OpEmbedding)
	for i, id := range p.tokens {
		m.embed(x[i*dim:(i+1)*dim], id)
	}
	if scale != 0 {
		kernels.Scale(x, scale)
	}
	return x
}

// norm writes RMSNorm(src row) * w into dst for every token, timed as op.
func (m *Model) norm(layer int, op Op, dst, src, w []float32, ntok int) {
	m.Timers.mark(layer, op)
	m.normRows(dst, src, w, ntok)
}

// attnWeights are one layer's attention tensors.
type attnWeights struct {
	wq, wk, wv   *kernels.Matrix // separate projections, or
	wqkv         *kernels.Matrix // one fused [q; k; v] projection (phi3)
	qkvOut       []float32       // [batch][QDim+KVDim+VDim] the fused product (owned by the family)
	bq, bk, bv   []float32       // biases (qwen2) or nil
	qNorm, kNorm []float32       // per-head RMSNorm of q and k before RoPE (qwen3, gemma3) or nil
	wo           *kernels.Matrix
}

// attnOptional says which of a layer's optional attention tensors a family
// requires (the others are used when the file has them).
type attnOptional struct {
	biases, qkNorm bool
}

// attn loads the separate q/k/v projections of layer prefix p.
func (l *loader) attn(p string, c *Config, req attnOptional) attnWeights {
	var a attnWeights
	a.wq = l.mat(p+"attn_q.weight", c.QDim(), c.Dim, OpQKV)
	a.wk = l.mat(p+"attn_k.weight", c.KVDim(), c.Dim, OpQKV)
	a.wv = l.mat(p+"attn_v.weight", c.VDim(), c.Dim, OpQKV)
	a.bq = l.maybeVector(p+"attn_q.bias", c.QDim(), req.biases)
	a.bk = l.maybeVector(p+"attn_k.bias", c.KVDim(), req.biases)
	a.bv = l.maybeVector(p+"attn_v.bias", c.VDim(), req.biases)
	a.qNorm = l.maybeVector(p+"attn_q_norm.weight", c.HeadDim, req.qkNorm)
	a.kNorm = l.maybeVector(p+"attn_k_norm.weight", c.HeadDim, req.qkNorm)
	a.wo = l.mat(p+"attn_output.weight", c.Dim, c.Heads*c.HeadDimV, OpAttnOut)
	return a
}

// maybeVector loads a vector that must be there when required, else may be.
func (l *loader) maybeVector(name string, n int, required bool) []float32 {
	if required {
		return l.vector(name, n)
	}
	return l.optionalVector(name, n)
}

// attnParams are how a layer attends.
type attnParams struct {
	rope  *kernels.RoPE
	scale float32 // of the scores, inside the attention kernel
	// qScale, when not 0, multiplies the queries after RoPE and the kernel's
	// scale is 1 (gemma, phi3: llama.cpp scales Q as its own op there).
	qScale  float32
	softcap float32 // attention logit soft-cap, or 0 (gemma2)
	window  int     // sliding window, or 0 (gemma local layers)
}

// stdAttn is the attention of most families: 1/sqrt(head size) in the kernel.
func stdAttn(c *Config, rope *kernels.RoPE) attnParams {
	return attnParams{rope: rope, scale: float32(1 / math.Sqrt(float64(c.HeadDim)))}
}

// attention is the attention sub-block of layer l: q, k, v of the
// normalized input xn, their RoPE, every token's k/v into its sequence's
// cache, causal attention of each token over its own sequence, and the
// output projection. It returns Wo·attention ([ntok][Dim], in the state's
// tmp buffer) for the caller to add to the residual stream.
func (m *Model) attention(l int, a *attnWeights, ap *attnParams, xn []float32, p *pass) []float32 {
	c, s, t := &m.Config, m.state, m.Timers
	ntok := len(p.tokens)
	qd, kd, vd := c.QDim(), c.KVDim(), c.VDim()

	t.mark(l, OpQKV)
	q, k, v := s.q[:ntok*qd], s.k[:ntok*kd], s.v[:ntok*vd]
	if a.wqkv != nil {
		// One product, then each token's row split into q, k and v.
		w := qd + kd + vd
		qkv := a.qkvOut[:ntok*w]
		m.matmul(qkv, a.wqkv, xn, ntok, c.Dim)
		for i := 0; i < ntok; i++ {
			row := qkv[i*w : (i+1)*w]
			copy(q[i*qd:(i+1)*qd], row[:qd])
			copy(k[i*kd:(i+1)*kd], row[qd:qd+kd])
			copy(v[i*vd:(i+1)*vd], row[qd+kd:])
		}
	} else {
		m.matmul3(q, a.wq, k, a.wk, v, a.wv, xn, ntok, c.Dim)
	}
	addBias(q, a.bq)
	addBias(k, a.bk)
	addBias(v, a.bv)

	t.mark(l, OpRope)
	m.ropeRows(q, k, a, ap, p)
	scale := ap.scale
	if ap.qScale != 0 {
		kernels.Scale(q, ap.qScale)
		scale = 1
	}

	t.mark(l, OpAttention)
	for i := 0; i < ntok; i++ {
		m.cache.Put(l, p.seqs[p.seq[i]], p.pos[i], k[i*kd:(i+1)*kd], v[i*vd:(i+1)*vd])
	}
	for si, seq := range p.seqs {
		m.cache.View(l, seq, p.maxPos[si]+1, &s.views[si])
	}
	j := &s.attn
	j.views, j.tokSeq, j.tokPos = s.views[:len(p.seqs)], p.seq, p.pos
	j.q, j.out, j.scale = q, s.att[:ntok*c.Heads*c.HeadDimV], scale
	j.softcap, j.capScale, j.window = ap.softcap, 0, ap.window
	j.tiled, j.tiledPos = tiledFor(c, ntok, s.invariant, j.views, j.tiledMin)
	j.rowsExact = !s.invariant && !j.tiled
	if ap.softcap != 0 {
		j.capScale = scale / ap.softcap // llama.cpp: scale /= logit_softcap
	}
	m.pool.ForGrain(ntok*c.Heads, s.attnGrain, s.attnFn)

	t.mark(l, OpAttnOut)
	out := s.tmp[:ntok*c.Dim]
	m.matmul(out, a.wo, s.att[:ntok*c.Heads*c.HeadDimV], ntok, c.Heads*c.HeadDimV)
	return out
}

// Activation is the gated FFN's nonlinearity.
type activation int

const (
	actSiLU activation = iota // SwiGLU: silu(gate) * up
	actGELU                   // GeGLU: gelu_tanh(gate) * up, as ggml computes it
)

// ffnWeights are a gated feed-forward block's tensors.
type ffnWeights struct {
	gate, up *kernels.Matrix // separate projections, or
	gateUp   *kernels.Matrix // one fused [gate; up] projection (phi3)
	guOut    []float32       // [batch][2*FFN] the fused product (owned by the family)
	down     *kernels.Matrix
}

// ffn loads the separate gate/up/down projections of layer prefix p.
func (l *loader) ffn(p string, c *Config) ffnWeights {
	var f ffnWeights
	f.gate = l.mat(p+"ffn_gate.weight", c.FFN, c.Dim, OpFFNUpGate)
	f.up = l.mat(p+"ffn_up.weight", c.FFN, c.Dim, OpFFNUpGate)
	f.down = l.mat(p+"ffn_down.weight", c.Dim, c.FFN, OpFFNDown)
	return f
}

// ffn is the gated feed-forward sub-block of layer l:
// Wdown · (act(Wgate·xn) * Wup·xn). It returns [ntok][Dim] (the state's
// tmp buffer) for the caller to add to the residual stream.
func (m *Model) ffn(l int, f *ffnWeights, act activation, xn []float32, ntok int) []float32 {
	c, s, t := &m.Config, m.state, m.Timers
	hidden := f.down.Cols // FFN, or a shared expert's width
	t.mark(l, OpFFNUpGate)
	gate, up := s.gate[:ntok*hidden], s.up[:ntok*hidden]
	if f.gateUp != nil {
		m.matmul(f.guOut[:ntok*2*hidden], f.gateUp, xn, ntok, c.Dim)
		t.mark(l, OpFFNAct)
		for i := 0; i < ntok; i++ {
			row := f.guOut[i*2*hidden : (i+1)*2*hidden]
			glu(act, gate[i*hidden:(i+1)*hidden], row[:hidden], row[hidden:])
		}
	} else {
		m.matmul3(gate, f.gate, up, f.up, nil, nil, xn, ntok, c.Dim)
		t.mark(l, OpFFNAct)
		m.gluRows(act, gate, up, hidden, ntok)
	}

	t.mark(l, OpFFNDown)
	out := s.tmp[:ntok*c.Dim]
	m.matmul(out, f.down, gate, ntok, hidden)
	return out
}

// gluRows sets gate = act(gate) * up row by row (rows of width): SwiGLU's
// float order depends on where a row ends (groups of 8, then a scalar
// tail), so a batch goes through glu one row at a time, as ggml does.
func gluRows(act activation, gate, up []float32, width int) {
	for i := 0; i+width <= len(gate); i += width {
		r := gate[i : i+width]
		glu(act, r, r, up[i:i+width])
	}
}

// glu writes act(gate) * up into out, for one row.
func glu(act activation, out, gate, up []float32) {
	if act == actGELU {
		kernels.GeGLU(out, gate, up)
		return
	}
	kernels.SwiGLU(out, gate, up)
}

// logits normalizes the rows that need logits and multiplies them by the
// output matrix; with softcap not 0 (gemma2) each logit is capped at
// softcap*tanh(logit/softcap).
func (m *Model) logits(p *pass, x []float32, softcap float32) []float32 {
	c, s, t, w := &m.Config, m.state, m.Timers, m.Weights
	dim := c.Dim
	t.mark(-1, OpOutputNorm)
	rows := len(p.rows)
	in := s.outIn[:rows*dim]
	for r, i := range p.rows {
		kernels.RMSNorm(in[r*dim:(r+1)*dim], x[i*dim:(i+1)*dim], w.OutNorm, c.NormEps)
	}

	t.mark(-1, OpLMHead)
	logits := s.logitRows(rows, c.Vocab)
	m.matmul(logits, w.Output, in, rows, dim)
	if softcap != 0 {
		// ggml: scale by 1/softcap, tanh, scale by softcap.
		inv := 1 / softcap
		for i, v := range logits {
			logits[i] = kernels.Tanhf(v*inv) * softcap
		}
	}
	t.stop()
	return logits
}

// newRope builds a RoPE table for the family's heads with the given base,
// linear scale and per-pair factors (nil for none).
func newRope(c *Config, style RopeStyle, base, scale float32, factors []float32, env loadEnv) (*kernels.RoPE, error) {
	r, err := kernels.NewRoPEScaled(c.HeadDim, c.RopeDim, base, scale, factors, style == RopeNeoX,
		min(env.ctx, 4096)) // later positions: angles per call
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadModel, err)
	}
	return r, nil
}
