package engine

import (
	"fmt"

	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/kernels"
	"github.com/gollm/gollm/quant"
)

// Weights holds the tensors every family has (the layers belong to the
// family) and the list of every weight matrix a forward pass multiplies. It
// is read-only after Load (background packing swaps packed copies in under
// the kernels' own synchronisation), so it may be read from any goroutine.
type Weights struct {
	TokEmbd *kernels.Matrix // [Vocab rows x Dim]; rows dequantized one per token
	OutNorm []float32       // [Dim]
	Output  *kernels.Matrix // [Vocab rows x Dim]; TokEmbd when the file ties them
	// Matrices lists every weight matrix in the order a forward pass
	// multiplies them, as the family's loader read them: the one list the
	// packer, the byte counts (bench, --timings) and the per-op bandwidth
	// figures read.
	Matrices []WeightUse
}

// WeightUse is one weight tensor of the forward pass: a matrix, or the
// experts of a mixture-of-experts tensor (one matrix per expert, views of
// the 3-D tensor), with the timed op that multiplies it.
type WeightUse struct {
	Name string
	Op   Op
	Mats []*kernels.Matrix
	// PerToken is how many of Mats one decode token reads: all of them for
	// a dense weight, the experts a token is routed to for expert tensors.
	PerToken int
}

// bytesPerToken is the weight data one decode token reads from w.
func (u *WeightUse) bytesPerToken() int64 {
	return int64(len(u.Mats[0].Data)) * int64(u.PerToken)
}

// weightBytes is the bytes of weights one decode token streams from memory
// (for a mixture of experts, only the experts it is routed to).
func (w *Weights) weightBytes() int64 {
	var n int64
	for i := range w.Matrices {
		n += w.Matrices[i].bytesPerToken()
	}
	return n
}

// OpBytes is the weight bytes each timed op reads per decode token, summed
// over the layers (only matmul ops read weights; the embedding dequantizes
// one row per token). A pass of several tokens reads each dense weight
// once, and each expert its tokens are routed to once.
func (w *Weights) OpBytes() [NumOps]int64 {
	var b [NumOps]int64
	for i := range w.Matrices {
		b[w.Matrices[i].Op] += w.Matrices[i].bytesPerToken()
	}
	return b
}

// forwardOrder lists the matrices in the order a forward pass multiplies
// them (so a background packer stays ahead of the first pass).
func (w *Weights) forwardOrder() []*kernels.Matrix {
	var ms []*kernels.Matrix
	for i := range w.Matrices {
		ms = append(ms, w.Matrices[i].Mats...)
	}
	return ms
}

// loader resolves tensors by name with shape checks and error context. The
// first error sticks: a family's load function reads its tensors top to
// bottom and checks l.err once.
type loader struct {
	f    *gguf.File
	err  error
	mats []WeightUse
}

func (l *loader) fail(err error) {
	if l.err == nil {
		l.err = err
	}
}

func (l *loader) info(name string, dims ...int) *gguf.TensorInfo {
	if l.err != nil {
		return nil
	}
	ti, ok := l.f.Tensor(name)
	if !ok {
		l.fail(fmt.Errorf("%w: tensor %q is missing", ErrBadModel, name))
		return nil
	}
	if !shapeIs(ti.Dims, dims) {
		l.fail(fmt.Errorf("%w: tensor %q has shape %v, want %v", ErrBadModel, name, ti.Dims, dims))
		return nil
	}
	return ti
}

// has reports whether the file has tensor name.
func (l *loader) has(name string) bool {
	_, ok := l.f.Tensor(name)
	return ok
}

// shapeIs compares GGUF dims with want, ignoring trailing 1s.
func shapeIs(got []uint64, want []int) bool {
	for i := 0; i < len(got) || i < len(want); i++ {
		g, w := uint64(1), uint64(1)
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = uint64(want[i])
		}
		if g != w {
			return false
		}
	}
	return true
}

// matrix loads a 2-D weight of rows x cols (GGUF dims [cols, rows]) without
// recording it (the token embedding).
func (l *loader) matrix(name string, rows, cols int) *kernels.Matrix {
	ti := l.info(name, cols, rows)
	if ti == nil {
		return nil
	}
	m, err := kernels.NewMatrix(ti.Type, rows, cols, l.f.TensorData(ti))
	if err != nil {
		l.fail(fmt.Errorf("tensor %q: %w", name, err))
	}
	return m
}

