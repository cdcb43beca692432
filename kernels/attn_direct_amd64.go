//go:build !purego

package kernels

import "unsafe"

// AVX2 versions of the f16-row attention kernels (attn_direct.go); the
// AVX-512 sets keep them for the shapes their own kernels do not take.
// Heads in fours of one KV head (gqaQuads: TinyLlama, Llama-3) take the
// GQA kernels, which widen each row once per four heads, and so do the
// quads of larger groups of other sizes (gqaSplit: Qwen2.5's 5-7); groups
// of 2 (gqaPairs: Gemma-2, Qwen3's small models) take two-head kernels,
// groups of 1 and 3 go one head at a time. Rows past a score kernel's
// last whole set (2 rows for four heads, 4 for two, 8 for one) run the
// generic code (the same bits per row).
func fillAVX2AttnDirect(s *kernelSet) {
	s.attnScoresF16 = attnScoresF16Asm
	s.attnAccumVF16 = attnAccumVF16Asm
}

//go:noescape
func attnScoresF16AVX2(s *float32, sStride int, q *float32, k *uint16, kStride, kHead, group, heads, rowGroups, dim8 int)

//go:noescape
func attnAccumVF16AVX2(acc *float32, dim8 int, p *float32, pStride int, v *uint16, vStride, vHead, group, heads, rows int, alpha *float32)

//go:noescape
func attnScoresF16GQAAVX2(s *float32, sStride int, q *float32, k *uint16, kStride, kHead, group, heads, rowSets, dim8 int, pf uintptr, pfLines, pfPer int)

//go:noescape
func attnAccumVGQAAVX2(acc *float32, strips int, p *float32, pStride int, v *uint16, vStride, vHead, group, heads, rows int, alpha *float32, pf uintptr, pfLines, pfPer int)

// gqaQuads reports whether heads and group let the GQA kernels take the
// heads four at a time, each four sharing one KV head's rows (widened
// once for the four: on the AVX2 kernels for one head the widening costs
// as much as the multiply-adds).
func gqaQuads(group, heads int) bool { return group%4 == 0 && heads%4 == 0 }

// gqaPairs reports groups of two heads (Gemma-2, Qwen3's small models),
// which take the two-head kernels: each row widened once for the pair.
func gqaPairs(group, heads int) bool { return group == 2 && heads%2 == 0 }

//go:noescape
func attnScoresF16GQ2AVX2(s *float32, sStride int, q *float32, k *uint16, kStride, kHead, group, heads, rowSets, dim8 int, pf uintptr, pfLines, pfPer int)

//go:noescape
func attnAccumVGQ2AVX2(acc *float32, strips int, p *float32, pStride int, v *uint16, vStride, vHead, group, heads, rows int, alpha *float32, pf uintptr, pfLines, pfPer int)

// gqaSplit reports whether the heads take the GQA kernels group by group
// instead (scoresByQuads, accumByQuads): groups of 4 or more whose sizes
// are not multiples of 4 (Qwen2.5's 5, 6 and 7), or a last group that is.
func gqaSplit(group, heads int) bool { return group >= 4 && !gqaQuads(group, heads) }

// attnScoresFn is the signature of the score kernels' wrappers.
type attnScoresFn func(s []float32, sStride int, q []float32, k []uint16, kStride, kHead, group, heads, rows, dim int, pf []uint16)

// scoresByQuads runs f on the whole quads of each group of heads, then on
// the group's last four heads when some are left (a head's scores written
// twice, the same bits), or the one-head AVX2 kernels on a group of fewer
// than four. pf is asked for at once, first.
func scoresByQuads(f attnScoresFn, s []float32, sStride int, q []float32, k []uint16, kStride, kHead, group, heads, rows, dim int, pf []uint16) {
	prefetchAll(pf)
	for h0 := 0; h0 < heads; h0 += group {
		n := min(group, heads-h0)
		kg := k[h0/group*kHead:]
		if n < 4 {
			attnScoresF16Asm(s[h0*sStride:], sStride, q[h0*dim:], kg, kStride, 0, n, n, rows, dim, nil)
			continue
		}
		quads := n &^ 3
		f(s[h0*sStride:], sStride, q[h0*dim:], kg, kStride, 0, quads, quads, rows, dim, nil)
		if quads < n {
			h := h0 + n - 4
			f(s[h*sStride:], sStride, q[h*dim:], kg, kStride, 0, 4, 4, rows, dim, nil)
		}
	}
}

// attnAccumFn is the signature of the value kernels' wrappers.
type attnAccumFn func(acc, p []float32, pStride int, v []uint16, vStride, vHead, group, heads, rows, dim int, alpha []float32, pf []uint16)

