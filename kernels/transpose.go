package kernels

// TransposeF32 sets dst[c*rows+r] = src[r*cols+c] for r < rows, c < cols.
// SIMD implementations move 8 x 8 blocks where rows and cols are
// multiples of 8.
func TransposeF32(dst, src []float32, rows, cols int) {
	if rows <= 0 || cols <= 0 {
		return
	}
	_ = dst[rows*cols-1]
	_ = src[rows*cols-1]
	active.transposeF32(dst, src, rows, cols)
}

func transposeF32Generic(dst, src []float32, rows, cols int) {
	for r := 0; r < rows; r++ {
		row := src[r*cols : (r+1)*cols]
		for c, x := range row {
			dst[c*rows+r] = x
		}
	}
}
