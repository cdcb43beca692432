package engine

import (
	"github.com/gollm/gollm/kernels"
	"github.com/gollm/gollm/kvcache"
)

// pass describes the tokens of one forward pass: token i sits at position
// pos[i] of sequence seqs[seq[i]]. rows lists the tokens whose logits are
// wanted, in output order. All slices are views into the run state.
type pass struct {
	tokens []int32
	pos    []int
	seq    []int
	seqs   []kvcache.SeqID
	maxPos []int // per sequence: the highest position in this pass
	rows   []int
}

// forward runs one pass through the model: every token's keys and values
// enter its sequence's cache (reserved by the caller), and the logits of the
// requested rows are returned ([len(rows)][Vocab], valid until the next
// pass). Each architecture writes its own pass (arch_*.go), reading top to
// bottom like llama2.c's forward, from the shared blocks (blocks.go); none
// allocates. Tokens may belong to different sequences: attention serves
// each at its own (p.seq, p.pos).
func (m *Model) forward(phase Phase, p *pass) []float32 {
	return m.family.forward(m, phase, p)
}

// embed writes the embedding row of token id into dst.
func (m *Model) embed(dst []float32, id int32) {
	e := m.Weights.TokEmbd
	rowBytes := len(e.Data) / e.Rows
	m.embedDequant(e.Data[int(id)*rowBytes:(int(id)+1)*rowBytes], dst)
}

// matmul computes out = W · x for ntok tokens of cols elements each.
func (m *Model) matmul(out []float32, w *kernels.Matrix, x []float32, ntok, cols int) {
	m.state.memo.reset()
	m.matmulSameInput(out, w, x, ntok, cols)
}

// matmulSameInput is matmul for a weight that reads the same input as the
// previous matmul (k and v after q, up after gate): the input is quantized
// again only if this weight pairs with another activation type.
func (m *Model) matmulSameInput(out []float32, w *kernels.Matrix, x []float32, ntok, cols int) {
	s := m.state
	a := s.memo.get(w.Type)
	if a == nil {
		a = s.scratch.Quantize(m.pool, w.Type, x, ntok, cols)
		s.memo.put(w.Type, a)
	}
	m.pool.MatMul(out, w, a)
}

// matmul3 computes two or three matmuls of the same input (q/k/v,
// gate/up; w3 may be nil) as one pool job when their weights take the same
// activation type (one dispatch and one wait instead of one each; Q4_K and
// Q6_K share Q8_K), else one by one.
func (m *Model) matmul3(o1 []float32, w1 *kernels.Matrix, o2 []float32, w2 *kernels.Matrix, o3 []float32, w3 *kernels.Matrix, x []float32, ntok, cols int) {
	at := vecDotType(w1.Type)
	if vecDotType(w2.Type) != at || (w3 != nil && vecDotType(w3.Type) != at) {
		m.matmul(o1, w1, x, ntok, cols)
		m.matmulSameInput(o2, w2, x, ntok, cols)
		if w3 != nil {
			m.matmulSameInput(o3, w3, x, ntok, cols)
		}
		return
	}
	s := m.state
	s.memo.reset()
	a := s.scratch.Quantize(m.pool, w1.Type, x, ntok, cols)
	s.memo.put(w1.Type, a)
	outs, ws := [3][]float32{o1, o2, o3}, [3]*kernels.Matrix{w1, w2, w3}
	n := 2
	if w3 != nil {
		n = 3
	}
	m.pool.MatMulN(outs[:n], ws[:n], a)
}

func addBias(x, b []float32) {
	if b == nil {
		return
	}
	for i := 0; i < len(x); i += len(b) {
		kernels.Add(x[i:i+len(b)], b)
	}
}

// headNorm applies RMSNorm with weight w to each head of x in place (qwen3).
func headNorm(x, w []float32, headDim int, eps float32) {
	for h := 0; h < len(x); h += headDim {
		kernels.RMSNorm(x[h:h+headDim], x[h:h+headDim], w, eps)
	}
}
