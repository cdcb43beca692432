package kernels

import (
	"encoding/binary"
	"math"

	"github.com/gollm/gollm/quant"
)

// Float dot products in the accumulation order of llama.cpp on AVX2.
//
// When the row length is a multiple of 8, llama.cpp multiplies float
// matrices with llamafile's tinyBLAS: one 8-lane accumulator per output,
// a fused multiply-add per group of 8 elements, then a horizontal sum. For
// other lengths it falls back to ggml_vec_dot_f16/f32: four 8-lane
// accumulators over groups of 32, reduced pairwise, and the tail summed in
// float64 (f16) or float32 (f32, vecDotF32F32DecodeGeneric). Following
// the same order keeps results bit-identical, which on random-weight
// models decides whether logits match llama.cpp to 1e-3.

// dotFloatOrder computes sum(x(i)*y(i)) for i < n in llama.cpp's order.
func dotFloatOrder(n int, x, y func(i int) float32) float32 {
	if n%8 == 0 {
		var acc [8]float32
		for i := 0; i < n; i += 8 {
			for l := 0; l < 8; l++ {
				acc[l] = fma32(x(i+l), y(i+l), acc[l])
			}
		}
		return hsum8(&acc)
	}
	np := n &^ 31
	var sumf float64
	if np > 0 {
		var acc [4][8]float32
		for i := 0; i < np; i += 32 {
			for j := 0; j < 4; j++ {
				for l := 0; l < 8; l++ {
					k := i + j*8 + l
					acc[j][l] = fma32(x(k), y(k), acc[j][l])
				}
			}
		}
		sumf = float64(reduce4x8(&acc))
	}
	for i := np; i < n; i++ {
		sumf += float64(x(i) * y(i))
	}
	return float32(sumf)
}

// hsum8 is tinyBLAS's horizontal sum of one 8-lane register.
func hsum8(a *[8]float32) float32 {
	t0, t1, t2, t3 := a[4]+a[0], a[5]+a[1], a[6]+a[2], a[7]+a[3]
	return (t0 + t2) + (t1 + t3)
}

func vecDotF16F16Generic(n int, w, a []byte) float32 {
	return dotFloatOrder(n,
		func(i int) float32 { return quant.FP16ToFP32(binary.LittleEndian.Uint16(w[2*i:])) },
		func(i int) float32 { return quant.FP16ToFP32(binary.LittleEndian.Uint16(a[2*i:])) })
}

func vecDotBF16BF16Generic(n int, w, a []byte) float32 {
	return dotFloatOrder(n,
		func(i int) float32 { return quant.BF16ToFP32(binary.LittleEndian.Uint16(w[2*i:])) },
		func(i int) float32 { return quant.BF16ToFP32(binary.LittleEndian.Uint16(a[2*i:])) })
}

func vecDotF32F32Generic(n int, w, a []byte) float32 {
	if n%8 != 0 {
		// tinyBLAS declines: ggml_vec_dot_f32, as for one token.
		return vecDotF32F32DecodeGeneric(n, w, a)
	}
	return dotFloatOrder(n,
		func(i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(w[4*i:])) },
		func(i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(a[4*i:])) })
}

// Decode kernels. With one token llama.cpp does not use tinyBLAS (which
// needs at least two) but ggml_vec_dot_f16 / ggml_vec_dot_f32: four 8-lane
// accumulators over groups of 32, reduced pairwise (reduce4x8), the tail
// after the last group added one product at a time — in float64 for f16
// (ggml_float), in float32 for f32, each product rounded first (llama.cpp's
// build does not contract that sum; checked against its dumped tensors).
// MatMul uses these for one-token batches (kernelSet.vecDot1), and for f32
// rows that are not a multiple of 8 long at any batch size: tinyBLAS
// declines those, and llama.cpp runs ggml_vec_dot_f32 for every token.

func vecDotF16F16DecodeGeneric(n int, w, a []byte) float32 {
	x := func(i int) float32 { return quant.FP16ToFP32(binary.LittleEndian.Uint16(w[2*i:])) }
	y := func(i int) float32 { return quant.FP16ToFP32(binary.LittleEndian.Uint16(a[2*i:])) }
	np := n &^ 31
	var sumf float64
	if np > 0 {
		sumf = float64(sum4x8(np, x, y))
	}
	for i := np; i < n; i++ {
		sumf += float64(x(i) * y(i))
	}
	return float32(sumf)
}

// vecDotBF16BF16DecodeGeneric is ggml_vec_dot_bf16 of llama.cpp's AVX2
// build, its one-token BF16 kernel: the same four 8-lane accumulators
// (GCC fuses the intrinsics' multiply and add), summed (a0+a2)+(a1+a3)
// and then as tinyBLAS's hsum (not GGML_F32x8_REDUCE's), added to a
// float64 zero; the tail in float64, each product rounded first.
func vecDotBF16BF16DecodeGeneric(n int, w, a []byte) float32 {
	x := func(i int) float32 { return math.Float32frombits(uint32(binary.LittleEndian.Uint16(w[2*i:])) << 16) }
	y := func(i int) float32 { return math.Float32frombits(uint32(binary.LittleEndian.Uint16(a[2*i:])) << 16) }
	np := n &^ 31
	sumf := 0.0
	if np > 0 {
		acc := fma4x8(np, x, y)
		var s [8]float32
		for l := range s {
			s[l] = (acc[0][l] + acc[2][l]) + (acc[1][l] + acc[3][l])
		}
		sumf += float64(hsum8(&s))
	}
	for i := np; i < n; i++ {
		sumf += float64(x(i) * y(i))
	}
	return float32(sumf)
}

func vecDotF32F32DecodeGeneric(n int, w, a []byte) float32 {
	x := func(i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(w[4*i:])) }
	y := func(i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(a[4*i:])) }
	np := n &^ 31
	var sumf float32
	if np > 0 {
		sumf = sum4x8(np, x, y)
	}
	for i := np; i < n; i++ {
		sumf += float32(x(i) * y(i)) // rounded product: no fused multiply-add
	}
	return sumf
}

// sum4x8 is the 4x8-lane FMA sum of ggml_vec_dot over np (a multiple of 32)
// elements, reduced as GGML_F32x8_REDUCE.
func sum4x8(np int, x, y func(i int) float32) float32 {
	acc := fma4x8(np, x, y)
	return reduce4x8(&acc)
}

// fma4x8 is ggml_vec_dot's four 8-lane FMA accumulators over np (a
// multiple of 32) elements: lane l of accumulator j takes elements
// 32g+8j+l.
func fma4x8(np int, x, y func(i int) float32) (acc [4][8]float32) {
	for i := 0; i < np; i += 32 {
		for j := 0; j < 4; j++ {
			for l := 0; l < 8; l++ {
				k := i + j*8 + l
				acc[j][l] = fma32(x(k), y(k), acc[j][l])
			}
		}
	}
	return acc
}
