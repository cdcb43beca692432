//go:build !purego

package kernels

import "github.com/gollm/gollm/ggml"

// fillAVX2VecDot adds the AVX2 row dot products of the quantized types:
// AVX2 integer dot products, FMA accumulation, F16C scale conversion.
func fillAVX2VecDot(s *kernelSet) {
	s.vecDot[ggml.Q4_0] = vecDotQ4_0Q8_0Asm
	s.vecDot[ggml.Q8_0] = vecDotQ8_0Q8_0Asm
	s.vecDot[ggml.Q4_1] = vecDotQ4_1Q8_1Asm
	s.vecDot[ggml.Q5_0] = vecDotQ5_0Q8_0Asm
	s.vecDot[ggml.Q5_1] = vecDotQ5_1Q8_1Asm
	s.vecDot[ggml.Q2_K] = vecDotQ2_KQ8_KAsm
	s.vecDot[ggml.Q3_K] = vecDotQ3_KQ8_KAsm
	s.vecDot[ggml.Q4_K] = vecDotQ4_KQ8_KAsm
	s.vecDot[ggml.Q5_K] = vecDotQ5_KQ8_KAsm
	s.vecDot[ggml.Q6_K] = vecDotQ6_KQ8_KAsm

	s.vecDotR4[ggml.Q4_0] = vecDotQ4_0Q8_0r4Asm
	s.vecDotR4[ggml.Q8_0] = vecDotQ8_0Q8_0r4Asm
	s.vecDotR4[ggml.Q5_0] = vecDotQ5_0Q8_0r4Asm
	s.vecDotR4[ggml.Q6_K] = vecDotQ6_KQ8_Kr4Asm

	s.vecDot4[ggml.Q4_0] = vecDotQ4_0Q8_0x4Asm
	s.vecDot4[ggml.Q8_0] = vecDotQ8_0Q8_0x4Asm
	s.vecDot4[ggml.Q5_0] = vecDotQ5_0Q8_0x4Asm
	s.vecDot4[ggml.Q4_1] = vecDotQ4_1Q8_1x4Asm
	s.vecDot4[ggml.Q5_1] = vecDotQ5_1Q8_1x4Asm
	s.vecDot4[ggml.Q4_K] = vecDotQ4_KQ8_Kx4Asm
	s.vecDotQuad[ggml.Q4_K] = vecDotQ4_KQ8_KQuadAsm
	s.vecDot4[ggml.Q5_K] = vecDotQ5_KQ8_Kx4Asm
	s.vecDot4[ggml.Q6_K] = vecDotQ6_KQ8_Kx4Asm
	s.vecDotR4x2[ggml.Q6_K] = vecDotQ6_KQ8_Kr4x2Asm
	s.vecDotR4x2[ggml.Q8_0] = vecDotQ8_0Q8_0r4x2Asm
	s.vecDotR4x4[ggml.Q6_K] = vecDotQ6_KQ8_Kr4x4Asm
	s.vecDot4[ggml.Q3_K] = vecDotQ3_KQ8_Kx4Asm
	s.vecDot4[ggml.Q2_K] = vecDotQ2_KQ8_Kx4Asm
	s.vecDotR4[ggml.Q4_1] = vecDotQ4_1Q8_1r4Asm
	s.vecDotR4[ggml.Q5_1] = vecDotQ5_1Q8_1r4Asm
	s.vecDotR4[ggml.Q2_K] = vecDotQ2_KQ8_Kr4Asm
}

// The assembly functions below take nb whole blocks of weights at w and
// activations at a; they read exactly nb blocks from each and must be given
// that much memory (the wrappers check). Each computes what the generic
// function of the same pair computes (vecdot_generic.go), with the per-block
// float products summed in a different order. Activation and Q8_0 weight
// bytes must not be -128 (ggml's quantizers never produce it).

//go:noescape
func vecDotQ4_0Q8_0AVX2(nb int, w, a *byte) float32

//go:noescape
func vecDotQ8_0Q8_0AVX2(nb int, w, a *byte) float32

//go:noescape
func vecDotQ4_1Q8_1AVX2(nb int, w, a *byte) float32

