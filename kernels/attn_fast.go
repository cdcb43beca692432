package kernels

import "unsafe"

// The kernels of the long-context attention path. llama.cpp's f16
// flash-attention arithmetic (attn_f16.go) rounds its accumulator to f16
// after every cached row and reduces every score horizontally; reproducing
// it costs ~40-50 ns per (query head, cached position). Past a few hundred
// positions the engine no longer needs llama.cpp's bits, and these kernels
// do the same attention in f32 at a few ns per (head, position):
//
//   - a tile of cached rows is widened from f16 to f32 once (AttnWidenK,
//     F16RowsToF32) into an L1-sized scratch, and every query head of the
//     KV head's GQA group reads it from there;
//   - AttnScores takes eight rows per head at a time, one 8-lane FMA
//     accumulator per row, and reduces the eight accumulators together
//     with a transpose (no horizontal sum per row);
//   - AttnSoftmax is one online-softmax step per tile and head: the tile's
//     maximum, one rescale factor for what was accumulated before, the
//     weights from a vectorized f32 exponential (expFast);
//   - AttnAccumV rescales each head's f32 accumulator once and adds the
//     tile's weighted value rows with FMAs.
//
// Every SIMD implementation computes the generic code's bits
// (attn_fast_generic.go): same lanes, same reduction trees, same fused
// operations.

// F16RowsToF32 widens rows rows of n halves, src[r*srcStride:][:n], into
// dst[r*dstStride:][:n]. Elements of dst past n in each row are left as
// they are.
func F16RowsToF32(dst []float32, dstStride int, src []uint16, srcStride, rows, n int) {
	if rows <= 0 || n <= 0 {
		return
	}
	_ = dst[(rows-1)*dstStride+n-1]
	_ = src[(rows-1)*srcStride+n-1]
	active.f16RowsToF32(dst, dstStride, src, srcStride, rows, n)
}

// The K tile layout. AttnScores reads a tile of key rows in groups of
// eight rows, each group 8*dim floats holding four row pairs (r, r+4),
// each pair 2*dim floats of 16-float slots: slot c is elements 8c..8c+7 of
// row r, then of row r+4. One 16-lane load is then the same eight
// elements of two rows, and 8-lane code reads each row's elements in
// order (kTileIndex). AttnWidenK and AttnPutKRow write rows into it.

// kTileIndex is the index of element d of row r in a K tile of row
// length dim.
func kTileIndex(r, d, dim int) int {
	return r/8*8*dim + r%4*2*dim + d/8*16 + r%8/4*8 + d%8
}

// AttnKTileLen is the length of a K tile of rows rows (rounded up to 8)
// of dim floats.
func AttnKTileLen(rows, dim int) int { return (rows + 7) &^ 7 * dim }

// AttnWidenK widens rows rows of n halves, src[i*srcStride:][:n], into
// rows row..row+rows-1 of the K tile k of row length dim (a multiple of
// 8, n <= dim). Elements n..dim-1 of each row are left as they are (zero
// padding, written once).
func AttnWidenK(k []float32, dim, row int, src []uint16, srcStride, rows, n int) {
	if rows <= 0 || n <= 0 {
		return
	}
	if dim%8 != 0 || n > dim || row < 0 {
		panic("kernels: AttnWidenK needs dim%8 == 0, n <= dim, row >= 0")
	}
	_ = k[AttnKTileLen(row+rows, dim)-1]
	_ = src[(rows-1)*srcStride+n-1]
	active.attnWidenK(k, dim, row, src, srcStride, rows, n)
}

// AttnWidenKHeads is AttnWidenK for heads KV heads at once: head h's n
// halves of each cached row i < rows, src[i*srcStride+h*headStride:][:n],
// go to row row+i of the K tile k[h*tileLen:] (tileLen >=
// AttnKTileLen(row+rows, dim)). Each cached row is read once, from its
// first head's slice to its last: in address order, which the hardware
// prefetchers follow; head by head, each head's slices of the rows are
// scattered and a decode step read them at about half the speed
// (BenchmarkAttnDecodeRows).
func AttnWidenKHeads(k []float32, tileLen, dim, row int, src []uint16, srcStride, headStride, heads, rows, n int) {
	if rows <= 0 || n <= 0 || heads <= 0 {
		return
	}
	if dim%8 != 0 || n > dim || row < 0 || tileLen < AttnKTileLen(row+rows, dim) {
		panic("kernels: AttnWidenKHeads needs dim%8 == 0, n <= dim, row >= 0 and tiles of the rows")
	}
	_ = k[(heads-1)*tileLen+AttnKTileLen(row+rows, dim)-1]
	_ = src[(rows-1)*srcStride+(heads-1)*headStride+n-1]
	active.attnWidenKHeads(k, tileLen, dim, row, src, srcStride, headStride, heads, rows, n)
}

// F16RowsToF32Heads is F16RowsToF32 for heads KV heads at once: head h's
// n halves of each cached row i < rows, src[i*srcStride+h*headStride:][:n],
// go to dst[h*tileLen+i*dstStride:][:n], each cached row read once in
// address order (AttnWidenKHeads). Elements past n are left as they are.
func F16RowsToF32Heads(dst []float32, tileLen, dstStride int, src []uint16, srcStride, headStride, heads, rows, n int) {
	if rows <= 0 || n <= 0 || heads <= 0 {
		return
	}
	_ = dst[(heads-1)*tileLen+(rows-1)*dstStride+n-1]
	_ = src[(rows-1)*srcStride+(heads-1)*headStride+n-1]
	for i := 0; i < rows; i++ {
		// One cached row: its heads' slices as rows of a widening.
		active.f16RowsToF32(dst[i*dstStride:], tileLen, src[i*srcStride:], headStride, heads, n)
	}
}

