//go:build !purego

package kernels

import (
	"encoding/binary"
	"math"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/quant"
)

// Kernels for half-precision weights (vecdot_half_amd64.s): BF16 rows like
// the F16 ones of vecdot_float_amd64.go, and for both the prefill register
// tiles (3 rows x 4 tokens on AVX2, 4 x 4 with the AVX-512 registers; the
// AVX2 F16 tile reads the F16 tokens, the others their quad, widened to
// float32 once per batch), all in dotFloatOrder's n%8 == 0 order; other
// lengths run the generic kernels. On Intel CPUs prefill widens the rows
// too, once per row unit (widenHalfTiles, tile_widen.go).
func fillAVX2Half(s *kernelSet) {
	s.vecDot[ggml.BF16] = dotBF16BF16Asm
	s.vecDotR4[ggml.BF16] = dotBF16BF16r4Asm
	s.vecDot4[ggml.BF16] = dotBF16BF16x4Asm
	s.vecDot1[ggml.BF16] = dotBF16VecAsm
	s.vecDot1R4[ggml.BF16] = bf16VecR4AVX2Asm
	s.quantize[ggml.BF16] = quantizeBF16Asm
	s.actQuad[ggml.F16] = halfQuadF16Decode
	s.actQuad[ggml.BF16] = halfQuadBF16
	s.vecDot3x4[ggml.F16] = f16Tile3x4Asm
	s.vecDot3x4[ggml.BF16] = bf16Tile3x4F32Asm
	s.vecDot3x4Few[ggml.F16] = f16Tile3x4PfAsm
	s.vecDotR4x2[ggml.F16] = dotF16F16r4x2Asm
	s.vecDotR4x2[ggml.BF16] = dotBF16BF16r4x2Asm
	s.vecDot3x4Few[ggml.BF16] = bf16Tile3x4F32PfAsm
	if widenRowsFirst {
		widenHalfTiles(s)
	} else if isZen4 {
		ilvBF16Tiles(s)
	}
}

//go:noescape
func dotBF16BF16AVX2(n8 int, w, a *byte) float32

//go:noescape
func dotBF16BF16r4AVX2(n8 int, w *byte, wstride int, a *byte, out *float32, ostride int)

//go:noescape
func dotBF16BF16x4AVX2(n8 int, w, a *byte, stride int, out *float32, ostride int)

func dotBF16BF16Asm(n int, w, a []byte) float32 {
	if n%8 != 0 || n == 0 {
		return vecDotBF16BF16Generic(n, w, a)
	}
	return dotBF16BF16AVX2(asmArgs(n, 8, 16, 16, w, a))
}

func dotBF16BF16r4Asm(n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	if n%8 != 0 || n == 0 {
		r4Generic(vecDotBF16BF16Generic, n, w, wstride, a, out, ostride)
		return
	}
	dotBF16BF16r4AVX2(r4Args(n, 8, 16, 16, w, wstride, a, out, ostride))
}

func dotBF16BF16x4Asm(n int, w, a []byte, stride int, out []float32, ostride int) {
	if n%8 != 0 || n == 0 {
		x4Generic(vecDotBF16BF16Generic, n, w, a, stride, out, ostride)
		return
	}
	dotBF16BF16x4AVX2(x4Args(n, 8, 16, 16, w, a, stride, out, ostride))
}

//go:noescape
func dotBF16VecAVX2(n32 int, w, a *byte) float32

//go:noescape
func bf16VecR4AVX512(n32 int, w *byte, wstride int, a *byte, out *float32, ostride int)

//go:noescape
func bf16VecR4PfAVX512(n32 int, w *byte, wstride int, a *byte, out *float32, ostride int)

// dotBF16VecAsm is vecDotBF16BF16DecodeGeneric: the groups of 32 in
// assembly, the tail in Go.
func dotBF16VecAsm(n int, w, a []byte) float32 {
	np := n &^ 31
	sumf := 0.0
	if np > 0 {
		sumf += float64(dotBF16VecAVX2(asmArgs(np, 32, 64, 64, w, a)))
	}
	return bf16TailF64(sumf, np, n, w, a)
}

