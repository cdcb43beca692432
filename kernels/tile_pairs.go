package kernels

import "encoding/binary"

// Half-precision weight rows rearranged in pairs for the 512-bit prefill
// tiles (kernelSet.tileRewrite: 8 rows x 4 tokens, and for F16 4 x 8).
//
// The F16 and BF16 tiles keep llama.cpp's 8-lane order (each output's sum
// in 8 lanes, vecdot_half_amd64.s), so a 512-bit register holds two
// outputs. Reading rows as they lie, the tile widens each row's 8 weights
// and copies them into both halves of a register: two operations per 16
// products besides the multiply-add, which compete with it for the vector
// ports (on an Intel Xeon the copy and the FMA share port 5: the tile ran
// at half the FMA units' peak). Prefill therefore rewrites the rows of its
// row unit once per MatMul (as q8rows.go does for Q5_0) so that one 256-bit
// load holds the same 8 elements of two adjacent rows: one widening gives
// a register [row 2p | row 2p+1], the tokens come broadcast into both
// halves by a load alone, and the multiply-adds keep the same bits.
//
// Layout of an 8-row tile (rows rowBytes apart in the source, the output
// the same size): pair p (rows 2p and 2p+1) fills bytes [2p*rowBytes,
// (2p+2)*rowBytes).
//   - F16: for each group c of 8 elements, 32 bytes: row 2p's 8 halves,
//     then row 2p+1's.
//   - BF16: for each two groups 2d, 2d+1, 64 bytes: 16 dwords, dword i
//     (row 2p+i/8, lane i%8) holding group 2d's value in its upper word
//     and group 2d+1's in its lower, so that a mask of the upper words
//     gives group 2d widened to float32 and a shift by 16 group 2d+1: one
//     operation per 16 weights, as VCVTPH2PS is for F16.

// tileRewrite is a set's prefill tile for one weight type over rows that
// prefill rewrites once per row unit: the pair layout below, the
// half-precision rows widened to float32 (tile_widen.go), or Q8_0 rows
// widened to int16 (tile_q8_wide.go).
type tileRewrite struct {
	// rows is the number of rows of a tile (the rows of the set's own
	// tile, which it replaces).
	rows int
	// rowScale is the rewritten rows' bytes per source byte (1, or 2 for
	// rows widened from 16 to 32 bits or from Q8_0 to int16).
	rowScale int
	// pack rewrites one tile of rows rows (src: rows rowBytes apart) into
	// dst (rows*rowScale*rowBytes bytes).
	pack func(dst, src []byte, rowBytes int)
	// generic is pack's generic twin, byte for byte (the tests'
	// reference).
	generic func(dst, src []byte, rowBytes int)
	// tile is the rows x 4 tile over rewritten rows (vecDot2x4Func;
	// wstride is rowScale*rowBytes), the same bits as the type's tokenDot.
	tile vecDot2x4Func
	// tileQ, if set, is tile over several quads (vecDot2x4QFunc; 2-row
	// tiles), which the set's row-tiles-outer order takes.
	tileQ vecDot2x4QFunc
	// act, if set, is the quad layout of the tokens that the tiles read
	// (built on first use, Acts.quadsB); nil: the set's actQuad.
	act *actPacker
	// tile4x8, if set, is the tile on two pairs (4 rows) and two quads
	// (8 tokens: aq holds both, out[t*ostride+r] for t < 8), same bits:
	// prefill takes it for whole pairs of quads.
	tile4x8 vecDot2x4Func
	// colsMultiple: the layout takes rows of a multiple of this many
	// columns (other matrices keep the row tiles).
	colsMultiple int
	// minTokens is the batch from which prefill rewrites the rows: below
	// it, the rewrite costs more than the tile saves.
	minTokens int
	// usable, if set, reports whether the tiles compute w x a to the
	// bit (bf16DotSafe); where it does not, MatMul takes fallback.
	usable   func(w *Matrix, a *Acts) bool
	fallback *tileRewrite
}

// fits reports whether tp (nil: none) takes a matmul whose tiles are
// tileRows rows, of ntok tokens and rows of cols columns.
func (tp *tileRewrite) fits(tileRows, ntok, cols int) bool {
	return tp != nil && tileRows == tp.rows && ntok >= tp.minTokens && cols%tp.colsMultiple == 0
}

// pairsMinTokens is the pair tiles' minTokens: the rewrite costs about a
// copy of the rows, the old tiles' extra operations a fifth of their time
// per quad.
const pairsMinTokens = 8

// packF16Pairs writes one 8-row F16 tile in the pair layout.
func packF16Pairs(dst, src []byte, rowBytes int) {
	_ = src[8*rowBytes-1]
	_ = dst[8*rowBytes-1]
	for p := 0; p < 4; p++ {
		r0, r1 := src[2*p*rowBytes:(2*p+1)*rowBytes], src[(2*p+1)*rowBytes:(2*p+2)*rowBytes]
		d := dst[2*p*rowBytes : (2*p+2)*rowBytes]
		for c := 0; c+16 <= rowBytes; c += 16 {
			copy(d[2*c:2*c+16], r0[c:c+16])
			copy(d[2*c+16:2*c+32], r1[c:c+16])
		}
	}
}

// packBF16Pairs writes one 8-row BF16 tile in the pair layout (rows of a
// multiple of 16 columns).
func packBF16Pairs(dst, src []byte, rowBytes int) { packBF16PairRows(dst, src, rowBytes, 8) }

// packBF16Pairs4 is packBF16Pairs for a 4-row tile (bf16DotTiles4).
func packBF16Pairs4(dst, src []byte, rowBytes int) { packBF16PairRows(dst, src, rowBytes, 4) }

// packBF16PairRows writes rows (even) BF16 rows in the pair layout.
func packBF16PairRows(dst, src []byte, rowBytes, rows int) {
	_ = src[rows*rowBytes-1]
	_ = dst[rows*rowBytes-1]
	for p := 0; p < rows/2; p++ {
		d := dst[2*p*rowBytes : (2*p+2)*rowBytes]
		for c := 0; c+32 <= rowBytes; c += 32 { // two groups of 8: 32 bytes of a row
			for h := 0; h < 2; h++ {
				interleaveBF16(d[2*c+32*h:2*c+32*h+32], src[(2*p+h)*rowBytes+c:(2*p+h)*rowBytes+c+32])
			}
		}
	}
}

// interleaveBF16 writes the 16 BF16 values of r (two groups of 8) as
// eight dwords into d: dword l holds element l in its upper word and
// element 8+l in its lower.
func interleaveBF16(d, r []byte) {
	_, _ = d[31], r[31]
	for l := 0; l < 8; l++ {
		hi := binary.LittleEndian.Uint16(r[2*l:])
		lo := binary.LittleEndian.Uint16(r[16+2*l:])
		binary.LittleEndian.PutUint32(d[4*l:], uint32(hi)<<16|uint32(lo))
	}
}
