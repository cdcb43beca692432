package engine

import "github.com/gollm/gollm/kernels"

// tokenJob runs one per-token step of a pass (the RMSNorms, RoPE, the
// FFN's gated activation) over the pool's threads when the pass has at
// least tokenJobMin tokens. Each token's row is computed as when alone,
// so the split changes no bit. In prefill these steps took ~8% of a
// TinyLlama Q4_0 pass on one thread (pp512, Intel Xeon: norms 64 ms, RoPE
// 77 ms, SwiGLU 49 ms of 2300).
type tokenJob struct {
	op tokenOp

	// tokNorm: dst = RMSNorm(src) * w, rows of dim.
	dst, src, w []float32
	dim         int
	eps         float32

	// tokRope: the queries and keys (rows of qd and kd), each head
	// RMSNormed first where the layer has q/k norms.
	q, k         []float32
	qd, kd       int
	c            *Config
	qNorm, kNorm []float32
	rope         *kernels.RoPE
	pos          []int

	// tokGLU: gate = act(gate) * up, rows of width.
	act      activation
	gate, up []float32
	width    int
}

type tokenOp int

const (
	tokNorm tokenOp = iota
	tokRope
	tokGLU
)

// tokenJobMin is the fewest tokens of a pass whose per-token steps go over
// the pool (a step takes a few microseconds a token; decode's one token
// runs inline).
const tokenJobMin = 4

func (j *tokenJob) run(lo, hi int) {
	switch j.op {
	case tokNorm:
		kernels.RMSNormRows(j.dst[lo*j.dim:hi*j.dim], j.src[lo*j.dim:hi*j.dim], j.w, j.dim, j.eps)
	case tokRope:
		c := j.c
		for i := lo; i < hi; i++ {
			qi := j.q[i*j.qd : (i+1)*j.qd]
			ki := j.k[i*j.kd : (i+1)*j.kd]
			if j.qNorm != nil {
				headNorm(qi, j.qNorm, c.HeadDim, c.NormEps)
				headNorm(ki, j.kNorm, c.HeadDim, c.NormEps)
			}
			j.rope.Apply(qi, c.Heads, j.pos[i])
			j.rope.Apply(ki, c.KVHeads, j.pos[i])
		}
	case tokGLU:
		gluRows(j.act, j.gate[lo*j.width:hi*j.width], j.up[lo*j.width:hi*j.width], j.width)
	}
}

// runTokens runs the state's token job over ntok tokens.
func (m *Model) runTokens(ntok int) {
	s := m.state
	if ntok < tokenJobMin {
		s.tok.run(0, ntok)
		return
	}
	m.pool.For(ntok, s.tokFn)
}

// normRows writes RMSNorm(src row) * w into dst for each of ntok rows of
// the model's width.
func (m *Model) normRows(dst, src, w []float32, ntok int) {
	j := &m.state.tok
	j.op, j.dst, j.src, j.w, j.dim, j.eps = tokNorm, dst, src, w, m.Config.Dim, m.Config.NormEps
	m.runTokens(ntok)
}

// ropeRows applies the layer's q/k norms (if any) and RoPE to the pass's
// queries and keys.
func (m *Model) ropeRows(q, k []float32, a *attnWeights, ap *attnParams, p *pass) {
	c, j := &m.Config, &m.state.tok
	j.op, j.q, j.k, j.qd, j.kd, j.c = tokRope, q, k, c.QDim(), c.KVDim(), c
	j.qNorm, j.kNorm, j.rope, j.pos = a.qNorm, a.kNorm, ap.rope, p.pos
	m.runTokens(len(p.tokens))
}

// gluRows sets gate = act(gate) * up for the first rows rows of width.
func (m *Model) gluRows(act activation, gate, up []float32, width, rows int) {
	j := &m.state.tok
	j.op, j.act, j.gate, j.up, j.width = tokGLU, act, gate[:rows*width], up[:rows*width], width
	m.runTokens(rows)
}