// bf16TailF64 adds the products of elements [np, n) to sumf as
// ggml_vec_dot_bf16 does (each rounded to float32, summed in float64).
func bf16TailF64(sumf float64, np, n int, w, a []byte) float32 {
	for i := np; i < n; i++ {
		x := math.Float32frombits(uint32(binary.LittleEndian.Uint16(w[2*i:])) << 16)
		y := math.Float32frombits(uint32(binary.LittleEndian.Uint16(a[2*i:])) << 16)
		sumf += float64(x * y)
	}
	return float32(sumf)
}

// bf16VecR4Asm is four rows of dotBF16VecAsm at once (decode's four
// streams).
func bf16VecR4Asm(n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	bf16VecR4Run(bf16VecR4AVX512, bf16VecR4PfAVX512, n, w, wstride, a, out, ostride)
}

// bf16VecR4Run runs a four-row BF16 decode kernel (kern, or its
// prefetching twin pf under streamPrefetch) on the groups of 32, each
// row's tail in Go.
func bf16VecR4Run(kern, pf func(n32 int, w *byte, wstride int, a *byte, out *float32, ostride int),
	n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	np := n &^ 31
	if np == 0 {
		r4Generic(dotBF16VecAsm, n, w, wstride, a, out, ostride)
		return
	}
	if streamPrefetch {
		kern = pf
	}
	kern(r4Args(np, 32, 64, 64, w, wstride, a, out, ostride))
	for k := 0; k < 4; k++ {
		sumf := 0.0
		sumf += float64(out[k*ostride])
		out[k*ostride] = bf16TailF64(sumf, np, n, w[k*wstride:], a)
	}
}

//go:noescape
func f16VecR4AVX512(n32 int, w *byte, wstride int, a *byte, out *float32, ostride int)

//go:noescape
func f16VecR4PfAVX512(n32 int, w *byte, wstride int, a *byte, out *float32, ostride int)

// f16VecR4Asm is four rows of dotF16VecAsm (the one-token F16 order) at
// once: the groups of 32 in assembly, each row's tail in Go as there.
func f16VecR4Asm(n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	np := n &^ 31
	if np == 0 {
		r4Generic(dotF16VecAsm, n, w, wstride, a, out, ostride)
		return
	}
	if streamPrefetch {
		f16VecR4PfAVX512(r4Args(np, 32, 64, 64, w, wstride, a, out, ostride))
	} else {
		f16VecR4AVX512(r4Args(np, 32, 64, 64, w, wstride, a, out, ostride))
	}
	if np == n {
		return
	}
	for k := 0; k < 4; k++ {
		sumf := float64(out[k*ostride])
		row := w[k*wstride:]
		for i := np; i < n; i++ {
			sumf += float64(quant.FP16ToFP32(binary.LittleEndian.Uint16(row[2*i:])) *
				quant.FP16ToFP32(binary.LittleEndian.Uint16(a[2*i:])))
		}
		out[k*ostride] = float32(sumf)
	}
}

// tileGeneric computes a rows x 4 tile of half-precision rows (n elements)
// with the single-row kernel f.
func tileGeneric(f vecDotFunc, rows, n int, w []byte, wstride int, a []byte, astride int, out []float32, ostride int) {
	rb := 2 * n
	for t := 0; t < 4; t++ {
		for r := 0; r < rows; r++ {
			out[t*ostride+r] = f(n, w[r*wstride:r*wstride+rb], a[t*astride:t*astride+rb])
		}
	}
}

// halfQuadF16 and halfQuadBF16 are the quad layouts of the half-precision
// tiles: the four tokens' rows widened to float32 once per
// batch (token t's row at 4*cols*t of the quad), so that the tiles widen
// only the weights.
var (
	halfQuadF16  = &actPacker{blockBytes: 16, pack: packHalfQuadF16}
	halfQuadBF16 = &actPacker{blockBytes: 16, pack: packHalfQuadBF16}
	// halfQuadF16Decode is halfQuadF16 for the AVX2 set, whose F16 tile
	// reads the tokens' F16 rows: only the one-token kernel reads it.
	halfQuadF16Decode = &actPacker{blockBytes: 16, pack: packHalfQuadF16, decodeOnly: true}
)

func packHalfQuadF16(dst, src []byte, rowBytes, n int) {
	packHalfQuad(dst, src, rowBytes, n, widenRowF16)
}

