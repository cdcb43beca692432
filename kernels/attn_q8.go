package kernels

import "github.com/gollm/gollm/quant"

// The one-row attention helpers of a q8_0 KV cache (llama.cpp's VKQ32
// path: scores as Q8_0 dot products, each value row dequantized to f32
// and added with its weight). The value step read the row through
// quant.DequantizeRowQ8_0 and a scalar Axpy, 60% of a q8_0 cache's
// prompt time at depth; AxpyQ8_0 does both in one pass with the same
// roundings.

// AxpyQ8_0 sets y[i] += a * x[i] for the values x of the Q8_0 row src
// (x = d*q as quant.DequantizeRowQ8_0 computes it, then a*x rounded, then
// the sum rounded: dequantizing and Axpy's bits). len(y) is a multiple of
// 32 and src holds len(y)/32 blocks.
func AxpyQ8_0(y []float32, a float32, src []byte) {
	if len(y)%32 != 0 {
		panic("kernels: AxpyQ8_0 needs a multiple of 32 values")
	}
	_ = src[len(y)/32*34-1]
	active.axpyQ8_0(y, a, src)
}

// DequantizeQ8_0 sets dst to the values of the Q8_0 row src
// (quant.DequantizeRowQ8_0's bits): len(dst) is a multiple of 32 and src
// holds len(dst)/32 blocks.
func DequantizeQ8_0(dst []float32, src []byte) {
	if len(dst)%32 != 0 {
		panic("kernels: DequantizeQ8_0 needs a multiple of 32 values")
	}
	if len(dst) == 0 {
		return
	}
	_ = src[len(dst)/32*34-1]
	active.dequantQ8_0(dst, 8, src, len(dst)/32)
}

// AttnDequantKQ8_0 is DequantizeQ8_0 into row row of the K tile k of row
// length dim (AttnPutKRow's layout, whose 8-value runs of a row lie 16
// floats apart): the n values of the Q8_0 row src, n a multiple of 32 and
// at most dim.
func AttnDequantKQ8_0(k []float32, dim, row int, src []byte, n int) {
	if n%32 != 0 || n > dim || dim%8 != 0 || row < 0 {
		panic("kernels: AttnDequantKQ8_0 needs n%32 == 0, n <= dim, dim%8 == 0 and row >= 0")
	}
	if n == 0 {
		return
	}
	_ = src[n/32*34-1]
	at := kTileIndex(row, 0, dim)
	_ = k[at+(n/8-1)*16+7]
	active.dequantQ8_0(k[at:], 16, src, n/32)
}

func axpyQ8_0Generic(y []float32, a float32, src []byte) {
	var x [32]float32
	for b := 0; b < len(y)/32; b++ {
		quant.DequantizeRowQ8_0(src[b*34:(b+1)*34], x[:])
		for j, v := range x {
			y[b*32+j] += float32(a * v) // the conversion keeps a*v rounded (no fused add)
		}
	}
}

// dequantQ8_0Generic writes blocks blocks of src, each run of 8 values
// stride floats after the last run's start (8: in a row).
func dequantQ8_0Generic(dst []float32, stride int, src []byte, blocks int) {
	var x [32]float32
	for b := range blocks {
		quant.DequantizeRowQ8_0(src[b*34:(b+1)*34], x[:])
		for c := range 4 {
			copy(dst[(4*b+c)*stride:][:8], x[8*c:8*c+8])
		}
	}
}
