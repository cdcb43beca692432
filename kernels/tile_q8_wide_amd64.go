//go:build !purego

package kernels

import "github.com/gollm/gollm/ggml"

// widenQ8Tiles gives the AVX2 set s the 2 x 4 Q8_0 tile over rows widened
// to int16 (tile_q8_wide.go), on the CPUs of widenQ8RowsFirst.
func widenQ8Tiles(s *kernelSet) {
	s.tileRewrite[ggml.Q8_0] = q8_0WideTiles
}

// q8_0WideTiles: the rewrite costs about what the tile saves at 16-32
// tokens (MatMul 5632x2048, 2048x5632 and 2048x2048 on an Intel Xeon, two
// threads, new/old time: ntok=16 1.08-1.15, 32 0.97-1.00, 64 0.85-0.94,
// 512 0.82-0.89).
var q8_0WideTiles = &tileRewrite{rows: 2, rowScale: 2, pack: widenQ8_0RowsAsm,
	generic: func(dst, src []byte, rowBytes int) { widenQ8_0Rows(dst, src, rowBytes, 2) }, tile: q8_0WideTile2x4Asm,
	tileQ: q8_0WideTile2x4QAsm, act: q8_0QuadWideAsm, colsMultiple: qk, minTokens: 32}

// q8_0QuadWideAsm is q8_0QuadWide built with widenQ8_0BlocksAVX2.
var q8_0QuadWideAsm = &actPacker{blockBytes: q8_0QuadWideBytes, pack: packQ8_0QuadWideAsm}

//go:noescape
func widenQ8_0BlocksAVX2(nb int, src *byte, dq *byte, dqStride int, ds *byte, dsStride int)

// widenQ8_0RowsAsm widens a 2-row Q8_0 tile (widenQ8_0Rows).
func widenQ8_0RowsAsm(dst, src []byte, rowBytes int) {
	nb := rowBytes / q8_0Bytes
	_ = src[2*rowBytes-1]
	_ = dst[4*rowBytes-1]
	if nb == 0 {
		return
	}
	for r := 0; r < 2; r++ {
		d := dst[2*r*rowBytes:]
		widenQ8_0BlocksAVX2(nb, &src[r*rowBytes], &d[0], wideQ8Bytes, &d[wideQ8Bytes*nb], 4)
	}
}

// packQ8_0QuadWideAsm is packQ8_0QuadWide, the quants widened in assembly.
func packQ8_0QuadWideAsm(dst, src []byte, rowBytes, n int) {
	nb := rowBytes / q8_0Bytes
	if nb == 0 {
		return
	}
	dst = dst[:nb*q8_0QuadWideBytes]
	_ = src[(n-1)*rowBytes+nb*q8_0Bytes-1]
	for t := 0; t < n; t++ {
		widenQ8_0BlocksAVX2(nb, &src[t*rowBytes], &dst[32+wideQ8Bytes*t], q8_0QuadWideBytes, &dst[4*t], q8_0QuadWideBytes)
	}
	for b := 0; b < nb; b++ {
		o := dst[b*q8_0QuadWideBytes : b*q8_0QuadWideBytes+32]
		for t := n; t < 4; t++ {
			clear(o[4*t : 4*t+4])
			clear(dst[b*q8_0QuadWideBytes+32+wideQ8Bytes*t : b*q8_0QuadWideBytes+32+wideQ8Bytes*(t+1)])
		}
		copy(o[16:32], o[0:16])
	}
}

//go:noescape
func q8_0WideTile2x4AVX2(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)

// q8_0WideTile2x4Asm is the 2 x 4 tile on two widened rows (wstride
// apart) and the tokens' wide quad aq.
func q8_0WideTile2x4Asm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	nb := n / qk
	_ = w[wstride+(wideQ8Bytes+4)*nb-1]
	_ = aq[nb*q8_0QuadWideBytes-1]
	_ = out[3*ostride+1]
	if nb == 0 {
		for t := 0; t < 4; t++ {
			clear(out[t*ostride : t*ostride+2])
		}
		return
	}
	q8_0WideTile2x4AVX2(nb, &w[0], wstride, nil, 0, &aq[0], &out[0], ostride)
}

//go:noescape
func q8_0WideTile2x4QAVX2(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, qstride int, out *float32, ostride, nq int)

// q8_0WideTile2x4QAsm is q8_0WideTile2x4Asm over nq quads, qstride bytes
// apart in aq.
func q8_0WideTile2x4QAsm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, qstride int, out []float32, ostride, nq int) {
	nb := n / qk
	if nq == 0 {
		return
	}
	_ = w[wstride+(wideQ8Bytes+4)*nb-1]
	_ = aq[(nq-1)*qstride+nb*q8_0QuadWideBytes-1]
	_ = out[(4*nq-1)*ostride+1]
	if nb == 0 {
		for t := 0; t < 4*nq; t++ {
			clear(out[t*ostride : t*ostride+2])
		}
		return
	}
	q8_0WideTile2x4QAVX2(nb, &w[0], wstride, nil, 0, &aq[0], qstride, &out[0], ostride, nq)
}
