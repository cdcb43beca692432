package kernels

import (
	"math"

	"github.com/gollm/gollm/ggml"
)

// RMSNorm sets out = x / sqrt(mean(x²) + eps) * w, as ggml's rms_norm
// followed by the mul with the norm weight: the sum of squares accumulates
// in float64 (ggml_float) over float32 products, the scale is float32.
// out may alias x. len(w) and len(out) must be at least len(x).
func RMSNorm(out, x, w []float32, eps float32) {
	out = out[:len(x)]
	w = w[:len(x)]
	var sum float64
	for _, v := range x {
		sum += float64(v * v)
	}
	rmsScaleRow(out, x, w, sum, eps)
}

// RMSNormNoWeight sets out = x / sqrt(mean(x²) + eps) (ggml's rms_norm
// without the weight multiply, for architectures that apply it elsewhere).
func RMSNormNoWeight(out, x []float32, eps float32) {
	out = out[:len(x)]
	var sum float64
	for _, v := range x {
		sum += float64(v * v)
	}
	mean := float32(sum / float64(len(x)))
	scale := 1 / float32(math.Sqrt(float64(mean+eps)))
	for i, v := range x {
		out[i] = v * scale
	}
}

// Softmax replaces x by softmax(x) in place as ggml's soft_max op does on
// AVX2 (ggml_vec_soft_max_f32, then ggml_vec_scale_f32): the maximum
// subtracted; each full group of 8 through ggml_v_expf (vexpf), its sum
// taken as tinyBLAS's 8-lane horizontal sum and added in float64; the
// tail through libm's expf, added one by one in float64; then every value
// times float32(1/sum). Entries of -Inf (masked) become 0. An empty slice
// is left alone.
func Softmax(x []float32) {
	if len(x) == 0 {
		return
	}
	max := float32(math.Inf(-1))
	for _, v := range x {
		if v > max {
			max = v
		}
	}
	var sum float64
	n8 := len(x) &^ 7
	for i := 0; i < n8; i += 8 {
		var g [8]float32
		for l := range g {
			g[l] = vexpf(x[i+l] - max)
			x[i+l] = g[l]
		}
		sum += float64(hsum8(&g))
	}
	for i := n8; i < len(x); i++ {
		e := expf(x[i] - max)
		x[i] = e
		sum += float64(e)
	}
	inv := float32(1 / sum)
	for i := range x {
		x[i] *= inv
	}
}

// SwiGLU sets out = silu(gate) * up with silu(x) = x / (1 + exp(-x)),
// computed as ggml_vec_swiglu_f32 does on AVX2 (see siluVec).
// out may alias gate or up.
func SwiGLU(out, gate, up []float32) {
	out = out[:len(gate)]
	up = up[:len(gate)]
	n8 := len(gate) &^ 7
	for i := 0; i < n8; {
		i += active.swiglu(out[i:n8], gate[i:n8], up[i:n8])
		if i < n8 { // a group the SIMD kernel leaves to the generic one
			swigluGeneric(out[i:i+8], gate[i:i+8], up[i:i+8])
			i += 8
		}
	}
	for i := n8; i < len(gate); i++ {
		out[i] = siluScalar(gate[i]) * up[i]
	}
}

// swigluGeneric is SwiGLU's vectorised part (len(gate) a multiple of 8).
func swigluGeneric(out, gate, up []float32) int {
	for i, g := range gate {
		out[i] = siluVec(g) * up[i]
	}
	return len(gate)
}

// SiLU sets out = x / (1 + exp(-x)).
func SiLU(out, x []float32) {
	out = out[:len(x)]
	for i, v := range x {
		out[i] = v / (1 + expf(-v))
	}
}

// Mul sets dst[i] *= src[i].
func Mul(dst, src []float32) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] *= src[i]
	}
}

// Scale sets x[i] *= s.
func Scale(x []float32, s float32) {
	for i := range x {
		x[i] *= s
	}
}

// Add sets dst += src (len(src) >= len(dst)).
func Add(dst, src []float32) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] += src[i]
	}
}

// expf is float32 exp, correctly rounded for all practical purposes (the
// float64 result rounds to the nearest float32 like a good libm expf).
func expf(x float32) float32 { return float32(math.Exp(float64(x))) }

// Dot returns the float32 dot product of a and b (len(b) >= len(a)).
func Dot(a, b []float32) float32 { return active.dot(a, b[:len(a)]) }

// Axpy sets y += a*x (len(x) >= len(y)).
func Axpy(y []float32, a float32, x []float32) { active.axpy(y, a, x[:len(y)]) }

// DotF16 returns the dot product of q with k, IEEE half values as stored in
// the KV cache (len(k) >= len(q)).
func DotF16(q []float32, k []uint16) float32 { return active.dotF16(q, k[:len(q)]) }

// AxpyF16 sets y += a*v for half values v (len(v) >= len(y)).
func AxpyF16(y []float32, a float32, v []uint16) { active.axpyF16(y, a, v[:len(y)]) }

// F32ToF16 converts src to IEEE half with round-to-nearest-even (as F16C's
// vcvtps2ph with imm 0); len(dst) >= len(src).
func F32ToF16(dst []uint16, src []float32) { active.f32ToF16(dst[:len(src)], src) }

// QuantizeRowQ8_0 quantizes src (a multiple of 32 values) into Q8_0 blocks
// in dst with the numerics of ggml's x86 quantize_row_q8_0 (multiplier
// 127/amax, round half to even): what llama.cpp applies to activations and
// to a q8_0 KV cache. len(dst) >= len(src)/32*34.
func QuantizeRowQ8_0(dst []byte, src []float32) {
	active.quantize[ggml.Q8_0](src[:len(src)&^31], dst[:len(src)/32*34])
}

// RMSNormRows is RMSNorm on each row of dim floats of x into out (len(x)
// a multiple of dim). Rows go four at a time through one loop, their sums
// of squares in four independent float64 chains: each row's sum takes
// RMSNorm's order (the same bits), and the chains, bound by the add's
// latency one at a time, run side by side.
func RMSNormRows(out, x, w []float32, dim int, eps float32) {
	if dim <= 0 {
		return
	}
	n := len(x) / dim
	r := 0
	for ; r+4 <= n; r += 4 {
		a, b := x[r*dim:(r+1)*dim], x[(r+1)*dim:(r+2)*dim]
		c, d := x[(r+2)*dim:(r+3)*dim], x[(r+3)*dim:(r+4)*dim]
		b, c, d = b[:len(a)], c[:len(a)], d[:len(a)]
		var s0, s1, s2, s3 float64
		for i, v := range a {
			s0 += float64(v * v)
			s1 += float64(b[i] * b[i])
			s2 += float64(c[i] * c[i])
			s3 += float64(d[i] * d[i])
		}
		for k, s := range [4]float64{s0, s1, s2, s3} {
			row := (r + k) * dim
			rmsScaleRow(out[row:row+dim], x[row:row+dim], w, s, eps)
		}
	}
	for ; r < n; r++ {
		RMSNorm(out[r*dim:(r+1)*dim], x[r*dim:(r+1)*dim], w, eps)
	}
}

// rmsScaleRow finishes RMSNorm of x given its sum of squares.
func rmsScaleRow(out, x, w []float32, sum float64, eps float32) {
	out = out[:len(x)]
	w = w[:len(x)]
	mean := float32(sum / float64(len(x)))
	scale := 1 / float32(math.Sqrt(float64(mean+eps)))
	for i, v := range x {
		out[i] = (v * scale) * w[i]
	}
}
