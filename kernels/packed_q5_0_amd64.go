//go:build !purego

package kernels

// The AVX2 packed Q5_0 kernels (packed_q5_0_amd64.s, layout
// packQ5_0Group): llama.cpp's row-by-row float order with the high bits
// unpacked once for eight rows, which halves the vector work of a row-major
// Q5_0 dot product (decode was compute-bound on it).

//go:noescape
func q5_0x8GemvAVX2(nb int, w, a *byte, out *float32)

//go:noescape
func q5_0x8Gemv4AVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)

//go:noescape
func q5_0x8GemmAVX2(nb int, w, a *byte, out *float32, ostride, ntok int)

//go:noescape
func q5_0x8Gemm3AVX2(nb int, w, a *byte, out *float32, ostride, ntok int)

//go:noescape
func q5_0x8Gemm2AVX2(nb int, w, a *byte, out *float32, ostride, ntok int)

func q5_0x8GemvAsm(nb int, w, a []byte, out []float32) {
	if nb == 0 {
		clear(out[:packRows])
		return
	}
	q5_0x8GemvAVX2(packedArgs(nb, q5_0GroupBytes, q8_0QuadBytes, w, a, out, packRows))
}

func q5_0x8Gemv4Asm(nb int, w []byte, gstride int, a []byte, out []float32, ostride int) {
	if nb == 0 {
		clearGemv4Out(out, ostride)
		return
	}
	q5_0x8Gemv4AVX2(gemv4Args(nb, q5_0GroupBytes, q8_0QuadBytes, w, gstride, a, out, ostride))
}

func q5_0x8GemmAsm(nb int, w, a []byte, out []float32, ostride, ntok int) {
	checkGemmOut(out, ostride, ntok)
	if nb == 0 {
		clearGemmOut(out, ostride, ntok)
		return
	}
	nb, pw, pa, po := packedArgs(nb, q5_0GroupBytes, q8_0QuadBytes, w, a, out, packRows)
	gemmByTokens(ntok, nb, pw, pa, po, ostride, q5_0x8GemvAVX2, q5_0x8Gemm2AVX2, q5_0x8Gemm3AVX2, q5_0x8GemmAVX2)
}
