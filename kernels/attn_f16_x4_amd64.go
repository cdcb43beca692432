//go:build !purego

package kernels

//go:noescape
func madF16Rows4AVX512(acc0, acc1, acc2, acc3, v *uint16, stride, rows int, ms0, ms1, ms2, ms3, vs0, vs1, vs2, vs3 *float32)

// madF16Rows4AVX512Asm is the avx512zmm set's MadF16Rows4: the 512-bit
// kernel (attn_f16_x4_avx512_amd64.s) on each 64 accumulators of the four
// heads in turn (the steps are per element, so slices of a head are
// independent), or the two-head kernel twice for other lengths. The
// caller (MadF16Rows4) has checked the slices' lengths.
func madF16Rows4AVX512Asm(acc [4][]uint16, v []uint16, stride int, ms, vs [4][]float32) {
	n, rows := len(acc[0]), len(vs[0])
	if n == 0 || n%64 != 0 {
		vnniSet.madF16Rows2(acc[0], acc[1], v, stride, ms[0], vs[0], ms[1], vs[1])
		vnniSet.madF16Rows2(acc[2], acc[3], v, stride, ms[2], vs[2], ms[3], vs[3])
		return
	}
	for c := 0; c < n; c += 64 {
		madF16Rows4AVX512(&acc[0][c], &acc[1][c], &acc[2][c], &acc[3][c], &v[c], 2*stride, rows,
			&ms[0][0], &ms[1][0], &ms[2][0], &ms[3][0], &vs[0][0], &vs[1][0], &vs[2][0], &vs[3][0])
	}
}
