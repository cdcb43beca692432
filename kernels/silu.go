package kernels

import "math"

// siluVec is ggml's vectorised SiLU on AVX2 (ggml_v_silu): x / (1 + e^-x)
// with e^x from ggml_v_expf, a polynomial approximation (max error about
// 1.5 ulp) adapted from Arm's optimized routines. llama.cpp applies it to
// every full group of 8 elements and the libm expf to the tail; matching
// that keeps gollm's FFN outputs bit-identical to llama.cpp's.
func siluVec(x float32) float32 {
	return x / (1 + vexpf(0-x))
}

// siluScalar is ggml_silu_f32, used for the elements after the last full
// group of 8.
func siluScalar(x float32) float32 { return x / (1 + expf(-x)) }

// vexpf is one lane of ggml_v_expf (AVX2+FMA version).
func vexpf(x float32) float32 {
	const r = 0x1.8p23
	z := fma32(x, 0x1.715476p+0, r)
	n := z - r
	b := fma32(-n, 0x1.7f7d1cp-20, fma32(-n, 0x1.62e4p-1, x))
	e := math.Float32bits(z) << 23
	k := math.Float32frombits(e + math.Float32bits(1))
	u := b * b
	j := fma32(fma32(fma32(0x1.0e4020p-7, b, 0x1.573e2ep-5), u, fma32(0x1.555e66p-3, b, 0x1.fffdb6p-2)),
		u, 0x1.ffffecp-1*b)
	an := float32(math.Abs(float64(n)))
	if !(an > 126) {
		return fma32(k, j, k)
	}
	var g uint32
	if n <= 0 {
		g = 0x82000000
	}
	s1 := math.Float32frombits(g + 0x7f000000)
	s2 := math.Float32frombits(e - g)
	if an > 192 {
		return s1 * s1
	}
	return fma32(s2, j, s2) * s1
}