//go:noescape
func vecDotQ5_0Q8_0AVX2(nb int, w, a *byte) float32

//go:noescape
func vecDotQ5_1Q8_1AVX2(nb int, w, a *byte) float32

//go:noescape
func vecDotQ4_KQ8_KAVX2(nb int, w, a *byte) float32

//go:noescape
func vecDotQ6_KQ8_KAVX2(nb int, w, a *byte) float32

// asmArgs returns the block count and first bytes for an asm dot product of
// n elements in blocks of bs, after checking that w and a hold the blocks
// (a panic here is the same programmer error as an index out of range).
func asmArgs(n, bs, wb, ab int, w, a []byte) (int, *byte, *byte) {
	nb := n / bs
	_ = w[nb*wb-1]
	_ = a[nb*ab-1]
	return nb, &w[0], &a[0]
}

func vecDotQ4_0Q8_0Asm(n int, w, a []byte) float32 {
	if n < qk {
		return 0
	}
	return vecDotQ4_0Q8_0AVX2(asmArgs(n, qk, q4_0Bytes, q8_0Bytes, w, a))
}

func vecDotQ8_0Q8_0Asm(n int, w, a []byte) float32 {
	if n < qk {
		return 0
	}
	return vecDotQ8_0Q8_0AVX2(asmArgs(n, qk, q8_0Bytes, q8_0Bytes, w, a))
}

func vecDotQ4_1Q8_1Asm(n int, w, a []byte) float32 {
	if n < qk {
		return 0
	}
	return vecDotQ4_1Q8_1AVX2(asmArgs(n, qk, q4_1Bytes, q8_1Bytes, w, a))
}

func vecDotQ5_0Q8_0Asm(n int, w, a []byte) float32 {
	if n < qk {
		return 0
	}
	return vecDotQ5_0Q8_0AVX2(asmArgs(n, qk, q5_0Bytes, q8_0Bytes, w, a))
}

func vecDotQ5_1Q8_1Asm(n int, w, a []byte) float32 {
	if n < qk {
		return 0
	}
	return vecDotQ5_1Q8_1AVX2(asmArgs(n, qk, q5_1Bytes, q8_1Bytes, w, a))
}

func vecDotQ4_KQ8_KAsm(n int, w, a []byte) float32 {
	if n < qkK {
		return 0
	}
	return vecDotQ4_KQ8_KAVX2(asmArgs(n, qkK, q4_KBytes, q8_KBytes, w, a))
}

func vecDotQ6_KQ8_KAsm(n int, w, a []byte) float32 {
	if n < qkK {
		return 0
	}
	return vecDotQ6_KQ8_KAVX2(asmArgs(n, qkK, q6_KBytes, q8_KBytes, w, a))
}

//go:noescape
func vecDotQ6_KQ8_Kr4AVX2(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)

func vecDotQ6_KQ8_Kr4Asm(n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	r4Call(vecDotQ6_KQ8_Kr4AVX2, qkK, q6_KBytes, q8_KBytes, n, w, wstride, a, out, ostride)
}

// The x4 kernels compute one weight row (nb blocks at w) against four
// activation rows at a, a+stride, a+2*stride, a+3*stride (bytes), writing
// out[0], out[ostride], out[2*ostride], out[3*ostride] (elements).

//go:noescape
func vecDotQ4_0Q8_0x4AVX2(nb int, w, a *byte, stride int, out *float32, ostride int)

//go:noescape
func vecDotQ8_0Q8_0x4AVX2(nb int, w, a *byte, stride int, out *float32, ostride int)

//go:noescape
func vecDotQ4_KQ8_Kx4AVX2(nb int, w, a *byte, stride int, out *float32, ostride int)

//go:noescape
func vecDotQ2_KQ8_Kx4AVX2(nb int, w, a *byte, stride int, out *float32, ostride int)

//go:noescape
func vecDotQ3_KQ8_Kx4AVX2(nb int, w, a *byte, stride int, out *float32, ostride int)

//go:noescape
func vecDotQ6_KQ8_Kx4AVX2(nb int, w, a *byte, stride int, out *float32, ostride int)

