//go:build !purego

package kernels

import "github.com/gollm/gollm/ggml"

func fillAVX2Tile(s *kernelSet) {
	s.vecDot2x4[ggml.Q8_0] = q8_0Tile2x4Asm
	s.vecDot2x4[ggml.Q5_0] = q5_0Tile2x4Asm
	s.vecDot2x4Q[ggml.Q8_0] = q8_0Tile2x4QAsm
	s.vecDot2x4Q[ggml.Q5_0] = q5_0Tile2x4QAsm
	s.vecDot2x4[ggml.Q4_1] = q4_1Tile2x4Asm
	s.vecDot2x4[ggml.Q5_1] = q5_1Tile2x4Asm
	s.actQuad[ggml.Q8_1] = q8_1QuadScales
	s.q8Rows[ggml.Q5_0] = q5_0RowAsQ8_0Asm
	s.q8RowsTile = q8_0Tile2x4Asm
	s.q8RowsTileQ = q8_0Tile2x4QAsm
	// (Row tiles outer: TinyLlama Q8_0 pp512 1.07x on an AMD EPYC Zen3,
	// alternating builds; F16 0.99x, so its 3 x 4 tile keeps quads outer.)
	s.tilesOuter[ggml.Q8_0] = true
	s.tilesOuter[ggml.Q5_0] = true
	if widenQ8RowsFirst {
		widenQ8Tiles(s)
	}
}

//go:noescape
func q5_0AsQ8_0AVX2(nb int, dst, src *byte)

// q5_0RowAsQ8_0Asm is q5_0RowAsQ8_0Generic, decoding as the Q5_0 tile does.
func q5_0RowAsQ8_0Asm(dst, src []byte) {
	nb := len(src) / q5_0Bytes
	if nb == 0 {
		return
	}
	_ = dst[nb*q8_0Bytes-1]
	q5_0AsQ8_0AVX2(nb, &dst[0], &src[0])
}

// The 2x4 kernels read the tokens' block scales from their quad layout
// (Acts.x4), so they run only when Quantize builds it (actQuad).

//go:noescape
func q8_0Tile2x4AVX2(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)

//go:noescape
func q5_0Tile2x4AVX2(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)

func q8_0Tile2x4Asm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	tile2x4Call(q8_0Tile2x4AVX2, q8_0Bytes, q8_0Bytes, q8_0QuadBytes, n, w, wstride, a, astride, aq, out, ostride)
}

func q5_0Tile2x4Asm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	tile2x4Call(q5_0Tile2x4AVX2, q5_0Bytes, q8_0Bytes, q8_0QuadBytes, n, w, wstride, a, astride, aq, out, ostride)
}

// tile2x4Call runs a 2 x 4 tile kernel after checking the slices cover
// it: two rows of n/32 blocks of wb bytes, four token rows of blocks of
// ab bytes, their quad (qb bytes a block column) and the outputs.
func tile2x4Call(kern func(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int),
	wb, ab, qb, n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	tile2x4CallBlocks(kern, qk, wb, ab, qb, n, w, wstride, a, astride, aq, out, ostride)
}

// tile2x4CallBlocks is tile2x4Call for blocks of bs elements; qb 0 is a
// kernel that reads no quad (it gets nil).
func tile2x4CallBlocks(kern func(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int),
	bs, wb, ab, qb, n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	nb := n / bs
	if nb == 0 {
		for t := 0; t < 4; t++ {
			clear(out[t*ostride : t*ostride+2])
		}
		return
	}
	_ = w[wstride+nb*wb-1]
	_ = a[3*astride+nb*ab-1]
	_ = out[3*ostride+1]
	var ad *byte
	if qb > 0 {
		_ = aq[nb*qb-1]
		ad = &aq[0]
	}
	kern(nb, &w[0], wstride, &a[0], astride, ad, &out[0], ostride)
}

//go:noescape
func q4_1Tile2x4AVX2(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)

//go:noescape
func q5_1Tile2x4AVX2(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)

// q4_1Tile2x4Asm and q5_1Tile2x4Asm are the Q4_1 and Q5_1 2 x 4 tiles
// (tile_amd64.s) over Q8_1 tokens and their q8_1QuadScales quad.
func q4_1Tile2x4Asm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	tile2x4Call(q4_1Tile2x4AVX2, q4_1Bytes, q8_1Bytes, q8_1QuadScalesBytes, n, w, wstride, a, astride, aq, out, ostride)
}

func q5_1Tile2x4Asm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	tile2x4Call(q5_1Tile2x4AVX2, q5_1Bytes, q8_1Bytes, q8_1QuadScalesBytes, n, w, wstride, a, astride, aq, out, ostride)
}

//go:noescape
func q4_1Tile2x4VNNI(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)

//go:noescape
func q5_1Tile2x4VNNI(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)

// q4_1Tile2x4VNNIAsm and q5_1Tile2x4VNNIAsm are the avx512vnni sets'
// twins of the Q4_1 and Q5_1 tiles (VPDPBUSD for the lanes).
func q4_1Tile2x4VNNIAsm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	tile2x4Call(q4_1Tile2x4VNNI, q4_1Bytes, q8_1Bytes, q8_1QuadScalesBytes, n, w, wstride, a, astride, aq, out, ostride)
}

func q5_1Tile2x4VNNIAsm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	tile2x4Call(q5_1Tile2x4VNNI, q5_1Bytes, q8_1Bytes, q8_1QuadScalesBytes, n, w, wstride, a, astride, aq, out, ostride)
}

//go:noescape
func q8_0Tile2x4QAVX2(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, qstride int, out *float32, ostride, nq int)

//go:noescape
func q5_0Tile2x4QAVX2(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, qstride int, out *float32, ostride, nq int)

func q8_0Tile2x4QAsm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, qstride int, out []float32, ostride, nq int) {
	q8Tile2x4Q(q8_0Tile2x4QAVX2, q8_0Bytes, n, w, wstride, a, astride, aq, qstride, out, ostride, nq)
}

func q5_0Tile2x4QAsm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, qstride int, out []float32, ostride, nq int) {
	q8Tile2x4Q(q5_0Tile2x4QAVX2, q5_0Bytes, n, w, wstride, a, astride, aq, qstride, out, ostride, nq)
}

// q8Tile2x4Q is tile2x4Call for nq quads (vecDot2x4QFunc): one call of the
// several-quad kernel, each quad's tile in the 2 x 4 kernel's steps. (On
// an AMD EPYC Zen3 a 2 x 4 call cost about 45 ns besides its blocks, 23%
// of a call at 576 columns, SmolLM2-135M's width.)
func q8Tile2x4Q(kern func(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, qstride int, out *float32, ostride, nq int),
	wb, n int, w []byte, wstride int, a []byte, astride int, aq []byte, qstride int, out []float32, ostride, nq int) {
	if nq <= 0 {
		return
	}
	nb := n / qk
	if nb == 0 {
		for t := 0; t < 4*nq; t++ {
			clear(out[t*ostride : t*ostride+2])
		}
		return
	}
	_ = w[wstride+nb*wb-1]
	_ = a[(4*nq-1)*astride+nb*q8_0Bytes-1]
	_ = aq[(nq-1)*qstride+nb*q8_0QuadBytes-1]
	_ = out[(4*nq-1)*ostride+1]
	kern(nb, &w[0], wstride, &a[0], astride, &aq[0], qstride, &out[0], ostride, nq)
}
