//go:build !purego

package kernels

import "unsafe"

// AVX2 versions of the long-context attention kernels (attn_fast.go); the
// avx512vnni set copies them from the AVX2 set. Strides go to the assembly
// in bytes; the widening's columns past the last whole 8 run the generic
// code.
func fillAVX2AttnFast(s *kernelSet) {
	s.f16RowsToF32 = f16RowsToF32Asm
	s.attnWidenK = attnWidenKAsm
	s.attnWidenKHeads = attnWidenKHeadsAsm
	s.attnPrefetch = attnPrefetchAsm
	s.attnScores = attnScoresAsm
	s.attnSoftmax = attnSoftmaxAsm
	s.attnAccumV = attnAccumVAsm
}

//go:noescape
func f16RowsToF32AVX2(dst *float32, dstStride int, src *uint16, srcStride, rows, n8 int)

//go:noescape
func attnPrefetchRows(src *byte, stride, rows, lines int)

//go:noescape
func attnWidenKAVX2(k *float32, dim8, row int, src *uint16, srcStride, rows, n8 int)

//go:noescape
func attnScoresAVX2(s *float32, sStride int, q, k *float32, heads, groups, dim8 int)

//go:noescape
func attnSoftmaxAVX2(s *float32, sStride int, heads, rows int, scale float32, m, l, alpha *float32)

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

// attnPrefetchAsm touches the 64-byte lines of each row, counted for the
// first row's alignment (with a stride that is not a multiple of 64 a
// row's last line may be left out: it is only a hint).
func attnPrefetchAsm(src []byte, stride, rows, n int) {
	start := int(uintptr(unsafe.Pointer(&src[0])) & 63)
	attnPrefetchRows(&src[0], stride, rows, (start+n+63)/64)
}

func attnWidenKAsm(k []float32, dim, row int, src []uint16, srcStride, rows, n int) {
	n8 := n &^ 7
	if n8 > 0 {
		attnWidenKAVX2(&k[0], dim/8, row, &src[0], 2*srcStride, rows, n8/8)
	}
	if n8 < n {
		attnWidenKFrom(k, dim, row, src, srcStride, rows, n8, n)
	}
}

//go:noescape
func attnWidenKHeadsAVX2(k *float32, dim8, row int, src *uint16, srcStride, rows, n8, heads, kHead, srcHead int)

// attnWidenKHeadsAsm widens the whole groups of 8 of every row and head
// in assembly (row by row, each row's heads in order), the rest of each
// head's slice in Go. (The avx512vnni set keeps this AVX2 code: the
// reads, not the widening, bound it.)
func attnWidenKHeadsAsm(k []float32, tileLen, dim, row int, src []uint16, srcStride, headStride, heads, rows, n int) {
	n8 := n &^ 7
	if n8 > 0 {
		attnWidenKHeadsAVX2(&k[0], dim/8, row, &src[0], 2*srcStride, rows, n8/8, heads, 4*tileLen, 2*headStride)
	}
	if n8 < n {
		for h := 0; h < heads; h++ {
			attnWidenKFrom(k[h*tileLen:], dim, row, src[h*headStride:], srcStride, rows, n8, n)
		}
	}
}

func attnScoresAsm(s []float32, sStride int, q, k []float32, heads, rows8, dim int) {
	attnScoresAVX2(&s[0], 4*sStride, &q[0], &k[0], heads, rows8/8, dim/8)
}

func attnSoftmaxAsm(s []float32, sStride, heads, rows int, scale float32, m, l, alpha []float32) {
	attnSoftmaxAVX2(&s[0], 4*sStride, heads, rows, scale, &m[0], &l[0], &alpha[0])
}

func attnAccumVAsm(acc, p []float32, pStride int, v []float32, heads, rows, dim int, alpha []float32) {
	if rows == 0 {
		attnAccumVGeneric(acc, p, pStride, v, heads, rows, dim, alpha)
		return
	}
	attnAccumVAVX2(&acc[0], dim/8, &p[0], 4*pStride, &v[0], heads, rows, &alpha[0])
}

