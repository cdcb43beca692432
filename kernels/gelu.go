package kernels

import (
	"sync"

	"github.com/gollm/gollm/quant"
)

// GELU, tanh approximation, as ggml's CPU backend computes it: with
// GGML_GELU_FP16 (its default) ggml_vec_gelu_f32 and ggml_vec_geglu_f32
// round the input to f16 and look the result up in a table of
// gelu_f32(x) over every f16 x, itself rounded to f16; inputs <= -10 give
// 0 and inputs >= 10 pass through. Matching that (and not computing the
// exact function) is what keeps gemma's logits within the golden
// tolerance. The SIMD twin (gelu_amd64.s) converts eight inputs with
// VCVTPS2PH (round to nearest even, as ggml's F16C conversion) and gathers
// their table entries: gemma3-1b's GeGLU took 11% of its prefill with the
// conversion and lookup in Go.

const (
	geluCoefA       = 0.044715
	geluSqrt2OverPi = 0.79788456080286535587989211986876
)

var (
	geluOnce  sync.Once
	geluTable []float32 // [65536]: f16 bits -> gelu, rounded to f16, as f32
)

// geluF32 is ggml_gelu_f32: 0.5x(1 + tanhf(sqrt(2/pi) x (1 + 0.044715 x^2))),
// with 1 + 0.044715x*x fused as llama.cpp's FMA builds compile it and
// glibc's tanhf (a last-bit change of the tanh can move the f16 table entry
// by a step).
func geluF32(x float32) float32 {
	t := Tanhf(float32(geluSqrt2OverPi) * x * fma32(float32(geluCoefA)*x, x, 1))
	return 0.5 * x * (1 + t)
}

func geluLookup() []float32 {
	geluOnce.Do(func() {
		geluTable = make([]float32, 1<<16)
		for h := range geluTable {
			x := quant.FP16ToFP32(uint16(h))
			geluTable[h] = quant.FP16ToFP32(quant.FP32ToFP16(geluF32(x)))
		}
	})
	return geluTable
}

// GELU sets out = gelu(x) (tanh approximation, ggml's f16 table). out may
// alias x.
func GELU(out, x []float32) { geglu(out, x, nil) }

// GeGLU sets out = gelu(gate) * up (ggml_vec_geglu_f32). out may alias
// gate or up.
func GeGLU(out, gate, up []float32) { geglu(out, gate, up[:len(gate)]) }

func geglu(out, x, up []float32) {
	out = out[:len(x)]
	n8 := len(x) &^ 7
	var up8, upTail []float32 // nil for GELU
	if up != nil {
		up = up[:len(x)]
		up8, upTail = up[:n8], up[n8:]
	}
	tab := geluLookup()
	if n8 > 0 {
		active.geglu(out[:n8], x[:n8], up8, tab)
	}
	gegluGeneric(out[n8:], x[n8:], upTail, tab)
}

// gegluGeneric sets out[i] = gelu(x[i]) * up[i] (up nil: gelu(x[i]))
// through the f16 table tab (geluLookup).
func gegluGeneric(out, x, up, tab []float32) {
	for i, v := range x {
		var g float32
		switch {
		case v <= -10:
			g = 0
		case v >= 10:
			g = v
		default:
			g = tab[quant.FP32ToFP16(v)]
		}
		if up != nil {
			g *= up[i]
		}
		out[i] = g
	}
}
