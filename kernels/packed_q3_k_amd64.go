//go:build !purego

package kernels

// The AVX2 packed Q3_K kernels (packed_q3_k_amd64.s, layout
// packQ3_KGroup): llama.cpp's row-by-row float order, with the 3-bit
// quants of eight rows unpacked together and no per-row shuffles of the
// scales or high bits.

//go:noescape
func q3_Kx8GemvAVX2(nb int, w, a, s *byte, out *float32)

//go:noescape
func q3_Kx8Gemv4AVX2(nb int, w *byte, gstride int, a, s *byte, out *float32, ostride int)

//go:noescape
func q3_Kx8Gemv4PfAVX2(nb int, w *byte, gstride int, a, s *byte, out *float32, ostride int)

//go:noescape
func q3_Kx8GemmAVX2(nb int, w, a, s *byte, out *float32, ostride, ntok int)

//go:noescape
func q3_Kx8Gemm3AVX2(nb int, w, a, s *byte, out *float32, ostride, ntok int)

//go:noescape
func q3_Kx8Gemm2AVX2(nb int, w, a, s *byte, out *float32, ostride, ntok int)

func q3_Kx8GemvAsm(nb int, w, a []byte, out []float32) {
	if nb == 0 {
		clear(out[:packRows])
		return
	}
	nb, pw, pa, po := packedArgs(nb, q3_KGroupBytes, q8_KQuadBytes, w, a, out, packRows)
	q3_Kx8GemvAVX2(nb, pw, pa, q8_KSums(nb, a), po)
}

func q3_Kx8Gemv4Asm(nb int, w []byte, gstride int, a []byte, out []float32, ostride int) {
	if nb == 0 {
		clearGemv4Out(out, ostride)
		return
	}
	nb, pw, gs, pa, po, os := gemv4Args(nb, q3_KGroupBytes, q8_KQuadBytes, w, gstride, a, out, ostride)
	if streamPrefetch {
		q3_Kx8Gemv4PfAVX2(nb, pw, gs, pa, q8_KSums(nb, a), po, os)
		return
	}
	q3_Kx8Gemv4AVX2(nb, pw, gs, pa, q8_KSums(nb, a), po, os)
}

func q3_Kx8GemmAsm(nb int, w, a []byte, out []float32, ostride, ntok int) {
	checkGemmOut(out, ostride, ntok)
	if nb == 0 {
		clearGemmOut(out, ostride, ntok)
		return
	}
	nb, pw, pa, po := packedArgs(nb, q3_KGroupBytes, q8_KQuadBytes, w, a, out, packRows)
	// As gemmByTokens, with the quad's sums.
	switch ntok {
	case 1:
		q3_Kx8GemvAVX2(nb, pw, pa, q8_KSums(nb, a), po)
	case 2:
		q3_Kx8Gemm2AVX2(nb, pw, pa, q8_KSums(nb, a), po, ostride, ntok)
	case 3:
		q3_Kx8Gemm3AVX2(nb, pw, pa, q8_KSums(nb, a), po, ostride, ntok)
	default:
		q3_Kx8GemmAVX2(nb, pw, pa, q8_KSums(nb, a), po, ostride, ntok)
	}
}

// q8_KSums is the sums of a quad of nb block columns in the q8_KQuad
// layout (after the block columns; the caller checked its length).
func q8_KSums(nb int, a []byte) *byte {
	return &a[nb*q8_KQuadMain]
}

//go:noescape
func q3_Kx8Gemv4ZMMVNNI(nb int, w *byte, gstride int, a, s *byte, out *float32, ostride int)

//go:noescape
func q3_Kx8Gemv4ZMMVNNIPF(nb int, w *byte, gstride int, a, s *byte, out *float32, ostride int)

// q3_Kx8Gemv4ZMMAsm is q3_Kx8Gemv4Asm with two groups per 512-bit register
// (packed_q3_k_zmm_amd64.s): the avx512zmm set's Q3_K decode kernel, with
// software prefetch where streamPrefetch says so.
func q3_Kx8Gemv4ZMMAsm(nb int, w []byte, gstride int, a []byte, out []float32, ostride int) {
	if nb == 0 {
		clearGemv4Out(out, ostride)
		return
	}
	nb, pw, gs, pa, po, os := gemv4Args(nb, q3_KGroupBytes, q8_KQuadBytes, w, gstride, a, out, ostride)
	if streamPrefetch {
		q3_Kx8Gemv4ZMMVNNIPF(nb, pw, gs, pa, q8_KSums(nb, a), po, os)
		return
	}
	q3_Kx8Gemv4ZMMVNNI(nb, pw, gs, pa, q8_KSums(nb, a), po, os)
}
