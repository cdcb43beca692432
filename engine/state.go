package engine

import (
	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/kernels"
	"github.com/gollm/gollm/kvcache"
	"github.com/gollm/gollm/quant"
)

// runState holds every activation buffer of a forward pass over up to
// `batch` tokens. It is allocated once at load; a forward pass allocates
// nothing.
type runState struct {
	batch int

	x      []float32 // [batch][Dim] residual stream
	xn     []float32 // [batch][Dim] normalized input of the current sub-block
	q      []float32 // [batch][Heads*HeadDim]
	k      []float32 // [batch][KVHeads*HeadDim]
	v      []float32 // [batch][KVHeads*HeadDimV]
	att    []float32 // [batch][Heads*HeadDimV] attention output
	tmp    []float32 // [batch][Dim] sub-block output before the residual add
	gate   []float32 // [batch][FFN]
	up     []float32 // [batch][FFN]
	logits []float32 // [rows][Vocab]; grows to [batch][Vocab] on first need
	outIn  []float32 // [batch][Dim] normalized rows that need logits

	scratch *kernels.Scratch
	memo    actsMemo

	// The pass being run: per token position and sequence index, per
	// sequence its id, highest position and cache view.
	pos    []int
	seq    []int
	seqs   []kvcache.SeqID
	maxPos []int
	rows   []int
	views  []kvcache.View
	pass   pass

	batchTokens []int32 // EvalBatch's token list (batch.go)
	quantum     int     // EvalBatch's padding quantum, 0 until computed
	invariant   bool    // the pass runs under EvalBatch: per-expert groups are padded too

	attn   attnJob
	attnFn func(lo, hi int) // attn.run, bound once
	// attnGrain keeps a KV head's query heads in fours (or pairs) in
	// one chunk of the attention job: the one-row path runs them
	// together (attendF16).
	attnGrain int

	tok   tokenJob         // the pass's per-token steps (tokens.go)
	tokFn func(lo, hi int) // tok.run, bound once
}

func newRunState(c *Config, batch int) *runState {
	maxCols := max(c.Dim, c.FFN, c.Heads*c.HeadDimV)
	items := batch * c.Heads
	s := &runState{
		batch:   batch,
		x:       make([]float32, batch*c.Dim),
		xn:      make([]float32, batch*c.Dim),
		q:       make([]float32, batch*c.QDim()),
		k:       make([]float32, batch*c.KVDim()),
		v:       make([]float32, batch*c.VDim()),
		att:     make([]float32, batch*c.Heads*c.HeadDimV),
		tmp:     make([]float32, batch*c.Dim),
		gate:    make([]float32, batch*c.FFN),
		up:      make([]float32, batch*c.FFN),
		logits:  make([]float32, c.Vocab),
		outIn:   make([]float32, batch*c.Dim),
		scratch: kernels.NewScratch(maxCols, batch),
		pos:     make([]int, batch),
		seq:     make([]int, batch),
		seqs:    make([]kvcache.SeqID, 0, batch),
		maxPos:  make([]int, batch),
		rows:    make([]int, 0, batch),
		views:   make([]kvcache.View, batch),

		batchTokens: make([]int32, 0, batch),
	}
	s.attn = attnJob{
		c:     c,
		q16:   make([]uint16, items*c.HeadDim),
		qq:    make([]byte, items*(c.HeadDim+31)/32*34),
		acc16: make([]uint16, items*c.HeadDimV),
		acc32: make([]float32, items*c.HeadDimV),
		vtmp:  make([]float32, items*c.HeadDimV),

		rowExp: make([]float32, items*3*exactChunk),

		fastMin:  fastAttnMinPositions,
		tiledMin: tiledAttnMinTokens,
		fast:     newFastAttn(c, batch),
	}
	s.attnFn = s.attn.run
	s.attnGrain = 1
	if g := c.Heads / max(c.KVHeads, 1); g%4 == 0 {
		s.attnGrain = 4
	} else if g%2 == 0 {
		s.attnGrain = 2
	}
	s.tokFn = s.tok.run
	return s
}

// logitRows returns a logits buffer of rows x vocab, growing it on the first
// request for more than one row (teacher-forced scoring, several
// sequences), not per token.
func (s *runState) logitRows(rows, vocab int) []float32 {
	if len(s.logits) < rows*vocab {
		s.logits = make([]float32, s.batch*vocab)
	}
	return s.logits[:rows*vocab]
}

// actsMemo remembers the quantized forms of the current matmul input, one per
// activation type, so q/k/v (and gate/up) quantize their shared input once.
type actsMemo struct {
	n       int
	vecType [4]ggml.Type
	acts    [4]*kernels.Acts
}

func (a *actsMemo) reset() { a.n = 0 }

func (a *actsMemo) get(weight ggml.Type) *kernels.Acts {
	vt := vecDotType(weight)
	for i := 0; i < a.n; i++ {
		if a.vecType[i] == vt {
			return a.acts[i]
		}
	}
	return nil
}

func (a *actsMemo) put(weight ggml.Type, acts *kernels.Acts) {
	if a.n < len(a.acts) {
		a.vecType[a.n], a.acts[a.n] = vecDotType(weight), acts
		a.n++
	}
}

// vecDotType is the activation type weights of type t multiply against.
func vecDotType(t ggml.Type) ggml.Type {
	tr, err := quant.Lookup(t)
	if err != nil {
		return t
	}
	return tr.VecDotType
}
