package kernels

import "github.com/gollm/gollm/ggml"

// VecDot returns the dot product of one row w of n elements of weight type t
// with a row a already quantized to t's vec-dot type (see QuantizeRow),
// using the active implementation. Attention over a quantized KV cache uses
// it for q·k.
func VecDot(t ggml.Type, n int, w, a []byte) float32 { return active.vecDot[t](n, w, a) }

// QuantizeRow converts x to the vec-dot type of weight type t (as MatMul
// quantizes activations) into dst, which must hold ggml.RowBytes of that
// type for len(x) elements.
func QuantizeRow(t ggml.Type, x []float32, dst []byte) { active.quantize[vecDotType[t]](x, dst) }
