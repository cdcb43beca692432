package bench

import (
	"github.com/gollm/gollm/engine"
	"github.com/gollm/gollm/kernels"
)

// OpWeightBytes is the weight bytes each matmul op reads per forward pass,
// summed over the layers (qkv: Wq+Wk+Wv, attn_out: Wo, ffn_up_gate:
// Wgate+Wup, ffn_down: Wdown, lm_head: the output matrix). Every pass reads
// each of them once whatever its token count; other ops read no matrices
// (the embedding dequantizes one row per token).
func OpWeightBytes(w *engine.Weights) [engine.NumOps]int64 {
	var b [engine.NumOps]int64
	size := func(ms ...*kernels.Matrix) int64 {
		var n int64
		for _, m := range ms {
			if m != nil {
				n += int64(len(m.Data))
			}
		}
		return n
	}
	for i := range w.Layers {
		ly := &w.Layers[i]
		b[engine.OpQKV] += size(ly.Wq, ly.Wk, ly.Wv)
		b[engine.OpAttnOut] += size(ly.Wo)
		b[engine.OpFFNUpGate] += size(ly.Wgate, ly.Wup)
		b[engine.OpFFNDown] += size(ly.Wdown)
	}
	b[engine.OpLMHead] = size(w.Output)
	return b
}
