package kernels

import "github.com/gollm/gollm/ggml"

// VecDot returns the dot product of one row w of n elements of weight type t
// with a row a already quantized to t's vec-dot type (see QuantizeRow),
// using the active implementation. Attention over a quantized KV cache uses
// it for q·k, in llama.cpp's order for its vec_dot (the lane order for
// Q8_0, whatever order the set's Q8_0 matrices take).
func VecDot(t ggml.Type, n int, w, a []byte) float32 {
	if f := active.rowDot[t]; f != nil {
		return f(n, w, a)
	}
	return active.vecDot[t](n, w, a)
}

// QuantizeRow converts x to the vec-dot type of weight type t (as MatMul
// quantizes activations) into dst, which must hold ggml.RowBytes of that
// type for len(x) elements.
func QuantizeRow(t ggml.Type, x []float32, dst []byte) { active.quantize[vecDotType[t]](x, dst) }
