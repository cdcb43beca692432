//go:build !purego

package kernels

// fillAVX2AttnQ8 gives the AVX2 sets (and the AVX-512 ones, which copy
// them) the q8_0 cache helpers of attn_q8_amd64.s.
func fillAVX2AttnQ8(s *kernelSet) {
	s.vecDotQ8_0Rows = vecDotQ8_0RowsAsm
	s.axpyQ8_0Rows = axpyQ8_0RowsAsm
	s.vecDotQ8_0Rows2 = vecDotQ8_0Rows2Asm
	s.axpyQ8_0Rows2 = axpyQ8_0Rows2Asm
	s.dequantQ8_0Rows = dequantQ8_0RowsAsm
}

//go:noescape
func dequantQ8_0RowsAVX2(dst *float32, tileBytes, kDim, row, dstStride int, src *byte, srcStride, headStride, heads, rows, blocks int)

//go:noescape
func vecDotQ8_0RowsAVX2(nb int, k *byte, stride int, q *byte, out *float32, rows int)

//go:noescape
func axpyQ8_0RowsAVX2(y *float32, blocks int, v *byte, stride int, ms, vs *float32, rows int)

// vecDotQ8_0RowsAsm is vecDotQ8_0Q8_0AVX2 (the AVX2 sets' VecDot for
// Q8_0, whose order the AVX-512 sets keep) row by row.
func vecDotQ8_0RowsAsm(out []float32, nb int, k []byte, stride int, q []byte) {
	vecDotQ8_0RowsAVX2(nb, &k[0], stride, &q[0], &out[0], len(out))
}

//go:noescape
func vecDotQ8_0Rows2AVX2(nb int, k *byte, stride int, q1, q2 *byte, out1, out2 *float32, rows int)

//go:noescape
func axpyQ8_0Rows2AVX2(y1, y2 *float32, blocks int, v *byte, stride int, ms1, vs1, ms2, vs2 *float32, rows int)

func vecDotQ8_0Rows2Asm(out1, out2 []float32, nb int, k []byte, stride int, q1, q2 []byte) {
	vecDotQ8_0Rows2AVX2(nb, &k[0], stride, &q1[0], &q2[0], &out1[0], &out2[0], len(out1))
}

func axpyQ8_0Rows2Asm(y1, y2 []float32, v []byte, stride int, ms1, vs1, ms2, vs2 []float32) {
	axpyQ8_0Rows2AVX2(&y1[0], &y2[0], len(y1)/32, &v[0], stride, &ms1[0], &vs1[0], &ms2[0], &vs2[0], len(vs1))
}

func axpyQ8_0RowsAsm(y []float32, v []byte, stride int, ms, vs []float32) {
	axpyQ8_0RowsAVX2(&y[0], len(y)/32, &v[0], stride, &ms[0], &vs[0], len(vs))
}

func dequantQ8_0RowsAsm(dst []float32, tileLen, kDim, row, dstStride int, src []byte, srcStride, headStride, heads, rows, blocks int) {
	if rows > 0 && heads > 0 && blocks > 0 {
		dequantQ8_0RowsAVX2(&dst[0], 4*tileLen, kDim, row, 4*dstStride, &src[0], srcStride, headStride, heads, rows, blocks)
	}
}