// mat loads a weight matrix that op multiplies and records it in the
// forward-order list.
func (l *loader) mat(name string, rows, cols int, op Op) *kernels.Matrix {
	m := l.matrix(name, rows, cols)
	if m != nil {
		l.mats = append(l.mats, WeightUse{Name: name, Op: op, Mats: []*kernels.Matrix{m}, PerToken: 1})
	}
	return m
}

// experts loads a 3-D expert tensor (GGUF dims [cols, rows, n]) as n
// matrices that are views of it (no copy), each packed like a dense
// weight; a token reads perToken of them.
func (l *loader) experts(name string, n, rows, cols, perToken int, op Op) []*kernels.Matrix {
	ti := l.info(name, cols, rows, n)
	if ti == nil {
		return nil
	}
	data := l.f.TensorData(ti)
	size := len(data) / n
	ms := make([]*kernels.Matrix, n)
	for e := range ms {
		m, err := kernels.NewMatrix(ti.Type, rows, cols, data[e*size:(e+1)*size:(e+1)*size])
		if err != nil {
			l.fail(fmt.Errorf("tensor %q expert %d: %w", name, e, err))
			return nil
		}
		m.SetTokenwise() // llama.cpp's mul_mat_id: one token at a time
		ms[e] = m
	}
	l.mats = append(l.mats, WeightUse{Name: name, Op: op, Mats: ms, PerToken: perToken})
	return ms
}

// vector loads a 1-D tensor of n elements of any decodable type as float32.
func (l *loader) vector(name string, n int) []float32 {
	ti := l.info(name, n)
	if ti == nil {
		return nil
	}
	out := make([]float32, n)
	if err := quant.DequantizeRow(ti.Type, l.f.TensorData(ti), out); err != nil {
		l.fail(fmt.Errorf("tensor %q: %w", name, err))
	}
	return out
}

// optionalVector is vector for a tensor that may be absent (nil).
func (l *loader) optionalVector(name string, n int) []float32 {
	if !l.has(name) {
		return nil
	}
	return l.vector(name, n)
}

// embeddings loads the token embedding (before the layers) and returns it.
func (l *loader) embeddings(c *Config) *kernels.Matrix {
	e := l.matrix("token_embd.weight", c.Vocab, c.Dim)
	if e != nil && !quant.Supported(e.Type) {
		l.fail(fmt.Errorf("tensor %q: %w %v", "token_embd.weight", quant.ErrUnsupportedType, e.Type))
	}
	return e
}

// head loads the final norm and the output matrix (the embedding when the
// file ties them), recorded last in forward order.
func (l *loader) head(c *Config, w *Weights) {
	w.OutNorm = l.vector("output_norm.weight", c.Dim)
	if l.has("output.weight") {
		w.Output = l.mat("output.weight", c.Vocab, c.Dim, OpLMHead)
	} else if w.TokEmbd != nil {
		w.Output = w.TokEmbd // tied embeddings
		l.mats = append(l.mats, WeightUse{Name: "token_embd.weight", Op: OpLMHead, Mats: []*kernels.Matrix{w.TokEmbd}, PerToken: 1})
	}
}

// layerPrefix is the tensor name prefix of layer i.
func layerPrefix(i int) string { return fmt.Sprintf("blk.%d.", i) }

// loadFamily reads the token embedding, the family's layers and the output
// head of f, in forward order.
func loadFamily(f *gguf.File, a *Arch, c *Config, env loadEnv) (family, *Weights, error) {
	l := &loader{f: f}
	w := &Weights{TokEmbd: l.embeddings(c)}
	if l.err != nil {
		return nil, nil, l.err
	}
	fam, err := a.load(l, c, env)
	if err == nil {
		err = l.err
	}
	if err != nil {
		return nil, nil, err
	}
	l.head(c, w)
	if l.err != nil {
		return nil, nil, l.err
	}
	w.Matrices = l.mats
	return fam, w, nil
}
