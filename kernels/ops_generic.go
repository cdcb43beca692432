package kernels

import "github.com/gollm/gollm/quant"

// Generic float kernels. Callers guarantee equal lengths.

func dotGeneric(a, b []float32) float32 {
	b = b[:len(a)]
	var s float32
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

func axpyGeneric(y []float32, a float32, x []float32) {
	x = x[:len(y)]
	for i := range y {
		y[i] += a * x[i]
	}
}

func dotF16Generic(q []float32, k []uint16) float32 {
	k = k[:len(q)]
	var s float32
	for i, v := range q {
		s += v * quant.FP16ToFP32(k[i])
	}
	return s
}

func axpyF16Generic(y []float32, a float32, v []uint16) {
	v = v[:len(y)]
	for i := range y {
		y[i] += a * quant.FP16ToFP32(v[i])
	}
}

func f32ToF16Generic(dst []uint16, src []float32) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = quant.FP32ToFP16(v)
	}
}