//go:noescape
func vecDotQ6_KQ8_Kr4x2AVX2(nb int, w *byte, wstride int, a *byte, astride int, out *float32, rstride, tstride int)

//go:noescape
func vecDotQ6_KQ8_Kr4x4AVX2(nb int, w *byte, wstride int, a *byte, astride int, out *float32, rstride, tstride int)

// x4Args checks that w holds the row, a the four activation rows and out
// the four outputs.
func x4Args(n, bs, wb, ab int, w, a []byte, stride int, out []float32, ostride int) (int, *byte, *byte, int, *float32, int) {
	nb := n / bs
	_ = w[nb*wb-1]
	_ = a[3*stride+nb*ab-1]
	_ = out[3*ostride]
	return nb, &w[0], &a[0], stride, &out[0], ostride
}

func vecDotQ4_0Q8_0x4Asm(n int, w, a []byte, stride int, out []float32, ostride int) {
	if n < qk {
		for k := 0; k < 4; k++ {
			out[k*ostride] = 0
		}
		return
	}
	vecDotQ4_0Q8_0x4AVX2(x4Args(n, qk, q4_0Bytes, q8_0Bytes, w, a, stride, out, ostride))
}

func vecDotQ8_0Q8_0x4Asm(n int, w, a []byte, stride int, out []float32, ostride int) {
	if n < qk {
		for k := 0; k < 4; k++ {
			out[k*ostride] = 0
		}
		return
	}
	vecDotQ8_0Q8_0x4AVX2(x4Args(n, qk, q8_0Bytes, q8_0Bytes, w, a, stride, out, ostride))
}

func vecDotQ4_KQ8_Kx4Asm(n int, w, a []byte, stride int, out []float32, ostride int) {
	if n < qkK {
		for k := 0; k < 4; k++ {
			out[k*ostride] = 0
		}
		return
	}
	vecDotQ4_KQ8_Kx4AVX2(x4Args(n, qkK, q4_KBytes, q8_KBytes, w, a, stride, out, ostride))
}

// vecDotQ4_KQ8_KQuadAsm is one token in the four-token order
// (vecDotQ4_KQ8_KQuadGeneric) through the four-token kernel, the token in
// all four slots: rows outside packed groups, and matrices not packed
// yet, under a uniform order (Scratch.SetUniformOrder).
func vecDotQ4_KQ8_KQuadAsm(n int, w, a []byte) float32 {
	var out [4]float32
	vecDotQ4_KQ8_Kx4Asm(n, w, a, 0, out[:], 1)
	return out[0]
}

func vecDotQ2_KQ8_Kx4Asm(n int, w, a []byte, stride int, out []float32, ostride int) {
	if n < qkK {
		for k := 0; k < 4; k++ {
			out[k*ostride] = 0
		}
		return
	}
	vecDotQ2_KQ8_Kx4AVX2(x4Args(n, qkK, q2_KBytes, q8_KBytes, w, a, stride, out, ostride))
}

//go:noescape
func vecDotQ2_KQ8_Kr4AVX2(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)

func vecDotQ2_KQ8_Kr4Asm(n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	r4Call(vecDotQ2_KQ8_Kr4AVX2, qkK, q2_KBytes, q8_KBytes, n, w, wstride, a, out, ostride)
}

func vecDotQ3_KQ8_Kx4Asm(n int, w, a []byte, stride int, out []float32, ostride int) {
	if n < qkK {
		for k := 0; k < 4; k++ {
			out[k*ostride] = 0
		}
		return
	}
	vecDotQ3_KQ8_Kx4AVX2(x4Args(n, qkK, q3_KBytes, q8_KBytes, w, a, stride, out, ostride))
}

func vecDotQ6_KQ8_Kx4Asm(n int, w, a []byte, stride int, out []float32, ostride int) {
	if n < qkK {
		for k := 0; k < 4; k++ {
			out[k*ostride] = 0
		}
		return
	}
	vecDotQ6_KQ8_Kx4AVX2(x4Args(n, qkK, q6_KBytes, q8_KBytes, w, a, stride, out, ostride))
}

