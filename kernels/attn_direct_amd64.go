//go:build !purego

package kernels

// AVX2 versions of the f16-row attention kernels (attn_direct.go); the
// avx512vnni set copies them from the AVX2 set. Rows past the last whole
// group of 8 of the scores run the generic code (the same bits per row).
func fillAVX2AttnDirect(s *kernelSet) {
	s.attnScoresF16 = attnScoresF16Asm
	s.attnAccumVF16 = attnAccumVF16Asm
}

//go:noescape
func attnScoresF16AVX2(s *float32, sStride int, q *float32, k *uint16, kStride, kHead, group, heads, rowGroups, dim8 int)

//go:noescape
func attnAccumVF16AVX2(acc *float32, dim8 int, p *float32, pStride int, v *uint16, vStride, vHead, group, heads, rows int, alpha *float32)

func attnScoresF16Asm(s []float32, sStride int, q []float32, k []uint16, kStride, kHead, group, heads, rows, dim int) {
	g := rows / 8
	if g > 0 {
		attnScoresF16AVX2(&s[0], 4*sStride, &q[0], &k[0], 2*kStride, 2*kHead, group, heads, g, dim/8)
	}
	if r := 8 * g; r < rows {
		attnScoresF16Generic(s[r:], sStride, q, k[r*kStride:], kStride, kHead, group, heads, rows-r, dim)
	}
}

func attnAccumVF16Asm(acc, p []float32, pStride int, v []uint16, vStride, vHead, group, heads, rows, dim int, alpha []float32) {
	if rows == 0 {
		attnAccumVF16Generic(acc, p, pStride, v, vStride, vHead, group, heads, rows, dim, alpha)
		return
	}
	attnAccumVF16AVX2(&acc[0], dim/8, &p[0], 4*pStride, &v[0], 2*vStride, 2*vHead, group, heads, rows, &alpha[0])
}
