//go:build !purego

package kernels

import (
	"golang.org/x/sys/cpu"

	"github.com/gollm/gollm/ggml"
)

// The VDPBF16PS prefill tiles (tile_bf16dot.go) for CPUs with AVX512-BF16:
// 8 x 4 on 512-bit registers for the avx512zmm set, 4 x 4 on 256-bit ones
// for the avx512vnni set, each over rows in the pair layout and falling
// back to the set's float32 tiles where bf16DotSafe does not hold.
var (
	bf16DotTiles8 = &tileRewrite{rows: 8, rowScale: 1, pack: packBF16PairsAsm, generic: packBF16Pairs, tile: bf16DotTile8x4Asm,
		act: bf16DotQuadAsm, colsMultiple: 16, minTokens: pairsMinTokens,
		usable: bf16DotSafeAsm, fallback: bf16PairTiles}
	bf16DotTiles4 = &tileRewrite{rows: 4, rowScale: 1, pack: packBF16Pairs4Asm, generic: packBF16Pairs4, tile: bf16DotTile4x4Asm,
		act: bf16DotQuadAsm, colsMultiple: 16, minTokens: pairsMinTokens,
		usable: bf16DotSafeAsm}

	bf16DotQuadAsm = &actPacker{blockBytes: 8, pack: packBF16DotQuadAsm}
)

// fillBF16Dot gives an AVX-512 set the VDPBF16PS tile of its width where
// the CPU has the instruction.
func fillBF16Dot(s *kernelSet, tiles *tileRewrite) {
	if cpu.X86.HasAVX512BF16 {
		s.tileRewrite[ggml.BF16] = tiles
	}
}

//go:noescape
func bf16DotTile8x4AVX512(n16 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)

//go:noescape
func bf16DotTile4x4AVX512(n16 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)

//go:noescape
func interleaveBF16AVX512(n16 int, dst, src *byte)

//go:noescape
func bf16MinExpAVX512(n32 int, src *byte) uint16

// bf16DotSafeAsm is bf16DotSafe with the exponents scanned in assembly.
func bf16DotSafeAsm(w *Matrix, a *Acts) bool { return bf16DotSafe(w, a, bf16MinExpAsm) }

// bf16MinExpAsm is bf16MinExp, 32 values at a time in assembly, the tail
// in Go.
func bf16MinExpAsm(data []byte) int {
	n32 := len(data) / 64
	m := bf16MinExp(data[64*n32:])
	if n32 > 0 {
		m = min(m, int(bf16MinExpAVX512(n32, &data[0])))
	}
	return m
}

func bf16DotTile8x4Asm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	pairTileCall(bf16DotTile8x4AVX512, 16, 8, 4, 2, n, w, wstride, aq, out, ostride)
}

func bf16DotTile4x4Asm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	pairTileCall(bf16DotTile4x4AVX512, 16, 4, 4, 2, n, w, wstride, aq, out, ostride)
}

// packBF16DotQuadAsm is packBF16DotQuad with the rows interleaved in
// assembly.
func packBF16DotQuadAsm(dst, src []byte, rowBytes, n int) {
	packBF16DotQuadWith(dst, src, rowBytes, n, interleaveBF16RowAsm)
}

// interleaveBF16RowAsm is interleaveBF16Row in assembly.
func interleaveBF16RowAsm(dst, src []byte) {
	n16 := len(src) / 32
	if n16 == 0 {
		return
	}
	_ = dst[32*n16-1]
	interleaveBF16AVX512(n16, &dst[0], &src[0])
}

// packBF16Pairs4Asm is packBF16Pairs4 in assembly.
func packBF16Pairs4Asm(dst, src []byte, rowBytes int) {
	packBF16PairRowsAsm(dst, src, rowBytes, 4)
}
