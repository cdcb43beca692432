//go:build !purego

package kernels

// AVX2 versions of the f16-row attention kernels (attn_direct.go); the
// AVX-512 sets keep them for the shapes their own kernels do not take.
// Heads in fours of one KV head (gqaQuads: TinyLlama, Llama-3) take the
// GQA kernels, which widen each row once per four heads; other shapes one
// head at a time. Rows past the last whole pair (GQA) or group of 8 of the
// scores run the generic code (the same bits per row).
func fillAVX2AttnDirect(s *kernelSet) {
	s.attnScoresF16 = attnScoresF16Asm
	s.attnAccumVF16 = attnAccumVF16Asm
}

//go:noescape
func attnScoresF16AVX2(s *float32, sStride int, q *float32, k *uint16, kStride, kHead, group, heads, rowGroups, dim8 int)

//go:noescape
func attnAccumVF16AVX2(acc *float32, dim8 int, p *float32, pStride int, v *uint16, vStride, vHead, group, heads, rows int, alpha *float32)

//go:noescape
func attnScoresF16GQAAVX2(s *float32, sStride int, q *float32, k *uint16, kStride, kHead, group, heads, rowSets, dim8 int)

//go:noescape
func attnAccumVGQAAVX2(acc *float32, strips int, p *float32, pStride int, v *uint16, vStride, vHead, group, heads, rows int, alpha *float32)

// gqaQuads reports whether heads and group let the GQA kernels take the
// heads four at a time, each four sharing one KV head's rows (widened
// once for the four: on the AVX2 kernels for one head the widening costs
// as much as the multiply-adds).
func gqaQuads(group, heads int) bool { return group%4 == 0 && heads%4 == 0 }

func attnScoresF16Asm(s []float32, sStride int, q []float32, k []uint16, kStride, kHead, group, heads, rows, dim int) {
	if gqaQuads(group, heads) {
		if pairs := rows / 2; pairs > 0 {
			attnScoresF16GQAAVX2(&s[0], 4*sStride, &q[0], &k[0], 2*kStride, 2*kHead, group, heads, pairs, dim/8)
		}
		if r := rows &^ 1; r < rows {
			attnScoresF16Generic(s[r:], sStride, q, k[r*kStride:], kStride, kHead, group, heads, 1, dim)
		}
		return
	}
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
	if dim%16 == 0 && gqaQuads(group, heads) {
		attnAccumVGQAAVX2(&acc[0], dim/16, &p[0], 4*pStride, &v[0], 2*vStride, 2*vHead, group, heads, rows, &alpha[0])
		return
	}
	attnAccumVF16AVX2(&acc[0], dim/8, &p[0], 4*pStride, &v[0], 2*vStride, 2*vHead, group, heads, rows, &alpha[0])
}

// fillAVX512AttnDirect gives the AVX-512 sets the 512-bit GQA kernels
// (attn_direct_avx512_amd64.s) for groups of four or more query heads per
// KV head; other shapes keep the AVX2 kernels.
func fillAVX512AttnDirect(s *kernelSet) {
	s.attnScoresF16 = attnScoresF16AVX512Asm
	s.attnAccumVF16 = attnAccumVF16AVX512Asm
}

//go:noescape
func attnScoresF16GQAAVX512(s *float32, sStride int, q *float32, k *uint16, kStride, kHead, group, heads, rowSets, dim8 int)

//go:noescape
func attnAccumVGQAAVX512(acc *float32, strips int, p *float32, pStride int, v *uint16, vStride, vHead, group, heads, rows int, alpha *float32)

func attnScoresF16AVX512Asm(s []float32, sStride int, q []float32, k []uint16, kStride, kHead, group, heads, rows, dim int) {
	if !gqaQuads(group, heads) {
		attnScoresF16Asm(s, sStride, q, k, kStride, kHead, group, heads, rows, dim)
		return
	}
	g := rows / 8
	if g > 0 {
		attnScoresF16GQAAVX512(&s[0], 4*sStride, &q[0], &k[0], 2*kStride, 2*kHead, group, heads, g, dim/8)
	}
	if r := 8 * g; r < rows {
		attnScoresF16Generic(s[r:], sStride, q, k[r*kStride:], kStride, kHead, group, heads, rows-r, dim)
	}
}

func attnAccumVF16AVX512Asm(acc, p []float32, pStride int, v []uint16, vStride, vHead, group, heads, rows, dim int, alpha []float32) {
	if rows == 0 || dim%64 != 0 || !gqaQuads(group, heads) {
		attnAccumVF16Asm(acc, p, pStride, v, vStride, vHead, group, heads, rows, dim, alpha)
		return
	}
	attnAccumVGQAAVX512(&acc[0], dim/64, &p[0], 4*pStride, &v[0], 2*vStride, 2*vHead, group, heads, rows, &alpha[0])
}
