//go:build !purego

package kernels

// fillAVX2AttnQ8 gives the AVX2 sets (and the AVX-512 ones, which copy
// them) the q8_0 cache helpers of attn_q8_amd64.s.
func fillAVX2AttnQ8(s *kernelSet) {
	s.axpyQ8_0 = axpyQ8_0Asm
	s.dequantQ8_0Rows = dequantQ8_0RowsAsm
}

//go:noescape
func axpyQ8_0AVX2(y *float32, a float32, src *byte, blocks int)

//go:noescape
func dequantQ8_0RowsAVX2(dst *float32, tileBytes, kDim, row, dstStride int, src *byte, srcStride, headStride, heads, rows, blocks int)

func axpyQ8_0Asm(y []float32, a float32, src []byte) {
	if len(y) >= 32 {
		axpyQ8_0AVX2(&y[0], a, &src[0], len(y)/32)
	}
}

func dequantQ8_0RowsAsm(dst []float32, tileLen, kDim, row, dstStride int, src []byte, srcStride, headStride, heads, rows, blocks int) {
	if rows > 0 && heads > 0 && blocks > 0 {
		dequantQ8_0RowsAVX2(&dst[0], 4*tileLen, kDim, row, 4*dstStride, &src[0], srcStride, headStride, heads, rows, blocks)
	}
}
