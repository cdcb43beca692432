package bench

import (
	"github.com/gollm/gollm/engine"
)

// OpWeightBytes is the weight bytes each matmul op reads per forward pass,
// summed over the layers (qkv: Wq+Wk+Wv, attn_out: Wo, ffn_up_gate:
// Wgate+Wup (and a mixture of experts' router), ffn_down: Wdown, lm_head:
// the output matrix). Every pass reads each dense weight once whatever its
// token count; for expert tensors it counts the experts one token is
// routed to, the bytes a decode token reads. Other ops read no matrices
// (the embedding dequantizes one row per token).
func OpWeightBytes(w *engine.Weights) [engine.NumOps]int64 { return w.OpBytes() }