// accumByQuads runs f on the whole quads of each group of heads and the
// one-head AVX2 kernels on the heads left (a value sum adds into its
// accumulator, so no head may run twice); rows > 0. pf is asked for at
// once, first.
func accumByQuads(f attnAccumFn, acc, p []float32, pStride int, v []uint16, vStride, vHead, group, heads, rows, dim int, alpha []float32, pf []uint16) {
	prefetchAll(pf)
	for h0 := 0; h0 < heads; h0 += group {
		n := min(group, heads-h0)
		quads := n &^ 3
		vg := v[h0/group*vHead:]
		if quads > 0 {
			f(acc[h0*dim:], p[h0*pStride:], pStride, vg, vStride, 0, quads, quads, rows, dim, alpha[h0:], nil)
		}
		if quads < n {
			h := h0 + quads
			attnAccumVF16Asm(acc[h*dim:], p[h*pStride:], pStride, vg, vStride, 0, n-quads, n-quads, rows, dim, alpha[h:], nil)
		}
	}
}

// pfSpread returns what the GQA kernels take to ask for pf's cache lines
// over passes passes: the first line's address (pf's start rounded down
// to its line), the number of lines and the lines per pass; zeros for an
// empty pf.
func pfSpread(pf []uint16, passes int) (at uintptr, lines, per int) {
	if len(pf) == 0 {
		return 0, 0, 0
	}
	a := uintptr(unsafe.Pointer(&pf[0]))
	lines = int((a&63 + uintptr(2*len(pf)) + 63) / 64)
	return a &^ 63, lines, (lines + passes - 1) / max(passes, 1)
}

// prefetchAll asks for pf's cache lines at once (the kernels without
// passes to spread them over).
func prefetchAll(pf []uint16) {
	if len(pf) > 0 {
		attnPrefetchAsm(unsafe.Slice((*byte)(unsafe.Pointer(&pf[0])), 2*len(pf)), 0, 1, 2*len(pf))
	}
}

func attnScoresF16Asm(s []float32, sStride int, q []float32, k []uint16, kStride, kHead, group, heads, rows, dim int, pf []uint16) {
	if gqaPairs(group, heads) {
		at, lines, per := pfSpread(pf, heads/2)
		if quads := rows / 4; quads > 0 {
			attnScoresF16GQ2AVX2(&s[0], 4*sStride, &q[0], &k[0], 2*kStride, 2*kHead, group, heads, quads, dim/8, at, lines, per)
		} else {
			prefetchAll(pf)
		}
		if r := rows &^ 3; r < rows {
			attnScoresF16Generic(s[r:], sStride, q, k[r*kStride:], kStride, kHead, group, heads, rows-r, dim, nil)
		}
		return
	}
	if gqaSplit(group, heads) {
		scoresByQuads(attnScoresF16Asm, s, sStride, q, k, kStride, kHead, group, heads, rows, dim, pf)
		return
	}
	if gqaQuads(group, heads) {
		at, lines, per := pfSpread(pf, heads/4)
		if pairs := rows / 2; pairs > 0 {
			attnScoresF16GQAAVX2(&s[0], 4*sStride, &q[0], &k[0], 2*kStride, 2*kHead, group, heads, pairs, dim/8, at, lines, per)
		} else {
			prefetchAll(pf)
		}
		if r := rows &^ 1; r < rows {
			attnScoresF16Generic(s[r:], sStride, q, k[r*kStride:], kStride, kHead, group, heads, 1, dim, nil)
		}
		return
	}
	prefetchAll(pf)
	g := rows / 8
	if g > 0 {
		attnScoresF16AVX2(&s[0], 4*sStride, &q[0], &k[0], 2*kStride, 2*kHead, group, heads, g, dim/8)
	}
	if r := 8 * g; r < rows {
		attnScoresF16Generic(s[r:], sStride, q, k[r*kStride:], kStride, kHead, group, heads, rows-r, dim, nil)
	}
}

func attnAccumVF16Asm(acc, p []float32, pStride int, v []uint16, vStride, vHead, group, heads, rows, dim int, alpha []float32, pf []uint16) {
	if rows == 0 {
		prefetchAll(pf)
		attnAccumVF16Generic(acc, p, pStride, v, vStride, vHead, group, heads, rows, dim, alpha, nil)
		return
	}
	if dim%32 == 0 && gqaPairs(group, heads) {
		at, lines, per := pfSpread(pf, heads/2)
		attnAccumVGQ2AVX2(&acc[0], dim/32, &p[0], 4*pStride, &v[0], 2*vStride, 2*vHead, group, heads, rows, &alpha[0], at, lines, per)
		return
	}
	if dim%16 == 0 && gqaSplit(group, heads) {
		accumByQuads(attnAccumVF16Asm, acc, p, pStride, v, vStride, vHead, group, heads, rows, dim, alpha, pf)
		return
	}
	if dim%16 == 0 && gqaQuads(group, heads) {
		at, lines, per := pfSpread(pf, heads/4)
		attnAccumVGQAAVX2(&acc[0], dim/16, &p[0], 4*pStride, &v[0], 2*vStride, 2*vHead, group, heads, rows, &alpha[0], at, lines, per)
		return
	}
	prefetchAll(pf)
	attnAccumVF16AVX2(&acc[0], dim/8, &p[0], 4*pStride, &v[0], 2*vStride, 2*vHead, group, heads, rows, &alpha[0])
}

