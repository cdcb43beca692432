//go:build !purego

package kernels

import "github.com/gollm/gollm/ggml"

// bf16IlvTiles is the AVX2 set's BF16 3 x 4 tile over interleaved rows
// (tile_bf16ilv.go), on AMD Zen4. The tile alone (BenchmarkTiles, in
// cache) takes 0.87x the own tile's time; with the rewrite, MatMul
// 5632x2048 and 2048x5632 CPU time new/old (two threads, --kernels avx2):
// ntok=8 1.03-1.41, 16 0.87-1.14, 24 0.94-0.99, 32 0.92-0.94, 64
// 0.90-0.93; MatMulPrefill 512 tokens 67.3-68.0 -> 60.7-63.3 ms and
// 69.0-69.7 -> 61.7-62.3 ms.
var bf16IlvTiles = &tileRewrite{rows: 3, rowScale: 1, pack: packBF16Ilv3Asm, generic: packBF16Ilv3,
	tile: bf16IlvTile3x4Asm, colsMultiple: 16, minTokens: 24}

// ilvBF16Tiles gives the AVX2 set s the BF16 tile over interleaved rows.
func ilvBF16Tiles(s *kernelSet) {
	s.tileRewrite[ggml.BF16] = bf16IlvTiles
}

//go:noescape
func interleaveBF16AVX2(n16 int, dst, src *byte)

//go:noescape
func bf16IlvTile3x4AVX2(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)

// packBF16Ilv3 is packBF16IlvRows for a 3-row tile.
func packBF16Ilv3(dst, src []byte, rowBytes int) { packBF16IlvRows(dst, src, rowBytes, 3) }

// packBF16Ilv3Asm is packBF16Ilv3 in assembly.
func packBF16Ilv3Asm(dst, src []byte, rowBytes int) {
	if rowBytes%32 != 0 {
		panic("kernels: interleaved BF16 rows of a partial group")
	}
	n := 3 * rowBytes
	_, _ = src[n-1], dst[n-1]
	interleaveBF16AVX2(n/32, &dst[0], &src[0])
}

// bf16IlvTile3x4Asm is the 3 x 4 tile on three interleaved BF16 rows (n a
// multiple of 16: tileRewrite.colsMultiple) and the tokens' float32 quad
// aq.
func bf16IlvTile3x4Asm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	if n%16 != 0 {
		panic("kernels: interleaved BF16 tile on rows of a partial group")
	}
	_ = w[2*wstride+2*n-1]
	tile3x4F32Quad(bf16IlvTile3x4AVX2, n, w, wstride, aq, out, ostride)
}
