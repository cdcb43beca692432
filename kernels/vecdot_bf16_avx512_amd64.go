//go:build !purego

package kernels

import "github.com/gollm/gollm/ggml"

// fillAVX512BF16 gives the opt-in avx512bf16 set its VDPBF16PS kernels
// (vecdot_bf16_avx512_amd64.s), in genericBF16Pairs' order; rows that are
// not a whole number of groups of 32 run that set's generic kernel.
func fillAVX512BF16(s *kernelSet) {
	s.twin = genericBF16Pairs
	s.vecDot[ggml.BF16] = dotBF16PairsAsm
	s.vecDotR4[ggml.BF16] = dotBF16PairsR4Asm
	s.vecDot4[ggml.BF16] = dotBF16PairsX4Asm
	s.vecDot2x4[ggml.BF16] = nil
	s.vecDot2x4Q[ggml.BF16] = nil
	s.vecDot4x4[ggml.BF16] = bf16PairsTile4x4Asm
	s.vecDot8x4[ggml.BF16] = nil
	s.tileRewrite[ggml.BF16] = nil
	// Decode keeps that order too (llama.cpp's zen4 build sums in
	// ggml_vec_dot_bf16's VDPBF16PS order there, matched by neither).
	s.vecDot1[ggml.BF16], s.vecDot1R4[ggml.BF16], s.vecDot1R4F32[ggml.BF16] = nil, nil, nil
	// Nor the row-order BF16 kernels the AVX2 set gave it (the matmul
	// prefers the 4x4 tile, but the few-token path would mix orders, and
	// the tests hold every kernel of a set to its twin).
	s.vecDot3x4[ggml.BF16] = nil
	s.vecDot3x4Few[ggml.BF16] = nil
	s.vecDotR4x2[ggml.BF16] = nil
}

//go:noescape
func dotBF16PairsAVX512(n32 int, w, a *byte) float32

//go:noescape
func dotBF16PairsR4AVX512(n32 int, w *byte, wstride int, a *byte, out *float32, ostride int)

//go:noescape
func dotBF16PairsX4AVX512(n32 int, w, a *byte, stride int, out *float32, ostride int)

//go:noescape
func bf16PairsTile4x4AVX512(n32 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)

func dotBF16PairsAsm(n int, w, a []byte) float32 {
	if n%32 != 0 || n == 0 {
		return vecDotBF16PairsGeneric(n, w, a)
	}
	return dotBF16PairsAVX512(asmArgs(n, 32, 64, 64, w, a))
}

func dotBF16PairsR4Asm(n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	if n%32 != 0 || n == 0 {
		r4Generic(vecDotBF16PairsGeneric, n, w, wstride, a, out, ostride)
		return
	}
	dotBF16PairsR4AVX512(r4Args(n, 32, 64, 64, w, wstride, a, out, ostride))
}

func dotBF16PairsX4Asm(n int, w, a []byte, stride int, out []float32, ostride int) {
	if n%32 != 0 || n == 0 {
		x4Generic(vecDotBF16PairsGeneric, n, w, a, stride, out, ostride)
		return
	}
	dotBF16PairsX4AVX512(x4Args(n, 32, 64, 64, w, a, stride, out, ostride))
}

func bf16PairsTile4x4Asm(n int, w []byte, wstride int, a []byte, astride int, _ []byte, out []float32, ostride int) {
	if n%32 != 0 || n == 0 {
		tileGeneric(vecDotBF16PairsGeneric, 4, n, w, wstride, a, astride, out, ostride)
		return
	}
	rb := 2 * n
	_ = w[3*wstride+rb-1]
	_ = a[3*astride+rb-1]
	_ = out[3*ostride+3]
	bf16PairsTile4x4AVX512(n/32, &w[0], wstride, &a[0], astride, &out[0], ostride)
}
