package kernels

// BF16 rows interleaved for the AVX2 3 x 4 prefill tile on AMD Zen4
// (tileRewrite; tile_bf16ilv_amd64.go).
//
// The set's own BF16 tile widens each row's 8 weights with VPMOVZXWD and
// VPSLLD: two operations per 8 weights (on a Zen4 a VPMOVZXWD, a VPSLLD
// and a multiply-add ran one such trio a cycle, where VCVTPH2PS and a
// multiply-add ran two pairs), which left the tile at 81% of the FMA peak
// where the F16 tile reaches 97% (BenchmarkTiles). Prefill therefore rewrites a
// tile's rows once per row unit in the pair layout's interleave
// (interleaveBF16: dword l of each 16 elements holds element l in its
// upper word and element 8+l in its lower), the same bytes per row: a
// mask of the upper words gives group 2d widened to float32, a shift by
// 16 group 2d+1, one operation per 8 weights, the mask on any pipe. The
// tokens keep their float32 quad (halfQuadBF16), every pair's 8 lanes take
// the groups in order: the same bits as the set's own tile.

// packBF16IlvRows writes rows BF16 rows (rowBytes apart, rows of a
// multiple of 16 elements) interleaved, each in its place: the generic
// twin of the rewrite.
func packBF16IlvRows(dst, src []byte, rowBytes, rows int) {
	n := rows * rowBytes
	_, _ = src[n-1], dst[n-1]
	for c := 0; c+32 <= n; c += 32 {
		interleaveBF16(dst[c:c+32], src[c:c+32])
	}
}