// AttnPutKRow writes src (at most dim floats) as row row of the K tile k
// of row length dim (f32 and dequantized caches).
func AttnPutKRow(k []float32, dim, row int, src []float32) {
	_ = k[AttnKTileLen(row+1, dim)-1]
	for d0 := 0; d0 < len(src); d0 += 8 {
		i := kTileIndex(row, d0, dim)
		copy(k[i:i+8], src[d0:min(d0+8, len(src))])
	}
}

// AttnPrefetch asks the CPU to start loading rows rows of n halves,
// src[i*stride:][:n], into its L2 cache: the next tile of cached keys or
// values, while the current one is computed (a KV head's slice of each
// cached row is too scattered for the hardware prefetchers).
func AttnPrefetch(src []uint16, stride, rows, n int) {
	if rows <= 0 || n <= 0 {
		return
	}
	_ = src[(rows-1)*stride+n-1]
	active.attnPrefetch(unsafe.Slice((*byte)(unsafe.Pointer(&src[0])), 2*((rows-1)*stride+n)), 2*stride, rows, 2*n)
}

// AttnPrefetchBytes is AttnPrefetch for rows of n bytes, stride bytes
// apart (a quantized cache's rows).
func AttnPrefetchBytes(src []byte, stride, rows, n int) {
	if rows <= 0 || n <= 0 {
		return
	}
	_ = src[(rows-1)*stride+n-1]
	active.attnPrefetch(src, stride, rows, n)
}

// AttnScores sets s[g*sStride+r] = q[g*dim:][:dim] · (row r of the K tile
// k) for every head g < heads and row r < rows8, rows8 = rows rounded up
// to a multiple of 8 (k and s must hold the padding rows; their scores
// are garbage the softmax masks). dim must be a multiple of 8 (pad with
// zeros). Each dot product runs in 8 lanes (lane l sums the elements
// d ≡ l mod 8 with FMAs, in order) reduced as
// ((l0+l2)+(l1+l3)) + ((l4+l6)+(l5+l7)).
func AttnScores(s []float32, sStride int, q, k []float32, heads, rows, dim int) {
	if heads <= 0 || rows <= 0 || dim <= 0 {
		return
	}
	if dim%8 != 0 || sStride < rows {
		panic("kernels: AttnScores needs dim%8 == 0 and sStride >= rows")
	}
	rows8 := (rows + 7) &^ 7
	_ = s[(heads-1)*sStride+rows8-1]
	_ = q[heads*dim-1]
	_ = k[rows8*dim-1]
	active.attnScores(s, sStride, q, k, heads, rows8, dim)
}

// AttnSoftmax is one online-softmax step over a tile of rows scores per
// head (s[g*sStride:][:rows]; sStride >= rows rounded up to 8), scaled by
// scale > 0 (1/sqrt(head size): the scores are raw dot products), with the
// running maximum m[g] of the raw scores and sum l[g] of the weights that
// came before: with M = max(m[g], tile maximum), it sets alpha[g] =
// e^((m[g]-M)*scale) (the factor the earlier accumulator must be scaled
// by), replaces each score x by its weight e^((x-M)*scale) (the padding up
// to a multiple of 8 by 0), and sets m[g] = M, l[g] = l[g]*alpha[g] + (sum
// of the weights). Start a sequence with m = -Inf, l = 0. The exponential
// is expFast.
func AttnSoftmax(s []float32, sStride, heads, rows int, scale float32, m, l, alpha []float32) {
	if heads <= 0 || rows <= 0 {
		return
	}
	rows8 := (rows + 7) &^ 7
	if sStride < rows8 {
		panic("kernels: AttnSoftmax needs sStride >= rows rounded up to 8")
	}
	_ = s[(heads-1)*sStride+rows8-1]
	_, _, _ = m[heads-1], l[heads-1], alpha[heads-1]
	active.attnSoftmax(s, sStride, heads, rows, scale, m, l, alpha)
}

// AttnAccumV sets acc[g*dim+d] = acc[g*dim+d]*alpha[g] + Σ_r p[g*pStride+r]
// * v[r*dim+d] for every head g < heads and d < dim (a multiple of 8), the
// sum over r = 0..rows-1 in order, each step one FMA.
func AttnAccumV(acc, p []float32, pStride int, v []float32, heads, rows, dim int, alpha []float32) {
	if heads <= 0 || dim <= 0 {
		return
	}
	if dim%8 != 0 || rows < 0 || (rows > 0 && pStride < rows) {
		panic("kernels: AttnAccumV needs dim%8 == 0 and pStride >= rows")
	}
	_ = acc[heads*dim-1]
	_ = alpha[heads-1]
	if rows > 0 {
		_ = p[(heads-1)*pStride+rows-1]
		_ = v[rows*dim-1]
	}
	active.attnAccumV(acc, p, pStride, v, heads, rows, dim, alpha)
}

// ExpFast returns the exponential the long-context softmax uses: Cephes'
// expf polynomial in f32 with fused multiply-adds, its argument clamped to
// [-86, 88] (so e^x for x < -86 is e^-86 ≈ 4e-38 rather than 0, and no
// result is subnormal or infinite). Relative error ~1e-7.
func ExpFast(x float32) float32 { return expFast(x) }