// fillAVX512AttnDirect gives the AVX-512 sets the 512-bit GQA kernels
// (attn_direct_avx512_amd64.s) for groups of two, four or more query heads
// per KV head; other shapes keep the AVX2 kernels. An AMD Zen4 keeps the
// AVX2 score kernels for every shape: the 512-bit ones build each
// register's two rows with a shuffle, which takes one of the pipes the
// multiply-adds run on there (BenchmarkAttnDirect, products per ns,
// medians of five, AVX2 against 512-bit scores: groups of 8 heads of 64
// 44.2 / 38.2, of 4 of 128 43.7 / 42.5, of 2 of 128 44.0 / 33.3; the
// 512-bit value sums are the faster ones, 52 / 40 for groups of 4).
func fillAVX512AttnDirect(s *kernelSet) {
	s.attnScoresF16 = attnScoresF16AVX512Asm
	if isZen4 {
		s.attnScoresF16 = attnScoresF16Asm
	}
	s.attnAccumVF16 = attnAccumVF16AVX512Asm
}

//go:noescape
func attnScoresF16GQAAVX512(s *float32, sStride int, q *float32, k *uint16, kStride, kHead, group, heads, rowSets, dim8 int, pf uintptr, pfLines, pfPer int)

//go:noescape
func attnScoresF16GQ2AVX512(s *float32, sStride int, q *float32, k *uint16, kStride, kHead, group, heads, rowSets, dim8 int, pf uintptr, pfLines, pfPer int)

//go:noescape
func attnAccumVGQ2AVX512(acc *float32, strips int, p *float32, pStride int, v *uint16, vStride, vHead, group, heads, rows int, alpha *float32, pf uintptr, pfLines, pfPer int)

//go:noescape
func attnAccumVGQAAVX512(acc *float32, strips int, p *float32, pStride int, v *uint16, vStride, vHead, group, heads, rows int, alpha *float32, pf uintptr, pfLines, pfPer int)

func attnScoresF16AVX512Asm(s []float32, sStride int, q []float32, k []uint16, kStride, kHead, group, heads, rows, dim int, pf []uint16) {
	pairs := gqaPairs(group, heads)
	if gqaSplit(group, heads) {
		scoresByQuads(attnScoresF16AVX512Asm, s, sStride, q, k, kStride, kHead, group, heads, rows, dim, pf)
		return
	}
	if !pairs && !gqaQuads(group, heads) {
		attnScoresF16Asm(s, sStride, q, k, kStride, kHead, group, heads, rows, dim, pf)
		return
	}
	g := rows / 8
	if g == 0 {
		prefetchAll(pf)
	} else if pairs {
		at, lines, per := pfSpread(pf, heads/2)
		attnScoresF16GQ2AVX512(&s[0], 4*sStride, &q[0], &k[0], 2*kStride, 2*kHead, group, heads, g, dim/8, at, lines, per)
	} else {
		at, lines, per := pfSpread(pf, heads/4)
		attnScoresF16GQAAVX512(&s[0], 4*sStride, &q[0], &k[0], 2*kStride, 2*kHead, group, heads, g, dim/8, at, lines, per)
	}
	if r := 8 * g; r < rows {
		attnScoresF16Generic(s[r:], sStride, q, k[r*kStride:], kStride, kHead, group, heads, rows-r, dim, nil)
	}
}

func attnAccumVF16AVX512Asm(acc, p []float32, pStride int, v []uint16, vStride, vHead, group, heads, rows, dim int, alpha []float32, pf []uint16) {
	if rows > 0 && dim%128 == 0 && gqaPairs(group, heads) {
		at, lines, per := pfSpread(pf, heads/2)
		attnAccumVGQ2AVX512(&acc[0], dim/128, &p[0], 4*pStride, &v[0], 2*vStride, 2*vHead, group, heads, rows, &alpha[0], at, lines, per)
		return
	}
	if rows > 0 && dim%64 == 0 && gqaSplit(group, heads) {
		accumByQuads(attnAccumVF16AVX512Asm, acc, p, pStride, v, vStride, vHead, group, heads, rows, dim, alpha, pf)
		return
	}
	if rows == 0 || dim%64 != 0 || !gqaQuads(group, heads) {
		attnAccumVF16Asm(acc, p, pStride, v, vStride, vHead, group, heads, rows, dim, alpha, pf)
		return
	}
	at, lines, per := pfSpread(pf, heads/4)
	attnAccumVGQAAVX512(&acc[0], dim/64, &p[0], 4*pStride, &v[0], 2*vStride, 2*vHead, group, heads, rows, &alpha[0], at, lines, per)
}
