package engine

import (
	"fmt"

	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/kernels"
	"github.com/gollm/gollm/quant"
)

// Layer holds one transformer block's weights. Matrices point into the
// mapped file (no copy); the small vectors are widened to float32 at load.
type Layer struct {
	AttnNorm []float32       // [Dim]
	Wq       *kernels.Matrix // [Heads*HeadDim rows x Dim]
	Wk       *kernels.Matrix // [KVHeads*HeadDim rows x Dim]
	Wv       *kernels.Matrix // [KVHeads*HeadDimV rows x Dim]
	Bq       []float32       // [Heads*HeadDim] q bias (qwen2) or nil
	Bk       []float32       // [KVHeads*HeadDim] or nil
	Bv       []float32       // [KVHeads*HeadDimV] or nil
	QNorm    []float32       // [HeadDim] per-head q RMSNorm (qwen3) or nil
	KNorm    []float32       // [HeadDim] or nil
	Wo       *kernels.Matrix // [Dim rows x Heads*HeadDimV]
	FFNNorm  []float32       // [Dim]
	Wgate    *kernels.Matrix // [FFN rows x Dim]
	Wup      *kernels.Matrix // [FFN rows x Dim]
	Wdown    *kernels.Matrix // [Dim rows x FFN]
}

// Weights holds every tensor the forward pass reads. It is read-only after
// Load (background packing swaps packed copies in under the kernels' own
// synchronisation), so it may be read from any goroutine.
type Weights struct {
	TokEmbd   *kernels.Matrix // [Vocab rows x Dim]; rows dequantized one per token
	Layers    []Layer
	OutNorm   []float32       // [Dim]
	Output    *kernels.Matrix // [Vocab rows x Dim]; TokEmbd when the file ties them
	RopeFreqs []float32       // [RopeDim/2] per-frequency divisors (Llama 3.1+), or nil
}

// loader resolves tensors by name with shape checks and error context.
type loader struct {
	f *gguf.File
}

func (l loader) info(name string, dims ...int) (*gguf.TensorInfo, error) {
	ti, ok := l.f.Tensor(name)
	if !ok {
		return nil, fmt.Errorf("%w: tensor %q is missing", ErrBadModel, name)
	}
	if !shapeIs(ti.Dims, dims) {
		return nil, fmt.Errorf("%w: tensor %q has shape %v, want %v", ErrBadModel, name, ti.Dims, dims)
	}
	return ti, nil
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

// matrix loads a 2-D weight of rows x cols (GGUF dims [cols, rows]).
func (l loader) matrix(name string, rows, cols int) (*kernels.Matrix, error) {
	ti, err := l.info(name, cols, rows)
	if err != nil {
		return nil, err
	}
	m, err := kernels.NewMatrix(ti.Type, rows, cols, l.f.TensorData(ti))
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %w", name, err)
	}
	return m, nil
}

// vector loads a 1-D tensor of n elements of any decodable type as float32.
func (l loader) vector(name string, n int) ([]float32, error) {
	ti, err := l.info(name, n)
	if err != nil {
		return nil, err
	}
	out := make([]float32, n)
	if err := quant.DequantizeRow(ti.Type, l.f.TensorData(ti), out); err != nil {
		return nil, fmt.Errorf("tensor %q: %w", name, err)
	}
	return out, nil
}

// optionalVector is vector for a tensor that may be absent (nil, nil).
func (l loader) optionalVector(name string, n int) ([]float32, error) {
	if _, ok := l.f.Tensor(name); !ok {
		return nil, nil
	}
	return l.vector(name, n)
}

func loadWeights(f *gguf.File, a *Arch, c *Config) (*Weights, error) {
	l := loader{f}
	w := &Weights{Layers: make([]Layer, c.Layers)}
	var err error
	if w.TokEmbd, err = l.matrix("token_embd.weight", c.Vocab, c.Dim); err != nil {
		return nil, err
	}
	if !quant.Supported(w.TokEmbd.Type) {
		return nil, fmt.Errorf("tensor %q: %w %v", "token_embd.weight", quant.ErrUnsupportedType, w.TokEmbd.Type)
	}
	if w.OutNorm, err = l.vector("output_norm.weight", c.Dim); err != nil {
		return nil, err
	}
	if _, ok := f.Tensor("output.weight"); ok {
		if w.Output, err = l.matrix("output.weight", c.Vocab, c.Dim); err != nil {
			return nil, err
		}
	} else {
		w.Output = w.TokEmbd // tied embeddings
	}
	if w.RopeFreqs, err = l.optionalVector("rope_freqs.weight", c.RopeDim/2); err != nil {
		return nil, err
	}
	for i := range w.Layers {
		if err := loadLayer(l, a, c, i, &w.Layers[i]); err != nil {
			return nil, err
		}
	}
	return w, nil
}

func loadLayer(l loader, a *Arch, c *Config, i int, ly *Layer) error {
	p := fmt.Sprintf("blk.%d.", i)
	for _, req := range a.Required {
		if _, ok := l.f.Tensor(p + req); !ok {
			return fmt.Errorf("%w: %s requires tensor %q", ErrBadModel, a.Name, p+req)
		}
	}
	vecs := []struct {
		dst  *[]float32
		name string
		n    int
		opt  bool
	}{
		{&ly.AttnNorm, "attn_norm.weight", c.Dim, false},
		{&ly.FFNNorm, "ffn_norm.weight", c.Dim, false},
		{&ly.Bq, "attn_q.bias", c.QDim(), true},
		{&ly.Bk, "attn_k.bias", c.KVDim(), true},
		{&ly.Bv, "attn_v.bias", c.VDim(), true},
		{&ly.QNorm, "attn_q_norm.weight", c.HeadDim, true},
		{&ly.KNorm, "attn_k_norm.weight", c.HeadDim, true},
	}
	var err error
	for _, v := range vecs {
		if v.opt {
			*v.dst, err = l.optionalVector(p+v.name, v.n)
		} else {
			*v.dst, err = l.vector(p+v.name, v.n)
		}
		if err != nil {
			return err
		}
	}
	mats := []struct {
		dst        **kernels.Matrix
		name       string
		rows, cols int
	}{
		{&ly.Wq, "attn_q.weight", c.QDim(), c.Dim},
		{&ly.Wk, "attn_k.weight", c.KVDim(), c.Dim},
		{&ly.Wv, "attn_v.weight", c.VDim(), c.Dim},
		{&ly.Wo, "attn_output.weight", c.Dim, c.Heads * c.HeadDimV},
		{&ly.Wgate, "ffn_gate.weight", c.FFN, c.Dim},
		{&ly.Wup, "ffn_up.weight", c.FFN, c.Dim},
		{&ly.Wdown, "ffn_down.weight", c.Dim, c.FFN},
	}
	for _, m := range mats {
		if *m.dst, err = l.matrix(p+m.name, m.rows, m.cols); err != nil {
			return err
		}
	}
	return nil
}

// weightBytes is the bytes of weights one decode token streams from memory.
func (w *Weights) weightBytes() int64 {
	var n int64
	for _, m := range w.forwardOrder() {
		n += int64(len(m.Data))
	}
	return n
}

// forwardOrder lists the matrices in the order a forward pass multiplies
// them (so a background packer stays ahead of the first pass).
func (w *Weights) forwardOrder() []*kernels.Matrix {
	var ms []*kernels.Matrix
	for i := range w.Layers {
		ly := &w.Layers[i]
		ms = append(ms, ly.Wq, ly.Wk, ly.Wv, ly.Wo, ly.Wgate, ly.Wup, ly.Wdown)
	}
	return append(ms, w.Output)
}