func packHalfQuadBF16(dst, src []byte, rowBytes, n int) {
	packHalfQuad(dst, src, rowBytes, n, widenRowBF16)
}

// packHalfQuad writes the quad of n (1..4) half-precision rows at src,
// rowBytes apart, each widened by widen into its float32 row; missing
// tokens become zero rows.
func packHalfQuad(dst, src []byte, rowBytes, n int, widen func(row, s []byte)) {
	cols := rowBytes / 2
	dst = dst[:16*cols]
	for t := 0; t < 4; t++ {
		row := dst[4*cols*t : 4*cols*(t+1)]
		if t >= n {
			clear(row)
			continue
		}
		widen(row, src[t*rowBytes:(t+1)*rowBytes])
	}
}

// widenRowF16 widens the F16 row s into row with VCVTPH2PS, the tail in Go.
func widenRowF16(row, s []byte) {
	cols := len(s) / 2
	n8 := cols &^ 7
	if n8 > 0 {
		f16ToF32BytesAVX2(n8/8, &row[0], &s[0])
	}
	for i := n8; i < cols; i++ {
		binary.LittleEndian.PutUint32(row[4*i:], math.Float32bits(quant.FP16ToFP32(binary.LittleEndian.Uint16(s[2*i:]))))
	}
}

// widenRowBF16 widens the BF16 row s into row (a BF16 is the high half of
// its float32), the tail in Go.
func widenRowBF16(row, s []byte) {
	cols := len(s) / 2
	n8 := cols &^ 7
	if n8 > 0 {
		_ = row[4*n8-1]
		bf16ToF32BytesAVX2(n8/8, &row[0], &s[0])
	}
	for i := n8; i < cols; i++ {
		binary.LittleEndian.PutUint32(row[4*i:], uint32(binary.LittleEndian.Uint16(s[2*i:]))<<16)
	}
}

//go:noescape
func bf16ToF32BytesAVX2(n8 int, dst, src *byte)

//go:noescape
func f32ToBF16AVX2(n8 int, dst *byte, src *float32)

// quantizeBF16Asm is quant.QuantizeRowBF16 (the activations of BF16
// weights), eight values at a time in assembly, the tail in Go.
func quantizeBF16Asm(src []float32, dst []byte) {
	n8 := len(src) &^ 7
	if n8 > 0 {
		_ = dst[2*n8-1]
		f32ToBF16AVX2(n8/8, &dst[0], &src[0])
	}
	for i := n8; i < len(src); i++ {
		binary.LittleEndian.PutUint16(dst[2*i:], quant.FP32ToBF16(src[i]))
	}
}

// f16ToF32BytesAVX2 is f16ToF32AVX2 (attn_amd64.s) on byte addresses.
//
//go:noescape
func f16ToF32BytesAVX2(n8 int, dst, src *byte)

//go:noescape
func f16Tile4x4F32AVX512(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)

//go:noescape
func bf16Tile4x4F32AVX512(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)

//go:noescape
func f16Tile4x4F32AVX512PF(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)

// halfTileF32 runs a rows x 4 tile kernel that reads the tokens from their
// widened quad aq; rows that are not whole groups of 8 run f on the
// half-precision rows a.
func halfTileF32(kern func(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int),
	f vecDotFunc, rows, n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	if n%8 != 0 || n == 0 {
		tileGeneric(f, rows, n, w, wstride, a, astride, out, ostride)
		return
	}
	_ = w[(rows-1)*wstride+2*n-1]
	_ = aq[16*n-1]
	_ = out[3*ostride+rows-1]
	kern(n/8, &w[0], wstride, &aq[0], 4*n, &out[0], ostride)
}

//go:noescape
func f16Tile8x4AVX512(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)

//go:noescape
func bf16Tile8x4AVX512(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)

// f16Tile8x4AVX512Asm and bf16Tile8x4AVX512Asm are the 512-bit 8 x 4 tiles
// (tile_half_avx512_amd64.s).
func f16Tile8x4AVX512Asm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	halfTileF32(f16Tile8x4AVX512, vecDotF16F16Generic, 8, n, w, wstride, a, astride, aq, out, ostride)
}

func bf16Tile8x4AVX512Asm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	halfTileF32(bf16Tile8x4AVX512, vecDotBF16BF16Generic, 8, n, w, wstride, a, astride, aq, out, ostride)
}