func vecDotQ6_KQ8_Kr4x2Asm(n int, w []byte, wstride int, a []byte, astride int, out []float32, rstride, tstride int) {
	r4xN(vecDotQ6_KQ8_Kr4x2AVX2, 2, n, qkK, q6_KBytes, q8_KBytes, w, wstride, a, astride, out, rstride, tstride)
}

func vecDotQ6_KQ8_Kr4x4Asm(n int, w []byte, wstride int, a []byte, astride int, out []float32, rstride, tstride int) {
	r4xN(vecDotQ6_KQ8_Kr4x4AVX2, 4, n, qkK, q6_KBytes, q8_KBytes, w, wstride, a, astride, out, rstride, tstride)
}

func vecDotQ8_0Q8_0r4x2Asm(n int, w []byte, wstride int, a []byte, astride int, out []float32, rstride, tstride int) {
	r4xN(vecDotQ8_0Q8_0r4x2AVX2, 2, n, qk, q8_0Bytes, q8_0Bytes, w, wstride, a, astride, out, rstride, tstride)
}

// r4xN checks the arguments of a four-row, ntok-token kernel of blocks of
// bs elements (wb bytes of weights, ab of activations) and runs it.
func r4xN(kern func(nb int, w *byte, wstride int, a *byte, astride int, out *float32, rstride, tstride int),
	ntok, n, bs, wb, ab int, w []byte, wstride int, a []byte, astride int, out []float32, rstride, tstride int) {
	if n < bs {
		for k := 0; k < 4; k++ {
			for t := 0; t < ntok; t++ {
				out[k*rstride+t*tstride] = 0
			}
		}
		return
	}
	nb := n / bs
	_ = w[3*wstride+nb*wb-1]
	_ = a[(ntok-1)*astride+nb*ab-1]
	_ = out[3*rstride+(ntok-1)*tstride]
	kern(nb, &w[0], wstride, &a[0], astride, &out[0], rstride, tstride)
}

// The r4 kernels compute four weight rows (nb blocks each at w, w+wstride,
// w+2*wstride, w+3*wstride) against one activation row a into out[0],
// out[ostride], out[2*ostride], out[3*ostride].

//go:noescape
func vecDotQ4_0Q8_0r4AVX2(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)

//go:noescape
func vecDotQ8_0Q8_0r4AVX2(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)

//go:noescape
func vecDotQ8_0Q8_0r4x2AVX2(nb int, w *byte, wstride int, a *byte, astride int, out *float32, rstride, tstride int)

// r4Args checks that w holds the four rows, a the activation row and out
// four outputs ostride apart.
func r4Args(n, bs, wb, ab int, w []byte, wstride int, a []byte, out []float32, ostride int) (int, *byte, int, *byte, *float32, int) {
	nb := n / bs
	if ostride < 1 {
		panic("kernels: four-row kernel with a bad output stride")
	}
	_ = w[3*wstride+nb*wb-1]
	_ = a[nb*ab-1]
	_ = out[3*ostride]
	return nb, &w[0], wstride, &a[0], &out[0], ostride
}

// r4Call runs a four-row kernel on rows of n elements (blocks of bs, wb
// bytes; token blocks of ab bytes) after checking the slices (r4Args);
// fewer than one block gives zeros.
func r4Call(kern func(nb int, w *byte, wstride int, a *byte, out *float32, ostride int),
	bs, wb, ab, n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	if n < bs {
		clearR4(out, ostride)
		return
	}
	kern(r4Args(n, bs, wb, ab, w, wstride, a, out, ostride))
}

// clearR4 zeroes the four outputs of a four-row kernel.
func clearR4(out []float32, ostride int) {
	for k := 0; k < 4; k++ {
		out[k*ostride] = 0
	}
}

func vecDotQ4_0Q8_0r4Asm(n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	r4Call(vecDotQ4_0Q8_0r4AVX2, qk, q4_0Bytes, q8_0Bytes, n, w, wstride, a, out, ostride)
}

func vecDotQ8_0Q8_0r4Asm(n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	r4Call(vecDotQ8_0Q8_0r4AVX2, qk, q8_0Bytes, q8_0Bytes, n, w, wstride, a, out, ostride)
}

//go:noescape
func vecDotQ5_KQ8_KAVX2(nb int, w, a *byte) float32

