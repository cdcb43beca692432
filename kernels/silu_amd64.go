//go:build !purego

package kernels

// swigluAVX2 computes n8 (a multiple of 8) outputs of SwiGLU's vectorised
// part, ggml_v_silu's fast path only: it stops before the first group of 8
// with an exponent argument |n| > 126 (|x| above ~87) and returns how many
// it did.
//
//go:noescape
func swigluAVX2(n8 int, out, gate, up *float32) int

func swigluAsm(out, gate, up []float32) int {
	n8 := len(gate) &^ 7
	if n8 == 0 {
		return 0
	}
	_ = out[n8-1]
	_ = up[n8-1]
	return swigluAVX2(n8, &out[0], &gate[0], &up[0])
}