func f16Tile4x4F32Asm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	halfTileF32(f16Tile4x4F32AVX512, vecDotF16F16Generic, 4, n, w, wstride, a, astride, aq, out, ostride)
}

func bf16Tile4x4F32Asm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	halfTileF32(bf16Tile4x4F32AVX512, vecDotBF16BF16Generic, 4, n, w, wstride, a, astride, aq, out, ostride)
}

// f16Tile4x4F32PfAsm is f16Tile4x4F32Asm prefetching the next tile's
// rows (vecDot4x4Few).
func f16Tile4x4F32PfAsm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	halfTileF32(f16Tile4x4F32AVX512PF, vecDotF16F16Generic, 4, n, w, wstride, a, astride, aq, out, ostride)
}

//go:noescape
func f16Tile3x4AVX2(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)

//go:noescape
func bf16Tile3x4F32AVX2(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)

//go:noescape
func f16Tile3x4PfAVX2(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)

//go:noescape
func bf16Tile3x4F32PfAVX2(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)

// f16Tile3x4Asm is the AVX2 F16 tile over the tokens' F16 rows a (no
// quad); rows that are not whole groups of 8 run the generic kernel.
func f16Tile3x4Asm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	f16Tile3x4With(f16Tile3x4AVX2, n, w, wstride, a, astride, out, ostride)
}

// f16Tile3x4PfAsm is f16Tile3x4Asm prefetching the next tile's rows
// (vecDot3x4Few).
func f16Tile3x4PfAsm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	f16Tile3x4With(f16Tile3x4PfAVX2, n, w, wstride, a, astride, out, ostride)
}

func bf16Tile3x4F32PfAsm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	halfTileF32(bf16Tile3x4F32PfAVX2, vecDotBF16BF16Generic, 3, n, w, wstride, a, astride, aq, out, ostride)
}

func f16Tile3x4With(kern func(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int),
	n int, w []byte, wstride int, a []byte, astride int, out []float32, ostride int) {
	if n%8 != 0 || n == 0 {
		tileGeneric(vecDotF16F16Generic, 3, n, w, wstride, a, astride, out, ostride)
		return
	}
	_ = w[2*wstride+2*n-1]
	_ = a[3*astride+2*n-1]
	_ = out[3*ostride+2]
	kern(n/8, &w[0], wstride, &a[0], astride, &out[0], ostride)
}

func bf16Tile3x4F32Asm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	halfTileF32(bf16Tile3x4F32AVX2, vecDotBF16BF16Generic, 3, n, w, wstride, a, astride, aq, out, ostride)
}

//go:noescape
func dotF16F16r4x2AVX2(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, rstride, tstride int)

//go:noescape
func dotBF16BF16r4x2AVX2(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, rstride, tstride int)

func dotF16F16r4x2Asm(n int, w []byte, wstride int, a []byte, astride int, out []float32, rstride, tstride int) {
	halfR4x2(dotF16F16r4x2AVX2, vecDotF16F16Generic, n, w, wstride, a, astride, out, rstride, tstride)
}

func dotBF16BF16r4x2Asm(n int, w []byte, wstride int, a []byte, astride int, out []float32, rstride, tstride int) {
	halfR4x2(dotBF16BF16r4x2AVX2, vecDotBF16BF16Generic, n, w, wstride, a, astride, out, rstride, tstride)
}

// halfR4x2 runs a half-precision four-row two-token kernel; rows that are
// not whole groups of 8 run f pair by pair.
func halfR4x2(kern func(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, rstride, tstride int),
	f vecDotFunc, n int, w []byte, wstride int, a []byte, astride int, out []float32, rstride, tstride int) {
	if n%8 != 0 || n == 0 {
		for k := 0; k < 4; k++ {
			for t := 0; t < 2; t++ {
				out[k*rstride+t*tstride] = f(n, w[k*wstride:k*wstride+2*n], a[t*astride:t*astride+2*n])
			}
		}
		return
	}
	_ = w[3*wstride+2*n-1]
	_ = a[astride+2*n-1]
	_ = out[3*rstride+tstride]
	kern(n/8, &w[0], wstride, &a[0], astride, &out[0], rstride, tstride)
}