//go:noescape
func vecDotQ5_KQ8_Kx4AVX2(nb int, w, a *byte, stride int, out *float32, ostride int)

func vecDotQ5_KQ8_KAsm(n int, w, a []byte) float32 {
	if n < qkK {
		return 0
	}
	return vecDotQ5_KQ8_KAVX2(asmArgs(n, qkK, q5_KBytes, q8_KBytes, w, a))
}

func vecDotQ5_KQ8_Kx4Asm(n int, w, a []byte, stride int, out []float32, ostride int) {
	if n < qkK {
		for k := 0; k < 4; k++ {
			out[k*ostride] = 0
		}
		return
	}
	vecDotQ5_KQ8_Kx4AVX2(x4Args(n, qkK, q5_KBytes, q8_KBytes, w, a, stride, out, ostride))
}

//go:noescape
func vecDotQ2_KQ8_KAVX2(nb int, w, a *byte) float32

//go:noescape
func vecDotQ3_KQ8_KAVX2(nb int, w, a *byte) float32

func vecDotQ2_KQ8_KAsm(n int, w, a []byte) float32 {
	if n < qkK {
		return 0
	}
	return vecDotQ2_KQ8_KAVX2(asmArgs(n, qkK, q2_KBytes, q8_KBytes, w, a))
}

func vecDotQ3_KQ8_KAsm(n int, w, a []byte) float32 {
	if n < qkK {
		return 0
	}
	return vecDotQ3_KQ8_KAVX2(asmArgs(n, qkK, q3_KBytes, q8_KBytes, w, a))
}

//go:noescape
func vecDotQ5_0Q8_0x4AVX2(nb int, w, a *byte, stride int, out *float32, ostride int)

//go:noescape
func vecDotQ5_0Q8_0r4AVX2(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)

//go:noescape
func vecDotQ4_1Q8_1x4AVX2(nb int, w, a *byte, stride int, out *float32, ostride int)

//go:noescape
func vecDotQ5_1Q8_1x4AVX2(nb int, w, a *byte, stride int, out *float32, ostride int)

func vecDotQ5_0Q8_0x4Asm(n int, w, a []byte, stride int, out []float32, ostride int) {
	if n < qk {
		for k := 0; k < 4; k++ {
			out[k*ostride] = 0
		}
		return
	}
	vecDotQ5_0Q8_0x4AVX2(x4Args(n, qk, q5_0Bytes, q8_0Bytes, w, a, stride, out, ostride))
}

func vecDotQ5_0Q8_0r4Asm(n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	r4Call(vecDotQ5_0Q8_0r4AVX2, qk, q5_0Bytes, q8_0Bytes, n, w, wstride, a, out, ostride)
}

//go:noescape
func vecDotQ4_1Q8_1r4AVX2(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)

//go:noescape
func vecDotQ5_1Q8_1r4AVX2(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)

func vecDotQ4_1Q8_1r4Asm(n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	r4Call(vecDotQ4_1Q8_1r4AVX2, qk, q4_1Bytes, q8_1Bytes, n, w, wstride, a, out, ostride)
}

func vecDotQ5_1Q8_1r4Asm(n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	r4Call(vecDotQ5_1Q8_1r4AVX2, qk, q5_1Bytes, q8_1Bytes, n, w, wstride, a, out, ostride)
}

func vecDotQ4_1Q8_1x4Asm(n int, w, a []byte, stride int, out []float32, ostride int) {
	if n < qk {
		for k := 0; k < 4; k++ {
			out[k*ostride] = 0
		}
		return
	}
	vecDotQ4_1Q8_1x4AVX2(x4Args(n, qk, q4_1Bytes, q8_1Bytes, w, a, stride, out, ostride))
}

func vecDotQ5_1Q8_1x4Asm(n int, w, a []byte, stride int, out []float32, ostride int) {
	if n < qk {
		for k := 0; k < 4; k++ {
			out[k*ostride] = 0
		}
		return
	}
	vecDotQ5_1Q8_1x4AVX2(x4Args(n, qk, q5_1Bytes, q8_1Bytes, w, a, stride, out, ostride))
}
