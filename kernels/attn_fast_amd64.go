//go:build !purego

package kernels

// AVX2 versions of the long-context attention kernels (attn_fast.go); the
// avx512vnni set copies them from the AVX2 set. Strides go to the assembly
// in bytes; the widening's columns past the last whole 8 run the generic
// code.
var avx2AttnFastDone = func() bool {
	avx2Set.f16RowsToF32 = f16RowsToF32Asm
	avx2Set.attnScores = attnScoresAsm
	avx2Set.attnSoftmax = attnSoftmaxAsm
	avx2Set.attnAccumV = attnAccumVAsm
	return true
}()

//go:noescape
func f16RowsToF32AVX2(dst *float32, dstStride int, src *uint16, srcStride, rows, n8 int)

//go:noescape
func attnScoresAVX2(s *float32, sStride int, q, k *float32, heads, groups, dim8 int)

//go:noescape
func attnSoftmaxAVX2(s *float32, sStride int, heads, rows int, m, l, alpha *float32)

//go:noescape
func attnAccumVAVX2(acc *float32, dim8 int, p *float32, pStride int, v *float32, heads, rows int, alpha *float32)

func f16RowsToF32Asm(dst []float32, dstStride int, src []uint16, srcStride, rows, n int) {
	n8 := n &^ 7
	if n8 > 0 {
		f16RowsToF32AVX2(&dst[0], 4*dstStride, &src[0], 2*srcStride, rows, n8/8)
	}
	if n8 < n {
		f16RowsToF32Generic(dst[n8:], dstStride, src[n8:], srcStride, rows, n-n8)
	}
}

func attnScoresAsm(s []float32, sStride int, q, k []float32, heads, rows8, dim int) {
	attnScoresAVX2(&s[0], 4*sStride, &q[0], &k[0], heads, rows8/8, dim/8)
}

func attnSoftmaxAsm(s []float32, sStride, heads, rows int, m, l, alpha []float32) {
	attnSoftmaxAVX2(&s[0], 4*sStride, heads, rows, &m[0], &l[0], &alpha[0])
}

func attnAccumVAsm(acc, p []float32, pStride int, v []float32, heads, rows, dim int, alpha []float32) {
	if rows == 0 {
		attnAccumVGeneric(acc, p, pStride, v, heads, rows, dim, alpha)
		return
	}
	attnAccumVAVX2(&acc[0], dim/8, &p[0], 4*pStride, &v[0], heads, rows, &alpha[0])
}
