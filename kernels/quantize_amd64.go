//go:build !purego

package kernels

import (
	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/quant"
)

// AVX2 activation quantizers. They must give the generic quantizers' bytes
// exactly (acts_q8.go); the tests compare them on random and edge data.
func fillAVX2Quantize(s *kernelSet) {
	s.quantize[ggml.Q8_0] = quantizeQ8_0Asm
	s.quantize[ggml.Q8_1] = quantizeQ8_1Asm
	s.quantize[ggml.Q8_K] = quantizeQ8_KAsm
	s.quantize[ggml.F16] = quantizeF16Asm
}

// f32ToF16BytesAVX2 is f32ToF16AVX2 (attn_amd64.s) writing to a byte
// address (activation rows need not be 2-byte aligned).
//
//go:noescape
func f32ToF16BytesAVX2(n8 int, dst *byte, src *float32)

// quantizeF16Asm narrows x to F16 with VCVTPS2PH (round to nearest even,
// as quant.QuantizeRowF16 and ggml's F16C path), the tail in Go.
func quantizeF16Asm(x []float32, y []byte) {
	_ = y[2*len(x)-1]
	n8 := len(x) &^ 7
	if n8 > 0 {
		f32ToF16BytesAVX2(n8/8, &y[0], &x[0])
	}
	if n8 < len(x) {
		quant.QuantizeRowF16(x[n8:], y[2*n8:2*len(x)])
	}
}

// quantizeQ8_0AVX2 writes nb Q8_0 blocks (34 bytes each) at y from the
// 32*nb floats at x. Reference loop: quantizeActQ8_0.
//
//go:noescape
func quantizeQ8_0AVX2(nb int, x *float32, y *byte)

// quantizeQ8_1AVX2 writes nb Q8_1 blocks (36 bytes each) at y from the
// 32*nb floats at x. Reference loop: quantizeActQ8_1.
//
//go:noescape
func quantizeQ8_1AVX2(nb int, x *float32, y *byte)

func quantizeQ8_0Asm(x []float32, y []byte) {
	nb := len(x) / qk
	if nb == 0 {
		return
	}
	_ = y[nb*q8_0Bytes-1]
	quantizeQ8_0AVX2(nb, &x[0], &y[0])
}

func quantizeQ8_1Asm(x []float32, y []byte) {
	nb := len(x) / qk
	if nb == 0 {
		return
	}
	_ = y[nb*q8_1Bytes-1]
	quantizeQ8_1AVX2(nb, &x[0], &y[0])
}

// quantizeQ8_KAVX2 writes nb Q8_K blocks (292 bytes each) at y from the
// 256*nb floats at x. Reference loop: quant.QuantizeRowQ8_K.
//
//go:noescape
func quantizeQ8_KAVX2(nb int, x *float32, y *byte)

func quantizeQ8_KAsm(x []float32, y []byte) {
	nb := len(x) / qkK
	if nb == 0 {
		return
	}
	_ = y[nb*q8_KBytes-1]
	quantizeQ8_KAVX2(nb, &x[0], &y[0])
}
