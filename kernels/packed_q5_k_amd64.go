//go:build !purego

package kernels

// The AVX2 packed Q5_K kernels (packed_q5_k_amd64.s, layout
// packQ5_KGroup): llama.cpp's row-by-row float order, with the 5-bit quants
// of eight rows unpacked together and no per-row shuffles of the scales,
// about half the vector work of the row kernels per block.

//go:noescape
func q5_Kx8GemvAVX2(nb int, w, a *byte, out *float32)

//go:noescape
func q5_Kx8Gemv4AVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)

//go:noescape
func q5_Kx8Gemv4PfAVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)

//go:noescape
func q5_Kx8GemmAVX2(nb int, w, a *byte, out *float32, ostride, ntok int)

//go:noescape
func q5_Kx8Gemm3AVX2(nb int, w, a *byte, out *float32, ostride, ntok int)

//go:noescape
func q5_Kx8Gemm2AVX2(nb int, w, a *byte, out *float32, ostride, ntok int)

func q5_Kx8GemvAsm(nb int, w, a []byte, out []float32) {
	if nb == 0 {
		clear(out[:packRows])
		return
	}
	q5_Kx8GemvAVX2(packedArgs(nb, q5_KGroupBytes, q8_KQuadBytes, w, a, out, packRows))
}

func q5_Kx8Gemv4Asm(nb int, w []byte, gstride int, a []byte, out []float32, ostride int) {
	gemv4Call(q5_Kx8Gemv4AVX2, q5_Kx8Gemv4PfAVX2, q5_KGroupBytes, q8_KQuadBytes, nb, w, gstride, a, out, ostride)
}

func q5_Kx8GemmAsm(nb int, w, a []byte, out []float32, ostride, ntok int) {
	checkGemmOut(out, ostride, ntok)
	if nb == 0 {
		clearGemmOut(out, ostride, ntok)
		return
	}
	nb, pw, pa, po := packedArgs(nb, q5_KGroupBytes, q8_KQuadBytes, w, a, out, packRows)
	gemmByTokens(ntok, nb, pw, pa, po, ostride, q5_Kx8GemvAVX2, q5_Kx8Gemm2AVX2, q5_Kx8Gemm3AVX2, q5_Kx8GemmAVX2)
}

//go:noescape
func q5_Kx8Gemv4ZMMVNNI(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)

//go:noescape
func q5_Kx8Gemv4ZMMVNNIPF(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)

// q5_Kx8Gemv4ZMMAsm is q5_Kx8Gemv4Asm with two groups per 512-bit register
// (packed_q5_k_zmm_amd64.s): the avx512zmm set's Q5_K decode kernel, with
// software prefetch where streamPrefetch says so.
func q5_Kx8Gemv4ZMMAsm(nb int, w []byte, gstride int, a []byte, out []float32, ostride int) {
	gemv4Call(q5_Kx8Gemv4ZMMVNNI, q5_Kx8Gemv4ZMMVNNIPF, q5_KGroupBytes, q8_KQuadBytes, nb, w, gstride, a, out, ostride)
}
