package kvcache

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/kernels"
	"github.com/gollm/gollm/quant"
)

// encodeRow stores src (one position's K or V) into dst in storage type t.
// The roundings are the ones llama.cpp applies when it copies K and V into
// its cache on x86, so that attention sees the same stored values.
func encodeRow(t ggml.Type, dst []byte, src []float32) {
	switch t {
	case ggml.F16:
		// vcvtps2ph with round-to-nearest-even, as ggml's FP32_TO_FP16.
		kernels.F32ToF16(asU16(dst), src)
	case ggml.Q8_0:
		quantizeRowQ8_0(src, dst)
	default:
		copy(asF32(dst), src)
	}
}

// quantizeRowQ8_0 quantizes len(x) (a multiple of 32) values into Q8_0
// blocks with the numerics of ggml's x86 quantize_row_q8_0, which is what
// llama.cpp's set_rows runs for a q8_0 cache: d = amax/127 stored as fp16,
// codes round(x * (127/amax)) with round-half-to-even (vroundps), saturated
// to int8 (vpackssdw/vpacksswb). The reference quantizer of package quant
// differs (multiplier 1/d, half away from zero) and would move a few codes.
func quantizeRowQ8_0(x []float32, y []byte) {
	nb := len(x) / 32
	y = y[:nb*34]
	for i := 0; i < nb; i++ {
		xb, yb := x[i*32:i*32+32], y[i*34:i*34+34]
		var amax float32
		for _, v := range xb {
			// A plain comparison: the max builtin's NaN and -0 handling
			// makes it several times slower here.
			if a := math.Float32frombits(math.Float32bits(v) & 0x7fffffff); a > amax {
				amax = a
			}
		}
		d := amax / 127
		var id float32
		if amax != 0 {
			id = 127 / amax
		}
		binary.LittleEndian.PutUint16(yb, quant.FP32ToFP16(d))
		qs := yb[2:34]
		for j, v := range xb {
			// |v*id| <= 127 (plus an ulp), so adding and removing 1.5*2^23
			// rounds to an integer, half to even, in float32 itself: the
			// same result as vroundps, without math.RoundToEven's call.
			q := float32(v*id) + roundMagic // the conversion forbids fusing into an FMA
			q -= roundMagic
			qs[j] = byte(int8(int32(q)))
		}
	}
}

// roundMagic is 1.5*2^23: float32 sums with it have no fraction bits.
const roundMagic = 12582912

// asU16 reinterprets b (2-byte aligned: storage is allocated as uint64s and
// every row offset is even for F16) as halves.
func asU16(b []byte) []uint16 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&b[0])), len(b)/2)
}

// asF32 reinterprets b (4-byte aligned for F32 storage) as float32s.
func asF32(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}
