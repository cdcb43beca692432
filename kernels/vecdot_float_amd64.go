//go:build !purego

package kernels

import (
	"encoding/binary"
	"math"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/quant"
)

// AVX2 float matmul kernels for rows that are a multiple of 8 long (the
// tinyBLAS order); other lengths use the generic kernels, which follow
// ggml_vec_dot's different order there.
func fillAVX2Float(s *kernelSet) {
	s.vecDot[ggml.F16] = dotF16F16Asm
	s.vecDotR4[ggml.F16] = dotF16F16r4Asm
	s.vecDot4[ggml.F16] = dotF16F16x4Asm
	s.vecDot[ggml.F32] = dotF32F32Asm
	s.vecDotR4[ggml.F32] = dotF32F32r4Asm
	s.vecDot4[ggml.F32] = dotF32F32x4Asm
	s.vecDot1[ggml.F16] = dotF16VecAsm
	s.vecDot1[ggml.F32] = dotF32VecAsm
	s.vecDot1R4F32[ggml.F16] = f16VecR4F32Asm
}

// The decode kernels (vecDot1, ggml_vec_dot order) take n32 groups of 32
// elements; the tails run in Go as in the generic kernels.

//go:noescape
func dotF16VecAVX2(n32 int, w, a *byte) float32

//go:noescape
func dotF32VecAVX2(n32 int, w, a *byte) float32

func dotF16VecAsm(n int, w, a []byte) float32 {
	np := n &^ 31
	var sumf float64
	if np > 0 {
		sumf = float64(dotF16VecAVX2(asmArgs(np, 32, 64, 64, w, a)))
	}
	for i := np; i < n; i++ {
		sumf += float64(quant.FP16ToFP32(binary.LittleEndian.Uint16(w[2*i:])) *
			quant.FP16ToFP32(binary.LittleEndian.Uint16(a[2*i:])))
	}
	return float32(sumf)
}

func dotF32VecAsm(n int, w, a []byte) float32 {
	np := n &^ 31
	var sumf float32
	if np > 0 {
		sumf = dotF32VecAVX2(asmArgs(np, 32, 128, 128, w, a))
	}
	for i := np; i < n; i++ {
		sumf += float32(math.Float32frombits(binary.LittleEndian.Uint32(w[4*i:])) *
			math.Float32frombits(binary.LittleEndian.Uint32(a[4*i:])))
	}
	return sumf
}

// The functions below take n8 groups of 8 elements (f16: 16 bytes, f32: 32
// bytes per group) and follow dotFloatOrder's n%8 == 0 branch exactly.

//go:noescape
func dotF16F16AVX2(n8 int, w, a *byte) float32

//go:noescape
func dotF16F16r4AVX2(n8 int, w *byte, wstride int, a *byte, out *float32, ostride int)

//go:noescape
func dotF16F16x4AVX2(n8 int, w, a *byte, stride int, out *float32, ostride int)

//go:noescape
func dotF32F32AVX2(n8 int, w, a *byte) float32

//go:noescape
func dotF32F32r4AVX2(n8 int, w *byte, wstride int, a *byte, out *float32, ostride int)

//go:noescape
func dotF32F32x4AVX2(n8 int, w, a *byte, stride int, out *float32, ostride int)

func dotF16F16Asm(n int, w, a []byte) float32 {
	if n%8 != 0 || n == 0 {
		return vecDotF16F16Generic(n, w, a)
	}
	return dotF16F16AVX2(asmArgs(n, 8, 16, 16, w, a))
}

func dotF16F16r4Asm(n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	if n%8 != 0 || n == 0 {
		r4Generic(vecDotF16F16Generic, n, w, wstride, a, out, ostride)
		return
	}
	dotF16F16r4AVX2(r4Args(n, 8, 16, 16, w, wstride, a, out, ostride))
}

func dotF16F16x4Asm(n int, w, a []byte, stride int, out []float32, ostride int) {
	if n%8 != 0 || n == 0 {
		x4Generic(vecDotF16F16Generic, n, w, a, stride, out, ostride)
		return
	}
	dotF16F16x4AVX2(x4Args(n, 8, 16, 16, w, a, stride, out, ostride))
}

func dotF32F32Asm(n int, w, a []byte) float32 {
	if n%8 != 0 || n == 0 {
		return dotF32VecAsm(n, w, a)
	}
	return dotF32F32AVX2(asmArgs(n, 8, 32, 32, w, a))
}

func dotF32F32r4Asm(n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	if n%8 != 0 || n == 0 {
		r4Generic(dotF32VecAsm, n, w, wstride, a, out, ostride)
		return
	}
	dotF32F32r4AVX2(r4Args(n, 8, 32, 32, w, wstride, a, out, ostride))
}

func dotF32F32x4Asm(n int, w, a []byte, stride int, out []float32, ostride int) {
	if n%8 != 0 || n == 0 {
		x4Generic(dotF32VecAsm, n, w, a, stride, out, ostride)
		return
	}
	dotF32F32x4AVX2(x4Args(n, 8, 32, 32, w, a, stride, out, ostride))
}

// r4Generic and x4Generic run a single-row kernel four times.
func r4Generic(f vecDotFunc, n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	rb := len(w) - 3*wstride
	for k := 0; k < 4; k++ {
		out[k*ostride] = f(n, w[k*wstride:k*wstride+rb], a)
	}
}

func x4Generic(f vecDotFunc, n int, w, a []byte, stride int, out []float32, ostride int) {
	ab := len(a) - 3*stride
	for k := 0; k < 4; k++ {
		out[k*ostride] = f(n, w, a[k*stride:k*stride+ab])
	}
}

//go:noescape
func f16VecR4F32AVX2(n32 int, w *byte, wstride int, a *byte, out *float32, ostride int)

//go:noescape
func f16VecR4F32PfAVX2(n32 int, w *byte, wstride int, a *byte, out *float32, ostride int)

// f16VecR4F32Asm is four rows of dotF16VecAsm (the one-token F16 order,
// same bits) against the token widened to float32 (a: its row in the
// halfQuadF16 quad, 4n bytes): the groups of 32 in assembly, each row's
// tail in Go as there.
func f16VecR4F32Asm(n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	np := n &^ 31
	if np > 0 {
		if streamPrefetch {
			f16VecR4F32PfAVX2(r4Args(np, 32, 64, 128, w, wstride, a, out, ostride))
		} else {
			f16VecR4F32AVX2(r4Args(np, 32, 64, 128, w, wstride, a, out, ostride))
		}
	}
	if np == n {
		return
	}
	for k := 0; k < 4; k++ {
		var sumf float64
		if np > 0 {
			sumf = float64(out[k*ostride])
		}
		row := w[k*wstride:]
		for i := np; i < n; i++ {
			sumf += float64(quant.FP16ToFP32(binary.LittleEndian.Uint16(row[2*i:])) *
				math.Float32frombits(binary.LittleEndian.Uint32(a[4*i:])))
		}
		out[k*ostride] = float32(sumf)
	}
}

//go:noescape
func bf16VecR4AVX2(n32 int, w *byte, wstride int, a *byte, out *float32, ostride int)

//go:noescape
func bf16VecR4PfAVX2(n32 int, w *byte, wstride int, a *byte, out *float32, ostride int)

// bf16VecR4AVX2Asm is four rows of dotBF16VecAsm (the one-token BF16 order,
// same bits) against the BF16 token, on AVX2.
func bf16VecR4AVX2Asm(n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	bf16VecR4Run(bf16VecR4AVX2, bf16VecR4PfAVX2, n, w, wstride, a, out, ostride)
}