// The avx512vnni set gets AVX-512 versions of the widening of V, the
// scores, the softmax and the value accumulation (AVX512F and VL are
// enough; the set needs more).
func fillAVX512AttnFast(s *kernelSet) {
	s.f16RowsToF32 = f16RowsToF32AVX512Asm
	s.attnWidenK = attnWidenKAVX512Asm
	s.attnPrefetch = attnPrefetchAsm
	s.attnScores = attnScoresAVX512Asm
	s.attnSoftmax = attnSoftmaxAVX512Asm
	s.attnAccumV = attnAccumVAVX512Asm
}

//go:noescape
func f16RowsToF32AVX512(dst *float32, dstStride int, src *uint16, srcStride, rows, n16 int)

//go:noescape
func attnWidenKPairsAVX512(k *float32, dim8 int, src *uint16, srcStride, groups, n8 int)

//go:noescape
func attnScoresAVX512(s *float32, sStride int, q, k *float32, heads, groups, dim8 int)

//go:noescape
func attnSoftmaxAVX512(s *float32, sStride int, heads, rows int, scale float32, m, l, alpha *float32)

//go:noescape
func attnAccumVAVX512(acc *float32, dim16 int, p *float32, pStride int, v *float32, heads, rows int, alpha *float32)

func f16RowsToF32AVX512Asm(dst []float32, dstStride int, src []uint16, srcStride, rows, n int) {
	n16 := n &^ 15
	if n16 > 0 {
		f16RowsToF32AVX512(&dst[0], 4*dstStride, &src[0], 2*srcStride, rows, n16/16)
	}
	if n16 < n {
		f16RowsToF32Asm(dst[n16:], dstStride, src[n16:], srcStride, rows, n-n16)
	}
}

// attnWidenKAVX512Asm widens the whole groups of eight rows pair by pair
// and the rows before and after them (a range that starts or ends inside
// a group) with the AVX2 code.
func attnWidenKAVX512Asm(k []float32, dim, row int, src []uint16, srcStride, rows, n int) {
	n8 := n &^ 7
	end := row + rows
	lo := min((row+7)&^7, end)
	hi := max(end&^7, lo)
	if n8 > 0 {
		if lo > row {
			attnWidenKAVX2(&k[0], dim/8, row, &src[0], 2*srcStride, lo-row, n8/8)
		}
		if hi > lo {
			attnWidenKPairsAVX512(&k[lo*dim], dim/8, &src[(lo-row)*srcStride], 2*srcStride, (hi-lo)/8, n8/8)
		}
		if end > hi {
			attnWidenKAVX2(&k[0], dim/8, hi, &src[(hi-row)*srcStride], 2*srcStride, end-hi, n8/8)
		}
	}
	if n8 < n {
		attnWidenKFrom(k, dim, row, src, srcStride, rows, n8, n)
	}
}

func attnScoresAVX512Asm(s []float32, sStride int, q, k []float32, heads, rows8, dim int) {
	attnScoresAVX512(&s[0], 4*sStride, &q[0], &k[0], heads, rows8/8, dim/8)
}

func attnSoftmaxAVX512Asm(s []float32, sStride, heads, rows int, scale float32, m, l, alpha []float32) {
	attnSoftmaxAVX512(&s[0], 4*sStride, heads, rows, scale, &m[0], &l[0], &alpha[0])
}

// attnAccumVAVX512Asm needs whole vectors of 16 (head sizes 64, 80, 128,
// ...); others run the AVX2 code.
func attnAccumVAVX512Asm(acc, p []float32, pStride int, v []float32, heads, rows, dim int, alpha []float32) {
	if rows == 0 || dim%16 != 0 {
		attnAccumVAsm(acc, p, pStride, v, heads, rows, dim, alpha)
		return
	}
	attnAccumVAVX512(&acc[0], dim/16, &p[0], 4*pStride, &v[0], heads, rows, &alpha[0])
}
