//go:build !purego

package kernels

import (
	"github.com/gollm/gollm/ggml"
	"github.com/klauspost/cpuid/v2"
)

// widenRowsFirst says whether the AVX2 set's prefill tiles read rows
// widened once per row unit: F16 and BF16 to float32 (tile_widen.go), Q8_0
// to int16 (tile_q8_wide.go). On Intel CPUs, whose conversions and byte
// multiplies share the multiply-adds' ports.
var widenRowsFirst = cpuid.CPU.VendorID == cpuid.Intel

// widenQ8RowsFirst says whether the AVX2 set's Q8_0 prefill tile reads
// rows widened to int16: where widenRowsFirst says so, and on AMD Zen4
// (isZen4), whose VPSIGNB and VPMADDUBSW, like VPMADDWD, run on the two
// pipes of the multiply-adds (each alone and mixed with VFMADD231PS: two
// a cycle). The
// lane order's pair costs four operations of those pipes there (two
// cycles; 2.04 measured for the pair alone), the widened rows' pair
// three. The conversions and shuffles take Zen4's other two pipes, and
// its F16 and BF16 tiles over widened rows ran 10-30% slower than the
// set's own (MatMul ntok=64): those stay Intel's. Zen4, --kernels avx2,
// two threads, new/old time: MatMul Q8_0 ntok=32 0.90-0.99, ntok=64
// 0.81-0.88; MatMulPrefill 512 tokens 5632x2048 66.4-67.6 -> 53.2-53.6
// ms, 2048x5632 66.2 -> 57.0-57.2 ms; TinyLlama Q8_0 pp512 against
// llama.cpp's haswell build 1.01x -> 1.22x. (Zen5 not measured.)
var widenQ8RowsFirst = widenRowsFirst || isZen4

// isZen4 reports an AMD Zen4: halfWidth512's family 0x19 with AVX-512
// (Zen3, the same family, has none).
var isZen4 = halfWidth512 && cpuid.CPU.Supports(cpuid.AVX512F)

// widenHalfTiles gives the AVX2 set s the 3 x 4 tile over widened F16 and
// BF16 rows, and the F16 tokens' float32 quads it reads (the set's own F16
// tile reads the tokens' F16 rows).
func widenHalfTiles(s *kernelSet) {
	s.actQuad[ggml.F16] = halfQuadF16
	s.tileRewrite[ggml.F16] = f16WideTiles
	s.tileRewrite[ggml.BF16] = bf16WideTiles
}

// f16WideTiles and bf16WideTiles: widening a row unit costs about as much
// as the tiles save for 16 tokens (F16) and 32 (BF16, whose own tile reads
// float32 tokens already), hence minTokens 32 and 64 (MatMul 5632x2048, 2048x5632 and 4096x4096 on an
// Intel Xeon, two threads, new/old time: F16 ntok=16 0.99-1.09, 24
// 0.91-0.99, 32 0.87-0.91, 64 0.77-0.90, 512 0.74-0.77; BF16 16
// 1.13-1.20, 32 0.98-1.04, 64 0.96-0.98, 512 0.78-0.90).
var (
	f16WideTiles = &tileRewrite{rows: 3, rowScale: 2, pack: widenF16RowsAsm,
		generic: func(dst, src []byte, rowBytes int) { widenF16Rows(dst, src, rowBytes, 3) }, tile: f32Tile3x4Asm,
		colsMultiple: 8, minTokens: 32}
	bf16WideTiles = &tileRewrite{rows: 3, rowScale: 2, pack: widenBF16RowsAsm,
		generic: func(dst, src []byte, rowBytes int) { widenBF16Rows(dst, src, rowBytes, 3) }, tile: f32Tile3x4Asm,
		colsMultiple: 8, minTokens: 64}
)

// widenF16RowsAsm widens a 3-row F16 tile (rows of a multiple of 8
// columns) with VCVTPH2PS.
func widenF16RowsAsm(dst, src []byte, rowBytes int) {
	widenRowsWith(widenRowF16, dst, src, rowBytes)
}

// widenBF16RowsAsm widens a 3-row BF16 tile.
func widenBF16RowsAsm(dst, src []byte, rowBytes int) {
	widenRowsWith(widenRowBF16, dst, src, rowBytes)
}

func widenRowsWith(widen func(row, s []byte), dst, src []byte, rowBytes int) {
	_ = src[3*rowBytes-1]
	_ = dst[6*rowBytes-1]
	for r := 0; r < 3; r++ {
		widen(dst[2*r*rowBytes:2*(r+1)*rowBytes], src[r*rowBytes:(r+1)*rowBytes])
	}
}

//go:noescape
func f32Tile3x4AVX2(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)

// f32Tile3x4Asm is the 3 x 4 tile on three float32 rows (n a multiple of
// 8: tileRewrite.colsMultiple) and the tokens' float32 quad aq.
func f32Tile3x4Asm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	if n%8 != 0 {
		panic("kernels: float32 tile on rows of a partial group")
	}
	_ = w[2*wstride+4*n-1]
	tile3x4F32Quad(f32Tile3x4AVX2, n, w, wstride, aq, out, ostride)
}

// tile3x4F32Quad runs a 3 x 4 tile kernel over rows (checked by the
// caller) against the tokens' float32 quad aq (n elements a token, a
// multiple of 8): zeros for empty rows.
func tile3x4F32Quad(kern func(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int),
	n int, w []byte, wstride int, aq []byte, out []float32, ostride int) {
	_ = aq[16*n-1]
	_ = out[3*ostride+2]
	if n == 0 {
		for t := 0; t < 4; t++ {
			clear(out[t*ostride : t*ostride+3])
		}
		return
	}
	kern(n/8, &w[0], wstride, &aq[0], 4*n, &out[0], ostride)
}
