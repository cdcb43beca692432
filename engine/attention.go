package engine

import (
	"math"

	"github.com/gollm/gollm/kernels"
)

// attnJob is causal multi-head attention for a batch of query tokens over
// the cache. Work items are (token, head) pairs so the pool can split them.
//
// The arithmetic follows llama.cpp's CPU flash-attention kernel, which is
// what llama.cpp runs by default: the query is rounded to f16, scores are
// f16·f16 dot products, the softmax is online (one pass over the cache, no
// score buffer) and the weighted sum of V is accumulated in f16. Matching
// it is what keeps gollm's logits within 1e-3 of llama.cpp's on random
// models, where every rounding difference is amplified.
type attnJob struct {
	c     *Config
	view  *KVView
	q     []float32 // [ntok][Heads*HeadDim]
	out   []float32 // [ntok][Heads*HeadDimV]
	pos0  int       // position of the first query token
	scale float32   // 1/sqrt(HeadDim)
	q16   []uint16  // [ntok][Heads*HeadDim] the query rounded to f16
	acc   []uint16  // [ntok][Heads*HeadDimV] the f16 accumulators
}

func (j *attnJob) run(lo, hi int) {
	c := j.c
	hd, hdv := c.HeadDim, c.HeadDimV
	kvDim, vDim := c.KVDim(), c.VDim()
	group := c.Heads / c.KVHeads
	blockLen := j.view.BlockLen
	for item := lo; item < hi; item++ {
		tok, h := item/c.Heads, item%c.Heads
		kvh := h / group
		q := j.q[item*hd : (item+1)*hd]
		out := j.out[item*hdv : (item+1)*hdv]
		q16 := j.q16[item*hd : (item+1)*hd]
		kernels.F32ToF16(q16, q)
		vkq := j.acc[item*hdv : (item+1)*hdv]
		clear(vkq)
		n := j.pos0 + tok + 1 // causal: positions [0, pos0+tok]
		runMax := float32(math.Inf(-1))
		var runSum float32
		for t := 0; t < n; t++ {
			b, off := t/blockLen, t%blockLen
			k := j.view.K[b][off*kvDim+kvh*hd : off*kvDim+(kvh+1)*hd]
			s := kernels.DotF16F16(q16, k) * j.scale
			ms, vs := float32(1), float32(1)
			if s > runMax {
				// A new maximum: rescale what was accumulated under the old one.
				ms = expf(runMax - s)
				runMax = s
				kernels.ScaleF16(vkq, ms)
			} else {
				vs = expf(s - runMax)
			}
			kernels.MadF16(vkq, j.view.V[b][off*vDim+kvh*hdv:off*vDim+(kvh+1)*hdv], vs)
			runSum = fma32(runSum, ms, vs)
		}
		inv := float32(0)
		if runSum != 0 {
			inv = 1 / runSum
		}
		kernels.F16ToF32(out, vkq)
		kernels.Scale(out, inv)
	}
}

func expf(x float32) float32 { return float32(math.Exp(float64(x))) }

// fma32 is a float32 fused multiply-add (a*b+c rounded once).
func fma32(a, b, c float32) float32 { return float32(math.FMA(float64(a), float64(b), float64(c))) }
