//go:build !purego

package kernels

//go:noescape
func transpose8x8AVX2(dst, src *float32, rows, cols int)

// transposeF32Asm moves 8 x 8 blocks in the assembly when rows and cols
// are multiples of 8.
func transposeF32Asm(dst, src []float32, rows, cols int) {
	if rows%8 != 0 || cols%8 != 0 {
		transposeF32Generic(dst, src, rows, cols)
		return
	}
	transpose8x8AVX2(&dst[0], &src[0], rows, cols)
}
