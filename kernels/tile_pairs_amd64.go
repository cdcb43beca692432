//go:build !purego

package kernels

//go:noescape
func f16PairTile8x4AVX512(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)

//go:noescape
func bf16PairTile8x4AVX512(n16 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)

// f16PairTiles and bf16PairTiles are the 512-bit tiles over rows in the
// pair layout (tile_pairs_avx512_amd64.s).
var (
	f16PairTiles = &tileRewrite{rows: 8, rowScale: 1, pack: packF16PairsAsm, generic: packF16Pairs, tile: f16PairTile8x4Asm,
		tile4x8: f16PairTile4x8Asm, colsMultiple: 8, minTokens: pairsMinTokens}
	bf16PairTiles = &tileRewrite{rows: 8, rowScale: 1, pack: packBF16PairsAsm, generic: packBF16Pairs, tile: bf16PairTile8x4Asm,
		colsMultiple: 16, minTokens: pairsMinTokens}
)

func f16PairTile8x4Asm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	pairTileCall(f16PairTile8x4AVX512, 8, 8, 4, 4, n, w, wstride, aq, out, ostride)
}

//go:noescape
func f16PairTile4x8AVX512(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)

// f16PairTile4x8Asm is the 4 x 8 F16 tile on two pairs and the two quads
// at aq.
func f16PairTile4x8Asm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	pairTileCall(f16PairTile4x8AVX512, 8, 4, 8, 4, n, w, wstride, aq, out, ostride)
}

func bf16PairTile8x4Asm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	pairTileCall(bf16PairTile8x4AVX512, 16, 8, 4, 4, n, w, wstride, aq, out, ostride)
}

// pairTileCall runs a rows x ntok pair tile on rows of n columns (a
// multiple of group) after checking the slices' lengths; the tokens are
// the quads aq, token t's row at tokBytes*n*t (halfQuadF16/BF16: float32,
// tokBytes 4; bf16DotQuad: BF16, 2).
func pairTileCall(kern func(ng int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int),
	group, rows, ntok, tokBytes, n int, w []byte, wstride int, aq []byte, out []float32, ostride int) {
	if n%group != 0 || wstride != 2*n {
		panic("kernels: pair tile on rows of a partial group")
	}
	_ = w[(rows-1)*wstride+2*n-1]
	_ = aq[tokBytes*ntok*n-1]
	_ = out[(ntok-1)*ostride+rows-1]
	if n == 0 {
		for t := 0; t < ntok; t++ {
			clear(out[t*ostride : t*ostride+rows])
		}
		return
	}
	kern(n/group, &w[0], wstride, &aq[0], tokBytes*n, &out[0], ostride)
}

//go:noescape
func packF16PairAVX512(n32 int, dst, r0, r1 *byte)

//go:noescape
func packBF16PairAVX512(n32 int, dst, r0, r1 *byte)

// packF16PairsAsm is packF16Pairs: each pair's whole 32-byte pieces in
// assembly, an odd group at the end in Go.
func packF16PairsAsm(dst, src []byte, rowBytes int) {
	_ = src[8*rowBytes-1]
	_ = dst[8*rowBytes-1]
	n32 := rowBytes / 32
	for p := 0; p < 4; p++ {
		r0, r1 := src[2*p*rowBytes:(2*p+1)*rowBytes], src[(2*p+1)*rowBytes:(2*p+2)*rowBytes]
		d := dst[2*p*rowBytes : (2*p+2)*rowBytes]
		if n32 > 0 {
			packF16PairAVX512(n32, &d[0], &r0[0], &r1[0])
		}
		for c := 32 * n32; c+16 <= rowBytes; c += 16 {
			copy(d[2*c:2*c+16], r0[c:c+16])
			copy(d[2*c+16:2*c+32], r1[c:c+16])
		}
	}
}

// packBF16PairsAsm is packBF16Pairs in assembly (rows of whole 32-byte
// pieces, as the layout takes).
func packBF16PairsAsm(dst, src []byte, rowBytes int) {
	packBF16PairRowsAsm(dst, src, rowBytes, 8)
}

// packBF16PairRowsAsm is packBF16PairRows in assembly.
func packBF16PairRowsAsm(dst, src []byte, rowBytes, rows int) {
	_ = src[rows*rowBytes-1]
	_ = dst[rows*rowBytes-1]
	if rowBytes%32 != 0 {
		panic("kernels: BF16 pair layout of rows of a partial piece")
	}
	for p := 0; p < rows/2; p++ {
		packBF16PairAVX512(rowBytes/32, &dst[2*p*rowBytes], &src[2*p*rowBytes], &src[(2*p+1)*rowBytes])
	}
}
