package kernels

import (
	"encoding/binary"
	"math"

	"github.com/gollm/gollm/quant"
)

// Activation quantizers with the numerics of ggml's x86 quantize_row_q8_0
// and quantize_row_q8_1 (the functions llama.cpp runs on AVX machines), not
// of the reference quantizers used for weights: the multiplier is 127/amax
// rather than 1/(amax/127), and values round half to even rather than half
// away from zero. The difference is one code on a few elements, but it is
// enough to move logits of random-weight models past the parity tolerance.

// quantizeActQ8_0 quantizes len(x) (a multiple of 32) floats into Q8_0 blocks.
func quantizeActQ8_0(x []float32, y []byte) {
	for i := 0; i < len(x)/32; i++ {
		xb, yb := x[i*32:i*32+32], y[i*34:i*34+34]
		d, id := q8Scale(xb)
		binary.LittleEndian.PutUint16(yb, quant.FP32ToFP16(d))
		for j, v := range xb {
			yb[2+j] = byte(int8(math.RoundToEven(float64(v * id))))
		}
	}
}

// quantizeActQ8_1 is quantizeActQ8_0 plus s = d * sum(q) in each block.
func quantizeActQ8_1(x []float32, y []byte) {
	for i := 0; i < len(x)/32; i++ {
		xb, yb := x[i*32:i*32+32], y[i*36:i*36+36]
		d, id := q8Scale(xb)
		binary.LittleEndian.PutUint16(yb, quant.FP32ToFP16(d))
		sum := int32(0)
		for j, v := range xb {
			q := int8(math.RoundToEven(float64(v * id)))
			yb[4+j] = byte(q)
			sum += int32(q)
		}
		binary.LittleEndian.PutUint16(yb[2:], quant.FP32ToFP16(d*float32(sum)))
	}
}

// q8Scale returns the block scale d = amax/127 and the multiplier 127/amax.
func q8Scale(xb []float32) (d, id float32) {
	var amax float32
	for _, v := range xb {
		amax = max(amax, math.Float32frombits(math.Float32bits(v)&0x7fffffff))
	}
	d = amax / 127
	if amax != 0 {
		id = 127 / amax
	}
	return d, id
}
