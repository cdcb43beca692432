//go:build !purego

package kernels

import "github.com/gollm/gollm/ggml"

// fillAVX2Q8_0Sums makes a copy of the AVX2 set (avx2-q8sums) multiply
// Q8_0 matrices in block sums (vecdot_q8_0_sums.go): packed groups
// (packed_amd64.s) for every batch, the single-row kernel for the rows
// outside them, and none of the lane-order kernels (they would give some
// tokens another order). VecDot (the q8_0 KV cache) keeps the lane order.
// One to three tokens take decode's four streams (fewTokens; pairs through
// gemv4x2): on an AMD EPYC Zen3, TinyLlama --parallel 2 and 3 ran at 0.83x
// and 1.17x of the lane-order set's kernels with the gemm, 0.99x and 1.20x
// this way.
func fillAVX2Q8_0Sums(s *kernelSet) {
	s.twin = genericQ8_0Sums
	s.rowDot[ggml.Q8_0] = s.vecDot[ggml.Q8_0]
	s.vecDot[ggml.Q8_0] = vecDotQ8_0Q8_0SumsAsm
	s.vecDot4[ggml.Q8_0] = nil
	s.vecDot8[ggml.Q8_0] = nil
	s.vecDotR4[ggml.Q8_0] = nil
	s.vecDot1R4[ggml.Q8_0] = nil
	s.vecDot1R4F32[ggml.Q8_0] = nil
	s.vecDotR4x2[ggml.Q8_0] = nil
	s.vecDotR4x4[ggml.Q8_0] = nil
	s.vecDot2x4[ggml.Q8_0] = nil
	s.vecDot2x4Q[ggml.Q8_0] = nil
	s.vecDot3x4[ggml.Q8_0] = nil
	s.vecDot3x4Few[ggml.Q8_0] = nil
	s.vecDot4x4[ggml.Q8_0] = nil
	s.vecDot4x4Few[ggml.Q8_0] = nil
	s.tileRewrite[ggml.Q8_0] = nil
	s.packed[ggml.Q8_0] = &packedKernels{
		groupBlockBytes: q8_0GroupBytes, pack: packQ8_0Group, act: q8_0Quad,
		gemv: q8_0x8GemvAsm, gemv4: q8_0x8Gemv4Asm, gemv4x2: q8_0x8Gemv4x2Asm, gemm: q8_0x8GemmAsm,
		fewTokens: 3,
	}
}

//go:noescape
func vecDotQ8_0Q8_0SumsAVX2(nb int, w, a *byte) float32

func vecDotQ8_0Q8_0SumsAsm(n int, w, a []byte) float32 {
	if n < qk {
		return 0
	}
	return vecDotQ8_0Q8_0SumsAVX2(asmArgs(n, qk, q8_0Bytes, q8_0Bytes, w, a))
}

//go:noescape
func q8_0x8GemvAVX2(nb int, w, a *byte, out *float32)

//go:noescape
func q8_0x8Gemv4AVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)

//go:noescape
func q8_0x8GemmAVX2(nb int, w, a *byte, out *float32, ostride, ntok int)

//go:noescape
func q8_0x8Gemm3AVX2(nb int, w, a *byte, out *float32, ostride, ntok int)

//go:noescape
func q8_0x8Gemm2AVX2(nb int, w, a *byte, out *float32, ostride, ntok int)

func q8_0x8GemvAsm(nb int, w, a []byte, out []float32) {
	if nb == 0 {
		clear(out[:packRows])
		return
	}
	q8_0x8GemvAVX2(packedArgs(nb, q8_0GroupBytes, q8_0QuadBytes, w, a, out, packRows))
}

func q8_0x8Gemv4Asm(nb int, w []byte, gstride int, a []byte, out []float32, ostride int) {
	if nb == 0 {
		clearGemv4Out(out, ostride)
		return
	}
	q8_0x8Gemv4AVX2(gemv4Args(nb, q8_0GroupBytes, q8_0QuadBytes, w, gstride, a, out, ostride))
}

func q8_0x8GemmAsm(nb int, w, a []byte, out []float32, ostride, ntok int) {
	checkGemmOut(out, ostride, ntok)
	if nb == 0 {
		clearGemmOut(out, ostride, ntok)
		return
	}
	nb, pw, pa, po := packedArgs(nb, q8_0GroupBytes, q8_0QuadBytes, w, a, out, packRows)
	gemmByTokens(ntok, nb, pw, pa, po, ostride, q8_0x8GemvAVX2, q8_0x8Gemm2AVX2, q8_0x8Gemm3AVX2, q8_0x8GemmAVX2)
}

//go:noescape
func q8_0x8Gemv4x2AVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride, tstride int)

func q8_0x8Gemv4x2Asm(nb int, w []byte, gstride int, a []byte, out []float32, ostride, tstride int) {
	if tstride < 3*ostride+packRows {
		panic("kernels: four-group two-token gemv with overlapping outputs")
	}
	if nb == 0 {
		clearGemv4Out(out, ostride)
		clearGemv4Out(out[tstride:], ostride)
		return
	}
	_ = out[tstride+3*ostride+packRows-1]
	q8_0x8Gemv4x2AVX2(gemv4x2Args(nb, w, gstride, a, out, ostride, tstride))
}

// gemv4x2Args is gemv4Args with the tokens' output stride.
func gemv4x2Args(nb int, w []byte, gstride int, a []byte, out []float32, ostride, tstride int) (int, *byte, int, *byte, *float32, int, int) {
	nb, pw, gs, pa, po, os := gemv4Args(nb, q8_0GroupBytes, q8_0QuadBytes, w, gstride, a, out, ostride)
	return nb, pw, gs, pa, po, os, tstride
}
